"""``check gauss-perturbation``: DP-FTPL-Gauss's start phase against the exact privacy curve.

Wang & Zhu 2023, Algorithm 1 and Theorem 11 (privacy part): after ``N_G`` pulls of each arm the
perturbation ``N(R/N, 2/N)`` satisfies Lemma 8 at ``(eps, delta)`` under a change of one
observation. Reconstruction of ``N_G`` and of the variance in
:mod:`dpaudit.mechanisms.gauss_perturbation`. Claims:

* ``start-phase-exact``: at ``N = ceil(N_G)`` the exact ``delta(eps)`` of the Gaussian shift
  ``1/N`` is at most ``delta`` (``delta(eps)`` decreases in ``N``, so every later step is
  covered too); the report gives the smallest sufficient ``N`` and the margin;
* ``lemma8-generic``: Lemma 8's CDF inequalities at ``N = ceil(N_G)`` through the generic
  checker :func:`dpaudit.exact.conditions.lemma8_check` (certified numeric).

The broken twin (:class:`SkippedStartPhase`) skips the start phase (one pull per arm, as if
``N_G = 1``), which the
paper's Fig. 1(a) shows is not private.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from dpaudit.algorithms.wang_zhu_2023._twins import NO_START_PHASE_TRUE_EPSILON
from dpaudit.audits.recipes.verification import curve_finding, out_of_range
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.exact.conditions import lemma8_check
from dpaudit.exact.loss import OutOfRangeError
from dpaudit.mechanisms.gauss_perturbation import (
    gauss_cdf_pair,
    gauss_exact_delta,
    gauss_smallest_count,
    gauss_start_phase,
)
from dpaudit.stats.evidence import ExactEvidence, InconclusiveEvidence, ProofEvidence
from dpaudit.stats.results import Finding, Notion
from dpaudit.validation import InvalidParameterError

LEMMA8_GRID = Budget(full=4001, quick=1001)
N_MAX = 10**15  # largest count searched for the smallest sufficient start phase

REF = "Wang & Zhu, Alg. 1, Thm 11 (privacy part), Fig. 1"
CDF_PAIRS = {
    "gauss-perturbation": lambda epsilon, delta, n=None, successes=0: gauss_cdf_pair(
        n or math.ceil(gauss_start_phase(epsilon, delta)), successes=successes),
}


@dataclass(frozen=True)
class StartPhase:
    """Every arm is pulled ceil(N_G) times before the perturbation is used (Alg. 1)."""

    skip_start_phase: bool = False


@dataclass(frozen=True)
class SkippedStartPhase(StartPhase):
    """Skips the start phase (one pull per arm, as if N_G = 1), which the paper's Fig. 1(a)
    shows is not private.

    True loss at the defaults (``eps = 1``, ``delta = 0.01``): at ``N = 1`` one changed
    observation is a Gaussian shift ``mu = (1/N)/sqrt(2/N) = 1/sqrt 2``, the largest over the
    counts; its exact ``delta(eps)`` is 0.01 at ``eps = 1.45854`` (derivation:
    ``DPFTPLGaussNoStartPhase`` in ``dpaudit.algorithms.wang_zhu_2023._twins``)
    (``gauss-perturbation-no-start-phase``).
    """

    skip_start_phase: bool = True


def _count(ctx: CheckContext) -> int:
    if ctx.variant.skip_start_phase:
        return 1
    return math.ceil(gauss_start_phase(ctx.epsilon, ctx.delta))


def _smallest(ctx: CheckContext, variance_numerator: float = 2.0) -> int | None:
    """Smallest sufficient count, or ``None`` when none up to :data:`N_MAX` suffices."""
    try:
        return gauss_smallest_count(ctx.epsilon, ctx.delta, n_max=N_MAX,
                                    variance_numerator=variance_numerator)
    except InvalidParameterError:
        return None


def _start_phase(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence | InconclusiveEvidence:
    n = _count(ctx)
    ng = gauss_start_phase(ctx.epsilon, ctx.delta)
    try:
        d = gauss_exact_delta(ctx.epsilon, n)
    except OutOfRangeError as exc:
        return out_of_range(exc)
    n_min = _smallest(ctx)
    smallest = (f"smallest N meeting (eps, delta) exactly: {n_min} (delta there "
                f"{gauss_exact_delta(ctx.epsilon, n_min).value:.4g}); paper's start phase is "
                f"{n / n_min:.3g}x that" if n_min is not None else
                f"no N up to {N_MAX:.0e} meets (eps, delta) exactly")
    return ExactEvidence(d.value, d.error, details=(
        f"paper's N_G = min(1/(4 pi delta^2), ln(e/(4 pi delta^2))/eps^2) = {ng:.4f}; "
        f"start phase used: N = {n}"
        + (" (start phase skipped)" if ctx.variant.skip_start_phase else ""),
        f"exact delta(eps={ctx.epsilon:g}) at N = {n}: {d.value:.6g} (claim {ctx.delta:g}; "
        "Gaussian shift 1/N, dp_accounting)", smallest,
        "variance convention sigma^2 = 2/N (Wang & Zhu 2023 proof)"),
        data={"N": n, "N_G": ng, "N_min": n_min, "exact_delta": d.value})


def _lemma8(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    n = _count(ctx)
    proof = lemma8_check(gauss_cdf_pair(n), ctx.epsilon, ctx.delta,
                         grid=ctx.size(LEMMA8_GRID), symbolic=not ctx.quick)
    return ProofEvidence(proof, data={"N": n})  # Lemma 8 is sufficient


def _conventions(ctx: CheckContext) -> Finding:
    rows = []
    for v in (2.0, 1.0):
        for c in (1.0, 4.0):
            ng = math.ceil(gauss_start_phase(ctx.epsilon, ctx.delta, branch_constant=c))
            n_min = _smallest(ctx, v) or f"> {N_MAX:.0e}"
            d = gauss_exact_delta(ctx.epsilon, ng, variance_numerator=v).value
            rows.append(f"variance {v:g}/N, branch constant {c:g}: ceil(N_G) = {ng}, exact "
                        f"delta there {d:.3g} ({'ok' if d <= ctx.delta else 'FAILS'}); "
                        f"smallest sufficient N = {n_min}")
    return Finding("conventions", "the start phase under both readings of the damaged "
                   "formulas (variance 2/N vs 1/N; second-branch constant 1 vs 4)",
                   Notion.PER_STEP, details=tuple(rows))


def _curve(ctx: CheckContext) -> Finding:
    n = _count(ctx)
    return curve_finding("privacy-curve", f"exact privacy curve of theta at N = {n} "
                         "(Gaussian shift 1/N, sd sqrt(2/N))",
                         lambda e: gauss_exact_delta(e, n), ctx.epsilon, Notion.PER_STEP)


GAUSS = AuditSpec(
    name="gauss-perturbation",
    description="DP-FTPL-Gauss perturbation N(R/N, 2/N) after its start phase",
    paper="Wang & Zhu 2023, DP-FTPL",
    claims=[
        ClaimSpec("start-phase-exact", Notion.PER_STEP,
                  "after the start phase N_G, one changed observation moves theta's law "
                  "by at most (eps, delta)", REF, _start_phase),
        ClaimSpec("lemma8-generic", Notion.PER_STEP,
                  "Lemma 8's CDF inequalities hold at N = ceil(N_G)",
                  "Wang & Zhu 2023, Lemma 8", _lemma8),
    ],
    findings=[FindingSpec("privacy-curve", _curve), FindingSpec("conventions", _conventions)],
    default_epsilon=1.0, default_delta=0.01, allow_zero_epsilon=True, variant=StartPhase(),
)

_NO_START = GAUSS.twin(SkippedStartPhase(), findings=[FindingSpec("privacy-curve", _curve)],
                       bug="no-start-phase", true_epsilon=NO_START_PHASE_TRUE_EPSILON)
# gauss-perturbation-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [GAUSS, _NO_START, replace(_NO_START, name="gauss-perturbation-faulty")]
