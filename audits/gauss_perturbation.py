"""``check gauss-perturbation``: DP-FTPL-Gauss's start phase against the exact privacy curve.

Seed 003, Algorithm 1 and Theorem 11 (privacy part): after ``N_G`` pulls of each arm the
perturbation ``N(R/N, 2/N)`` satisfies Lemma 8 at ``(eps, delta)`` under a change of one
observation. Reconstruction of ``N_G`` and of the variance in
:mod:`dpaudit.mechanisms.gauss_perturbation`. Claims:

* ``start-phase-exact``: at ``N = ceil(N_G)`` the exact ``delta(eps)`` of the Gaussian shift
  ``1/N`` is at most ``delta`` (``delta(eps)`` decreases in ``N``, so every later step is
  covered too); the report gives the smallest sufficient ``N`` and the margin;
* ``lemma8-generic``: Lemma 8's CDF inequalities at ``N = ceil(N_G)`` through the generic
  checker :func:`dpaudit.conditions.lemma8_check` (certified numeric).

The faulty variant skips the start phase (one pull per arm, as if ``N_G = 1``), which the
paper's Fig. 1(a) shows is not private.
"""

from __future__ import annotations

import math

from dpaudit.conditions import lemma8_check
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.evidence import ExactEvidence, ProofEvidence
from dpaudit.mechanisms.gauss_perturbation import (
    gauss_cdf_pair,
    gauss_exact_delta,
    gauss_smallest_count,
    gauss_start_phase,
)
from dpaudit.results import Finding, Notion

from ._verification import curve_finding

LEMMA8_GRID = Budget(full=4001, quick=1001)

REF = "Wang & Zhu (seed 003), Alg. 1, Thm 11 (privacy part), Fig. 1"
CDF_PAIRS = {
    "gauss-perturbation": lambda epsilon, delta, n=None, successes=0: gauss_cdf_pair(
        n or math.ceil(gauss_start_phase(epsilon, delta)), successes=successes),
}


def _count(ctx: CheckContext, faulty: bool) -> int:
    return 1 if faulty else math.ceil(gauss_start_phase(ctx.epsilon, ctx.delta))


def _start_phase(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
        n = _count(ctx, faulty)
        d = gauss_exact_delta(ctx.epsilon, n)
        n_min = gauss_smallest_count(ctx.epsilon, ctx.delta)
        ng = gauss_start_phase(ctx.epsilon, ctx.delta)
        return ExactEvidence(d, 0.0, details=(
            f"paper's N_G = min(1/(4 pi delta^2), ln(e/(4 pi delta^2))/eps^2) = {ng:.4f}; "
            f"start phase used: N = {n}" + (" (start phase skipped)" if faulty else ""),
            f"exact delta(eps={ctx.epsilon:g}) at N = {n}: {d:.6g} (claim {ctx.delta:g})",
            f"smallest N meeting (eps, delta) exactly: {n_min} (delta there "
            f"{gauss_exact_delta(ctx.epsilon, n_min):.4g}); paper's start phase is "
            f"{n / n_min:.3g}x that", "variance convention sigma^2 = 2/N (seed 003 proof)"),
            data={"N": n, "N_G": ng, "N_min": n_min, "exact_delta": d})
    return evaluate


def _lemma8(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
        n = _count(ctx, faulty)
        proof = lemma8_check(gauss_cdf_pair(n), ctx.epsilon, ctx.delta,
                             grid=ctx.size(LEMMA8_GRID), symbolic=not ctx.quick)
        return ProofEvidence(proof, data={"N": n})  # Lemma 8 is sufficient
    return evaluate


def _conventions(ctx: CheckContext) -> Finding:
    rows = []
    for v in (2.0, 1.0):
        for c in (1.0, 4.0):
            ng = math.ceil(gauss_start_phase(ctx.epsilon, ctx.delta, branch_constant=c))
            n_min = gauss_smallest_count(ctx.epsilon, ctx.delta, variance_numerator=v)
            d = gauss_exact_delta(ctx.epsilon, ng, variance_numerator=v)
            rows.append(f"variance {v:g}/N, branch constant {c:g}: ceil(N_G) = {ng}, exact "
                        f"delta there {d:.3g} ({'ok' if d <= ctx.delta else 'FAILS'}); "
                        f"smallest sufficient N = {n_min}")
    return Finding("conventions", "the start phase under both readings of the damaged "
                   "formulas (variance 2/N vs 1/N; second-branch constant 1 vs 4)",
                   Notion.PER_STEP, details=tuple(rows))


def _curve(faulty: bool):
    def evaluate(ctx: CheckContext) -> Finding:
        n = _count(ctx, faulty)
        return curve_finding("privacy-curve", f"exact privacy curve of theta at N = {n} "
                             "(Gaussian shift 1/N, sd sqrt(2/N))",
                             lambda e: gauss_exact_delta(e, n), ctx.epsilon, Notion.PER_STEP)
    return evaluate


def _spec(faulty: bool) -> AuditSpec:
    return AuditSpec(
        name="gauss-perturbation-faulty" if faulty else "gauss-perturbation",
        description="DP-FTPL-Gauss perturbation N(R/N, 2/N) after its start phase"
                    + (" -- start phase skipped (deliberately broken)" if faulty else ""),
        paper="Wang & Zhu, DP-FTPL (seed 003)",
        claims=[
            ClaimSpec("start-phase-exact", Notion.PER_STEP,
                      "after the start phase N_G, one changed observation moves theta's law "
                      "by at most (eps, delta)", REF, _start_phase(faulty)),
            ClaimSpec("lemma8-generic", Notion.PER_STEP,
                      "Lemma 8's CDF inequalities hold at N = ceil(N_G)",
                      "seed 003 Lemma 8", _lemma8(faulty)),
        ],
        findings=[FindingSpec("privacy-curve", _curve(faulty))]
        + ([] if faulty else [FindingSpec("conventions", _conventions)]),
        default_epsilon=1.0, default_delta=0.01, allow_zero_epsilon=True, faulty=faulty,
    )


AUDITS = [_spec(False), _spec(True)]
