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
* :class:`InconclusiveEvidence`: nothing decisive (a budget ran out, an overflow, a condition
  outside every tier's reach), with the reason and what would settle it.

:func:`decide` is the only function that builds a :class:`~dpaudit.stats.results.ClaimResult`
from evidence; the method (symbolic, exact, sampled) is carried by the evidence type, never
read from message text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scipy import optimize, stats

from dpaudit.stats.events import cp_lower, cp_upper
from dpaudit.stats.results import ClaimResult, Method, ProofResult, ProofStatus, Verdict
from dpaudit.validation import check_alpha, check_delta, check_int

__all__ = [
    "DEFAULT_POWER",
    "Evidence",
    "ExactEvidence",
    "InconclusiveEvidence",
    "ProofEvidence",
    "SampledEvidence",
    "decide",
    "detectable_epsilon_at_power",
    "epsilon_from_counts",
    "float_error_floor",
    "split_alpha",
]

#: power at which "the smallest violation this test would catch" is stated
DEFAULT_POWER = 0.8

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


def split_alpha(alpha: float, evidences: Sequence[Any]) -> float:
    """Per-claim level for the sampled evidences of one check (Bonferroni)."""
    m = sum(isinstance(e, SampledEvidence) for e in evidences)
    return alpha / max(m, 1)


def _cp_lower(k: int, n: int, a: float) -> float:
    return float(cp_lower(k, n, a))


def _cp_upper(k: int, n: int, a: float) -> float:
    return float(cp_upper(k, n, a))


def epsilon_from_counts(count_p: int, n_p: int, count_q: int, n_q: int, *, delta: float,
                        alpha: float) -> tuple[float, float, float]:
    """``(bound, p_lo, q_hi)``: the epsilon lower bound valid with probability ``>= 1 - alpha``.

    ``p_lo``/``q_hi`` are one-sided Clopper-Pearson limits at ``alpha / 2`` each (union
    bound); the bound is ``max(0, log((p_lo - delta) / q_hi))`` and 0 when ``p_lo <= delta``.
    """
    check_int("n_p", n_p, low=1)
    check_int("n_q", n_q, low=1)
    check_delta(delta)
    check_alpha(alpha)
    p_lo, q_hi = _cp_lower(count_p, n_p, alpha / 2), _cp_upper(count_q, n_q, alpha / 2)
    if p_lo <= delta:
        return 0.0, p_lo, q_hi
    return max(0.0, math.log((p_lo - delta) / q_hi)), p_lo, q_hi


def detectable_epsilon_at_power(p: float, n_p: int, n_q: int, *, epsilon: float,
                                delta: float, alpha: float, power: float = DEFAULT_POWER
                                ) -> float:
    """Smallest true loss the test flags with probability ``>= power`` (``inf``: none).

    The event has probability ``p`` under the likely side and ``(p - delta) e^{-eps_true}``
    under the other. Take the ``1 - sqrt(power)`` quantile ``k_p`` of ``Bin(n_p, p)`` and the
    ``sqrt(power)`` quantile ``k_q`` of ``Bin(n_q, q)``: the counts are at least as extreme
    with probability ``>= sqrt(power)`` each, independently, and the bound is monotone in both
    counts, so when the bound at ``(k_p, k_q)`` exceeds ``epsilon`` the test rejects with
    probability ``>= power``. The root in ``eps_true`` is found by ``scipy.optimize.brentq``.
    """
    if not 0.0 < p <= 1.0:
        return math.inf
    s = math.sqrt(power)
    kp = int(stats.binom.ppf(1.0 - s, n_p, p))
    p_lo = _cp_lower(kp, n_p, alpha / 2)
    if p_lo <= delta:
        return math.inf

    def margin(eps_true: float) -> float:
        q = (p - delta) * math.exp(-eps_true)
        kq = int(stats.binom.ppf(s, n_q, q))
        return math.log((p_lo - delta) / _cp_upper(kq, n_q, alpha / 2)) - epsilon

    # the bound cannot exceed log((p_lo - delta) / q_hi(0)); q_hi(0) = 1 - (alpha/2)^(1/n)
    ceiling = math.log((p_lo - delta) / _cp_upper(0, n_q, alpha / 2))
    if ceiling <= epsilon:
        return math.inf
    lo, hi = epsilon, epsilon + 1.0
    while margin(hi) <= 0.0:
        lo, hi = hi, 2.0 * hi
        if hi > 1e4:
            return math.inf
    if margin(lo) > 0.0:
        return lo
    return float(optimize.brentq(margin, lo, hi, xtol=1e-6))


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


def _decide_proof(base: dict, ev: ProofEvidence) -> ClaimResult:
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


def _decide_exact(base: dict, ev: ExactEvidence, dlt: float) -> ClaimResult:
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


def _decide_sampled(base: dict, ev: SampledEvidence, eps: float, dlt: float, alpha: float,
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
    return ClaimResult(**base, verdict=verdict, method=Method.SAMPLED,
                       epsilon_lower_bound=bound,
                       detectable_epsilon=None if verdict is not Verdict.CONSISTENT else detect,
                       alpha=alpha, details=tuple(lines), data=data)
