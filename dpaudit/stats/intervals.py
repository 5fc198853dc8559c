"""Confidence intervals for a mean over independent runs, and the runs that would settle one.

Two intervals, both two-sided at level ``1 - alpha`` (``alpha / 2`` on each side):

* :func:`student_t_interval`: ``mean +- t_{1 - alpha/2, n-1} s / sqrt(n)``. It assumes the
  sample mean is close to normal (the central limit theorem at ``n`` runs). Regret over runs is
  heavy-tailed for some algorithms (a rare run that locks onto a bad arm for a long time), and
  then its coverage at small ``n`` can be well below the nominal level: it is the project's
  reporting convention (:func:`dpaudit.experiments.mean_interval`), not a guarantee.
* :func:`bernstein_interval`: the empirical-Bernstein bound of Maurer & Pontil (2009, Theorem
  4) for values known to lie in ``[0, scale]``. It is valid at every ``n >= 2`` for every law on
  that range (no normality, no tail assumption), and wider. Pseudo-regret of a run lies in
  ``[0, T * max_i Delta_i]``, so it applies to regret with ``scale = T * max gap``.

:func:`runs_to_settle` inverts either: the number of runs at which the same spread would put
the interval entirely on one side of a value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize, stats

from dpaudit.validation import InvalidParameterError, check_alpha

__all__ = [
    "IntervalMethod",
    "MeanInterval",
    "bernstein_interval",
    "ratio_interval",
    "runs_to_settle",
    "student_t_interval",
]

IntervalMethod = Literal["student-t", "empirical-bernstein", "hoeffding-bernstein", "betting-cs"]

# the largest number of runs :func:`runs_to_settle` reports (beyond it: None, "not practical")
_MAX_RUNS = 10**12


@dataclass(frozen=True)
class MeanInterval:
    """``low <= mean <= high`` at confidence ``1 - alpha`` by ``method`` over ``runs`` runs."""

    mean: float
    low: float
    high: float
    alpha: float
    runs: int
    method: IntervalMethod


def _check(mean: float, std: float, runs: int, alpha: float) -> None:
    check_alpha(alpha)
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise InvalidParameterError(f"runs={runs!r} must be an integer in [1, inf)")
    for name, value in (("mean", mean), ("std", std)):
        if not math.isfinite(value):
            raise InvalidParameterError(f"{name}={value!r} must be a finite number")
    if std < 0:
        raise InvalidParameterError(f"std={std!r} must be a finite number in [0, inf)")


def _t_half(std: float, runs: float, alpha: float) -> float:
    if runs < 2 or std == 0.0:
        return 0.0 if std == 0.0 else math.inf
    return float(stats.t.ppf(1.0 - alpha / 2.0, runs - 1.0)) * std / math.sqrt(runs)


def _bernstein_half(std: float, runs: float, scale: float, alpha: float) -> float:
    # Maurer & Pontil (2009), Theorem 4, for X in [0, 1]: with probability >= 1 - d,
    # E X <= mean + sqrt(2 V ln(2/d) / n) + 7 ln(2/d) / (3 (n - 1)), V the unbiased sample
    # variance. Applied to X / scale and to 1 - X / scale with d = alpha / 2 each.
    if runs < 2:
        return math.inf
    log_term = math.log(4.0 / alpha)
    v = (std / scale) ** 2
    return scale * (math.sqrt(2.0 * v * log_term / runs) + 7.0 * log_term / (3.0 * (runs - 1)))


def student_t_interval(*, mean: float, std: float, runs: int, alpha: float) -> MeanInterval:
    """The Student-t interval of the mean (see the module docstring for what it assumes).

    ``std`` is the sample standard deviation (``ddof=1``). With one run and a positive spread
    the interval is unbounded; with zero spread it is the mean itself.
    """
    _check(mean, std, runs, alpha)
    half = _t_half(std, runs, alpha)
    return MeanInterval(mean, mean - half, mean + half, alpha, runs, "student-t")


def bernstein_interval(*, mean: float, std: float, runs: int, scale: float, alpha: float
                       ) -> MeanInterval:
    """The empirical-Bernstein interval for values in ``[0, scale]`` (clipped to that range).

    Valid for any law on ``[0, scale]`` at every ``runs >= 2`` (Maurer & Pontil 2009, Thm 4,
    each side at ``alpha / 2``); with one run it is the whole range.
    """
    _check(mean, std, runs, alpha)
    if not math.isfinite(scale) or scale <= 0:
        raise InvalidParameterError(f"scale={scale!r} must be a finite number in (0, inf)")
    half = _bernstein_half(std, runs, scale, alpha)
    return MeanInterval(mean, max(0.0, mean - half), min(scale, mean + half), alpha, runs,
                        "empirical-bernstein")


def ratio_interval(a: np.ndarray, b: np.ndarray, *, alpha: float) -> tuple[float, float, float]:
    """``(ratio, low, high)`` for ``mean(a) / mean(b)`` of two independent samples of positive
    values: the delta method on the log ratio, ``log r +- z_{1-alpha/2} sqrt(s_a^2/(n_a
    m_a^2) + s_b^2/(n_b m_b^2))``. A normal approximation like the Student-t interval (so
    indicative for heavy-tailed regret at few runs); ``(ratio, 0, inf)`` when a mean is not
    positive or a sample has one value."""
    check_alpha(alpha)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ma, mb = float(a.mean()), float(b.mean())
    if ma <= 0 or mb <= 0:
        return (ma / mb if mb > 0 else math.inf), 0.0, math.inf
    if a.size < 2 or b.size < 2:
        return ma / mb, 0.0, math.inf
    se = math.sqrt(float(a.var(ddof=1)) / (a.size * ma**2) + float(b.var(ddof=1))
                   / (b.size * mb**2))
    z = float(stats.norm.ppf(1.0 - alpha / 2.0))
    r = ma / mb
    return r, r * math.exp(-z * se), r * math.exp(z * se)


def runs_to_settle(*, mean: float, std: float, value: float, alpha: float,
                   method: IntervalMethod = "student-t", scale: float | None = None
                   ) -> int | None:
    """Runs at which an interval with this mean and spread lies entirely on one side of
    ``value`` (the side the mean is on): the smallest ``n`` with half-width below
    ``|mean - value|``, found with :func:`scipy.optimize.brentq` on the half-width as a
    function of ``n``. ``None`` when no number of runs would (``mean == value``, or beyond
    ``10^12`` runs). It assumes the spread stays what was observed: an estimate, not a
    promise.
    """
    gap = abs(mean - value)
    if gap == 0.0 or not math.isfinite(gap):
        return None
    if method == "empirical-bernstein":
        if scale is None:
            raise InvalidParameterError("scale must be given for the empirical-Bernstein "
                                        "interval")
        sc = scale

        def half(n: float) -> float:
            return _bernstein_half(std, n, sc, alpha)
    else:
        def half(n: float) -> float:
            return _t_half(std, n, alpha)
    if half(2.0) < gap:
        return 2
    if half(float(_MAX_RUNS)) >= gap:
        return None
    root = optimize.brentq(lambda n: half(n) - gap, 2.0, float(_MAX_RUNS), xtol=1e-3)
    n = math.ceil(float(root))
    while half(float(n)) >= gap:  # brentq's tolerance: step to the first n that settles
        n += 1
    return n
