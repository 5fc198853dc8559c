"""Release-level audits (issue 22): tightness against the exact release loss, and the twins.

Two measurements, written to ``benchmarks/results/release_level.{md,json}``:

1. **Tightness.** For each algorithm at its default (epsilon, delta), the release-level claim
   alone (the same claim ``check NAME`` runs, at the default budget and the per-claim alpha
   ``0.025`` it gets there: 0.05 split over two sampled claims), over seeds ``1..S``: the
   sampled lower bound, the exact loss of the release transcript on the attacked pair, their
   ratio, and the verdict (the correct algorithm must not be VIOLATED).
2. **Twins.** ``check NAME-<bug>`` (the twin audits hold only the release-level claim; alpha
   0.05, default budget) over seeds ``1..S``: how often VIOLATED, the bounds, the true loss.

Run: ``python benchmarks/bench_release_level.py [--seeds S]`` from the repository root (one
process; minutes of CPU at S = 10).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from dpaudit.engine import run_check
from dpaudit.registry import all_audits, get_audit

CORRECT = {"adap-ucb": "episode-release-sampled", "adap-klucb": "episode-release-sampled",
           "dp-se": "epoch-release-sampled", "dp-ucb": "counter-release-sampled",
           "dp-ucb-bound": "counter-release-sampled", "private-ucb": "tree-release-sampled",
           "dp-ucb-int": "interval-release-sampled", "dp-ftpl-beta": "releases-sampled"}
CLAIM_ALPHA = 0.025
#: claims whose evidence carries no exact figure: computed here (benchmarks/release_exact.py)
EXACT = {"dp-ftpl-beta": lambda: __import__("release_exact").ftpl_beta()[0]}


def _release_only(name: str):
    spec = get_audit(name)
    claims = [c for c in spec.claims if c.id == CORRECT[name]]
    return replace(spec, claims=claims, findings=(), regret=None)


def _save(out: Path | None, tight: list[dict], twin_rows: list[dict], seeds: list[int]) -> None:
    """Write what is measured so far (a long run keeps its finished rows if stopped)."""
    if out is None:
        return
    out.with_suffix(".json").write_text(json.dumps(
        {"seeds": seeds, "tightness": tight, "twins": twin_rows}, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(tight, twin_rows, seeds))


def tightness(seeds: list[int], names: list[str], out: Path | None = None) -> list[dict]:
    rows: list[dict] = []
    for name in names:
        spec = _release_only(name)
        bounds, verdicts, exact, t0 = [], [], None, time.perf_counter()
        for s in seeds:
            claim = run_check(spec, seed=s, alpha=CLAIM_ALPHA, regret=False).claims[0]
            bounds.append(float(claim.epsilon_lower_bound or 0.0))
            verdicts.append(claim.verdict.value)
            exact = claim.data.get("exact_release_loss")
        if exact is None and name in EXACT:
            exact = EXACT[name]()
        med = statistics.median(bounds)
        rows.append({"algorithm": name, "claim": CORRECT[name], "epsilon": spec.default_epsilon,
                     "delta": spec.default_delta, "bounds": bounds, "median_bound": med,
                     "min_bound": min(bounds), "exact_release_loss": exact,
                     "ratio": None if not exact else med / exact,
                     "verdicts": verdicts, "seconds": time.perf_counter() - t0})
        print(rows[-1], flush=True)
        _save(out, rows, [], seeds)
    return rows


def twins(seeds: list[int], names: list[str] | None, out: Path | None = None) -> list[dict]:
    rows: list[dict] = []
    for name, spec in all_audits().items():
        if not (spec.faulty and spec.true_epsilon is not None and spec.original in CORRECT):
            continue
        if names and name not in names:
            continue
        verdicts, bounds, t0 = [], [], time.perf_counter()
        for s in seeds:
            report = run_check(spec, seed=s, regret=False)
            verdicts.append(report.verdict.value)
            bounds.append(float(report.claims[0].epsilon_lower_bound or 0.0))
        rows.append({"twin": name, "true_epsilon": spec.true_epsilon,
                     "claim_epsilon": spec.default_epsilon,
                     "violated": sum(v == "VIOLATED" for v in verdicts), "seeds": len(seeds),
                     "bounds": bounds, "median_bound": statistics.median(bounds),
                     "seconds": time.perf_counter() - t0})
        print(rows[-1], flush=True)
        _save(out, [], rows, seeds)
    return rows


def markdown(tight: list[dict], twin_rows: list[dict], seeds: list[int]) -> str:
    lines = [f"# Release-level audits (seeds {seeds[0]}..{seeds[-1]}, default budgets)", "",
             "## Tightness: sampled release-level bound vs the exact release loss", "",
             f"Per-claim alpha {CLAIM_ALPHA} (0.05 split over the two sampled claims of each "
             "check). Exact: the pure-DP loss of the release transcript on the attacked pair "
             "(derived in each audit's docstring).", "",
             "| algorithm | claim | eps | median bound | min bound | exact release loss | "
             "ratio (median/exact) | verdicts |", "|---|---|---|---|---|---|---|---|"]
    for r in tight:
        verdicts = ", ".join(f"{v} x{r['verdicts'].count(v)}" for v in sorted(set(
            r["verdicts"])))
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
        exact = "-" if r["exact_release_loss"] is None else f"{r['exact_release_loss']:.4g}"
        lines.append(f"| {r['algorithm']} | {r['claim']} | {r['epsilon']:g} | "
                     f"{r['median_bound']:.3f} | {r['min_bound']:.3f} | {exact} | {ratio} | "
                     f"{verdicts} |")
    lines += ["", "## Planted twins: `check NAME-<bug>` at the default budget", "",
              "| twin | true loss | claim | VIOLATED | median bound |", "|---|---|---|---|---|"]
    for r in twin_rows:
        lines.append(f"| {r['twin']} | {r['true_epsilon']:.4g} | {r['claim_epsilon']:g} | "
                     f"{r['violated']}/{r['seeds']} | {r['median_bound']:.3f} |")
    lines += ["", "Reproduce: `python benchmarks/bench_release_level.py --seeds "
              f"{len(seeds)}`; one twin at one seed: `python -m dpaudit check "
              "adap-ucb-sqrt2-scale --seed 1`.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=1,
                   help="seeds first..first + seeds - 1")
    p.add_argument("--out", default="benchmarks/results/release_level")
    p.add_argument("--only", choices=("tightness", "twins", "both"), default="both")
    p.add_argument("--names", nargs="*", default=None,
                   help="only these algorithms (tightness) or twins (twins)")
    args = p.parse_args(argv)
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    out = Path(args.out)
    names = args.names or list(CORRECT)
    tight = tightness(seeds, names, out if args.only == "tightness" else None) \
        if args.only != "twins" else []
    twin_rows = twins(seeds, args.names, out if args.only == "twins" else None) \
        if args.only != "tightness" else []
    _save(out, tight, twin_rows, seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
