"""The epsilon lower bound of one sampled event, and the smallest loss a test would catch.

Used by :func:`dpaudit.stats.evidence.decide` (and re-exported there): Clopper-Pearson limits
on the event's two probabilities give ``log((p_lo - delta) / q_hi)``, valid with probability
at least ``1 - alpha``; :func:`detectable_epsilon_at_power` states the test's power.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import optimize, stats

from dpaudit.stats.events import cp_lower, cp_upper
from dpaudit.validation import check_alpha, check_delta, check_int

__all__ = ["DEFAULT_POWER", "Reach", "detectable_epsilon_at_power", "epsilon_from_counts",
           "reach_of_exact"]

#: power at which "the smallest violation this test would catch" is stated
DEFAULT_POWER = 0.8


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


@dataclass(frozen=True)
class Reach:
    """How far a sampled bound is from an exact figure, and what budget would close it.

    ``fraction``: bound / exact; ``point``: the event's point estimate ``log((p - delta) /
    q)`` at the measured frequencies (what any budget with this event approaches);
    ``draws_per_side``: the smallest measured draws per side whose bound, at the same
    frequencies, reaches ``target`` x exact (``None`` when the point estimate itself is below
    it: the event, not the budget, limits the bound). A projection, not a guarantee: the
    frequencies are themselves estimates.
    """

    exact: float
    fraction: float
    point: float
    target: float
    draws_per_side: int | None


def reach_of_exact(count_p: int, n_p: int, count_q: int, n_q: int, *, delta: float,
                   alpha: float, exact: float, target: float = 0.9) -> Reach:
    """:class:`Reach` of the bound of :func:`epsilon_from_counts` against ``exact`` (> 0):
    the counts scaled by a factor ``k`` (frequencies kept) give the bound at ``k n`` draws per
    side; ``k`` is found by bisection on a log scale (the bound grows with ``k``)."""
    bound = epsilon_from_counts(count_p, n_p, count_q, n_q, delta=delta, alpha=alpha)[0]
    p, q = count_p / n_p, max(count_q, 0.5) / n_q
    point = math.log((p - delta) / q) if p > delta else 0.0
    goal = target * exact

    def at(k: float) -> float:
        return epsilon_from_counts(round(count_p * k), max(1, round(n_p * k)),
                                   round(count_q * k), max(1, round(n_q * k)),
                                   delta=delta, alpha=alpha)[0]
    need: int | None
    if bound >= goal:
        need = n_p
    elif point <= goal or at(1e6) < goal:
        need = None
    else:
        lo, hi = 0.0, math.log(1e6)  # log k: at(e^lo) < goal <= at(e^hi)
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if at(math.exp(mid)) < goal else (lo, mid)
        need = int(math.ceil(n_p * math.exp(hi)))
    return Reach(exact=exact, fraction=bound / exact, point=point, target=target,
                 draws_per_side=need)
