"""The check engine: run an audit file's claims, findings and regret into one report.

An audit file (``audits/*.py``) declares an :class:`AuditSpec`: the claims with their paper
reference, each with an ``evaluate`` function that calls engine pieces (the symbolic prover,
exact loss, the empirical distinguisher) and returns a :class:`ClaimResult`; findings (reported
as information only); and a regret experiment. :func:`run_check` validates the parameters,
gives every piece its own seeded generator (keyed by the piece's id, so results do not depend
on what else runs or on the number of workers) and assembles the :class:`CheckReport`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .results import (
    CheckReport,
    ClaimResult,
    Finding,
    Method,
    Notion,
    ProofResult,
    ProofStatus,
    RegretResult,
    Verdict,
)
from .rng import DEFAULT_SEED, generator
from .validation import check_alpha, check_epsilon_delta, check_int

__all__ = [
    "AuditSpec",
    "CheckContext",
    "ClaimSpec",
    "FindingSpec",
    "claim_from_proof",
    "run_check",
]


@dataclass(frozen=True)
class CheckContext:
    """What every claim, finding and regret function receives.

    ``epsilon``/``delta`` are the claim under test (the paper's defaults unless the user gave
    others); ``quick`` asks for a reduced budget (used by tests and ``--quick``).
    """

    epsilon: float
    delta: float
    seed: int = DEFAULT_SEED
    alpha: float = 0.05
    quick: bool = False
    workers: int = 1
    options: dict[str, Any] = field(default_factory=dict)

    def rng(self, *keys: str | int) -> np.random.Generator:
        """A generator for the named piece of work (independent of everything else)."""
        return generator(self.seed, *keys)


@dataclass(frozen=True)
class ClaimSpec:
    """One claimed guarantee: its id, notion, paper reference and how to evaluate it."""

    id: str
    notion: Notion
    statement: str
    reference: str
    evaluate: Callable[[CheckContext, ClaimSpec], ClaimResult]


@dataclass(frozen=True)
class FindingSpec:
    id: str
    evaluate: Callable[[CheckContext], Finding]


@dataclass(frozen=True)
class AuditSpec:
    """A checkable name: ``python -m dpaudit check NAME``.

    ``allow_zero_epsilon`` says whether the mechanism is defined at ``epsilon = 0`` (then
    ``delta > 0`` is required). ``regret`` returns the regret experiment's result or ``None``.
    ``mechanism(epsilon, delta)``, when given, builds the object (black-box protocol of
    :mod:`dpaudit.blackbox`) that ``python -m dpaudit audit NAME`` attacks: the same mechanism
    the claims are about, so ``check NAME`` and ``audit NAME`` mean one thing.
    """

    name: str
    description: str
    paper: str
    claims: Sequence[ClaimSpec]
    default_epsilon: float
    default_delta: float
    allow_zero_epsilon: bool = False
    findings: Sequence[FindingSpec] = ()
    regret: Callable[[CheckContext], RegretResult] | None = None
    faulty: bool = False
    mechanism: Callable[[float, float], Any] | None = None


def run_check(
    spec: AuditSpec,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    quick: bool = False,
    workers: int = 1,
    regret: bool = True,
    options: dict[str, Any] | None = None,
) -> CheckReport:
    """Run every claim (and findings and regret) of ``spec``; see the module docstring."""
    eps = spec.default_epsilon if epsilon is None else epsilon
    dlt = spec.default_delta if delta is None else delta
    eps, dlt = check_epsilon_delta(eps, dlt, allow_zero_epsilon=spec.allow_zero_epsilon)
    check_int("seed", seed, low=0)
    check_alpha(alpha)
    check_int("workers", workers, low=1)
    ctx = CheckContext(eps, dlt, seed, alpha, quick, workers, dict(options or {}))
    start = time.perf_counter()
    claims = tuple(c.evaluate(ctx, c) for c in spec.claims)
    findings = tuple(f.evaluate(ctx) for f in spec.findings)
    regret_result = spec.regret(ctx) if (regret and spec.regret is not None) else None
    return CheckReport(
        name=spec.name,
        description=spec.description,
        paper=spec.paper,
        parameters={"epsilon": eps, "delta": dlt, "seed": seed, "alpha": alpha,
                    "quick": quick, "workers": workers, **(options or {})},
        claims=claims,
        findings=findings,
        regret=regret_result,
        seconds=time.perf_counter() - start,
    )


def claim_from_proof(
    spec: ClaimSpec, ctx: CheckContext, proof: ProofResult, *, details: Sequence[str] = ()
) -> ClaimResult:
    """Map a symbolic proof to a verdict: PROVED, VIOLATED (with witness) or INCONCLUSIVE."""
    verdict = {
        ProofStatus.PROVED: Verdict.PROVED,
        ProofStatus.DISPROVED: Verdict.VIOLATED,
        ProofStatus.UNKNOWN: Verdict.INCONCLUSIVE,
    }[proof.status]
    lines = list(details)
    if proof.status is ProofStatus.DISPROVED:
        lines.append(f"witness: {proof.witness}")
    if proof.status is ProofStatus.UNKNOWN:
        lines.append("a condition is outside the prover's reach; an exact or sampled check of "
                     "the concrete parameters, or a hand proof, would settle it")
    return ClaimResult(
        id=spec.id,
        notion=spec.notion,
        epsilon=ctx.epsilon,
        delta=ctx.delta,
        verdict=verdict,
        method=Method.SYMBOLIC,
        statement=spec.statement,
        reference=spec.reference,
        details=tuple(lines),
        proof=proof,
    )
