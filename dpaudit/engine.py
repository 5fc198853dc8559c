"""The check engine: run an audit file's claims, findings and regret into one report.

An audit file (``audits/*.py``) declares an :class:`AuditSpec`: the claims with their paper
reference, each with an ``evaluate(ctx, spec)`` that returns *evidence*
(:mod:`dpaudit.evidence`: a proof, an exact loss with its error bound, the counts of one
sampled event, or an inconclusive reason), never a verdict; findings (information only); and a
regret experiment. :func:`run_check` validates the parameters, gives every piece its own seeded
generator (keyed by the piece's id, so results do not depend on what else runs or on the
number of workers), runs every claim, and only then turns each evidence into a
:class:`~dpaudit.results.ClaimResult` with :func:`~dpaudit.evidence.decide`: the check's
``alpha`` is split over its sampled claims (Bonferroni, :func:`~dpaudit.evidence.split_alpha`),
so the exit code of the whole check is wrong with probability at most ``alpha``. A finding may
return sampled evidence too; it is decided at the check's full ``alpha`` (it never changes the
exit code) and says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .evidence import Evidence, SampledEvidence, decide, split_alpha
from .results import CheckReport, Finding, Notion, RegretResult
from .rng import DEFAULT_SEED, generator
from .validation import check_alpha, check_epsilon_delta, check_int

__all__ = [
    "AuditSpec",
    "Budget",
    "CheckContext",
    "ClaimSpec",
    "FindingSpec",
    "run_check",
]


@dataclass(frozen=True)
class Budget:
    """A size declared once for the full run and for ``--quick``: ``ctx.size(Budget(...))``."""

    full: Any
    quick: Any


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

    def rng(self, *keys: str | int) -> np.random.Generator:
        """A generator for the named piece of work (independent of everything else)."""
        return generator(self.seed, *keys)

    def size(self, budget: Budget) -> Any:
        """``budget.quick`` under ``--quick``, else ``budget.full``."""
        return budget.quick if self.quick else budget.full


@dataclass(frozen=True)
class ClaimSpec:
    """One claimed guarantee: its id, notion, paper reference and how to gather evidence."""

    id: str
    notion: Notion
    statement: str
    reference: str
    evaluate: Callable[[CheckContext, ClaimSpec], Evidence]


@dataclass(frozen=True)
class FindingSpec:
    """Information reported beside the claims (never changes the exit code).

    ``evaluate(ctx)`` returns a :class:`~dpaudit.results.Finding`, or sampled evidence that the
    engine turns into one (``summary`` then heads it, with the bound appended).
    """

    id: str
    evaluate: Callable[[CheckContext], Finding | SampledEvidence]
    summary: str = ""
    notion: Notion | None = None


@dataclass(frozen=True)
class AuditSpec:
    """A checkable name: ``python -m dpaudit check NAME``.

    ``allow_zero_epsilon`` says whether the mechanism is defined at ``epsilon = 0`` (then
    ``delta > 0`` is required). ``regret`` returns the regret experiment's result or ``None``.
    ``faulty``: a deliberately broken twin (its ``description`` says what is wrong).
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


def _finding(spec: FindingSpec, ctx: CheckContext, result: Finding | SampledEvidence
             ) -> Finding:
    if isinstance(result, Finding):
        return result
    if not isinstance(result, SampledEvidence):
        raise TypeError(f"finding {spec.id!r}: evaluate returned {type(result).__name__}, not "
                        "a Finding or SampledEvidence")
    claim = decide(_FindingAsClaim(spec), ctx, result, alpha=ctx.alpha)
    bound = float(claim.epsilon_lower_bound or 0.0)
    above = " (above the claimed epsilon)" if bound > ctx.epsilon else ""
    return Finding(spec.id, f"{spec.summary}: epsilon >= {bound:.3f}{above}", spec.notion,
                   epsilon_lower_bound=bound, alpha=ctx.alpha,
                   details=(*claim.details, f"decided at the finding's own alpha = {ctx.alpha:g}"
                            " (a finding never changes the exit code)"),
                   data={**claim.data, "detectable_epsilon": claim.detectable_epsilon})


@dataclass(frozen=True)
class _FindingAsClaim:
    spec: FindingSpec

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def notion(self) -> Notion:
        return self.spec.notion or Notion.GLOBAL

    @property
    def statement(self) -> str:
        return self.spec.summary

    reference = "finding"


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
) -> CheckReport:
    """Run every claim (and findings and regret) of ``spec``; see the module docstring."""
    eps = spec.default_epsilon if epsilon is None else epsilon
    dlt = spec.default_delta if delta is None else delta
    eps, dlt = check_epsilon_delta(eps, dlt, allow_zero_epsilon=spec.allow_zero_epsilon)
    check_int("seed", seed, low=0)
    check_alpha(alpha)
    check_int("workers", workers, low=1)
    ctx = CheckContext(eps, dlt, seed, alpha, quick, workers)
    start = time.perf_counter()
    evidences = [c.evaluate(ctx, c) for c in spec.claims]
    per_claim = split_alpha(alpha, evidences)
    claims = tuple(decide(c, ctx, ev, alpha=per_claim)
                   for c, ev in zip(spec.claims, evidences, strict=True))
    sampled = sum(isinstance(e, SampledEvidence) for e in evidences)
    findings = tuple(_finding(f, ctx, f.evaluate(ctx)) for f in spec.findings)
    regret_result = spec.regret(ctx) if (regret and spec.regret is not None) else None
    return CheckReport(
        name=spec.name,
        description=spec.description,
        paper=spec.paper,
        parameters={"epsilon": eps, "delta": dlt, "seed": seed, "alpha": alpha,
                    "quick": quick, "workers": workers},
        claims=claims,
        findings=findings,
        regret=regret_result,
        seconds=time.perf_counter() - start,
        alpha_split={"method": "Bonferroni", "alpha": alpha, "sampled_claims": sampled,
                     "per_claim_alpha": per_claim if sampled else None},
    )

