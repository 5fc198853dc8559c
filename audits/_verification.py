"""Shared helpers of the symbolic/exact verification audits (issue 4); not a registered name.

They only turn engine results into :class:`~dpaudit.results.ClaimResult` objects with the right
``method``: sympy decisions are ``symbolic``; certified-numeric or critical-point decisions of
:mod:`dpaudit.conditions` and closed-form/quadrature divergences are ``exact``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dpaudit.engine import CheckContext, ClaimSpec, claim_from_proof
from dpaudit.results import (
    ClaimResult,
    Finding,
    Method,
    Notion,
    ProofResult,
    ProofStatus,
    Verdict,
)

# reasons written by the numeric tiers of dpaudit.conditions; a witness found by the symbolic
# prover's own search ("fails numerically (40-digit mpmath)") stays a symbolic result
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


def curve_finding(fid: str, summary: str, delta_of: Callable[[float], float],
                  epsilon: float, notion: Notion | None = None) -> Finding:
    """The privacy curve ``delta(eps')`` at ``eps' = 0, eps/4, .., 2 eps`` and the epsilon
    that the claimed-or-any delta needs (information only)."""
    grid = [epsilon * f for f in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)] if epsilon > 0 else \
        [0.0, 0.25, 0.5, 1.0, 2.0]
    values = [float(delta_of(e)) for e in grid]
    rows = tuple(f"eps'={e:.4g}: delta={d:.6g}" for e, d in zip(grid, values, strict=True))
    return Finding(fid, summary, notion, details=rows,
                   data={"epsilon": grid, "delta": values})
