"""Anytime-valid intervals for the mean of a bounded quantity: confidence sequences by betting.

A confidence sequence (CS) ``(C_t)`` for the mean ``mu`` of independent values in a known
range covers at every number of runs at once: ``P(exists t: mu not in C_t) <= alpha``. So it
may be looked at after every batch of runs, and the runs stopped as soon as it decides (or on a
budget of runs or seconds, or any rule at all, even one that reads the clock): the interval at
the time of stopping still covers with probability ``>= 1 - alpha``, since missing then is part
of the event "missing at some time". A fixed-``n`` interval (Hoeffding, empirical Bernstein,
Student-t, Clopper-Pearson) looked at after every batch does not keep its level.

The CS here is the hedged betting CS of Waudby-Smith & Ramdas (2023, "Estimating means of
bounded random variables by betting", JRSS-B 86(1), Section 4, Theorem 3 and its "Hedged"
strategy built on the predictable plug-in bets of Section 3). For values ``x_i`` in ``[0, 1]``
(a run's value rescaled from its known range ``[low, high]``) and a candidate mean ``m``:

* predictable plug-in bets (their ``lambda^PrPl``): ``lambda_t = sqrt(2 log(1/a) /
  (sigma2_{t-1} t log(1 + t)))`` with the regularised running mean and variance ``mu_t = (1/2
  + sum_{i<=t} x_i) / (t + 1)``, ``sigma2_t = (1/4 + sum_{i<=t} (x_i - mu_i)^2) / (t + 1)``
  (``sigma2_0 = 1/4``); they use only runs before ``t``;
* the capital of betting that the mean is above ``m``, ``K+_t(m) = prod_{i<=t} (1 +
  min(lambda_i, c / m) (x_i - m))``, and below it, ``K-_t(m) = prod_{i<=t} (1 - min(lambda_i,
  c / (1 - m)) (x_i - m))``, ``c = 1/2`` (:data:`TRUNCATION`). At ``m = mu`` each is a
  nonnegative martingale with initial value 1 (every factor is positive and has mean 1), so by
  Ville's inequality (Ville 1939) ``P(exists t: K+_t(mu) >= 1/a) <= a``;
* the one-sided lower limit at level ``a`` is ``L_t = inf{m : K+_t(m) < 1/a}``, the upper one
  ``U_t = sup{m : K-_t(m) < 1/a}``. Every factor of ``K+`` is nonincreasing in ``m`` (and of
  ``K-`` nondecreasing), so each set is a half-line and its end is a root, found by
  :func:`scipy.optimize.brentq` and then moved outwards until the capital there has crossed
  ``1/a`` (never inwards: the limit reported is never tighter than the CS).
  ``K-`` on ``x`` is ``K+`` on ``1 - x`` at ``1 - m`` (the bets are the same), so ``U_t(x) = 1 -
  L_t(1 - x)``.

The two-sided CS at ``alpha`` is ``[L_t, U_t]`` with each side at ``alpha / 2``: the hedged
process ``max(K+ / 2, K- / 2)`` of their Theorem 3 (``theta = 1/2``) crosses ``1 / alpha``
exactly when one side crosses ``2 / alpha``. With ``looks`` (the run counts at which it was
looked at, e.g. the ends of the batches) the running intersection of the CS over the looks is
reported: still valid, since all of them cover on the same event.

On skewed data near the end of its range (regret: most runs far below ``T * max gap``) it is
much tighter than Hoeffding intersected with empirical Bernstein (:mod:`dpaudit.stats.rule`),
though it was built to be looked at any number of times.

Why not a library: ``confseq`` (PyPI 0.0.11, January 2023; by Howard and Waudby-Smith) holds
the authors' own betting code, but it ships as source only and builds a C++ extension against
Boost with pybind11 2.6, requires pytest, pandas, matplotlib and multiprocess at run time, is
marked alpha, and finds the CS on a fixed grid of 1000 candidate means (a resolution of 1/1000
of the range: 50 units of regret at ``T = 10^5`` on Fig. 2's instance, where the mean is 1660).
The ~60 lines below follow the paper; ``tests/test_sequential.py`` checks them against a plain
per-run loop and against values computed with ``confseq.betting.betting_mart``.

:func:`projected_half_width` and :func:`runs_to_settle_sequential` estimate the runs at which
the CS would decide a value at the observed spread (from the predictable plug-in
empirical-Bernstein CS of the same paper, Theorem 2, which the betting CS typically beats): an
estimate, not a promise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate, optimize

from dpaudit.stats.intervals import MeanInterval
from dpaudit.validation import InvalidParameterError, check_alpha

__all__ = [
    "BETTING",
    "TRUNCATION",
    "betting_interval",
    "lower_limit",
    "predictable_bets",
    "projected_half_width",
    "runs_to_settle_sequential",
    "upper_limit",
]

#: the method name of :func:`betting_interval`
BETTING: Literal["betting-cs"] = "betting-cs"
#: ``c`` of the truncation ``min(lambda, c / m)`` (Waudby-Smith & Ramdas 2023 suggest 1/2 or
#: 3/4; 1/2 is also ``confseq``'s default)
TRUNCATION = 0.5
# brentq's absolute tolerance on [0, 1], and the largest run count the estimates consider
_XTOL = 1e-13
_MAX_RUNS = 10**12
# partial sums of the projected width are exact up to this many runs, integrals beyond
_EXACT_TERMS = 1 << 16


def predictable_bets(x: np.ndarray, *, alpha: float) -> np.ndarray:
    """``lambda_t`` for ``t = 1..n`` (module docstring; Waudby-Smith & Ramdas 2023, the
    predictable plug-in of Section 3 with the one-sided level ``alpha``): bet ``t`` uses only
    ``x_1..x_{t-1}``, so the bets of a prefix do not depend on what follows it."""
    n = x.size
    t = np.arange(1, n + 1, dtype=float)
    mu = (0.5 + np.cumsum(x)) / (t + 1.0)
    var = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1.0)
    prev = np.concatenate(([0.25], var[:-1]))
    bets: np.ndarray = np.sqrt(2.0 * math.log(1.0 / alpha) / (prev * t * np.log1p(t)))
    return bets


def _lower(x: np.ndarray, bets: np.ndarray, alpha: float) -> float:
    """``inf{m in [0, 1] : K+_n(m) < 1/alpha}`` for the whole of ``x``."""
    threshold = math.log(1.0 / alpha)

    def excess(m: float) -> float:  # log K+_n(m) - log(1/alpha): nonincreasing in m
        lam = bets if m <= 0.0 else np.minimum(bets, TRUNCATION / m)
        return float(np.sum(np.log1p(lam * (x - m)))) - threshold

    if excess(0.0) < 0.0:
        return 0.0
    # at m = 1 every factor is 1 + min(lambda, c) (x - 1) <= 1: excess(1) <= -threshold < 0
    root = float(optimize.brentq(excess, 0.0, 1.0, xtol=_XTOL))
    step = _XTOL
    while root > 0.0 and excess(root) < 0.0:  # outwards until the capital has crossed
        root = max(0.0, root - step)
        step *= 2.0
    return root


def _check_unit(x: ArrayLike) -> np.ndarray:
    v = np.asarray(x, dtype=float).ravel()
    if v.size == 0:
        raise InvalidParameterError("values must hold at least one run")
    if not np.all(np.isfinite(v)) or float(v.min()) < 0.0 or float(v.max()) > 1.0:
        raise InvalidParameterError("values must be finite numbers in [0, 1] (rescaled runs)")
    return v


def _looks(looks: Sequence[int] | None, n: int) -> list[int]:
    if not looks:
        return [n]
    out = sorted({int(k) for k in looks})
    if out[0] < 1 or out[-1] > n:
        raise InvalidParameterError(f"looks={list(looks)!r} must be run counts in [1, {n}]")
    return out if out[-1] == n else [*out, n]


def lower_limit(x: ArrayLike, *, alpha: float, looks: Sequence[int] | None = None) -> float:
    """The one-sided lower confidence limit at level ``alpha`` of the mean of ``x`` (values in
    ``[0, 1]``, in the order they were drawn): the largest of the CS's lower limits at the
    ``looks`` (run counts; default: the end). Valid at any stopping time."""
    check_alpha(alpha)
    v = _check_unit(x)
    bets = predictable_bets(v, alpha=alpha)
    return max(_lower(v[:k], bets[:k], alpha) for k in _looks(looks, v.size))


def upper_limit(x: ArrayLike, *, alpha: float, looks: Sequence[int] | None = None) -> float:
    """The one-sided upper limit (:func:`lower_limit` of ``1 - x``, subtracted from 1)."""
    return 1.0 - lower_limit(1.0 - _check_unit(x), alpha=alpha, looks=looks)


def betting_interval(values: ArrayLike, *, low: float, high: float, alpha: float,
                     looks: Sequence[int] | None = None) -> MeanInterval:
    """The two-sided betting CS at ``alpha`` (each side at ``alpha / 2``) of the mean of
    ``values``, each known to lie in ``[low, high]``, in the order they were drawn; ``looks``:
    the run counts at which the sequence was looked at (their running intersection is
    returned). Should the intersection be empty (only when the CS has missed, probability at
    most ``alpha``), the last look's interval is returned. ``mean`` is the mean of all
    values."""
    check_alpha(alpha)
    for name, b in (("low", low), ("high", high)):
        if isinstance(b, bool) or not math.isfinite(float(b)):
            raise InvalidParameterError(f"{name}={b!r} must be a finite number")
    if not high > low:
        raise InvalidParameterError(f"high={high!r} must be a finite number in ({low!r}, inf) "
                                    "(above low)")
    v = np.asarray(values, dtype=float).ravel()
    width = float(high) - float(low)
    # a float accumulation can overshoot an exact bound by a few ulps
    x = np.clip((v - low) / width, 0.0, 1.0) if v.size else v
    slack = 1e-9 * max(abs(low), abs(high), 1.0)
    if v.size and (float(v.min()) < low - slack or float(v.max()) > high + slack):
        raise InvalidParameterError(
            f"values lie in [{float(v.min()):.6g}, {float(v.max()):.6g}], outside the declared "
            f"range [{low:.6g}, {high:.6g}] of one run")
    x = _check_unit(x)
    marks = _looks(looks, x.size)
    lo = lower_limit(x, alpha=alpha / 2.0, looks=marks)
    hi = upper_limit(x, alpha=alpha / 2.0, looks=marks)
    if lo > hi:
        lo = lower_limit(x, alpha=alpha / 2.0)
        hi = upper_limit(x, alpha=alpha / 2.0)
    mean = float(v.mean())
    return MeanInterval(mean, low + width * lo, low + width * hi, alpha, int(x.size), BETTING)


# -- how many runs would settle it ---------------------------------------------------------

def projected_half_width(*, runs: int, std: float, alpha: float) -> float:
    """The half-width on ``[0, 1]`` of one side (level ``alpha``) of the predictable plug-in
    empirical-Bernstein CS (Waudby-Smith & Ramdas 2023, Theorem 2) after ``runs`` runs whose
    standard deviation is ``std`` (on ``[0, 1]``), with each squared deviation at its expected
    value: ``(log(1/alpha) + std^2 sum_i (-log(1 - l_i) - l_i)) / sum_i l_i``, ``l_i =
    min(sqrt(2 log(1/alpha) / (std^2 i log(1 + i))), 1/2)``. The betting CS is typically
    narrower; this is a projection for :func:`runs_to_settle_sequential`, not an interval."""
    check_alpha(alpha)
    log_term = math.log(1.0 / alpha)
    var = max(std * std, 1e-300)
    k = math.sqrt(2.0 * log_term / var)
    head = min(runs, _EXACT_TERMS)
    i = np.arange(1, head + 1, dtype=float)
    lam = np.minimum(k / np.sqrt(i * np.log1p(i)), TRUNCATION)
    s1 = float(lam.sum())
    s2 = float(np.sum(-np.log1p(-lam) - lam))
    if runs > head:
        # the terms beyond are smooth and slowly varying: the midpoint-corrected integral,
        # by the trapezoid rule on a log grid (u = e^s, du = u ds)
        u = np.geomspace(head + 0.5, runs + 0.5, 4097)
        lam_u = np.minimum(k / np.sqrt(u * np.log1p(u)), TRUNCATION)
        s_grid = np.log(u)
        s1 += float(integrate.trapezoid(lam_u * u, s_grid))
        s2 += float(integrate.trapezoid((-np.log1p(-lam_u) - lam_u) * u, s_grid))
    return (log_term + var * s2) / s1


def fewest_runs(settles: Callable[[int], bool]) -> int | None:
    """The fewest runs ``n`` in ``[2, 10^12]`` at which ``settles(n)`` holds, by bisection on
    the integers (``settles`` is monotone in ``n``: the interval only narrows as runs grow);
    ``None`` when even ``10^12`` runs would not settle it."""
    if settles(2):
        return 2
    if not settles(_MAX_RUNS):
        return None
    lo, hi = 2, _MAX_RUNS
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if settles(mid) else (mid, hi)
    return hi


def runs_to_settle_sequential(*, mean: float, std: float, value: float, alpha: float,
                              ratio_to: tuple[float, float] | None = None) -> int | None:
    """Runs at which the CS (two-sided at ``alpha``) would put ``mean`` (on ``[0, 1]``, spread
    ``std``) on one side of ``value``, by :func:`projected_half_width`; ``ratio_to=(mean_d,
    std_d)``: the cell is the ratio ``mean / mean_d`` (each CS at ``alpha / 2``, both run that
    many times). ``None`` when no count up to 10^12 would. An estimate, not a promise."""
    check_alpha(alpha)

    def settles(n: int) -> bool:
        if ratio_to is None:
            h = projected_half_width(runs=n, std=std, alpha=alpha / 2.0)
            return mean - h > value or mean + h < value
        hn = projected_half_width(runs=n, std=std, alpha=alpha / 4.0)
        md, sd = ratio_to
        hd = projected_half_width(runs=n, std=sd, alpha=alpha / 4.0)
        lo_d, hi_d = md - hd, md + hd
        if hi_d <= 0:
            return False
        lo = max(mean - hn, 0.0) / hi_d
        hi = math.inf if lo_d <= 0 else (mean + hn) / lo_d
        return lo > value or hi < value

    centre = mean if ratio_to is None else (mean / ratio_to[0] if ratio_to[0] > 0 else math.inf)
    if not math.isfinite(centre) or centre == value:
        return None
    return fewest_runs(settles)
