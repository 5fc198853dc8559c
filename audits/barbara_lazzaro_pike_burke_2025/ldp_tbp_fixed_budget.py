"""``ldp-tbp-fixed-budget``: private APT (Barbara, Lazzaro & Pike-Burke 2025, Algorithm 1).

Claims (the algorithm is eps-LDP because every reward leaves the user as one PrivBern bit,
Lemma 2.1 and Definition 2.2):

* ``report-ldp-exact``: the report law is known, so its loss is computed exactly at the worst
  pair of rewards (1, 0), on the algorithm's own mechanism object;
* ``report-ldp-sampled``: reports drawn through the algorithm's own ``report`` method for
  rewards 1 and 0, an event chosen on one sample and measured on a fresh one;
* ``trajectory-exact``: the whole pull sequence is eps-DP by post-processing, its law computed
  exactly (:mod:`.trajectory`).
* ``reports-sampled``: the reports the running algorithm sends, recorded through the
  recording hook while it runs on two sources that differ in the first user's reward (so an
  unnoised warm-up pull or noise shared by users is seen; planted twins in
  :mod:`dpaudit.audits.barbara_lazzaro_pike_burke_2025.twins`).

Findings: the measured probability of a wrong set (Eq. (2)) over a grid of budgets ``T`` and
``eps`` beside Theorem 3.1's upper bound, and, on the lower-bound family of Theorem 3.2 (all
arms at ``tau + Delta`` in ``B^0``; ``B^i`` moves arm ``i`` to ``tau - Delta``), the largest
measured loss over the ``K + 1`` environments beside the lower bound (a measured value below
a lower bound, beyond its confidence interval, would contradict the theorem's constant).
Constants are the reconstructed ones of
:mod:`dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.bounds`.
"""

from __future__ import annotations

import numpy as np

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.bounds import thm31_upper, thm32_lower
from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding import (
    BLP_2025_INSTANCE,
    PrivateAPT,
)
from dpaudit.audits.barbara_lazzaro_pike_burke_2025.trajectory import (
    trajectory_claim_spec,
    trajectory_sampled_spec,
)
from dpaudit.audits.recipes.ldp import (
    claim,
    privbern_exact_evidence,
    privbern_sampled_evidence,
    privbern_simulated_claim,
)
from dpaudit.engine import AuditSpec, Budget, CheckContext, FindingSpec
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.stats.events import cp_lower, cp_upper
from dpaudit.stats.results import Finding, Notion

PAPER = "Barbara, Lazzaro & Pike-Burke 2025, Locally Differentially Private Thresholding Bandits"
MEANS = BLP_2025_INSTANCE.means  # defined once, beside the policy
TAU, GAMMA = BLP_2025_INSTANCE.settings["tau"], BLP_2025_INSTANCE.settings["gamma"]
LOWER_GAP = 0.1  # Theorem 3.2's family: arms at tau +- 0.1
# budgets (full run, --quick)
REPORT_SAMPLES = Budget(full=1_000_000, quick=100_000)  # report-ldp-sampled: draws per reward
SIM_SAMPLES = Budget(full=400_000, quick=40_000)  # reports-sampled: simulated runs per source
UPPER_RUNS = Budget(full=2000, quick=300)  # runs per (eps, T) cell of Theorem 3.1's finding
UPPER_BUDGETS = Budget(full=(200, 1000, 4000), quick=(200, 1000))  # its budgets T
LOWER_RUNS = Budget(full=2000, quick=300)  # runs per environment of Theorem 3.2's finding
LOWER_BUDGETS = Budget(full=(400, 1600), quick=(400,))  # its budgets T


def _policy(ctx: CheckContext) -> PrivateAPT:
    """The audited algorithm: :class:`PrivateAPT`, or a planted twin (``ctx.variant``)."""
    return (ctx.variant or PrivateAPT)(ctx.epsilon, tau=TAU, gamma=GAMMA)


def _cp(k: int, n: int, a: float = 0.025) -> tuple[float, float]:
    return float(cp_lower(k, n, a)), float(cp_upper(k, n, a))


def _nontrivial_budget(eps: float) -> int:
    """Smallest T (to 3 significant digits) where Theorem 3.1's bound is below 1."""
    t = 16
    while thm31_upper(MEANS, TAU, GAMMA, t, eps) >= 1.0:
        t = int(t * 1.01) + 1
    return t


