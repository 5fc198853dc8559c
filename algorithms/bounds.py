"""The papers' regret bounds on a Bernoulli instance, grouped by paper (each defined once).

The papers' instances and experiment settings are in :mod:`dpaudit.algorithms.papers`.

Azize & Basu 2022:

* Theorem 2 (minimax lower bound): ``max{ sqrt(T (K-1)) / 27, (K-1) / (131 eps) }``.
* Theorem 3 (problem-dependent lower bound, asymptotic): ``liminf Reg_T / ln T >=
  sum_{a: Delta_a > 0} Delta_a / min(d_inf, 6 eps t_inf)``; for Bernoulli arms
  ``d_inf = kl(mu_a, mu*)`` and ``t_inf = Delta_a`` (the nearest law with mean above ``mu*``
  is Bernoulli(mu*) in both KL and TV). We report ``ln T`` times the right-hand side.
* Theorem 7 (AdaP-UCB upper bound): ``sum_a (16 alpha / min{Delta_a, eps}) ln T + 3 alpha /
  (alpha - 3)``.
* Theorem 8 (AdaP-KLUCB upper bound) has unspecified constants ``C1(alpha), C2``; only its
  *shape* ``sum_a Delta_a ln T / min{kl(mu_a, mu*), eps Delta_a} + 3 alpha/(alpha - 3)`` (with
  ``C1 = C2 = 1``) can be evaluated, and it is reported as a shape, never as a bound.

Wang & Zhu 2023:

* Theorem 16 (DP-FTPL-New upper bound): ``sum_i max{16 log T / Delta_i, 4 L} + 4N`` over the
  suboptimal arms, ``L`` the log term of Algorithm 3's centre.
* Theorem 18 (GDP-Elim-New upper bound): ``sum_i (1024 Delta_i ln T / Delta_min^2 +
  (32 Delta_i / (eps Delta_min)) ln X) + 4N`` with ``X`` of Algorithm 4 (``N`` arms).
* Theorem 4 (lower bound for (eps, delta)-global DP): the OCR of the display is damaged; the
  abstract's order ``(N / eps) ln(((e^eps - 1) T + delta T) / ((e^eps - 1) + delta T))`` is
  reported as an order term without constant.

Tossou & Dimitrakakis 2016: no bound of theirs is evaluated yet (their algorithms are not
implemented; Theorem 3.5's additive constant is not recovered from the text).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.validation import (
    check_epsilon,
    check_epsilon_delta,
    check_horizon,
    check_means,
    check_real,
)

from .adap import bernoulli_kl
from .ftpl import ftpl_new_log_term
from .gdp_elim import log_x

__all__ = [
    "thm2_minimax_lower",
    "thm3_lower",
    "thm3_rate",
    "thm4_gdp_lower_order",
    "thm7_adap_ucb_upper",
    "thm8_adap_klucb_shape",
    "thm16_dp_ftpl_new_upper",
    "thm18_gdp_elim_upper",
]


def _gaps(means: object) -> tuple[np.ndarray, np.ndarray, float]:
    mu = check_means(means)
    best = float(mu.max())
    gaps = best - mu
    return mu, gaps, best


def thm2_minimax_lower(n_arms: int, horizon: int, epsilon: float) -> float:
    """Azize & Basu 2022, Theorem 2, Eq. (3)."""
    k = int(n_arms)
    horizon = check_horizon(horizon, max(k - 1, 1))
    eps = check_epsilon(epsilon)
    return max(math.sqrt(horizon * (k - 1)) / 27.0, (k - 1) / (131.0 * eps))


def thm3_lower(means: object, horizon: int, epsilon: float) -> float:
    """Azize & Basu 2022, Theorem 3, Eq. (4), Bernoulli case, times ``ln T`` (asymptotic)."""
    mu, gaps, best = _gaps(means)
    eps = check_epsilon(epsilon)
    horizon = check_horizon(horizon, mu.size)
    sub = gaps > 0
    d_inf = bernoulli_kl(mu[sub], np.full(sub.sum(), best))
    return float(np.sum(gaps[sub] / np.minimum(d_inf, 6.0 * eps * gaps[sub])) * math.log(horizon))


def thm3_rate(means: object, epsilon: float) -> float:
    """Azize & Basu 2022, Theorem 3, Eq. (4), Bernoulli case: the rate
    ``sum_a Delta_a / min(kl(mu_a, mu*), 6 eps Delta_a)`` that ``liminf Reg_T / ln T`` must
    reach (:func:`thm3_lower` is this times ``ln T``)."""
    mu, gaps, best = _gaps(means)
    eps = check_epsilon(epsilon)
    sub = gaps > 0
    d_inf = bernoulli_kl(mu[sub], np.full(sub.sum(), best))
    return float(np.sum(gaps[sub] / np.minimum(d_inf, 6.0 * eps * gaps[sub])))


def thm7_adap_ucb_upper(means: object, horizon: int, epsilon: float, alpha: float = 3.1) -> float:
    """Azize & Basu 2022, Theorem 7 (needs ``alpha > 3``)."""
    mu, gaps, _ = _gaps(means)
    eps = check_epsilon(epsilon)
    a = check_real("alpha", alpha, low=3.0, low_open=True)
    horizon = check_horizon(horizon, mu.size)
    sub = gaps > 0
    per_arm = 16.0 * a / np.minimum(gaps[sub], eps) * math.log(horizon) + 3.0 * a / (a - 3.0)
    return float(per_arm.sum())


def thm8_adap_klucb_shape(means: object, horizon: int, epsilon: float,
                          alpha: float = 3.1) -> float:
    """Azize & Basu 2022, Theorem 8 with ``C1 = C2 = 1``: the bound's shape, not a bound."""
    mu, gaps, best = _gaps(means)
    eps = check_epsilon(epsilon)
    a = check_real("alpha", alpha, low=3.0, low_open=True)
    horizon = check_horizon(horizon, mu.size)
    sub = gaps > 0
    d_inf = bernoulli_kl(mu[sub], np.full(sub.sum(), best))
    per_arm = (gaps[sub] * math.log(horizon) / np.minimum(d_inf, eps * gaps[sub])
               + 3.0 * a / (a - 3.0))
    return float(per_arm.sum())


def thm16_dp_ftpl_new_upper(means: object, horizon: int, epsilon: float,
                            delta: float) -> float:
    """Wang & Zhu 2023, Theorem 16: ``sum_i max{16 log T / Delta_i, 4 L} + 4N``.

    ``L`` is :func:`~dpaudit.algorithms.ftpl.ftpl_new_log_term` (the theorem writes
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
