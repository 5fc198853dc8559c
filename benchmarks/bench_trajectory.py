"""Sampled attacks on the whole action sequence against the exact trajectory loss (issue 22).

For every registered audit (broken twins left out) that declares a ``trajectory-exact``
finding or claim (see ``audits/recipes/trajectory.py``), at the claim's default
``(eps, delta)``, K = 2 and the audit's small horizon:

* ``exact``: the exact eps(delta) of the worst neighbouring reward tables the search found
  (exact for that pair; the search's coverage is in the audit's report);
* ``sampled (engine)``: the project's action-level sampled attack on the *same* pair
  (:func:`dpaudit.stats.sampled.sampled_audit` on the running algorithm's ``simulate``: the
  event, including whole-sequence likelihood-ratio subsets, chosen on a selection sample
  and measured on a fresh one, Clopper-Pearson limits at alpha = 0.05);
* ``sampled (exact event)``: the event chosen *without samples* from the exact laws (the
  outcomes of largest log-ratio, as many as maximise the bound projected at the measurement
  size; ``exact_event`` of ``audits/recipes/trajectory.py``), measured on fresh samples of the
  running algorithm, Clopper-Pearson at alpha = 0.05.
  Valid for the same reason as the engine's: the event is fixed before the measurement.

Run: ``python benchmarks/bench_trajectory.py [--quick] [--samples N] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

from dpaudit.audits.recipes.trajectory import exact_event
from dpaudit.engine import CheckContext
from dpaudit.registry import all_audits
from dpaudit.stats.blackbox import mechanism_pairs
from dpaudit.stats.evidence import epsilon_from_counts
from dpaudit.stats.rng import generator
from dpaudit.stats.sampled import AuditBudget, sampled_audit
from dpaudit.usercode.notions import GlobalDPTarget

ALPHA = 0.05
SEED = 2022


def trajectory_specs():
    """``(name, spec, kind, evaluate)`` of every sound audit with an exact trajectory."""
    for name, spec in sorted(all_audits().items()):
        if spec.faulty:
            continue
        for f in spec.findings:
            if f.id == "trajectory-exact" and getattr(f.evaluate, "simulator", None):
                yield name, spec, "finding", f.evaluate
        for c in spec.claims:
            if c.id == "trajectory-exact" and getattr(c.evaluate, "simulator", None):
                yield name, spec, "claim", c.evaluate


def _codes(actions: np.ndarray, k: int = 2) -> np.ndarray:
    weights = k ** np.arange(actions.shape[1] - 1, -1, -1, dtype=np.int64)
    return (np.asarray(actions, dtype=np.int64) * weights).sum(axis=1)


def measure(name, spec, kind, evaluate, *, quick: bool, samples: int, seed: int = SEED,
            ctx: CheckContext | None = None) -> dict:
    """One seed's row; pass the same ``ctx`` for several seeds of one audit (the exact laws
    are then computed once, in ``ctx.shared``)."""
    if ctx is None:
        ctx = CheckContext(spec.default_epsilon, spec.default_delta, quick=quick,
                           variant=spec.variant)
    start = time.perf_counter()
    found = evaluate.exact(ctx)
    out = evaluate(ctx) if kind == "finding" else evaluate(ctx, None)
    data = out.data
    res = found["search"]
    exact = float(res.loss.epsilon_at_delta)
    table, prime = np.array(data["table"]), np.array(data["table_prime"])
    horizon = table.shape[0]
    alg = evaluate.simulator(ctx, horizon)
    target = GlobalDPTarget(alg, epsilon=ctx.epsilon, delta=ctx.delta,
                            neighbours=[(table, prime)])
    t_exact = time.perf_counter() - start
    # (1) the engine's own attack on the same pair
    ev = sampled_audit(mechanism_pairs(target, target.neighbours), delta=ctx.delta,
                       alpha=ALPHA, budget=AuditBudget(samples=samples), seed=seed,
                       key=f"bench-trajectory:{name}", who="simulate")
    engine, _, _ = epsilon_from_counts(ev.count_p, ev.n_p, ev.count_q, ev.n_q,
                                       delta=ctx.delta, alpha=ALPHA)
    # (2) the event chosen from the exact laws, measured on fresh samples
    adaptive = res.horizon
    event, direction, _ = exact_event(res.law_p.probabilities, res.law_q.probabilities,
                                      delta=ctx.delta, n=samples, alpha=ALPHA)
    member = np.zeros(res.law_p.probabilities.size, dtype=bool)
    member[event] = True
    prefix = None
    hits = []
    for side, tab in enumerate((table, prime)):
        acts = np.asarray(target.sample(tab, samples,
                                        generator(seed, f"exact-event:{name}", side)))
        if prefix is None:
            prefix = acts[0, :horizon - adaptive]
        same = np.all(acts[:, :horizon - adaptive] == prefix, axis=1)
        hits.append(int((member[_codes(acts[:, horizon - adaptive:])] & same).sum()))
    cp_, cq_ = (hits[0], hits[1]) if direction == "D vs D'" else (hits[1], hits[0])
    guided, _, _ = epsilon_from_counts(cp_, samples, cq_, samples, delta=ctx.delta,
                                       alpha=ALPHA)
    return {"name": name, "kind": kind, "epsilon": ctx.epsilon, "delta": ctx.delta,
            "horizon": horizon, "exact": exact, "exhaustive": bool(res.exhaustive),
            "sampled_engine": engine, "sampled_engine_event": ev.event,
            "sampled_exact_event": guided, "event_size": int(member.sum()),
            "samples_per_side": samples, "alpha": ALPHA, "seed": seed,
            "ratio_engine": engine / exact if exact > 0 else None,
            "ratio_exact_event": guided / exact if exact > 0 else None,
            "gap_engine": exact - engine, "gap_exact_event": exact - guided,
            "seconds": time.perf_counter() - start, "seconds_exact": t_exact}


def markdown(rows: list[dict]) -> str:
    """The rows as the README's table."""
    out = ["| check | T | exact eps(delta) | sampled, engine's event (gap) | sampled, exact "
           "event (gap) |", "|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['name']} (eps={r['epsilon']:g}, delta={r['delta']:g}) | "
                   f"{r['horizon']} | {r['exact']:.3f} | {r['sampled_engine']:.3f} "
                   f"({r['gap_engine']:.2f}) | {r['sampled_exact_event']:.3f} "
                   f"({r['gap_exact_event']:.2f}) |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the audits' --quick horizons")
    ap.add_argument("--samples", type=int, default=2_000_000,
                    help="draws per side (default 2e6: DP-FTPL-New's worst events have "
                         "probability ~3e-5 under the neighbour; at 2e5 the Clopper-Pearson "
                         "limit of their count costs ~0.9 in eps, at 2e6 ~0.4)")
    ap.add_argument("--seeds", default=str(SEED),
                    help="comma-separated seeds of the sampled attacks (the exact laws are "
                         "computed once)")
    ap.add_argument("--json", default=None, help="write the rows here")
    ap.add_argument("--only", default=None, help="one audit name")
    ap.add_argument("--skip", default="", help="comma-separated audit names to leave out")
    ap.add_argument("--markdown", default=None, metavar="JSON",
                    help="print the table of a stored --json result and exit")
    args = ap.parse_args(argv)
    if args.markdown:
        with open(args.markdown) as fh:
            print(markdown(json.load(fh)["rows"]), end="")
        return 0
    rows = []
    for name, spec, kind, evaluate in trajectory_specs():
        if args.only and name != args.only or name in args.skip.split(","):
            continue
        ctx = CheckContext(spec.default_epsilon, spec.default_delta, quick=args.quick,
                           variant=spec.variant)
        for seed in (int(v) for v in args.seeds.split(",")):
            row = measure(name, spec, kind, evaluate, quick=args.quick, samples=args.samples,
                          seed=seed, ctx=ctx)
            rows.append(row)
            print(f"seed {seed} ", end="")
            print(f"{name:24s} T={row['horizon']:4d} exact {row['exact']:.3f}  sampled engine "
                  f"{row['sampled_engine']:.3f} (gap {row['gap_engine']:.3f})  exact event "
                  f"{row['sampled_exact_event']:.3f} (gap {row['gap_exact_event']:.3f})  "
                  f"[{row['seconds']:.0f} s]", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "quick": args.quick, "samples": args.samples}, fh,
                      indent=1, default=lambda x: None if isinstance(x, float)
                      and not math.isfinite(x) else str(x))
    return 0


if __name__ == "__main__":
    sys.exit(main())
