"""``check dp-ftpl-gauss``: Theorem 11 of Wang & Zhu (2023).

    Theorem 11. DP-FTPL-Gauss guarantees (eps, delta)-differential privacy [Definition 1,
    per-step], and Reg(T) <= sum_i max{2 Delta_i log T / (Delta_i - 2 lambda)^2, N_G Delta_i}
    + O(N / lambda^4) for any lambda < Delta_min / 2.

    Proof (privacy): the start phase (the next action does not depend on the data), then
    Lemma 8 for theta ~ N(R/N, 2/N) once N >= N_G = min{1/(4 pi delta^2),
    ln(e/(4 pi delta^2))/eps^2}.

Claims (strongest evidence first):

1. ``lemma8-after-start-phase`` (exact): one changed observation shifts ``theta`` by ``1/N``,
   so the pair is a Gaussian shift and its exact ``delta(eps)`` (Balle & Wang 2018) decides
   Lemma 8; ``delta(eps)`` decreases in ``N``, so ``N = N_0`` covers every later step.
2. ``next-action-exact`` and 3. ``next-action-sampled``: see :mod:`._ftpl_common`.
4. ``releases-sampled``: the running code's perturbed scores at the start phase's end (the
   release Lemma 8 is about, through the recording hook; :mod:`._release`); planted twins in
   :mod:`.twins`.

Wording of the finding: Theorem 11 claims sufficiency only. The exact computation shows that
``F'`` lies in Lemma 8's feasible region from a much smaller count than ``N_G``; it contradicts
the narration of Fig. 1 ("when N_i(t) < N_G, F' is out of the feasible region ... when
N_i(t) = N_G, F' begins to lay in the feasible region"), not the theorem.

The broken twin ``dp-ftpl-gauss-no-start-phase`` (first registered as
``dp-ftpl-gauss-faulty``, an alias kept) skips the start phase (``N_0 = 1``): true loss
1.4585 at (1, 0.01).
"""

from __future__ import annotations

from dataclasses import replace

from dpaudit.algorithms.wang_zhu_2023._twins import (
    NO_START_PHASE_TRUE_EPSILON,
    DPFTPLGaussNoStartPhase,
)
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLGauss
from dpaudit.audits.wang_zhu_2023._ftpl_common import (
    Family,
    build,
    family_spec,
    next_action_claims,
)
from dpaudit.audits.wang_zhu_2023._release import release_claim
from dpaudit.audits.wang_zhu_2023.trajectory import (
    FTPL_START_PHASE_TRAJECTORY,
    GAUSS_TRAJECTORY_SAMPLED,
)
from dpaudit.engine import CheckContext, ClaimSpec
from dpaudit.mechanisms.gauss_perturbation import gauss_exact_delta, gauss_smallest_count
from dpaudit.stats.evidence import ExactEvidence
from dpaudit.stats.results import Notion

THEOREM = "Theorem 11 (privacy via the start phase and Lemma 8), Definition 1"


def changed_sums(count: int) -> tuple[int, ...]:
    return tuple(sorted({0, count // 2, count - 1}))  # the law is shift-invariant in R


FAMILY = Family("DP-FTPL-Gauss", DPFTPLGauss, changed_sums, 2.0, "Theorem 11")


def _lemma8(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
    alg = build(ctx.variant, ctx.epsilon, ctx.delta, 10**5, "paper")
    faulty = ctx.variant is not DPFTPLGauss  # the broken twin (AuditSpec.twin)
    n0 = alg.start_phase
    bounded = gauss_exact_delta(ctx.epsilon, n0, variance_numerator=alg.variance_factor)
    d = float(bounded.value)
    n_min = gauss_smallest_count(ctx.epsilon, ctx.delta,
                                 variance_numerator=alg.variance_factor)
    # closed form (Balle & Wang 2018) with the error bound it carries
    return ExactEvidence(d, float(bounded.error), details=(
        f"paper's N_G = {alg.paper_start_phase:.4f}; start phase used: N_0 = {n0}"
        + (" (start phase skipped: deliberately broken)" if faulty else ""),
        f"exact delta(eps={ctx.epsilon:g}) of N(R/N, 2/N) vs N((R+1)/N, 2/N) at N = {n0}: "
        f"{d:.6g} (claim {ctx.delta:g}); decreasing in N, so every later step is covered",
        f"exact Lemma-8 threshold: the smallest sufficient N is {n_min} (delta there "
        f"{float(gauss_exact_delta(ctx.epsilon, n_min).value):.4g}); "
        + (f"N_0 = {n0} is below it" if n0 < n_min else
           f"the start phase used is conservative by {n0 / n_min:.3g}x relative to it"),
        "Theorem 11 claims sufficiency only; the exact threshold contradicts the Fig. 1 "
        "narration that F' enters the feasible region exactly at N = N_G"),
        data={"N_0": n0, "N_G": alg.paper_start_phase, "N_min": n_min, "exact_delta": d})


CLAIMS = [
    ClaimSpec("lemma8-after-start-phase", Notion.PER_STEP,
              "after the start phase, one changed observation moves theta's law by at "
              "most (eps, delta) (Lemma 8)", THEOREM, _lemma8),
    *next_action_claims(FAMILY, THEOREM),
    release_claim(lambda ctx: build(ctx.variant, ctx.epsilon, ctx.delta, 10**5, "paper"),
                  "Lemma 8; Definition 1; " + THEOREM),
]

SPEC = family_spec(FAMILY, name="dp-ftpl-gauss", title="DP-FTPL-Gauss (Alg. 1)", claims=CLAIMS)
# the exact whole-trajectory finding (issue 22): information beside the per-step claims
SPEC = replace(SPEC, findings=[*SPEC.findings, FTPL_START_PHASE_TRAJECTORY,
                               GAUSS_TRAJECTORY_SAMPLED])
# the broken twin, declared one way (AuditSpec.twin): the same claims on
# DPFTPLGaussNoStartPhase, whose docstring says what is wrong (no start phase: N_0 = 1); the
# tight-start-phase finding and the regret run are about the sound algorithm, so the twin has
# neither
_NO_START = SPEC.twin(DPFTPLGaussNoStartPhase, findings=[], bug="no-start-phase",
                     true_epsilon=NO_START_PHASE_TRUE_EPSILON)
# dp-ftpl-gauss-faulty: the twin's first name (README, tests, benchmark results), an alias
AUDITS = [SPEC, _NO_START, replace(_NO_START, name="dp-ftpl-gauss-faulty")]
