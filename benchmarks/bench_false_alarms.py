"""False alarms of the black-box auditor on correct mechanisms (issue 3, "No false alarms").

Runs 100 seeded audits of every correct built-in mechanism of ``audit`` (the registered checks
that declare a ``mechanism``: ``laplace``, ``gaussian``, ``privbern``, ``randomized-response``,
``gaussian-analytic``, ``laplace-sensitivity``, ``gaussian-sensitivity``) at alpha = 0.05 and
prints the
number of ``VIOLATED`` verdicts. A valid bound is above the (true) claim with probability at
most alpha, so each count is stochastically below Binomial(100, 0.05): mean at most 5, and
a count above the binomial's 0.999 quantile (13 for 100 audits) would be evidence against
validity (that check has false-alarm probability 1e-3 per mechanism). The tight mechanisms (Laplace,
PrivBern, randomized response, analytic Gaussian) sit exactly at the claim, the hardest case.

Then the family-wise error of a whole check (issue 8): a check with 8 sampled claims of one
correct randomized response at alpha = 0.2, run over ``--audits`` seeds; the engine splits
alpha over the sampled claims (Bonferroni), so the exit code is 1 in at most 20% of the seeds
(before the split: 149/300).

The audits above keep ``--samples`` as given (``tail_draws=None``). Then the claim-sized route
of delta > 0 (budget from delta, selection streamed into histograms): ``--tail-audits``
seeded audits of each correct mechanism with ``delta > 0`` at ``--tail-samples`` draws per
side (the default audit's 1e8 scaled down so the section runs in minutes), counted as above.

Then the gray-box stage on (the route of ``audit MODULE:OBJECT``, the command run in this
process): ``--graybox-audits`` seeds of each correct mechanism of ``examples/graybox`` (read
exactly: a VIOLATED there would be a wrong exact computation, not chance) and of two correct
mechanisms the stage cannot read exactly (``examples/graybox/unreadable.py``), which it hands,
steered or not, to the sampled audit at ``alpha``: counted as above.

Run: ``python benchmarks/bench_false_alarms.py [--samples 200000] [--audits 100]
[--tail-audits 20] [--tail-samples 10000000] [--graybox-audits 20] [--only-graybox]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from dpaudit.engine import AuditSpec, ClaimSpec, run_check
from dpaudit.mechanisms import RandomizedResponse
from dpaudit.registry import all_audits
from dpaudit.stats.blackbox import AuditBudget, audit_mechanism, blackbox_evaluator
from dpaudit.stats.results import Notion

ALPHA = 0.05


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--audits", type=int, default=100)
    parser.add_argument("--tail-audits", type=int, default=20)
    parser.add_argument("--tail-samples", type=int, default=10_000_000)
    parser.add_argument("--only-tail", action="store_true")
    parser.add_argument("--graybox-audits", type=int, default=20)
    parser.add_argument("--only-graybox", action="store_true")
    args = parser.parse_args()
    if not args.only_graybox:
        if not args.only_tail:
            plain(args)
            family_wise(args.audits, min(args.samples, 20_000))
        tail(args.tail_audits, args.tail_samples)
    graybox(args.graybox_audits)


#: correct user mechanisms for the gray-box route (examples/graybox and two read by sampling)
GRAYBOX_CORRECT = ["unclipped_sum:ClippedSum", "two_releases:NoisyCount",
                   "scale_from_len:PublicSizeMean", "private_branch:NoisySum",
                   "python_random:GaussSum", "class_counts:PublicClassCounts",
                   "declared:DeclaredSum", "unreadable:UserRandomizedResponse",
                   "unreadable:ExponentialsLaplace"]


def graybox(audits: int) -> None:
    import contextlib
    import importlib
    import io
    import json
    import sys
    import tempfile
    from pathlib import Path

    from dpaudit.cli import main as cli

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    limit = int(stats.binom.ppf(0.999, audits, ALPHA))
    print(f"gray-box stage on (audit MODULE:OBJECT): {audits} seeds per mechanism, alpha="
          f"{ALPHA}; alarm above {limit}")
    for target in (f"examples.graybox.{t}" for t in GRAYBOX_CORRECT):
        importlib.import_module(target.split(":")[0])
        t = time.perf_counter()
        verdicts = []
        for seed in range(audits):
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "r.json"
                with contextlib.redirect_stdout(io.StringIO()):
                    cli(["audit", target, "--seed", str(seed), "--samples", "20000",
                         "--no-state", "--json", str(out)])
                verdicts.append(json.loads(out.read_text())["claims"][0]["verdict"])
        violated = verdicts.count("VIOLATED")
        kinds = ", ".join(f"{v} {verdicts.count(v)}" for v in sorted(set(verdicts)))
        print(f"  {target.split('.')[-1]:<34} VIOLATED {violated:>3}/{audits}  "
              f"({'ok' if violated <= limit else 'TOO MANY'}); {kinds}; "
              f"{time.perf_counter() - t:.1f} s", flush=True)


def tail(audits: int, samples: int) -> None:
    limit = int(stats.binom.ppf(0.999, audits, ALPHA))
    print(f"claim-sized route (delta > 0): {audits} audits per mechanism, up to {samples} "
          f"draws per side; alarm above {limit}")
    for name, spec in all_audits().items():
        if spec.faulty or spec.mechanism is None or spec.default_delta <= 0:
            continue
        mech = spec.mechanism(spec.default_epsilon, spec.default_delta)
        t = time.perf_counter()
        budget = AuditBudget(max_tail_samples=samples)
        bounds = np.array([
            audit_mechanism(mech, alpha=ALPHA, budget=budget, seed=seed,
                            key=f"false-alarms-tail:{name}").epsilon_lower_bound
            for seed in range(audits)])
        violated = int((bounds > mech.epsilon).sum())
        print(f"  {name:<22} VIOLATED {violated:>3}/{audits}  "
              f"({'ok' if violated <= limit else 'TOO MANY'}); bound mean {bounds.mean():.4f}, "
              f"max {bounds.max():.4f} vs claim {mech.epsilon}; {time.perf_counter() - t:.1f} s",
              flush=True)


def plain(args: argparse.Namespace) -> None:
    limit = int(stats.binom.ppf(0.999, args.audits, ALPHA))
    print(f"{args.audits} audits per mechanism, {args.samples} samples per side, alpha={ALPHA}; "
          f"a valid auditor gives <= {ALPHA * args.audits:.0f} on average, alarm above {limit}")
    for name, spec in all_audits().items():
        if spec.faulty or spec.mechanism is None:
            continue
        mech = spec.mechanism(spec.default_epsilon, spec.default_delta)
        t = time.perf_counter()
        bounds = np.array([
            audit_mechanism(mech, alpha=ALPHA,
                            budget=AuditBudget(samples=args.samples, tail_draws=None),
                            seed=seed, key=f"false-alarms:{name}").epsilon_lower_bound
            for seed in range(args.audits)])
        violated = int((bounds > mech.epsilon).sum())
        print(f"  {name:<22} VIOLATED {violated:>3}/{args.audits}  "
              f"({'ok' if violated <= limit else 'TOO MANY'}); bound mean {bounds.mean():.4f}, "
              f"max {bounds.max():.4f} vs claim {mech.epsilon}; {time.perf_counter() - t:.1f} s",
              flush=True)


def family_wise(seeds: int, samples: int) -> None:
    alpha = 0.2
    rr = blackbox_evaluator(lambda e, d: RandomizedResponse(e), samples=samples,
                            quick_samples=samples)
    spec = AuditSpec("user-rr", "8 sampled claims of one correct randomized response", "bench",
                     [ClaimSpec(f"rr-{i}", Notion.LDP, "eps-LDP", "bench", rr) for i in range(8)],
                     default_epsilon=1.0, default_delta=0.0)
    t = time.perf_counter()
    exits = sum(run_check(spec, seed=s, alpha=alpha, regret=False).exit_code
                for s in range(seeds))
    limit = int(stats.binom.ppf(0.999, seeds, alpha))
    print(f"  check with 8 sampled claims (randomized response, {samples} samples each), alpha="
          f"{alpha}: exit 1 in {exits}/{seeds} seeds (at most {alpha:.0%} expected; alarm above "
          f"{limit}); {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
