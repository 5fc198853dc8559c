"""Frozen result types returned by the engine; reports only format them.

A :class:`CheckReport` is what ``python -m dpaudit check NAME`` prints and writes as JSON:
one :class:`ClaimResult` per claim (its verdict counts toward the exit code), a list of
:class:`Finding` (information only, never changes the exit code) and an optional
:class:`RegretResult`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dpaudit.validation import InvalidParameterError

__all__ = [
    "CheckReport",
    "ClaimResult",
    "Finding",
    "Method",
    "Notion",
    "OBSERVES",
    "ProofResult",
    "ProofStatus",
    "ProofSymbol",
    "ReducedInequality",
    "RegretDecision",
    "RegretResult",
    "Verdict",
    "check_observes",
    "default_observes",
    "overall_verdict",
]


class Verdict(enum.StrEnum):
    """Outcome of one claim (see the README, "Verdicts")."""

    PROVED = "PROVED"
    EXACT = "EXACT"
    CONSISTENT = "CONSISTENT"
    VIOLATED = "VIOLATED"
    INCONCLUSIVE = "INCONCLUSIVE"


class Notion(enum.StrEnum):
    """The three privacy notions: local, per-step and global DP."""

    LDP = "ldp"
    PER_STEP = "per-step"
    GLOBAL = "global"


class Method(enum.StrEnum):
    """How a claim is decided: a symbolic proof, an exact computation, or sampling."""

    SYMBOLIC = "symbolic"
    EXACT = "exact"
    SAMPLED = "sampled"


class ProofStatus(enum.StrEnum):
    """Three-valued symbolic logic: ``UNKNOWN`` never counts as a pass."""

    PROVED = "PROVED"
    DISPROVED = "DISPROVED"
    UNKNOWN = "UNKNOWN"


#: the levels a claim or finding can observe (the ``observes`` field of reports): the
#: released statistics (private means, counter outputs, perturbed scores), the action
#: sequence, the next action of a per-step policy, local reports, or a whole trajectory
OBSERVES = ("releases", "actions", "next action", "reports", "trajectory")


def check_observes(value: str) -> str:
    """``value`` if it is one of :data:`OBSERVES` or empty (then inferred); else an error."""
    if value != "" and value not in OBSERVES:
        raise InvalidParameterError(f"observes={value!r} must be one of {', '.join(OBSERVES)}")
    return value


def default_observes(notion: Notion | None, method: Method | None) -> str:
    """The level a claim observes when its spec does not say: a local report (LDP), the
    next action (per-step DP), the releases a symbolic global-DP proof is about, or the action
    sequence (other global-DP claims; findings without a notion)."""
    if notion is Notion.LDP:
        return "reports"
    if notion is Notion.PER_STEP:
        return "next action"
    if method is Method.SYMBOLIC:
        return "releases"
    return "actions"


@dataclass(frozen=True)
class ReducedInequality:
    """One inequality ``lhs <= rhs`` (or ``==``) the proof reduced a condition to.

    ``statement`` is human readable (sympy's string form), ``status`` what was decided,
    ``reason`` how (e.g. ``"simplifies to 0 <= 0"``), ``witness`` the parameter values at
    which it fails when disproved, ``tier`` which tier decided it (``"symbolic"``: sympy;
    ``"certified-numeric"``: grid + Lipschitz + tail; ``"critical-points"``: not a
    certificate; ``"witness-search"``: a high-precision counterexample) and ``seconds`` how
    long that took.
    """

    name: str
    statement: str
    status: ProofStatus
    reason: str = ""
    witness: dict[str, float] | None = None
    tier: str = "symbolic"
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "statement": self.statement,
            "status": self.status.value,
            "reason": self.reason,
            "witness": self.witness,
            "tier": self.tier,
            "seconds": round(self.seconds, 4),
        }


@dataclass(frozen=True)
class ProofSymbol:
    """A symbol of a proof's inequalities: its ``name``, its ``domain`` (where it ranges, as
    the prover declared it) and its ``meaning`` (what it stands for; empty when the proof's
    author did not say)."""

    name: str
    domain: str
    meaning: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "domain": self.domain, "meaning": self.meaning}


@dataclass(frozen=True)
class ProofResult:
    """A symbolic proof: the preconditions assumed, the reduced inequalities, the outcome.

    ``symbols`` defines the symbols the inequalities use (name, domain, meaning).
    """

    status: ProofStatus
    assumptions: tuple[str, ...]
    inequalities: tuple[ReducedInequality, ...]
    symbols: tuple[ProofSymbol, ...] = ()

    @property
    def witness(self) -> dict[str, float] | None:
        for ineq in self.inequalities:
            if ineq.status is ProofStatus.DISPROVED:
                return ineq.witness
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "assumptions": list(self.assumptions),
            "inequalities": [i.to_dict() for i in self.inequalities],
            "symbols": [sym.to_dict() for sym in self.symbols],
        }


@dataclass(frozen=True)
class ClaimResult:
    """The verdict on one claimed guarantee.

    ``epsilon_lower_bound`` is set only when it is statistically valid at ``1 - alpha``
    (sampled) or exact (computed loss); ``detectable_epsilon`` is the smallest true epsilon
    the test would have flagged, reported with ``CONSISTENT``. ``observes`` is the level the
    claim looks at (one of :data:`OBSERVES`; empty: :func:`default_observes`).
    """

    id: str
    notion: Notion
    epsilon: float
    delta: float
    verdict: Verdict
    method: Method
    statement: str
    reference: str
    epsilon_lower_bound: float | None = None
    detectable_epsilon: float | None = None
    alpha: float | None = None
    details: tuple[str, ...] = ()
    proof: ProofResult | None = None
    data: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0  # wall-clock seconds of this claim's evidence (JUnit testcase time)
    observes: str = ""
    #: the empirical privacy profile of a sampled claim (:mod:`dpaudit.stats.profile`)
    profile: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "notion": self.notion.value,
            "observes": self.observes or default_observes(self.notion, self.method),
            "epsilon": self.epsilon,
            "delta": self.delta,
            "verdict": self.verdict.value,
            "method": self.method.value,
            "statement": self.statement,
            "reference": self.reference,
            "epsilon_lower_bound": _json_number(self.epsilon_lower_bound),
            "detectable_epsilon": _json_number(self.detectable_epsilon),
            "alpha": self.alpha,
            "details": list(self.details),
            "proof": None if self.proof is None else self.proof.to_dict(),
            "data": _jsonable(self.data),
            "seconds": round(self.seconds, 3),
        }
        if self.profile is not None:
            out["privacy_profile"] = _jsonable(self.profile)
        return out


@dataclass(frozen=True)
class Finding:
    """Information worth reporting that is not a verdict on a claim.

    Findings never affect the exit code. ``observes`` as for :class:`ClaimResult`.
    """

    id: str
    summary: str
    notion: Notion | None = None
    epsilon_lower_bound: float | None = None
    alpha: float | None = None
    details: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)
    observes: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "summary": self.summary,
            "notion": None if self.notion is None else self.notion.value,
            "observes": self.observes or default_observes(self.notion, None),
            "epsilon_lower_bound": _json_number(self.epsilon_lower_bound),
            "alpha": self.alpha,
            "details": list(self.details),
            "data": _jsonable(self.data),
        }


@dataclass(frozen=True)
class RegretDecision:
    """The verdict on a regret bound, decided by :func:`dpaudit.stats.evidence.decide_regret`.

    ``verdict``: ``VIOLATED`` when ``lower_limit`` (the valid lower confidence limit of the
    mean regret, by ``lower_method``) is above the bound, ``CONSISTENT`` when ``ci_high`` is
    below it, ``INCONCLUSIVE`` otherwise (or with no numeric bound). ``ci_low``/``ci_high``:
    the Student-t interval at ``1 - alpha``; ``alpha`` is this experiment's share of the
    check's level. ``runs_to_settle``: runs at which the observed spread would decide (set
    when ``INCONCLUSIVE`` and some number of runs would).
    """

    verdict: Verdict
    alpha: float
    ci_low: float
    ci_high: float
    lower_limit: float
    lower_method: str
    runs_to_settle: int | None = None
    reason: str = ""


@dataclass(frozen=True)
class RegretResult:
    """Mean pseudo-regret at ``horizon`` over ``runs`` runs, a confidence interval, the bound.

    ``ci_low``/``ci_high``: the Student-t interval at ``confidence`` (the reporting
    convention; it decides nothing: the decision's interval is distribution-free). ``std``:
    the runs' sample standard deviation; ``max_per_run``: a number no run's regret can exceed
    (``T * max gap``), which makes a distribution-free interval available. ``within_bound`` is the
    point comparison ``mean <= bound`` and decides nothing;
    ``decision`` (:class:`RegretDecision`) carries the verdict.
    """

    instance: str
    algorithm: str
    horizon: int
    runs: int
    mean: float
    ci_low: float
    ci_high: float
    confidence: float
    bound: float | None
    bound_name: str
    within_bound: bool | None
    checkpoints: tuple[int, ...] = ()
    mean_curve: tuple[float, ...] = ()
    details: tuple[str, ...] = ()
    std: float | None = None
    max_per_run: float | None = None
    decision: RegretDecision | None = None
    seconds: float = 0.0  # wall-clock seconds of the experiment (set by the engine; JUnit time)
    #: share of runs above 10x the median run, and the largest run (the tail beside the mean)
    tail_share: float | None = None
    largest: float | None = None
    #: the runs' regrets in the order they were drawn (kept for the betting confidence
    #: sequence, :mod:`dpaudit.stats.sequential`; not written to the JSON report)
    values: Any = field(default=None, compare=False, repr=False)
    #: the run counts at which the runs were looked at (the ends of the batches)
    looks: tuple[int, ...] = ()
    #: how the runs were gathered (:mod:`dpaudit.runtime.batches`): the first batch's runs,
    #: the batches, why adding them stopped (``"decided"``, ``"run cap"``, ``"time cap"``,
    #: ``"single batch"``: nothing to decide) and the caps; ``None``: made in one piece
    batching: Mapping[str, Any] | None = None

    @property
    def verdict(self) -> Verdict:
        """The decided verdict (``INCONCLUSIVE`` when nothing decided it)."""
        return Verdict.INCONCLUSIVE if self.decision is None else self.decision.verdict

    def to_dict(self) -> dict[str, Any]:
        d = self.decision
        return {
            "instance": self.instance,
            "algorithm": self.algorithm,
            "horizon": self.horizon,
            "runs": self.runs,
            "mean": self.mean,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "confidence": self.confidence,
            "bound": _json_number(self.bound),
            "bound_name": self.bound_name,
            "within_bound": self.within_bound,
            "checkpoints": list(self.checkpoints),
            "mean_curve": list(self.mean_curve),
            "details": list(self.details),
            "std": _json_number(self.std),
            "max_per_run": _json_number(self.max_per_run),
            "verdict": self.verdict.value,
            "verdict_alpha": None if d is None else d.alpha,
            "verdict_ci_low": None if d is None else _json_number(d.ci_low),
            "verdict_ci_high": None if d is None else _json_number(d.ci_high),
            "verdict_lower_limit": None if d is None else _json_number(d.lower_limit),
            "verdict_lower_method": None if d is None else d.lower_method,
            "runs_to_settle": None if d is None else d.runs_to_settle,
            "verdict_reason": "" if d is None else d.reason,
            "tail_share": _json_number(self.tail_share),
            "largest": _json_number(self.largest),
            "seconds": round(self.seconds, 3),
            "looks": list(self.looks),
            "batching": None if self.batching is None else _jsonable(dict(self.batching)),
        }


def overall_verdict(claims: tuple[ClaimResult, ...] | list[ClaimResult]) -> Verdict:
    """VIOLATED if any claim is; else INCONCLUSIVE if any is; else the weakest positive verdict."""
    verdicts = [c.verdict for c in claims]
    if not verdicts:
        return Verdict.INCONCLUSIVE
    for v in (Verdict.VIOLATED, Verdict.INCONCLUSIVE, Verdict.CONSISTENT, Verdict.EXACT):
        if v in verdicts:
            return v
    return Verdict.PROVED


@dataclass(frozen=True)
class CheckReport:
    name: str
    description: str
    paper: str
    parameters: dict[str, Any]
    claims: tuple[ClaimResult, ...]
    findings: tuple[Finding, ...] = ()
    regret: RegretResult | None = None
    seconds: float = 0.0
    alpha_split: dict[str, Any] | None = None
    #: ``--seconds``: the deadline and what it cut (``hit``, ``hard_kill``, ``claims_cut``,
    #: ``claims_not_run``, ``findings_cut``, ``regret_not_run``); ``None``: no deadline
    deadline: dict[str, Any] | None = None
    #: ``--fail-on-inconclusive``: the process exits 4 when no claim is VIOLATED but one is
    #: INCONCLUSIVE, and the report says so (:attr:`exit_code`)
    fail_on_inconclusive: bool = False
    #: why there is no :attr:`regret` (a broken twin, ``--no-regret``, none declared);
    #: ``None`` when there is one
    regret_note: str | None = None

    @property
    def verdict(self) -> Verdict:
        """The claims' overall verdict, or ``VIOLATED`` when the regret experiment's decided
        verdict is (its alpha is one share of the check's, so the exit code stays wrong with
        probability at most ``alpha``). A regret ``INCONCLUSIVE`` does not lower it."""
        if self.regret is not None and self.regret.verdict is Verdict.VIOLATED:
            return Verdict.VIOLATED
        return overall_verdict(self.claims)

    @property
    def exit_code(self) -> int:
        """The exit code of the process that prints this report: 1 when VIOLATED; 4 under
        :attr:`fail_on_inconclusive` when no claim is VIOLATED but one is INCONCLUSIVE (a CI
        gate reading the JSON sees what the shell sees); else 0."""
        if self.verdict is Verdict.VIOLATED:
            return 1
        if self.fail_on_inconclusive and any(
                c.verdict is Verdict.INCONCLUSIVE for c in self.claims):
            return 4
        return 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "paper": self.paper,
            "verdict": self.verdict.value,
            "parameters": _jsonable(self.parameters),
            "claims": [c.to_dict() for c in self.claims],
            "findings": [f.to_dict() for f in self.findings],
            "regret": None if self.regret is None else self.regret.to_dict(),
            "seconds": round(self.seconds, 3),
            "alpha_split": _jsonable(self.alpha_split),
            "deadline_hit": bool(self.deadline and self.deadline.get("hit")),
            "deadline": _jsonable(self.deadline),
            "fail_on_inconclusive": self.fail_on_inconclusive,
            "regret_note": self.regret_note,
        }


def _json_number(x: float | None) -> float | None:
    """JSON has no inf/NaN: infinite values are written as ``null`` (as documented)."""
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        raise ValueError("a NaN reached a report; this is a bug in the engine")
    if math.isinf(x):
        return None
    return x


def _jsonable(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, np.generic):
        return _jsonable(obj.item())
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, float):
        return _json_number(obj)
    return obj
