"""Shared helpers of the symbolic/exact verification audits (issue 4); not a registered name.

They only turn engine results into :class:`~dpaudit.results.ClaimResult` objects with the right
``method``: sympy decisions are ``symbolic``; certified-numeric or critical-point decisions of
:mod:`dpaudit.conditions` and closed-form/quadrature divergences are ``exact``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dpaudit.engine import CheckContext, ClaimSpec, claim_from_proof
from dpaudit.results import ClaimResult, Method, ProofResult, ProofStatus, Verdict

NUMERIC_MARKERS = ("certified numeric", "exact at critical points", "fails at the witness")


def proof_claim(spec: ClaimSpec, ctx: CheckContext, proof: ProofResult,
                details: Sequence[str] = (), data: dict[str, Any] | None = None) -> ClaimResult:
    """A proof's verdict; method ``exact`` (verdict EXACT) if any step was decided numerically."""
    base = claim_from_proof(spec, ctx, proof, details=details)
    numeric = any(i.reason.startswith(NUMERIC_MARKERS) for i in proof.inequalities)
    if not numeric:
        return ClaimResult(**{**base.__dict__, "data": dict(data or {})})
    verdict = {ProofStatus.PROVED: Verdict.EXACT, ProofStatus.DISPROVED: Verdict.VIOLATED,
               ProofStatus.UNKNOWN: Verdict.INCONCLUSIVE}[proof.status]
    return ClaimResult(**{**base.__dict__, "verdict": verdict, "method": Method.EXACT,
                          "data": dict(data or {})})


def exact_claim(spec: ClaimSpec, ctx: CheckContext, holds: bool, details: Sequence[str],
                *, epsilon_exact: float | None = None,
                data: dict[str, Any] | None = None) -> ClaimResult:
    """An exactly computed loss: EXACT when within the claim, else VIOLATED."""
    return ClaimResult(
        id=spec.id, notion=spec.notion, epsilon=ctx.epsilon, delta=ctx.delta,
        verdict=Verdict.EXACT if holds else Verdict.VIOLATED, method=Method.EXACT,
        statement=spec.statement, reference=spec.reference,
        epsilon_lower_bound=epsilon_exact, details=tuple(details), data=dict(data or {}),
    )
