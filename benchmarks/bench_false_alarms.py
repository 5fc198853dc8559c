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

Run: ``python benchmarks/bench_false_alarms.py [--samples 200000] [--audits 100]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from dpaudit.blackbox import AuditBudget, audit_mechanism
from dpaudit.registry import all_audits

ALPHA = 0.05


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--audits", type=int, default=100)
    args = parser.parse_args()
    limit = int(stats.binom.ppf(0.999, args.audits, ALPHA))
    print(f"{args.audits} audits per mechanism, {args.samples} samples per side, alpha={ALPHA}; "
          f"a valid auditor gives <= {ALPHA * args.audits:.0f} on average, alarm above {limit}")
    for name, spec in all_audits().items():
        if spec.faulty or spec.mechanism is None:
            continue
        mech = spec.mechanism(spec.default_epsilon, spec.default_delta)
        t = time.perf_counter()
        bounds = np.array([
            audit_mechanism(mech, alpha=ALPHA, budget=AuditBudget(samples=args.samples),
                            seed=seed, key=f"false-alarms:{name}").epsilon_lower_bound
            for seed in range(args.audits)])
        violated = int((bounds > mech.epsilon).sum())
        print(f"  {name:<22} VIOLATED {violated:>3}/{args.audits}  "
              f"({'ok' if violated <= limit else 'TOO MANY'}); bound mean {bounds.mean():.4f}, "
              f"max {bounds.max():.4f} vs claim {mech.epsilon}; {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
