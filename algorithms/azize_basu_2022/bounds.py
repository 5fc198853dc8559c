"""Azize & Basu 2022: the theorems' regret bounds on a Bernoulli instance (each defined once).

The paper's instances and experiment settings are in :mod:`.instances` beside this file.

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
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._bounds_common import gaps_of as _gaps
from dpaudit.algorithms._kl import bernoulli_kl
from dpaudit.validation import check_epsilon, check_horizon, check_real

__all__ = [
    "ADAP_KLUCB_NO_BOUND",
    "adap_ucb_regret_bound",
    "thm2_minimax_lower",
    "thm3_lower",
    "thm3_rate",
    "thm7_adap_ucb_upper",
    "thm8_adap_klucb_shape",
]


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


# -- PolicyEntry.bound: (means, horizon, epsilon, delta) -> (value, name) ---------------------
def adap_ucb_regret_bound(means: object, horizon: int, epsilon: float,
                          delta: float = 0.0) -> tuple[float, str]:
    """The bound ``simulate``, ``check`` and ``claims`` compare AdaP-UCB with: Theorem 7 at
    the paper's ``alpha = 3.1`` (``delta`` unused: AdaP-UCB is pure epsilon-DP)."""
    return (thm7_adap_ucb_upper(means, horizon, epsilon),
            "Azize & Basu 2022, Theorem 7 (upper bound)")


#: why AdaP-KLUCB's entry has no bound
ADAP_KLUCB_NO_BOUND = ("Azize & Basu 2022, Theorem 8 leaves its constants C1(alpha), C2 "
                       "unspecified: only its shape is reported (check adap-klucb)")
