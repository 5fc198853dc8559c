"""``ldp-tbp-fixed-confidence``: Barbara, Lazzaro & Pike-Burke 2025, Algorithm 2.

The fixed-confidence algorithm (Chen et al. 2014's LUCB rule on PrivBern bits; reconstruction
in :mod:`dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding`) observes only
PrivBern bits, so the privacy
claims are those of the report mechanism (exact and sampled, as for the fixed budget).

Findings: over a range of ``eps``, the correctness rate with its Clopper-Pearson interval
beside ``1 - delta`` (Theorem 4.1), the mean sample complexity beside Theorem 4.1's implicit
upper bound ``T <= K + 2 H^eps log(4 K T^3 / delta)`` (with the fraction of runs beyond it,
which the theorem bounds by ``delta``) and Theorem 4.2's lower bound.
"""

from __future__ import annotations

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.bounds import thm41_upper, thm42_lower
from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding import PrivateThresholdLUCB
from dpaudit.audits.barbara_lazzaro_pike_burke_2025.ldp_tbp_fixed_budget import PAPER
from dpaudit.audits.recipes.ldp import (
    claim,
    privbern_exact_evidence,
    privbern_sampled_evidence,
    privbern_simulated_claim,
)
from dpaudit.engine import AuditSpec, Budget, CheckContext, FindingSpec
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.stats.events import cp_lower, cp_upper
from dpaudit.stats.evidence import ExperimentEvidence, Measurement, decide_experiment
from dpaudit.stats.results import Finding, Notion

MEANS = (0.1, 0.3, 0.7, 0.9)
TAU = 0.5
DELTA = 0.1  # the confidence parameter of Algorithm 2 (not a privacy delta)
# budgets (full run, --quick)
REPORT_SAMPLES = Budget(full=1_000_000, quick=100_000)  # report-ldp-sampled: draws per reward
SIM_SAMPLES = Budget(full=400_000, quick=40_000)  # reports-sampled: simulated runs per source
RUNS = Budget(full=1000, quick=200)  # runs per eps of the finding
EPSILONS = Budget(full=(0.5, 1.0, 2.0, 4.0), quick=(1.0, 2.0, 4.0))  # the finding's eps grid


def _policy(ctx: CheckContext, eps: float | None = None) -> PrivateThresholdLUCB:
    """The audited algorithm (or a planted twin, ``ctx.variant``) at ``eps`` (default: the
    claim's)."""
    cls = ctx.variant or PrivateThresholdLUCB
    return cls(ctx.epsilon if eps is None else eps, tau=TAU, delta=DELTA)


def _finding(ctx: CheckContext) -> Finding:
    runs, epsilons = ctx.size(RUNS), ctx.size(EPSILONS)
    rows, data, cells = [], [], []
    for eps in epsilons:
        alg = _policy(ctx, eps)
        upper = thm41_upper(MEANS, TAU, eps, DELTA)
        res = alg.simulate(BernoulliRewards(MEANS), int(20 * upper), runs,
                           rng=ctx.rng("fc", str(eps)))
        k = int(res.correct.sum())
        lo, hi = float(cp_lower(k, runs, 0.025)), float(cp_upper(k, runs, 0.025))
        beyond = int((res.stopping_time > upper).sum())
        lower = thm42_lower(MEANS, TAU, eps, DELTA)
        # Theorem 4.1: the set is correct with probability >= 1 - delta, and the stopping time
        # exceeds the bound with probability <= delta; the evidence module decides both
        cells += [Measurement(f"eps={eps:g}: correct", 1 - DELTA, k / runs, runs, "at least",
                              count=k),
                  Measurement(f"eps={eps:g}: beyond Thm 4.1", DELTA, beyond / runs, runs,
                              "at most", count=beyond)]
        rows.append(f"eps={eps:<4g} correct {k}/{runs} = {k / runs:.3f} (95% CI {lo:.3f}.."
                    f"{hi:.3f}; claim >= {1 - DELTA:g})  mean tau {res.stopping_time.mean():.1f}"
                    f"  Thm 4.1 upper {upper:.1f} (runs beyond: {beyond})  Thm 4.2 lower "
                    f"{lower:.3g}" + ("" if res.stopped.all() else "  (some runs capped)"))
        data.append({"epsilon": eps, "correct": k / runs, "ci": [lo, hi],
                     "mean_stop": float(res.stopping_time.mean()), "thm41": upper,
                     "beyond": beyond, "thm42": lower})
    decision = decide_experiment(ExperimentEvidence(
        "Theorem 4.1: correct with probability >= 1 - delta, stopping time within the bound "
        "with probability >= 1 - delta", tuple(cells)), alpha=ctx.alpha)
    summary = (f"means {MEANS}, tau={TAU}, delta={DELTA}, {runs} runs per eps: Theorem 4.1 "
               f"{decision.status} ({decision.reason}; Clopper-Pearson limits)")
    return Finding("correctness-and-sample-complexity", summary, Notion.LDP,
                   details=tuple(rows), data={"grid": data, "status": decision.status})


def _spec() -> AuditSpec:
    return AuditSpec(
        name="ldp-tbp-fixed-confidence",
        description="fixed-confidence private thresholding (LUCB on PrivBern bits): eps-LDP "
                    "reports, correctness and sample complexity vs Theorems 4.1-4.2",
        paper=PAPER + ", Algorithm 2, Theorems 4.1-4.2",
        claims=[
            claim("report-ldp-exact", "each user's report (one PrivBern bit) is eps-LDP, "
                  "decided exactly on the report law", "Theorem 4.1 (privacy part), Lemma 2.1",
                  lambda ctx: privbern_exact_evidence(_policy(ctx), ctx)),
            claim("report-ldp-sampled", "the same, attacked by sampling the algorithm's "
                  "report path", "Theorem 4.1 (privacy part), Lemma 2.1",
                  lambda ctx: privbern_sampled_evidence(_policy(ctx), ctx,
                                                        ctx.size(REPORT_SAMPLES)),
                  ),
            privbern_simulated_claim(_policy, SIM_SAMPLES,
                                     "Theorem 4.1 (privacy part), Lemma 2.1"),
        ],
        findings=[FindingSpec("correctness-and-sample-complexity", _finding,
                              observes="actions")],
        default_epsilon=1.0, default_delta=0.0, variant=PrivateThresholdLUCB,
    )


AUDITS = [_spec()]
