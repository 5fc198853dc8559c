"""Empirical distinguisher: turn samples from neighbouring inputs into a valid epsilon lower bound.

The statistics (shared/DESIGN.md, "Verdicts"):

* For an event ``E`` with ``P[M(D) in E] >= p_lo`` and ``P[M(D') in E] <= q_hi``, an
  ``(epsilon, delta)`` guarantee forces ``p <= e^eps q + delta``, so
  ``eps >= log((p_lo - delta) / q_hi)``.
* ``p_lo`` and ``q_hi`` are one-sided Clopper-Pearson limits (statsmodels,
  ``method="beta"``), each at level ``alpha / 2`` so both hold together with probability
  ``>= 1 - alpha`` (union bound).
* The event is chosen on a *selection* sample and measured on a fresh *measurement* sample,
  so the choice cannot bias the bound. When several directions or candidate events are
  measured on the same sample, ``alpha`` is divided among them (Bonferroni).

Zero counts are handled without NaN: ``q_hi`` of a zero count is ``1 - (alpha/2)^(1/n) > 0``;
``p_lo <= delta`` gives no bound (reported as 0, the trivial lower bound).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from .validation import check_alpha, check_delta, check_int

__all__ = [
    "EventBound",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "detectable_epsilon",
    "discrete_epsilon_lower_bound",
    "epsilon_from_counts",
    "select_discrete_event",
]


def clopper_pearson_lower(count: int, n: int, alpha: float) -> float:
    """One-sided ``1 - alpha`` lower Clopper-Pearson limit for a binomial proportion."""
    if count <= 0:
        return 0.0
    low, _ = proportion_confint(count, n, alpha=2 * alpha, method="beta")
    return float(low)


def clopper_pearson_upper(count: int, n: int, alpha: float) -> float:
    """One-sided ``1 - alpha`` upper Clopper-Pearson limit for a binomial proportion."""
    if count >= n:
        return 1.0
    _, high = proportion_confint(count, n, alpha=2 * alpha, method="beta")
    return float(high)


def epsilon_from_counts(
    count_p: int, n_p: int, count_q: int, n_q: int, *, delta: float, alpha: float
) -> tuple[float, float, float]:
    """Lower bound on epsilon valid with probability ``>= 1 - alpha``.

    Returns ``(bound, p_lo, q_hi)``. ``count_p`` counts the event under ``D`` (``n_p``
    samples), ``count_q`` under ``D'``. The bound is ``max(0, log((p_lo - delta)/q_hi))``.
    """
    check_int("n_p", n_p, low=1)
    check_int("n_q", n_q, low=1)
    check_delta(delta)
    check_alpha(alpha)
    p_lo = clopper_pearson_lower(int(count_p), int(n_p), alpha / 2)
    q_hi = clopper_pearson_upper(int(count_q), int(n_q), alpha / 2)
    if p_lo <= delta:
        return 0.0, p_lo, q_hi
    return max(0.0, math.log((p_lo - delta) / q_hi)), p_lo, q_hi


@dataclass(frozen=True)
class EventBound:
    """A measured event: which one, its counts on the measurement sample, and the bound."""

    description: str
    direction: str
    count_p: int
    n_p: int
    count_q: int
    n_q: int
    p_lo: float
    q_hi: float
    epsilon_lower_bound: float
    alpha: float


def select_discrete_event(
    outcomes_p: np.ndarray, outcomes_q: np.ndarray, n_outcomes: int, *, epsilon: float,
    delta: float,
) -> np.ndarray:
    """Choose a subset of ``{0, ..., n_outcomes - 1}`` from a selection sample.

    The subset maximises the empirical privacy loss at the claim: first the outcomes with
    ``p_hat > e^eps q_hat`` (the hockey-stick maximiser), then, if the plug-in bound of the
    single most lopsided outcome is larger, that outcome alone. Returns a boolean mask.
    """
    p = np.bincount(outcomes_p, minlength=n_outcomes) / max(len(outcomes_p), 1)
    q = np.bincount(outcomes_q, minlength=n_outcomes) / max(len(outcomes_q), 1)
    hockey = p > math.exp(epsilon) * q
    candidates = [hockey] if hockey.any() else []
    # plug-in ratio with a half-count continuity correction so empty cells do not dominate
    nq = max(len(outcomes_q), 1)
    ratio = (p - delta) / np.maximum(q, 0.5 / nq)
    single = np.zeros(n_outcomes, dtype=bool)
    single[int(np.argmax(ratio))] = True
    candidates.append(single)

    def plug_in(mask: np.ndarray) -> float:
        pm, qm = p[mask].sum(), max(q[mask].sum(), 0.5 / nq)
        return -math.inf if pm <= delta else math.log((pm - delta) / qm)

    return max(candidates, key=plug_in)


def discrete_epsilon_lower_bound(
    sampler_p: Callable[[int, np.random.Generator], np.ndarray],
    sampler_q: Callable[[int, np.random.Generator], np.ndarray],
    n_outcomes: int,
    *,
    epsilon: float,
    delta: float,
    alpha: float,
    n_select: int,
    n_measure: int,
    rng: np.random.Generator,
    describe: Callable[[np.ndarray], str] | None = None,
) -> EventBound:
    """Epsilon lower bound for a mechanism with a small discrete output ``{0, ..., n-1}``.

    Both directions (``D`` vs ``D'`` and ``D'`` vs ``D``) are tried: each chooses its event on
    its own selection sample; both are measured on one fresh measurement sample per side, with
    ``alpha / 2`` each (Bonferroni), so the reported maximum holds at ``1 - alpha``.
    """
    check_alpha(alpha)
    sel_p, sel_q = sampler_p(n_select, rng), sampler_q(n_select, rng)
    mask_pq = select_discrete_event(sel_p, sel_q, n_outcomes, epsilon=epsilon, delta=delta)
    mask_qp = select_discrete_event(sel_q, sel_p, n_outcomes, epsilon=epsilon, delta=delta)
    meas_p, meas_q = sampler_p(n_measure, rng), sampler_q(n_measure, rng)
    cnt_p = np.bincount(meas_p, minlength=n_outcomes)
    cnt_q = np.bincount(meas_q, minlength=n_outcomes)
    best: EventBound | None = None
    for direction, mask, a, b in (
        ("D vs D'", mask_pq, cnt_p, cnt_q),
        ("D' vs D", mask_qp, cnt_q, cnt_p),
    ):
        cp, cq = int(a[mask].sum()), int(b[mask].sum())
        bound, p_lo, q_hi = epsilon_from_counts(
            cp, n_measure, cq, n_measure, delta=delta, alpha=alpha / 2
        )
        desc = describe(mask) if describe else "outcome in {" + ", ".join(
            str(i) for i in np.flatnonzero(mask)) + "}"
        eb = EventBound(desc, direction, cp, n_measure, cq, n_measure, p_lo, q_hi, bound, alpha)
        if best is None or eb.epsilon_lower_bound > best.epsilon_lower_bound:
            best = eb
    assert best is not None  # two directions were measured
    return best


def detectable_epsilon(
    p: float, n: int, *, epsilon: float, delta: float, alpha: float, tests: int = 2
) -> float:
    """Smallest true privacy loss this test would flag, for an event of probability ``p``.

    Suppose the event has probability ``p`` under ``D`` and ``(p - delta) e^{-eps_true}``
    under ``D'``. With counts at their expectations and the same Bonferroni split
    (``alpha / (2 * tests)`` per limit), the bound exceeds ``epsilon`` once ``eps_true``
    passes the returned value; ``inf`` when no loss is detectable at this ``p`` and ``n``.
    """
    a = alpha / (2 * tests)
    p_lo = clopper_pearson_lower(int(round(p * n)), n, a)
    if p_lo <= delta:
        return math.inf

    def bound(eps_true: float) -> float:
        q = (p - delta) * math.exp(-eps_true)
        q_hi = clopper_pearson_upper(int(round(q * n)), n, a)
        return math.log((p_lo - delta) / q_hi)

    hi = epsilon + 1.0
    while bound(hi) <= epsilon:
        hi *= 2
        if hi > 60:
            return math.inf
    lo = epsilon
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if bound(mid) > epsilon:
            hi = mid
        else:
            lo = mid
    return hi

