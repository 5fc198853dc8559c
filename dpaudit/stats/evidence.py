"""Evidence types, and the one place where evidence becomes a verdict.

A claim's ``evaluate(ctx, spec)`` returns *evidence*, never a verdict:

* :class:`ProofEvidence`: a symbolic (or certified-numeric) proof of a condition. The
  condition is *sufficient* unless ``necessary=True``; a failed sufficient condition is not a
  violation (a careful referee would not call it one), so it gives ``INCONCLUSIVE``.
* :class:`ExactEvidence`: a privacy loss computed numerically, with a rigorous bound on the
  absolute error of the computed ``delta`` (closed form in floating point, quadrature, root
  finding). It is ``VIOLATED`` only when the computed value minus its error exceeds the claim.
* :class:`SampledEvidence`: the counts of one event, chosen on a selection sample and measured
  on a fresh one. The engine turns the counts into a Clopper-Pearson bound *after* every claim
  of the check has run, at ``alpha / m`` for the ``m`` sampled claims of the check
  (Bonferroni), so the exit code of the whole check is wrong with probability at most
  ``alpha``.
* :class:`RegretEvidence`: mean regret over independent runs, its spread, the theorem's bound
  and (when known) the largest regret a run can have. :func:`decide_regret` turns it into a
  :class:`~dpaudit.stats.results.RegretDecision`: ``VIOLATED`` only when a valid lower
  confidence limit of the mean is above the bound, ``CONSISTENT`` when the upper limit is
  below, ``INCONCLUSIVE`` otherwise, with the runs that would settle it. Its alpha is one share
  of the check's Bonferroni split (:func:`split_alpha` counts it like a sampled claim).
* :class:`ExperimentEvidence`: a figure or narration of the paper beside measured values
  (:class:`Measurement`: the paper's value, the measured one, its runs and spread, the
  direction the statement implies). :func:`decide_experiment` gives the ledger status
  (``reproduced``, ``not reproduced``, ``INCONCLUSIVE``, ``vacuous`` or ``run``) by the same
  interval rule as regret; an experiment never judges itself.
* :class:`InconclusiveEvidence`: nothing decisive (a budget ran out, an overflow, a condition
  outside every tier's reach), with the reason and what would settle it.

:func:`decide` is the only function that builds a :class:`~dpaudit.stats.results.ClaimResult`
from evidence; the method (symbolic, exact, sampled) is carried by the evidence type, never
read from message text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from scipy import stats

from dpaudit.stats.events import cp_lower, cp_upper
from dpaudit.stats.intervals import (
    IntervalMethod,
    bernstein_interval,
    runs_to_settle,
    student_t_interval,
)
from dpaudit.stats.profile import (
    ProfileEvent,
    calibration_finding,
    privacy_profile,
    summary_line,
)
from dpaudit.stats.results import (
    ClaimResult,
    Method,
    ProofResult,
    ProofStatus,
    RegretDecision,
    RegretResult,
    Verdict,
)
from dpaudit.stats.sampled_bounds import (
    DEFAULT_POWER,
    detectable_epsilon_at_power,
    epsilon_from_counts,
)
from dpaudit.validation import check_alpha, check_int

__all__ = [
    "DEFAULT_POWER",
    "Evidence",
    "ExactEvidence",
    "ExperimentDecision",
    "ExperimentEvidence",
    "InconclusiveEvidence",
    "Measurement",
    "ProofEvidence",
    "RegretEvidence",
    "SampledEvidence",
    "decide",
    "decide_experiment",
    "decide_regret",
    "decided_regret",
    "detectable_epsilon_at_power",
    "epsilon_from_counts",
    "float_error_floor",
    "regret_evidence",
    "split_alpha",
]

#: tiers of :class:`~dpaudit.stats.results.ReducedInequality` that are numeric computations, not
#: sympy decisions: a claim decided by one of them has method ``exact``
NUMERIC_TIERS = frozenset({"certified-numeric", "critical-points"})

_ULP = 2.220446049250313e-16


def float_error_floor(*values: float) -> float:
    """A floor for the error of a few floating-point operations on ``values``.

    Used when a computation states no error of its own: 64 units in the last place of the
    largest magnitude involved (and of 1, since probabilities are compared with ``delta``).
    """
    scale = max([1.0, *(abs(float(v)) for v in values if math.isfinite(float(v)))])
    return 64.0 * _ULP * scale


@dataclass(frozen=True)
class ProofEvidence:
    """A proof of the claim's condition (see :mod:`dpaudit.exact.symbolic`).

    ``necessary``: the condition is also necessary (e.g. an exact equality of the loss), so a
    disproof is a violation; otherwise a disproof is reported as INCONCLUSIVE.
    :attr:`numeric` is read from the tiers of the reduced inequalities, never from messages.
    """

    proof: ProofResult
    necessary: bool = False
    details: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def numeric(self) -> bool:
        """Some inequality was decided by a numeric tier (``certified-numeric`` or
        ``critical-points``) rather than by sympy: the method is then ``exact`` and a pass is
        ``EXACT``, not ``PROVED``."""
        return any(i.tier in NUMERIC_TIERS for i in self.proof.inequalities)


@dataclass(frozen=True)
class ExactEvidence:
    """A computed loss: the tightest ``delta`` at the claimed epsilon and its error bound.

    ``delta_at_epsilon`` is the hockey-stick divergence (the worst over the tested neighbours)
    at the claimed epsilon; ``error`` a rigorous bound on its absolute error (the engine adds
    a floating-point floor, :func:`float_error_floor`); ``epsilon_at_delta`` the smallest
    epsilon with that divergence at most the claimed delta, when computed (reported as the
    exact loss).
    """

    delta_at_epsilon: float
    error: float
    epsilon_at_delta: float | None = None
    details: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SampledEvidence:
    """Counts of one event fixed before its measurement sample was drawn.

    ``count_p`` of ``n_p`` draws on the side where the event is likely (``D`` when
    ``direction`` is ``"D vs D'"``), ``count_q`` of ``n_q`` on the other. ``p_select`` is the
    event's frequency on the selection sample (the power statement uses it).
    """

    count_p: int
    n_p: int
    count_q: int
    n_q: int
    event: str
    direction: str
    p_select: float
    n_select: int
    details: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class InconclusiveEvidence:
    reason: str
    method: Method = Method.EXACT
    details: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)


Evidence = ProofEvidence | ExactEvidence | SampledEvidence | InconclusiveEvidence


@dataclass(frozen=True)
class RegretEvidence:
    """Pseudo-regret over ``runs`` independent runs: its ``mean`` and sample ``std``
    (``ddof=1``), the theorem's ``bound`` (``None``: no numeric bound) and ``max_per_run``, a
    number no run can exceed (``T * max gap``; ``None``: not known). With ``max_per_run`` the
    lower limit that can make a verdict ``VIOLATED`` is distribution-free (empirical
    Bernstein); without it, it is the Student-t limit, which assumes a near-normal mean."""

    mean: float
    std: float
    runs: int
    bound: float | None
    max_per_run: float | None = None


def split_alpha(alpha: float, evidences: Sequence[Any], *, regret: bool = False) -> float:
    """Per-claim level for the sampled evidences of one check (Bonferroni); ``regret``: the
    check also decides a regret experiment, which takes one more share."""
    m = sum(isinstance(e, SampledEvidence) for e in evidences) + int(regret)
    return alpha / max(m, 1)


def regret_evidence(result: RegretResult) -> RegretEvidence:
    """The evidence a :class:`~dpaudit.stats.results.RegretResult` carries. A result without
    ``std`` (written before it existed) has its spread recovered from its Student-t interval."""
    std = result.std
    if std is None:
        half = (result.ci_high - result.ci_low) / 2.0
        q = float(stats.t.ppf(0.5 + result.confidence / 2.0, max(result.runs - 1, 1)))
        std = half * math.sqrt(result.runs) / q if result.runs > 1 else 0.0
    return RegretEvidence(float(result.mean), float(std), int(result.runs), result.bound,
                          result.max_per_run)


def decide_regret(ev: RegretEvidence, *, alpha: float) -> RegretDecision:
    """The verdict on a regret bound at level ``alpha`` (see :class:`RegretEvidence`).

    ``VIOLATED`` when the lower limit (empirical Bernstein when ``max_per_run`` is known,
    else Student-t) is above the bound; ``CONSISTENT`` when the Student-t upper limit is below
    it; ``INCONCLUSIVE`` otherwise, with the runs at which the observed spread would settle
    it. Each limit is one-sided at ``alpha / 2``, and the two wrong verdicts exclude each
    other, so the verdict is wrong with probability at most ``alpha`` (for ``CONSISTENT``,
    as far as the Student-t interval's normal approximation holds; ``CONSISTENT`` never
    changes an exit code).
    """
    check_alpha(alpha)
    t = student_t_interval(mean=ev.mean, std=ev.std, runs=ev.runs, alpha=alpha)
    scale = ev.max_per_run if ev.max_per_run is not None and ev.max_per_run > 0 else None
    method: IntervalMethod
    if scale is not None:
        valid = bernstein_interval(mean=ev.mean, std=ev.std, runs=ev.runs, scale=scale,
                                   alpha=alpha)
        lower, method = valid.low, "empirical-bernstein"
    else:
        lower, method = t.low, "student-t"
    if ev.bound is None:
        return RegretDecision(Verdict.INCONCLUSIVE, alpha, t.low, t.high, lower, method,
                              None, "no numeric bound to compare with")
    bound = float(ev.bound)
    if ev.runs < 2:
        return RegretDecision(Verdict.INCONCLUSIVE, alpha, t.low, t.high, lower, method,
                              None, "one run gives no spread: at least 2 runs are needed")
    if lower > bound:
        return RegretDecision(Verdict.VIOLATED, alpha, t.low, t.high, lower, method, None,
                              f"lower {1 - alpha / 2:.4g} limit {lower:.6g} ({method}) is above "
                              f"the bound {bound:.6g}")
    if t.high < bound:
        return RegretDecision(Verdict.CONSISTENT, alpha, t.low, t.high, lower, method, None,
                              f"upper {1 - alpha / 2:.4g} limit {t.high:.6g} (student-t) is "
                              f"below the bound {bound:.6g}")
    if ev.mean > bound:
        need = runs_to_settle(mean=ev.mean, std=ev.std, value=bound, alpha=alpha,
                              method=method, scale=scale)
    else:
        need = runs_to_settle(mean=ev.mean, std=ev.std, value=bound, alpha=alpha)
    where = ("no number of runs would settle it at this spread" if need is None
             else f"about {need} runs would settle it at the observed spread")
    return RegretDecision(Verdict.INCONCLUSIVE, alpha, t.low, t.high, lower, method, need,
                          f"the interval [{lower:.6g}, {t.high:.6g}] contains the bound "
                          f"{bound:.6g}: {where}")


def decided_regret(result: RegretResult, *, alpha: float) -> RegretResult:
    """``result`` with its :class:`~dpaudit.stats.results.RegretDecision` at ``alpha``."""
    return replace(result, decision=decide_regret(regret_evidence(result), alpha=alpha))


def decide(spec: Any, ctx: Any, evidence: Evidence, *, alpha: float | None = None,
           power: float = DEFAULT_POWER) -> ClaimResult:
    """Turn one claim's evidence into its :class:`ClaimResult`.

    ``spec`` is the claim (``id``, ``notion``, ``statement``, ``reference``); ``ctx`` gives the
    claimed ``epsilon`` and ``delta``; ``alpha`` is this claim's share of the check's level
    (sampled evidence only; default ``ctx.alpha``).
    """
    eps, dlt = float(ctx.epsilon), float(ctx.delta)
    base = {"id": spec.id, "notion": spec.notion, "epsilon": eps, "delta": dlt,
            "statement": spec.statement, "reference": spec.reference}
    if isinstance(evidence, ProofEvidence):
        return _decide_proof(base, evidence)
    if isinstance(evidence, ExactEvidence):
        return _decide_exact(base, evidence, dlt)
    if isinstance(evidence, SampledEvidence):
        a = float(ctx.alpha if alpha is None else alpha)
        return _decide_sampled(base, evidence, eps, dlt, a, power)
    if isinstance(evidence, InconclusiveEvidence):
        return ClaimResult(**base, verdict=Verdict.INCONCLUSIVE, method=evidence.method,
                           details=(*evidence.details, evidence.reason),
                           data=dict(evidence.data))
    raise TypeError(f"claim {spec.id!r}: evaluate returned {type(evidence).__name__}, not "
                    "evidence (ProofEvidence, ExactEvidence, SampledEvidence or "
                    "InconclusiveEvidence)")


def _decide_proof(base: dict[str, Any], ev: ProofEvidence) -> ClaimResult:
    status = ev.proof.status
    lines = list(ev.details)
    if status is ProofStatus.PROVED:
        verdict = Verdict.EXACT if ev.numeric else Verdict.PROVED
    elif status is ProofStatus.DISPROVED and ev.necessary:
        verdict = Verdict.VIOLATED
        lines.append(f"witness: {ev.proof.witness}")
    elif status is ProofStatus.DISPROVED:
        verdict = Verdict.INCONCLUSIVE
        lines.append(f"a sufficient condition fails (witness {ev.proof.witness}); a sufficient "
                     "condition failing is not a violation: the exact or sampled claims decide")
    else:
        verdict = Verdict.INCONCLUSIVE
        lines.append("a condition is outside the prover's reach (or its time budget); an exact "
                     "or sampled check of the concrete parameters, or a hand proof, would "
                     "settle it")
    method = Method.EXACT if ev.numeric else Method.SYMBOLIC
    return ClaimResult(**base, verdict=verdict, method=method, details=tuple(lines),
                       proof=ev.proof, data=dict(ev.data))


def _decide_exact(base: dict[str, Any], ev: ExactEvidence, dlt: float) -> ClaimResult:
    value = float(ev.delta_at_epsilon)
    if math.isnan(value) or math.isnan(float(ev.error)):
        return ClaimResult(**base, verdict=Verdict.INCONCLUSIVE, method=Method.EXACT,
                           details=(*ev.details, "the computation returned NaN"),
                           data=dict(ev.data))
    err = float(ev.error) + float_error_floor(value, dlt)
    lines = list(ev.details)
    if value - err > dlt:
        verdict = Verdict.VIOLATED
        lines.append(f"exact delta at the claimed epsilon {value:.6g} exceeds the claim {dlt:.6g}"
                     f" by more than its error bound {err:.2g}")
    else:
        verdict = Verdict.EXACT
        if value + err > dlt:
            lines.append(f"exact delta {value:.6g} equals the claim {dlt:.6g} within its error "
                         f"bound {err:.2g} (tight)")
        else:
            lines.append(f"exact delta {value:.6g} <= claim {dlt:.6g} (error bound {err:.2g})")
    data = {**ev.data, "delta_at_epsilon": value, "error_bound": err}
    return ClaimResult(**base, verdict=verdict, method=Method.EXACT,
                       epsilon_lower_bound=ev.epsilon_at_delta, details=tuple(lines), data=data)


def _decide_sampled(base: dict[str, Any], ev: SampledEvidence, eps: float, dlt: float, alpha: float,
                    power: float) -> ClaimResult:
    bound, p_lo, q_hi = epsilon_from_counts(ev.count_p, ev.n_p, ev.count_q, ev.n_q,
                                            delta=dlt, alpha=alpha)
    detect = detectable_epsilon_at_power(max(ev.p_select, 1.0 / ev.n_p), ev.n_p, ev.n_q,
                                         epsilon=eps, delta=dlt, alpha=alpha, power=power)
    if bound > eps:
        verdict = Verdict.VIOLATED
    elif math.isinf(detect):
        verdict = Verdict.INCONCLUSIVE
    else:
        verdict = Verdict.CONSISTENT
    p_side, q_side = ("D", "D'") if ev.direction == "D vs D'" else ("D'", "D")
    lines = [*ev.details,
             f"event: {ev.event} ({ev.direction}), fixed on {ev.n_select} selection draws per "
             "side",
             f"measured on fresh draws: P[M({p_side}) in E] >= {p_lo:.6g} ({ev.count_p}/"
             f"{ev.n_p}), P[M({q_side}) in E] <= {q_hi:.6g} ({ev.count_q}/{ev.n_q}); "
             f"Clopper-Pearson at alpha/2 = {alpha / 2:.3g} each"]
    if verdict is Verdict.INCONCLUSIVE:
        lines.append("no violation of any size is detectable with this event and sample size "
                     "(its probability is too small against delta): add samples")
    elif verdict is Verdict.CONSISTENT:
        lines.append(f"a true epsilon above {detect:.4g} would be caught with probability >= "
                     f"{power:.0%}")
    data = {**ev.data, "event": ev.event, "direction": ev.direction, "count_p": ev.count_p,
            "n_p": ev.n_p, "count_q": ev.count_q, "n_q": ev.n_q, "n_measure": ev.n_p,
            "p_lo": p_lo, "q_hi": q_hi,
            "n_select": ev.n_select, "power": power, "detectable_at_power": detect}
    profile = sampled_profile(ev, eps, dlt, alpha)
    lines.append(summary_line(profile))
    finding = calibration_finding(profile, violated=verdict is Verdict.VIOLATED)
    if finding is not None:
        data["calibration_finding"] = finding
        lines.append(f"finding: {finding['summary']}")
    return ClaimResult(**base, verdict=verdict, method=Method.SAMPLED,
                       epsilon_lower_bound=bound,
                       detectable_epsilon=None if verdict is not Verdict.CONSISTENT else detect,
                       alpha=alpha, details=tuple(lines), data=data, profile=profile)


def sampled_profile(ev: SampledEvidence, eps: float, dlt: float, alpha: float
                    ) -> dict[str, Any]:
    """The privacy profile (:func:`dpaudit.stats.profile.privacy_profile`) of sampled
    evidence at ``alpha``: its measured profile events, or (evidence gathered before the
    profile existed, or a hand-built one) its one event."""
    raw = ev.data.get("profile_events") or [{
        "role": "verdict", "event": ev.event, "direction": ev.direction,
        "count_p": ev.count_p, "n_p": ev.n_p, "count_q": ev.count_q, "n_q": ev.n_q}]
    events = [ProfileEvent(str(r["role"]), str(r["event"]), str(r["direction"]),
                           int(r["count_p"]), int(r["n_p"]), int(r["count_q"]), int(r["n_q"]))
              for r in raw]
    mu = ev.data.get("analysis_mu")
    return privacy_profile(events, alpha=alpha, epsilon=eps, delta=dlt,
                           analysis_mu=None if mu is None else float(mu))


#: what a paper's statement says of the measured value: ``"at most"`` (an upper bound: the
#: measurement reproduces it when it is below), ``"at least"`` (a lower bound, or a claimed
#: ratio or gain of at least the paper's value), ``"witness at least"`` (a minimax lower
#: bound: a measurement above it witnesses it; one below cannot contradict it, since the worst
#: environment may be elsewhere)
DIRECTIONS = ("at most", "at least", "witness at least")


@dataclass(frozen=True)
class Measurement:
    """One measured cell of an experiment beside the paper's value.

    ``paper_value``: what the statement gives at this cell (``None``: narration only, nothing
    to compare). ``measured``: the mean over ``runs`` runs (``runs = 0``: computed exactly,
    no sampling). ``std``: the runs' sample standard deviation; the rule then computes the
    Student-t interval at the cell's share of alpha. An experiment whose measured value is not
    a plain mean (a ratio of means) gives its own ``ci_low``/``ci_high`` at
    ``ci_confidence`` instead, saying how (``note``). ``direction``: one of
    :data:`DIRECTIONS`. ``vacuous_below``: a paper value below it says nothing at this
    setting (1.0 for a regret lower bound: less than one unit of regret).
    """

    label: str
    paper_value: float | None
    measured: float
    runs: int
    direction: str = "at most"
    std: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    ci_confidence: float | None = None
    vacuous_below: float | None = None
    count: int | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction={self.direction!r} must be one of {DIRECTIONS}")
        check_int("runs", self.runs, low=0)


@dataclass(frozen=True)
class ExperimentEvidence:
    """What the paper says (``paper``: the statement or narration) and the measured cells."""

    paper: str
    measurements: tuple[Measurement, ...]


@dataclass(frozen=True)
class CellOutcome:
    """One compared cell: its interval (``ci_low``/``ci_high`` at ``alpha``) and outcome
    (``"right side"``, ``"wrong side"``, ``"straddles"``, ``"vacuous"``, ``"not compared"``)."""

    measurement: Measurement
    ci_low: float
    ci_high: float
    alpha: float | None
    outcome: str


@dataclass(frozen=True)
class ExperimentDecision:
    """The ledger status of an experiment and the cell it rests on (``key``: the cell that
    contradicts the paper, or, when none does, the one closest to its value)."""

    status: str
    alpha: float
    cells: tuple[CellOutcome, ...]
    key: CellOutcome | None
    reason: str


def _vacuous(m: Measurement) -> bool:
    return (m.paper_value is not None and m.vacuous_below is not None
            and m.direction != "at most" and float(m.paper_value) < m.vacuous_below)


def _cell(m: Measurement, alpha: float) -> CellOutcome:
    if m.paper_value is None:
        return CellOutcome(m, m.measured, m.measured, None, "not compared")
    paper = float(m.paper_value)
    a: float | None
    if m.ci_low is not None and m.ci_high is not None:
        lo, hi = float(m.ci_low), float(m.ci_high)
        a = None if m.ci_confidence is None else 1.0 - m.ci_confidence
    elif m.runs == 0:
        lo, hi, a = float(m.measured), float(m.measured), None
    elif m.count is not None:
        lo = float(cp_lower(m.count, m.runs, alpha / 2))
        hi, a = float(cp_upper(m.count, m.runs, alpha / 2)), alpha
    else:
        iv = student_t_interval(mean=float(m.measured), std=float(m.std or 0.0), runs=m.runs,
                                alpha=alpha)
        lo, hi, a = iv.low, iv.high, alpha
    if _vacuous(m):
        outcome = "vacuous"
    elif m.direction == "at most":
        outcome = ("wrong side" if lo > paper else "right side" if hi <= paper
                   else "straddles")
    elif m.direction == "witness at least":
        outcome = "right side" if lo >= paper else "straddles"
    else:
        outcome = ("wrong side" if hi < paper else "right side" if lo >= paper
                   else "straddles")
    return CellOutcome(m, lo, hi, a, outcome)


def _margin(c: CellOutcome) -> float:
    paper = float(c.measurement.paper_value or 0.0)
    return (paper - c.ci_high) if c.measurement.direction == "at most" else (c.ci_low - paper)


def decide_experiment(ev: ExperimentEvidence, *, alpha: float = 0.05) -> ExperimentDecision:
    """The ledger status of an experiment, by the interval rule of :func:`decide_regret`.

    The ``m`` compared cells share ``alpha`` (Bonferroni: each cell's Student-t interval is
    at ``alpha / m``, two-sided). ``not reproduced``: some cell's interval lies entirely on
    the side the paper's statement excludes; ``reproduced``: every compared cell's interval
    lies on the side it allows; ``INCONCLUSIVE``: neither (an interval contains the paper's
    value); ``vacuous``: every cell with a paper value is below its ``vacuous_below`` (a
    lower bound under one unit of regret reproduces nothing); ``run``: nothing to compare.
    """
    check_alpha(alpha)
    compared = [m for m in ev.measurements if m.paper_value is not None]
    vac = [m for m in compared if _vacuous(m)]
    share = alpha / max(len(compared) - len(vac), 1)
    cells = tuple(_cell(m, share) for m in ev.measurements)
    live = [c for c in cells if c.outcome in ("right side", "wrong side", "straddles")]
    if not live:
        vacuous = [c for c in cells if c.outcome == "vacuous"]
        if not vacuous:
            return ExperimentDecision("run", alpha, cells, None, "no paper value to compare with")
        key = max(vacuous, key=lambda c: float(c.measurement.paper_value or 0.0))
        return ExperimentDecision(
            "vacuous", alpha, cells, key, "every paper value is below its vacuity floor (e.g. "
            "a lower bound under one unit of regret): the statement says nothing at this "
            "setting")
    wrong = [c for c in live if c.outcome == "wrong side"]
    key = wrong[0] if wrong else min(live, key=_margin)
    status = ("not reproduced" if wrong else
              "reproduced" if all(c.outcome == "right side" for c in live) else "INCONCLUSIVE")
    n_right = sum(c.outcome == "right side" for c in live)
    reason = (f"{len(wrong)} wrong side, {n_right} right side, "
              f"{len(live) - len(wrong) - n_right} straddling of {len(live)} compared cell(s)"
              + (f" ({len(vac)} vacuous)" if vac else "") + f"; alpha {alpha:g} split over "
              f"{len(live)}")
    return ExperimentDecision(status, alpha, cells, key, reason)
