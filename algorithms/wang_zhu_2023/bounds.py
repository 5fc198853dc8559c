"""Regret bounds of Wang & Zhu (2023) for DP-FTPL-Gauss, DP-FTPL-Beta and Theorem 4.

Theorems 11 and 13 (upper bounds; OCR-damaged displays)
--------------------------------------------------------
Theorem 11: ``Reg(T) <= sum_i max{ 2 Delta_i ln T / (Delta_i - 2 lambda)^2, N_G Delta_i }
+ O(N / lambda^4)`` for any ``lambda < Delta_min / 2``. Theorem 13 has the same shape with
``N_B`` and a leading constant read as 5 (the OCR shows "5 Delta_i log T" over a damaged
denominator, read by analogy with Theorem 11). The ``O(N/lambda^4)`` term has no constant, so
neither theorem can be evaluated as a number: :func:`ftpl_leading_terms` evaluates the
explicit part only and callers must report it as *leading terms*, never as a bound.

Theorem 4 (lower bound for (eps, delta)-global DP), reconstructed from its proof
------------------------------------------------------------------------------
The display is OCR-damaged; the proof fixes every constant. Two-arm instances
``I1 = (1/2, 1/2 - Delta)`` and ``I2 = (1/2, 1/2 + Delta)``; the data-revision rule sets an arm-2
reward to 0 with probability ``p(Delta) = 4 Delta / (1 + 2 Delta)`` (this turns ``I2`` into
``I1``); Markov's inequality on ``I2`` gives ``c_Delta = 2 c0 / Delta``. With
``X = ((e^eps - 1) T^(1-a) + 5 delta T^(1-a)) / (5 c_Delta (e^eps - 1) + 5 delta T^(1-a))`` and
``N0 = ln(X) / (eps p(Delta))`` the contradiction step reads
``e^(eps N0 p) (delta/(e^eps-1) + c_Delta T^(a-1)) = 1/5 + delta/(e^eps-1) < 3/4 + ...``
(checked in the tests), so ``Reg_I1(T) >= N0 Delta / 4``. With ``Delta = 1/4``: ``p = 2/3``,
``c_Delta = 8 c0``, ``N0 = (3/(2 eps)) ln X <= T/2`` iff ``T >= (3/eps) ln X``, and

    Reg_I1(T) >= (3/(32 eps)) ln X >= (1/(16 eps)) ln X,
    X = ((e^eps - 1) + 5 delta) T^(1-a) / (40 c0 (e^eps - 1) + 5 delta T^(1-a)),

the printed ``1/(16 eps)`` and ``40 c0`` both readable in the OCR. The proof uses the
assumption ``Reg <= c0 T^a`` only on ``I2`` at the one horizon ``T``; multiplying ``X`` by
``T^a / T^a`` shows that only ``R2 = c0 T^a`` matters: ``X = ((e^eps-1) + 5 delta) T /
(40 R2 (e^eps-1) + 5 delta T)``. :func:`thm4_lower_bound` takes ``R2`` (a measured regret on
``I2``) and returns the bound on ``I1 = (1/2, 1/4)``.

Theorems 16, 18 and the order of Theorem 4 (as in the abstract)
---------------------------------------------------------------

* Theorem 16 (DP-FTPL-New upper bound): ``sum_i max{16 log T / Delta_i, 4 L} + 4N`` over the
  suboptimal arms, ``L`` the log term of Algorithm 3's centre.
* Theorem 18 (GDP-Elim-New upper bound): ``sum_i (1024 Delta_i ln T / Delta_min^2 +
  (32 Delta_i / (eps Delta_min)) ln X) + 4N`` with ``X`` of Algorithm 4 (``N`` arms).
* Theorem 4 (lower bound for (eps, delta)-global DP): the OCR of the display is damaged; the
  abstract's order ``(N / eps) ln(((e^eps - 1) T + delta T) / ((e^eps - 1) + delta T))`` is
  reported as an order term without constant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpaudit.algorithms._bounds_common import gaps_of as _gaps
from dpaudit.validation import (
    InvalidParameterError,
    check_epsilon,
    check_epsilon_delta,
    check_horizon,
    check_means,
    check_real,
)

__all__ = [
    "THM4_INSTANCES",
    "dp_ftpl_new_regret_bound",
    "ftpl_leading_terms",
    "ftpl_new_log_term",
    "ftpl_no_bound",
    "gdp_elim_new_regret_bound",
    "log_x",
    "thm16_dp_ftpl_new_upper",
    "thm18_gdp_elim_upper",
    "thm4_gdp_lower_order",
    "thm4_lower_bound",
    "thm4_n0",
]

THM4_INSTANCES = {"I1": (0.5, 0.25), "I2": (0.5, 0.75)}  # Delta = 1/4 in the proof


def ftpl_leading_terms(means: Sequence[float], horizon: int, start_phase: float, *,
                       constant: float = 2.0, lam: float = 0.0) -> float:
    """``sum_i max{c Delta_i ln T / (Delta_i - 2 lambda)^2, N_0 Delta_i}`` (Thm 11: c = 2,
    Thm 13: c = 5), without the unquantified ``O(N / lambda^4)`` term."""
    mu = check_means(means)
    t = check_horizon(horizon, mu.size)
    n0 = check_real("start_phase", start_phase, low=0.0)
    c = check_real("constant", constant, low=0.0, low_open=True)
    gaps = mu.max() - mu
    gaps = gaps[gaps > 0]
    lam = check_real("lam", lam, low=0.0)
    if gaps.size and lam >= gaps.min() / 2:
        raise InvalidParameterError(f"lam={lam} must be below Delta_min/2 = {gaps.min() / 2}")
    first = c * gaps * math.log(t) / (gaps - 2 * lam) ** 2
    return float(np.sum(np.maximum(first, n0 * gaps)))


def _log_x(epsilon: float, delta: float, horizon: int, regret_i2: float) -> float:
    a = math.expm1(epsilon)
    num = (a + 5.0 * delta) * horizon
    den = 40.0 * regret_i2 * a + 5.0 * delta * horizon
    return math.log(num / den)


def thm4_n0(epsilon: float, delta: float, horizon: int, regret_i2: float) -> float:
    """``N0 = (3/(2 eps)) ln X`` of the proof (``Delta = 1/4``)."""
    eps, dl = check_epsilon_delta(epsilon, delta)
    return 1.5 / eps * _log_x(eps, dl, horizon, regret_i2)


def thm4_lower_bound(epsilon: float, delta: float, horizon: int, regret_i2: float, *,
                     tight: bool = False) -> tuple[float, bool]:
    """Theorem 4 on ``I1 = (1/2, 1/4)`` given the regret ``regret_i2`` on ``I2 = (1/2, 3/4)``.

    Returns ``(bound, applies)``: the printed ``(1/(16 eps)) ln X`` (``tight=True``: the
    proof's ``(3/(32 eps)) ln X``), clipped at 0, and whether the theorem's horizon condition
    ``T >= (3/eps) ln X`` holds. A larger ``regret_i2`` gives a smaller bound, so an upper
    confidence limit of a measured regret gives a valid (conservative) evaluation.
    """
    eps, dl = check_epsilon_delta(epsilon, delta)
    t = check_horizon(horizon, 2)
    r2 = check_real("regret_i2", regret_i2, low=0.0, low_open=True)
    lx = _log_x(eps, dl, t, r2)
    factor = 3.0 / 32.0 if tight else 1.0 / 16.0
    return max(0.0, factor * lx / eps), bool(t >= 3.0 / eps * lx)


def ftpl_new_log_term(epsilon: float, delta: float, horizon: int) -> float:
    """``(1/eps) log((T(e^eps-1) + 2T delta)/(2(e^eps-1) + 2T delta))`` with its two limits."""
    t = float(horizon)
    if epsilon == 0.0:
        return (t - 2.0) / (2.0 * t * delta)
    a = math.expm1(epsilon)
    if a > 1e300 / max(t, 1.0):  # T (e^eps - 1) overflows float64 near eps = 709: log space
        log_num = math.log(t) + math.log(a) + math.log1p(2.0 * delta / a)
        log_den = math.log(2.0) + math.log(a) + math.log1p(t * delta / a)
        return (log_num - log_den) / epsilon
    return math.log((t * a + 2.0 * t * delta) / (2.0 * a + 2.0 * t * delta)) / epsilon


def log_x(epsilon: float, delta: float, horizon: int) -> float:
    """``ln X = ln((T^2 (e^eps-1) + T^2 delta) / (2 (e^eps-1) + T^2 delta))`` (Alg. 4, Thm 18)."""
    a = math.expm1(epsilon)
    t2 = float(horizon) ** 2
    if a > 1e300 / t2:  # T^2 (e^eps - 1) overflows float64 near eps = 709: log space
        return (math.log(t2) + math.log1p(delta / a)
                - math.log(2.0) - math.log1p(t2 * delta / (2.0 * a)))
    return math.log((t2 * a + t2 * delta) / (2.0 * a + t2 * delta))


def thm16_dp_ftpl_new_upper(means: object, horizon: int, epsilon: float,
                            delta: float) -> float:
    """Wang & Zhu 2023, Theorem 16: ``sum_i max{16 log T / Delta_i, 4 L} + 4N``.

    ``L`` is :func:`ftpl_new_log_term` (the theorem writes
    ``(4/eps) log(...)``); the sum is over suboptimal arms; ``N`` is the number of arms.
    """
    mu, gaps, _ = _gaps(means)
    eps, dlt = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
    t = check_horizon(horizon, mu.size)
    gaps = gaps[gaps > 0]
    log_term = ftpl_new_log_term(eps, dlt, t)
    return float(np.sum(np.maximum(16.0 * math.log(t) / gaps, 4.0 * log_term)) + 4 * mu.size)


def thm18_gdp_elim_upper(means: object, horizon: int, epsilon: float, delta: float) -> float:
    """Wang & Zhu 2023, Theorem 18."""
    mu, gaps, _ = _gaps(means)
    eps = check_epsilon(epsilon)
    horizon = check_horizon(horizon, mu.size)
    sub = gaps > 0
    if not sub.any():
        return 4.0 * mu.size
    dmin = float(gaps[sub].min())
    lx = log_x(eps, delta, horizon)
    terms = 1024.0 * gaps * math.log(horizon) / dmin**2 + 32.0 * gaps / (eps * dmin) * lx
    return float(terms.sum() + 4.0 * mu.size)


def thm4_gdp_lower_order(n_arms: int, horizon: int, epsilon: float, delta: float) -> float:
    """Wang & Zhu 2023, Theorem 4 / abstract: the order term, constant unknown (OCR-damaged)."""
    eps = check_epsilon(epsilon)
    a = math.expm1(eps)
    t = float(horizon)
    return n_arms / eps * math.log((a * t + delta * t) / (a + delta * t))


# -- PolicyEntry.bound: (means, horizon, epsilon, delta) -> (value, name) ---------------------
def dp_ftpl_new_regret_bound(means: object, horizon: int, epsilon: float,
                             delta: float) -> tuple[float, str]:
    """DP-FTPL-New's bound for ``simulate``, ``check`` and ``claims``: Theorem 16."""
    return (thm16_dp_ftpl_new_upper(means, horizon, epsilon, delta),
            "Wang & Zhu 2023, Theorem 16 (upper bound)")


def gdp_elim_new_regret_bound(means: object, horizon: int, epsilon: float,
                              delta: float) -> tuple[float, str]:
    """GDP-Elim-New's bound for ``simulate``, ``check`` and ``claims``: Theorem 18."""
    return (thm18_gdp_elim_upper(means, horizon, epsilon, delta),
            "Wang & Zhu 2023, Theorem 18 (upper bound)")


def ftpl_no_bound(theorem: str) -> str:
    """Why DP-FTPL-Gauss (Theorem 11) and DP-FTPL-Beta (Theorem 13) have no bound."""
    return (f"Wang & Zhu 2023, {theorem}: the O(N / lambda^4) term has no constant, so only the "
            "leading terms are evaluated (check reports them), never a bound")
