"""The calibration finding of the privacy profile (issue: claims with delta audited with power,
item 4) on the Gaussian reports of Zheng et al. 2020 and their sqrt(2) twins, over seeds.

For each name, only the claim ``report-ldp-sampled`` is evaluated (the algorithm's report
code on the witness pair, projected on the likelihood-ratio direction) and decided at the
check's per-claim level (``alpha / 2``: the check has two sampled claims), at the default
budget or ``--quick``. A sqrt(2) twin computes its noise with the 2 outside the square root,
so its Gaussian DP parameter is ``sqrt(2)`` times the analysis's: the finding must appear on
every seed. The correct originals must never get it. Results, per name: the seeds with the
finding, the Gaussian DP lower bound's range, the analysis's mu, the verdicts and CPU seconds.

Run: ``python benchmarks/calibration_finding.py [--names a,b] [--seeds 10] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import time

from dpaudit.engine import CheckContext
from dpaudit.registry import all_audits
from dpaudit.stats.evidence import decide

NAMES = ("ldp-one-point", "ldp-one-point-sqrt2", "ldp-two-point-bco", "ldp-two-point-bco-sqrt2",
         "ldp-linear-bandit", "ldp-linear-bandit-sqrt2", "ldp-glm-bandit",
         "ldp-glm-bandit-sqrt2")


def run(name: str, seeds: int, quick: bool) -> dict:
    spec = all_audits()[name]
    claim = next(c for c in spec.claims if c.id == "report-ldp-sampled")
    rows = []
    for seed in range(seeds):
        ctx = CheckContext(spec.default_epsilon, spec.default_delta, 1000 + seed, 0.05, quick, 1,
                           spec.variant)
        t = time.process_time()
        res = decide(claim, ctx, claim.evaluate(ctx, claim), alpha=0.025)
        rows.append({"seed": 1000 + seed, "verdict": res.verdict.value,
                     "finding": "calibration_finding" in res.data,
                     "mu_lower_bound": res.profile["mu_lower_bound"],
                     "analysis_mu": res.profile.get("analysis_mu"),
                     "epsilon_lower_bound": res.epsilon_lower_bound,
                     "cpu_seconds": time.process_time() - t})
    return {"name": name, "quick": quick, "seeds": seeds,
            "with_finding": sum(r["finding"] for r in rows), "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", default=",".join(NAMES))
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    for name in args.names.split(","):
        out = run(name, args.seeds, args.quick)
        mus = [r["mu_lower_bound"] for r in out["rows"]]
        cpu = [r["cpu_seconds"] for r in out["rows"]]
        print(f"{name}: finding on {out['with_finding']}/{out['seeds']} seeds; mu >= "
              f"{min(mus):.4g}..{max(mus):.4g} (analysis {out['rows'][0]['analysis_mu']:.4g}); "
              f"verdicts {sorted({r['verdict'] for r in out['rows']})}; cpu "
              f"{min(cpu):.1f}..{max(cpu):.1f} s", flush=True)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