def _upper_finding(ctx: CheckContext) -> Finding:
    runs, budgets = ctx.size(UPPER_RUNS), ctx.size(UPPER_BUDGETS)
    rows, data = [], []
    for eps in (0.5, 1.0, 2.0, 4.0):
        alg = PrivateAPT(eps, tau=TAU, gamma=GAMMA)
        for t in budgets:
            res = alg.simulate(BernoulliRewards(MEANS), t, runs, rng=ctx.rng("ub", str(eps), t))
            k = int(res.extra["loss"].sum())
            lo, hi = _cp(k, runs)
            bound = thm31_upper(MEANS, TAU, GAMMA, t, eps)
            rows.append(f"eps={eps:<4g} T={t:<5d} loss {k / runs:.4f} (95% CI {lo:.4f}.."
                        f"{hi:.4f})  Thm 3.1 upper {bound:.3g}"
                        + ("  CONTRADICTED" if lo > bound else ""))
            data.append({"epsilon": eps, "T": t, "loss": k / runs, "ci": [lo, hi],
                         "thm31": bound})
        rows.append(f"eps={eps:<4g} Theorem 3.1's bound first drops below 1 at T = "
                    f"{_nontrivial_budget(eps):.4g}")
    bad = [d for d in data if d["ci"][0] > d["thm31"]]
    return Finding(
        "loss-vs-theorem-3.1",
        f"P(wrong set) on means {MEANS}, tau={TAU}, gamma={GAMMA}, {runs} runs: "
        + ("no measurement exceeds Theorem 3.1's upper bound (constant 16)" if not bad else
           f"{len(bad)} measurement(s) exceed Theorem 3.1's upper bound beyond their CI")
        + "; the bound is below 1 only for T above about 16 H^eps x 2 log((log T + 1) K)",
        Notion.LDP, details=tuple(rows), data={"grid": data})


def _lower_finding(ctx: CheckContext) -> Finding:
    runs = ctx.size(LOWER_RUNS)
    k_arms = 4
    rows, data = [], []
    for eps in (0.1, 0.25, 0.5, 1.0):
        for t in ctx.size(LOWER_BUDGETS):
            alg = PrivateAPT(eps, tau=TAU, gamma=0.0)
            worst = 0.0
            for env in range(k_arms + 1):
                means = np.full(k_arms, TAU + LOWER_GAP)
                if env:
                    means[env - 1] = TAU - LOWER_GAP
                res = alg.simulate(BernoulliRewards(means), t, runs,
                                   rng=ctx.rng("lb", str(eps), t, env))
                worst = max(worst, float(res.extra["loss"].mean()))
            lo, hi = _cp(int(round(worst * runs)), runs, 0.025 / (k_arms + 1))
            bound = thm32_lower(np.full(k_arms, LOWER_GAP), t, eps)
            rows.append(f"eps={eps:<5g} T={t:<5d} max_i loss {worst:.4f} (CI upper {hi:.4f})"
                        f"  Thm 3.2 lower {bound:.3g}" + ("  CONTRADICTED" if hi < bound else ""))
            data.append({"epsilon": eps, "T": t, "max_loss": worst, "ci_high": hi,
                         "thm32": bound})
    bad = [d for d in data if d["ci_high"] < d["thm32"]]
    return Finding(
        "loss-vs-theorem-3.2",
        f"Theorem 3.2's family (K={k_arms}, arms at tau +- {LOWER_GAP}), {runs} runs per "
        "environment: " + ("every measured worst-case loss is at or above the lower bound "
                           "(constant 16)" if not bad else
                           f"{len(bad)} cell(s) fall below the lower bound beyond their CI"),
        Notion.LDP, details=tuple(rows), data={"grid": data})


def _spec() -> AuditSpec:
    trajectory = trajectory_claim_spec(_policy)
    return AuditSpec(
        name="ldp-tbp-fixed-budget",
        description="private APT on PrivBern bits: eps-LDP reports, loss vs Theorems 3.1-3.2",
        paper=PAPER + ", Algorithm 1, Lemma 2.1, Theorems 3.1-3.2",
        claims=[
            claim("report-ldp-exact", "each user's report (one PrivBern bit) is eps-LDP, "
                  "decided exactly on the report law", "Lemma 2.1, Definition 2.2",
                  lambda ctx: privbern_exact_evidence(_policy(ctx), ctx)),
            claim("report-ldp-sampled", "the same, attacked by sampling the algorithm's "
                  "report path", "Lemma 2.1, Definition 2.2",
                  lambda ctx: privbern_sampled_evidence(_policy(ctx), ctx,
                                                        ctx.size(REPORT_SAMPLES)),
                  ),
            trajectory,
            privbern_simulated_claim(_policy, SIM_SAMPLES, "Lemma 2.1, Definition 2.2"),
        ],
        findings=[FindingSpec("loss-vs-theorem-3.1", _upper_finding, observes="actions"),
                  FindingSpec("loss-vs-theorem-3.2", _lower_finding, observes="actions"),
                  trajectory_sampled_spec(trajectory)],
        default_epsilon=1.0, default_delta=0.0, variant=PrivateAPT,
    )


AUDITS = [_spec()]
