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
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from scipy import stats

from dpaudit.interfaces import ClaimContext, ClaimDescription
from dpaudit.stats.events import cp_lower, cp_upper
from dpaudit.stats.intervals import (
    MeanInterval,
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
    Notion,
    ProofResult,
    ProofStatus,
    RegretDecision,
    RegretResult,
    Verdict,
)
from dpaudit.stats.rule import (
    RunSummary,
    bounded_interval,
    merge_summaries,
    ratio_bounds,
    runs_to_settle_bounded,
    stable_outcome,
    summarise_runs,
)
from dpaudit.stats.sampled_bounds import (
    DEFAULT_POWER,
    detectable_epsilon_at_power,
    epsilon_from_counts,
    reach_of_exact,
)
from dpaudit.stats.sequential import (
    betting_interval,
    fewest_runs,
    projected_half_width,
    runs_to_settle_sequential,
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
    "regret_interval",
    "regret_runs_to_settle",
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
    interval that decides is distribution-free; without it, only the Student-t interval
    exists, which assumes a near-normal mean and decides nothing.

    ``values``: the runs' regrets in the order they were drawn (``None``: only the moments are
    known, e.g. a report stored before the runs were kept); with them the interval is the
    betting confidence sequence (:mod:`dpaudit.stats.sequential`), valid however many times it
    was looked at, at the run counts ``looks`` (the ends of the batches; empty: the end)."""

    mean: float
    std: float
    runs: int
    bound: float | None
    max_per_run: float | None = None
    values: Any = field(default=None, compare=False, repr=False)
    looks: tuple[int, ...] = ()


def split_alpha(alpha: float, evidences: Sequence[Any], *, regret: bool = False) -> float:
    """Per-claim level for the sampled evidences of one check (Bonferroni); ``regret``: the
    check also decides a regret experiment, which takes one more share."""
    m = sum(isinstance(e, SampledEvidence) for e in evidences) + int(regret)
    return alpha / max(m, 1)


def regret_evidence(result: RegretResult) -> RegretEvidence:
    """The evidence a :class:`~dpaudit.stats.results.RegretResult` carries (its runs, in order,
    when it kept them). A result without ``std`` (written before it existed) has its spread
    recovered from its Student-t interval."""
    std = result.std
    if std is None:
        half = (result.ci_high - result.ci_low) / 2.0
        q = float(stats.t.ppf(0.5 + result.confidence / 2.0, max(result.runs - 1, 1)))
        std = half * math.sqrt(result.runs) / q if result.runs > 1 else 0.0
    return RegretEvidence(float(result.mean), float(std), int(result.runs), result.bound,
                          result.max_per_run, values=result.values, looks=result.looks)


def regret_interval(ev: RegretEvidence, *, alpha: float) -> MeanInterval | None:
    """The interval that decides a regret bound at ``alpha`` (two-sided): the betting
    confidence sequence of the runs (:func:`~dpaudit.stats.sequential.betting_interval`, valid
    at any stopping time) when ``ev`` keeps them, else Hoeffding with empirical Bernstein
    (:func:`~dpaudit.stats.rule.bounded_interval`, valid for one look at a run count fixed in
    advance), both on ``[0, max_per_run]``; ``None`` without ``max_per_run``."""
    scale = ev.max_per_run if ev.max_per_run is not None and ev.max_per_run > 0 else None
    if scale is None:
        return None
    if ev.values is not None and len(ev.values) == ev.runs:
        return betting_interval(ev.values, low=0.0, high=scale, alpha=alpha,
                                looks=ev.looks or None)
    mean = min(max(ev.mean, 0.0), scale)
    return bounded_interval(mean=mean, std=ev.std, runs=ev.runs, low=0.0, high=scale,
                            alpha=alpha)


def regret_runs_to_settle(ev: RegretEvidence, *, alpha: float) -> int | None:
    """Runs at which the deciding interval of :func:`regret_interval` would settle the bound
    at the observed mean and spread (``None``: no bound or range, or no count would)."""
    scale = ev.max_per_run if ev.max_per_run is not None and ev.max_per_run > 0 else None
    if scale is None or ev.bound is None:
        return None
    mean = min(max(ev.mean, 0.0), scale)
    if ev.values is not None and len(ev.values) == ev.runs:
        return runs_to_settle_sequential(mean=mean / scale, std=ev.std / scale,
                                         value=float(ev.bound) / scale, alpha=alpha)
    summary = RunSummary(ev.runs, mean, ev.std, mean, mean, 0.0, 0.0, scale)
    return runs_to_settle_bounded(summary, float(ev.bound), alpha=alpha)


def decide_regret(ev: RegretEvidence, *, alpha: float) -> RegretDecision:
    """The verdict on a regret bound at level ``alpha`` (see :class:`RegretEvidence`), by the
    rule of :mod:`dpaudit.stats.rule`.

    With ``max_per_run`` (no run's regret exceeds ``T * max gap``) the interval is
    distribution-free on ``[0, max_per_run]``, two-sided at ``alpha``
    (:func:`regret_interval`: the betting confidence sequence of the runs when they are kept,
    valid whatever rule stopped them; else Hoeffding with empirical Bernstein at a fixed run
    count): ``VIOLATED`` when its lower limit is above the bound, ``CONSISTENT`` when its
    upper limit is below it, ``INCONCLUSIVE`` otherwise, with the runs at which the observed
    spread would settle it. The two wrong verdicts exclude each other, so the verdict is
    wrong with probability at most ``alpha`` for every law of the runs on that range.
    Without ``max_per_run`` only the Student-t interval exists; regret is heavy-tailed, so it
    is shown and decides nothing (``INCONCLUSIVE``).
    """
    check_alpha(alpha)
    t = student_t_interval(mean=ev.mean, std=ev.std, runs=ev.runs, alpha=alpha)
    if ev.bound is None:
        return RegretDecision(Verdict.INCONCLUSIVE, alpha, t.low, t.high, t.low, "student-t",
                              None, "no numeric bound to compare with")
    bound = float(ev.bound)
    iv = regret_interval(ev, alpha=alpha)
    if iv is None:
        return RegretDecision(Verdict.INCONCLUSIVE, alpha, t.low, t.high, t.low, "student-t",
                              None, "no distribution-free interval: the instance's range of "
                              "one run's regret (T * max gap) is not known, and a Student-t "
                              "interval is not valid for heavy-tailed regret")
    method = iv.method
    if iv.low > bound:
        return RegretDecision(Verdict.VIOLATED, alpha, iv.low, iv.high, iv.low, method, None,
                              f"lower {1 - alpha / 2:.4g} limit {iv.low:.6g} ({method}) is above "
                              f"the bound {bound:.6g}")
    if iv.high < bound:
        return RegretDecision(Verdict.CONSISTENT, alpha, iv.low, iv.high, iv.low, method, None,
                              f"upper {1 - alpha / 2:.4g} limit {iv.high:.6g} ({method}) is "
                              f"below the bound {bound:.6g}")
    need = regret_runs_to_settle(ev, alpha=alpha)
    where = ("no number of runs would settle it at this spread" if need is None
             else f"about {need} runs would settle it at the observed spread")
    return RegretDecision(Verdict.INCONCLUSIVE, alpha, iv.low, iv.high, iv.low, method, need,
                          f"the interval [{iv.low:.6g}, {iv.high:.6g}] ({method}) contains the "
                          f"bound {bound:.6g}: {where}")


def decided_regret(result: RegretResult, *, alpha: float) -> RegretResult:
    """``result`` with its :class:`~dpaudit.stats.results.RegretDecision` at ``alpha``."""
    return replace(result, decision=decide_regret(regret_evidence(result), alpha=alpha))


def decide(spec: ClaimDescription[Notion], ctx: ClaimContext, evidence: Evidence, *,
           alpha: float | None = None, power: float = DEFAULT_POWER) -> ClaimResult:
    """Turn one claim's evidence into its :class:`ClaimResult`.

    ``spec`` is the claim (``id``, ``notion``, ``statement``, ``reference``); ``ctx`` gives the
    claimed ``epsilon`` and ``delta``; ``alpha`` is this claim's share of the check's level
    (sampled evidence only; default ``ctx.alpha``, a ``TypeError`` when neither is given).
    """
    eps, dlt = float(ctx.epsilon), float(ctx.delta)
    base: dict[str, Any] = {"id": spec.id, "notion": spec.notion, "epsilon": eps,
                            "delta": dlt, "statement": spec.statement,
                            "reference": spec.reference}
    if isinstance(evidence, ProofEvidence):
        return _decide_proof(base, evidence)
    if isinstance(evidence, ExactEvidence):
        return _decide_exact(base, evidence, dlt)
    if isinstance(evidence, SampledEvidence):
        level = getattr(ctx, "alpha", None) if alpha is None else alpha
        if level is None:
            raise TypeError(f"claim {spec.id!r}: sampled evidence is decided at a level: "
                            "ctx.alpha or alpha=...")
        a = float(level)
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
    exact = ev.data.get("exact_release_loss")
    if isinstance(exact, int | float) and math.isfinite(exact) and exact > 0:
        reach = reach_of_exact(ev.count_p, ev.n_p, ev.count_q, ev.n_q, delta=dlt,
                               alpha=alpha, exact=float(exact))
        data["reach_of_exact"] = asdict(reach)
        lines.append(
            f"reach: {reach.fraction:.3f} of the exact loss {exact:.4g} at {ev.n_p} measured "
            f"draws per side; " + (
                f"{reach.target:g} of it is reached" if reach.fraction >= reach.target else
                f"about {reach.draws_per_side:.3g} measured draws per side would reach "
                f"{reach.target:g} at the same frequencies (a projection)"
                if reach.draws_per_side is not None else
                f"this event's point estimate {reach.point:.4g} is itself below "
                f"{reach.target:g} of it: no budget with this event reaches it"))
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
    no sampling). ``direction``: one of :data:`DIRECTIONS`. ``vacuous_below``: a paper value
    below it says nothing at this setting (1.0 for a regret lower bound: less than one unit of
    regret).

    How the cell's interval is made (:mod:`dpaudit.stats.rule`), by what the cell carries:

    * ``summary`` (:class:`~dpaudit.stats.rule.RunSummary`, from
      :meth:`of_runs`): the runs' values lie in a known range, so the interval is
      distribution-free (Hoeffding with empirical Bernstein). This is the rule's interval.
    * ``ratio_of`` (two summaries, :meth:`of_ratio`): the ratio of two means, from their two
      valid intervals at half the cell's share of alpha each; four summaries ``(A, B, C, D)``
      (:meth:`of_difference_ratio`): the ratio of two differences of means ``(E A - E B) /
      (E C - E D)``, from the four intervals at a quarter of the share each.
    * ``count``: ``count`` successes in ``runs`` Bernoulli trials (Clopper-Pearson).
    * ``ci_low``/``ci_high`` given by the experiment at ``ci_confidence``, with
      ``ci_method`` saying why it is valid (an interval without a method decides nothing).
    * only ``std``: the Student-t interval is shown, but it is not valid under heavy tails and
      never decides the cell.

    ``tail_share`` and ``largest`` (set by :meth:`of_runs`): the share of runs above 10x the
    median and the largest run, reported beside the mean. A ratio cell has a tail on each side
    (:attr:`tails`: each sample's own share and largest run, never one side's share beside the
    other's largest run).

    ``ratio_scale``: a ratio cell is ``ratio_scale * mean(N) / mean(D)`` (a known positive
    constant, e.g. the ratio of an order's growth over two decades, for the rate tests of
    :mod:`dpaudit.audits.recipes.rates`); its interval is the ratio's scaled by it.

    ``vacuous_above``: an upper bound (``direction="at most"``) at or above it says nothing at
    this setting (1.0 for a bound on a probability: every probability is at most 1). For a
    lower bound on a probability ``vacuous_below`` is the smallest positive double
    (``math.ulp(0.0)``): a bound at or below zero says nothing either.
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
    summary: RunSummary | None = None
    ratio_of: tuple[RunSummary, ...] | None = None
    ci_method: str = ""
    vacuous_above: float | None = None
    ratio_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction={self.direction!r} must be one of {DIRECTIONS}")
        check_int("runs", self.runs, low=0)
        if not (math.isfinite(float(self.ratio_scale)) and float(self.ratio_scale) > 0):
            raise ValueError(f"ratio_scale={self.ratio_scale!r} must be a finite number in "
                             "(0, inf)")

    @classmethod
    def of_runs(cls, label: str, paper_value: float | None, values: Any, *, low: float,
                high: float, direction: str = "at most", vacuous_below: float | None = None,
                note: str = "") -> Measurement:
        """The cell of the mean of ``values`` (one per run), each known to lie in
        ``[low, high]`` (regret on a known instance: ``[0, T * max gap]``)."""
        sm = summarise_runs(values, low=low, high=high)
        return cls(label, paper_value, sm.mean, sm.runs, direction, std=sm.std,
                   vacuous_below=vacuous_below, note=note, summary=sm)

    @classmethod
    def of_ratio(cls, label: str, paper_value: float | None, numerator: Any, denominator: Any,
                 *, numerator_range: tuple[float, float], denominator_range: tuple[float, float],
                 direction: str = "at least", note: str = "", scale: float = 1.0
                 ) -> Measurement:
        """The cell of ``scale * mean(numerator) / mean(denominator)`` (two samples of runs,
        each in its known range; ``runs`` is the smaller sample). The interval is the union
        bound of the two samples' intervals, so the samples need not be independent (two
        quantities of the same runs are fine)."""
        a = summarise_runs(numerator, low=numerator_range[0], high=numerator_range[1])
        b = summarise_runs(denominator, low=denominator_range[0], high=denominator_range[1])
        ratio = scale * a.mean / b.mean if b.mean > 0 else math.inf
        return cls(label, paper_value, ratio, min(a.runs, b.runs), direction, note=note,
                   ratio_of=(a, b), ratio_scale=float(scale))

    @classmethod
    def of_difference_ratio(cls, label: str, paper_value: float | None, samples: Sequence[Any],
                            ranges: Sequence[tuple[float, float]], *,
                            direction: str = "at most", note: str = "", scale: float = 1.0
                            ) -> Measurement:
        """The cell of ``scale * (mean A - mean B) / (mean C - mean D)`` for four samples of
        runs ``samples = (A, B, C, D)``, each in its known range (``ranges``); the interval
        is the union bound of the four samples' intervals, so they need not be independent.
        ``runs`` is the smallest sample."""
        if len(samples) != 4 or len(ranges) != 4:
            raise ValueError("a difference ratio takes four samples and four ranges")
        sums = tuple(summarise_runs(v, low=r[0], high=r[1])
                     for v, r in zip(samples, ranges, strict=True))
        return cls(label, paper_value, _ratio_value(sums, scale), min(x.runs for x in sums),
                   direction, note=note, ratio_of=sums, ratio_scale=float(scale))

    @property
    def tail_share(self) -> float | None:
        """Share of runs above 10x the median (the largest of the samples' for a ratio)."""
        if self.summary is not None:
            return self.summary.tail_share
        if self.ratio_of is not None:
            return max(s.tail_share for s in self.ratio_of)
        return None

    @property
    def largest(self) -> float | None:
        """The largest run; for a ratio, that of the sample whose :attr:`tail_share` is
        reported (the larger share; the numerator on a tie), so the two numbers describe the
        same sample."""
        if self.summary is not None:
            return self.summary.largest
        if self.ratio_of is None:
            return None
        worst = max(self.ratio_of, key=lambda x: x.tail_share)  # the first on a tie
        return worst.largest

    @property
    def tails(self) -> tuple[tuple[str, float, float], ...]:
        """Each sample's own tail: ``(side, share of runs above 10x its median, largest
        run)``, side ``"runs"`` for a mean, ``"numerator"`` and ``"denominator"`` for a
        ratio."""
        if self.summary is not None:
            return (("runs", self.summary.tail_share, self.summary.largest),)
        if self.ratio_of is None:
            return ()
        sides = (("numerator", "denominator") if len(self.ratio_of) == 2 else
                 ("numerator's first term", "numerator's second term",
                  "denominator's first term", "denominator's second term"))
        return tuple((side, s.tail_share, s.largest)
                     for side, s in zip(sides, self.ratio_of, strict=True))

    def tail_text(self) -> str:
        """The tails in words, each side with its own numbers (empty: none)."""
        if len(self.tails) == 1:
            _, share, big = self.tails[0]
            return f"{share:.3g} of runs above 10x the median, largest run {big:.4g}"
        return "; ".join(f"{side}: {share:.3g} of its runs above 10x its median, largest "
                         f"{big:.4g}" for side, share, big in self.tails)

    @property
    def anytime(self) -> bool:
        """The cell's interval is anytime-valid (a betting confidence sequence of kept runs,
        or the ratio of two): it may be looked at after every batch, and needs no
        confirmation run."""
        if self.runs == 0:
            return False
        if self.summary is not None:
            return self.summary.anytime
        return self.ratio_of is not None and all(s.anytime for s in self.ratio_of)

    def merged(self, later: Sequence[Measurement]) -> Measurement:
        """This cell with the runs of ``later`` batches of it (same label, fresh seeds)
        appended in order; only an :attr:`anytime` cell merges (the others are decided on
        their first batch, so it is returned unchanged)."""
        if not self.anytime or not later or not all(m.anytime for m in later):
            return self
        if self.summary is not None:
            sm = merge_summaries([self.summary, *(m.summary for m in later
                                                  if m.summary is not None)])
            return replace(self, measured=sm.mean, runs=sm.runs, std=sm.std, summary=sm)
        assert self.ratio_of is not None
        sums = tuple(merge_summaries([part, *(m.ratio_of[i] for m in later
                                              if m.ratio_of is not None)])
                     for i, part in enumerate(self.ratio_of))
        return replace(self, measured=_ratio_value(sums, self.ratio_scale),
                       runs=min(x.runs for x in sums), ratio_of=sums)


def _ratio_value(sums: Sequence[RunSummary], scale: float) -> float:
    """``scale * mean_0 / mean_1``, or ``scale * (mean_0 - mean_1) / (mean_2 - mean_3)``."""
    if len(sums) == 2:
        num, den = sums[0].mean, sums[1].mean
    else:
        num, den = sums[0].mean - sums[1].mean, sums[2].mean - sums[3].mean
    return scale * num / den if den > 0 else math.inf


def _quotient_bounds(num: tuple[float, float], den: tuple[float, float]) -> tuple[float, float]:
    """Limits of ``N / D`` for ``N`` in ``num`` and ``D`` in ``den`` (``D > 0`` assumed only
    where ``den`` allows it: a denominator interval reaching 0 makes the upper limit ``inf``)."""
    a, b = num
    c, d = den
    if d <= 0:
        return -math.inf, math.inf
    if c <= 0:
        return (a / d if a >= 0 else -math.inf), math.inf
    return min(a / c, a / d), max(b / c, b / d)


@dataclass(frozen=True)
class ExperimentEvidence:
    """What the paper says (``paper``: the statement or narration) and the measured cells."""

    paper: str
    measurements: tuple[Measurement, ...]

    @property
    def sampled(self) -> bool:
        """Some compared cell rests on sampled runs."""
        return any(m.paper_value is not None and m.runs > 0 for m in self.measurements)

    @property
    def needs_confirmation(self) -> bool:
        """Some compared sampled cell is decided on an interval valid only at a run count
        fixed in advance (Clopper-Pearson counts, an interval the experiment gives, a bounded
        cell whose runs were not kept): the rule then asks for a confirmation run at 4x the
        runs. Anytime-valid cells (:attr:`Measurement.anytime`) do not."""
        return any(m.paper_value is not None and m.runs > 0 and not m.anytime
                   for m in self.measurements)

    def merged(self, later: Sequence[ExperimentEvidence]) -> ExperimentEvidence:
        """The evidence with each anytime-valid cell's runs from ``later`` batches appended
        (cells matched by label; see :meth:`Measurement.merged`)."""
        by_label: dict[str, list[Measurement]] = {}
        for ev in later:
            for m in ev.measurements:
                by_label.setdefault(m.label, []).append(m)
        return replace(self, measurements=tuple(m.merged(by_label.get(m.label, []))
                                                for m in self.measurements))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form (:meth:`from_dict` reads it back exactly)."""
        cells = []
        for m in self.measurements:
            d = {f.name: getattr(m, f.name) for f in fields(m)}
            d["summary"] = None if m.summary is None else m.summary.to_dict()
            d["ratio_of"] = (None if m.ratio_of is None
                             else [s.to_dict() for s in m.ratio_of])
            cells.append(d)
        return {"paper": self.paper, "measurements": cells}

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> ExperimentEvidence:
        cells = []
        for d in doc["measurements"]:
            d = dict(d)
            if d.get("summary") is not None:
                d["summary"] = RunSummary(**d["summary"])
            if d.get("ratio_of") is not None:
                d["ratio_of"] = tuple(RunSummary(**x) for x in d["ratio_of"])
            cells.append(Measurement(**d))
        return cls(str(doc["paper"]), tuple(cells))


@dataclass(frozen=True)
class CellOutcome:
    """One compared cell: its interval (``ci_low``/``ci_high`` at ``alpha``, made by
    ``method``) and outcome (``"right side"``, ``"wrong side"``, ``"straddles"``,
    ``"vacuous"``, ``"not compared"``). ``valid``: the interval is valid for the data (the
    Student-t interval is shown but never decides). After :func:`decide_experiment` with a
    confirmation: ``stable`` (the confirmation's outcome agrees) and ``runs_to_settle`` (for
    an undecided cell, the runs at which the confirmation's spread would decide it)."""

    measurement: Measurement
    ci_low: float
    ci_high: float
    alpha: float | None
    outcome: str
    method: str = ""
    valid: bool = True
    stable: bool | None = None
    runs_to_settle: int | None = None


@dataclass(frozen=True)
class ExperimentDecision:
    """The ledger status of an experiment and the cell it rests on (``key``: the cell that
    contradicts the paper, or, when none does, the one closest to its value).

    ``stable``: the status is unchanged on the confirmation run (fresh seed,
    :data:`~dpaudit.stats.rule.CONFIRM_FACTOR` times the runs); ``None`` when nothing sampled
    was compared (exact cells need no confirmation). ``interval_method``: the methods of the
    compared cells' intervals; ``tail_share``: the largest share of runs above 10x the median
    among the compared cells; ``runs_to_settle``: the run count that would decide the
    undecided cells (``None``: none undecided, or no count would at the observed spread).
    """

    status: str
    alpha: float
    cells: tuple[CellOutcome, ...]
    key: CellOutcome | None
    reason: str
    stable: bool | None = None
    interval_method: str = ""
    tail_share: float | None = None
    runs_to_settle: int | None = None
    confirm_runs: int | None = None


def _vacuous(m: Measurement) -> bool:
    if m.paper_value is None:
        return False
    if m.direction == "at most":
        return m.vacuous_above is not None and float(m.paper_value) >= m.vacuous_above
    return m.vacuous_below is not None and float(m.paper_value) < m.vacuous_below


def _interval(m: Measurement, alpha: float) -> tuple[float, float, float | None, str, bool]:
    """``(low, high, alpha, method, valid)`` of a cell at its share ``alpha``."""
    if m.runs == 0:
        return float(m.measured), float(m.measured), None, "exact", True
    if m.count is not None:
        return (float(cp_lower(m.count, m.runs, alpha / 2)),
                float(cp_upper(m.count, m.runs, alpha / 2)), alpha, "clopper-pearson", True)
    if m.ratio_of is not None and len(m.ratio_of) == 4:
        ivs = [x.interval(alpha / 4.0) for x in m.ratio_of]
        lo, hi = _quotient_bounds((ivs[0].low - ivs[1].high, ivs[0].high - ivs[1].low),
                                  (ivs[2].low - ivs[3].high, ivs[2].high - ivs[3].low))
        kinds = sorted({iv.method for iv in ivs})
        k = float(m.ratio_scale)
        return (k * lo, k * hi, alpha, f"ratio of differences of {' and '.join(kinds)}",
                True)
    if m.ratio_of is not None:
        num, den = (s.interval(alpha / 2.0) for s in m.ratio_of)
        lo, hi = ratio_bounds(num, den)
        kinds = sorted({num.method, den.method})
        k = float(m.ratio_scale)
        return k * lo, k * hi, alpha, f"ratio of {' and '.join(kinds)}", True
    if m.summary is not None:
        iv = m.summary.interval(alpha)
        return iv.low, iv.high, alpha, iv.method, True
    if m.ci_low is not None and m.ci_high is not None:
        a = None if m.ci_confidence is None else 1.0 - m.ci_confidence
        method = m.ci_method or "given, method not stated"
        return float(m.ci_low), float(m.ci_high), a, method, bool(m.ci_method)
    iv = student_t_interval(mean=float(m.measured), std=float(m.std or 0.0), runs=m.runs,
                            alpha=alpha)
    return iv.low, iv.high, alpha, "student-t", False


def _cell(m: Measurement, alpha: float) -> CellOutcome:
    if m.paper_value is None:
        return CellOutcome(m, m.measured, m.measured, None, "not compared")
    paper = float(m.paper_value)
    lo, hi, a, method, valid = _interval(m, alpha)
    if _vacuous(m):
        outcome = "vacuous"
    elif not valid:
        outcome = "straddles"  # shown, never decided: no valid interval
    elif m.direction == "at most":
        outcome = ("wrong side" if lo > paper else "right side" if hi <= paper
                   else "straddles")
    elif m.direction == "witness at least":
        outcome = "right side" if lo >= paper else "straddles"
    else:
        outcome = ("wrong side" if hi < paper else "right side" if lo >= paper
                   else "straddles")
    return CellOutcome(m, lo, hi, a, outcome, method, valid)


def _margin(c: CellOutcome) -> float:
    paper = float(c.measurement.paper_value or 0.0)
    return (paper - c.ci_high) if c.measurement.direction == "at most" else (c.ci_low - paper)


def _settle(m: Measurement, share: float) -> int | None:
    """Runs at which this cell's valid interval would decide it, at its observed spread."""
    if m.paper_value is None:
        return None
    if m.ratio_of is not None and len(m.ratio_of) == 4:
        return _settle_difference_ratio(m, share)
    if m.ratio_of is not None:
        return runs_to_settle_bounded(m.ratio_of[0], float(m.paper_value) / m.ratio_scale,
                                      alpha=share, ratio_to=m.ratio_of[1])
    if m.summary is not None:
        return runs_to_settle_bounded(m.summary, float(m.paper_value), alpha=share)
    return None


def _settle_difference_ratio(m: Measurement, share: float) -> int | None:
    """Runs (of each of the four samples) at which a difference-ratio cell would be decided
    at the observed means and spreads: each sample's half-width projected by
    :func:`~dpaudit.stats.sequential.projected_half_width` (one side at ``share / 8``). An
    estimate, not a promise; ``None`` when no count up to 10^12 would."""
    assert m.ratio_of is not None and m.paper_value is not None
    sums = m.ratio_of
    value = float(m.paper_value)
    centre = _ratio_value(sums, m.ratio_scale)
    if not math.isfinite(centre) or centre == value:
        return None

    def settles(n: int) -> bool:
        half = [(x.high - x.low) * projected_half_width(runs=n, std=x.std / (x.high - x.low),
                                                         alpha=share / 8.0) for x in sums]
        lo, hi = _quotient_bounds(
            (sums[0].mean - half[0] - sums[1].mean - half[1],
             sums[0].mean + half[0] - sums[1].mean + half[1]),
            (sums[2].mean - half[2] - sums[3].mean - half[3],
             sums[2].mean + half[2] - sums[3].mean + half[3]))
        return m.ratio_scale * lo > value or m.ratio_scale * hi < value

    return fewest_runs(settles)


def _status(cells: Sequence[CellOutcome]) -> tuple[str, list[CellOutcome], int, int]:
    live = [c for c in cells if c.outcome in ("right side", "wrong side", "straddles")]
    wrong = [c for c in live if c.outcome == "wrong side"]
    n_right = sum(c.outcome == "right side" for c in live)
    status = ("not reproduced" if wrong else
              "reproduced" if live and n_right == len(live) else "INCONCLUSIVE")
    return status, live, len(wrong), n_right


def decide_experiment(ev: ExperimentEvidence, *, alpha: float = 0.05,
                      confirm: ExperimentEvidence | None = None,
                      confirm_required: bool = False) -> ExperimentDecision:
    """The ledger status of an experiment under the rule of :mod:`dpaudit.stats.rule`.

    The ``m`` compared cells share ``alpha`` (Bonferroni: each cell's two-sided interval is at
    ``alpha / m``). A cell is on the ``wrong side`` when its valid interval lies entirely on
    the side the paper's statement excludes, on the ``right side`` when entirely on the side
    it allows, else it ``straddles`` (as does every cell without a valid interval).

    A cell that keeps its runs (:attr:`Measurement.anytime`) is decided on the betting
    confidence sequence, looked at the end of each batch of runs: valid at any stopping
    time, so its side stands as it is. Any other sampled cell (Clopper-Pearson counts, an
    interval the experiment gives, a bounded cell whose runs were not kept) is decided on an
    interval valid for one look at a run count fixed in advance, and keeps its side only when
    ``confirm`` (the same experiment re-run with a fresh seed at 4x the runs, cells matched by
    label) gives the same side (:func:`~dpaudit.stats.rule.stable_outcome`);
    ``confirm_required``: without a confirmation no such cell is decided (the ledger and
    ``reproduce`` ask for it; a caller looking at one run alone may not).

    Status: ``not reproduced`` (some cell on the wrong side), ``reproduced`` (every compared
    cell on the right side), ``INCONCLUSIVE`` (neither, with the runs that would settle it),
    ``vacuous`` (every cell with a paper value is below its ``vacuous_below``), ``run``
    (nothing to compare).
    """
    check_alpha(alpha)
    compared = [m for m in ev.measurements if m.paper_value is not None]
    vac = [m for m in compared if _vacuous(m)]
    share = alpha / max(len(compared) - len(vac), 1)
    first = tuple(_cell(m, share) for m in ev.measurements)
    methods = sorted({c.method for c in first if c.outcome != "not compared" and c.method})
    tails = [t for c in first if c.outcome != "not compared"
             for t in (c.measurement.tail_share,) if t is not None]
    tail = max(tails) if tails else None
    sampled = [c for c in first if c.outcome in ("right side", "wrong side", "straddles")
               and c.measurement.runs > 0]
    fixed_n = [c for c in sampled if not c.measurement.anytime]
    anytime = [c for c in sampled if c.measurement.anytime]
    confirm_runs = None
    stable: bool | None = None
    cells = first
    asked = confirm is not None or (confirm_required and bool(fixed_n))
    if asked:
        by_label = {} if confirm is None else {m.label: m for m in confirm.measurements}
        merged = []
        for c in first:
            if c.outcome not in ("right side", "wrong side", "straddles") \
                    or c.measurement.runs == 0 or c.measurement.anytime:
                merged.append(c)
                continue
            other = by_label.get(c.measurement.label)
            oc = None if other is None else _cell(other, share)
            outcome, ok = stable_outcome(c.outcome, None if oc is None else oc.outcome)
            need = None
            if outcome == "straddles":
                need = _settle(other if other is not None else c.measurement, share)
            merged.append(replace(c, outcome=outcome, stable=ok, runs_to_settle=need))
        cells = tuple(merged)
        if confirm is not None and fixed_n:
            confirm_runs = max((m.runs for m in confirm.measurements), default=None)
            labels = {c.measurement.label for c in fixed_n}
            status_first = _status(fixed_n)[0]
            status_confirm = _status(tuple(_cell(m, share) for m in confirm.measurements
                                           if m.label in labels))[0]
            stable = status_first == status_confirm
        elif fixed_n:
            stable = False
    cells = tuple(replace(c, runs_to_settle=_settle(c.measurement, share))
                  if c.outcome == "straddles" and c.runs_to_settle is None and c.valid
                  and c.measurement.runs > 0 else c for c in cells)
    live = [c for c in cells if c.outcome in ("right side", "wrong side", "straddles")]
    if not live:
        vacuous = [c for c in cells if c.outcome == "vacuous"]
        if not vacuous:
            return ExperimentDecision("run", alpha, cells, None,
                                      "no paper value to compare with")
        key = max(vacuous, key=lambda c: float(c.measurement.paper_value or 0.0))
        return ExperimentDecision(
            "vacuous", alpha, cells, key, "every paper value is outside its informative "
            "range (e.g. a lower bound under one unit of regret or at or below zero "
            "probability, an upper bound on a probability at or above 1): the statement says "
            "nothing at this setting", interval_method=", ".join(methods), tail_share=tail)
    status, live, n_wrong, n_right = _status(cells)
    wrong = [c for c in live if c.outcome == "wrong side"]
    key = wrong[0] if wrong else min(live, key=_margin)
    if status != "INCONCLUSIVE" and not fixed_n:
        stable = None  # exact or anytime-valid cells only: nothing to confirm
    undecided = [c for c in live if c.outcome == "straddles"]
    needs = [c.runs_to_settle for c in undecided]
    settle = None if not needs or any(n is None for n in needs) else max(
        n for n in needs if n is not None)
    invalid = sum(not c.valid for c in live)
    reason = (f"{n_wrong} wrong side, {n_right} right side, "
              f"{len(live) - n_wrong - n_right} undecided of {len(live)} compared cell(s)"
              + (f" ({len(vac)} vacuous)" if vac else "") + f"; alpha {alpha:g} split over "
              f"{len(live)}; intervals: {', '.join(methods) or 'none'}")
    if invalid:
        reason += (f"; {invalid} cell(s) without a valid interval (Student-t or unstated "
                   "method: declare the range of one run)")
    if anytime:
        reason += (f"; {len(anytime)} cell(s) on anytime-valid intervals (betting confidence "
                   "sequence): no confirmation needed")
    if confirm is not None and fixed_n:
        reason += (f"; confirmation at {confirm_runs} runs (fresh seed) of the "
                   f"{len(fixed_n)} cell(s) on fixed-run intervals: "
                   + ("same status" if stable else "status changed, so undecided cells stay "
                      "undecided"))
    elif asked and fixed_n:
        reason += ("; no confirmation run at 4x the runs: sampled cells on fixed-run "
                   "intervals are not decided")
    if status == "INCONCLUSIVE" and settle is not None:
        reason += f"; about {settle} runs would settle it at the observed spread"
    return ExperimentDecision(status, alpha, cells, key, reason, stable=stable,
                              interval_method=", ".join(methods), tail_share=tail,
                              runs_to_settle=settle if status == "INCONCLUSIVE" else None,
                              confirm_runs=confirm_runs)
