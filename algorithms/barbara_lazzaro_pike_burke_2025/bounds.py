"""Theorem bounds of Barbara, Lazzaro & Pike-Burke 2025 (Theorems 3.1, 3.2, 4.1, 4.2).

The printed constants were lost in extraction; each bound is rebuilt from its proof with the
uncertain constant as a named parameter (the reconstructed value as default), and the
``ldp-tbp-*`` checks set the measured loss / sample complexity beside them.

* Theorem 3.1 (upper, Algorithm 1; Appendix B follows Locatelli et al. 2016, Theorem 2):
  ``E[L] <= exp(-T / (c H^eps) + 2 log((log T + 1) K))`` with ``c = 64 R^2`` for
  ``R``-sub-Gaussian observations. The proof uses that PrivBern's bits are Bernoulli, hence
  ``1/2``-sub-Gaussian, so ``c = 16`` (``constant``); APT's generic ``R = 1`` gives 64.
* Theorem 3.2 (lower, any eps-LDP algorithm; Appendix C): Bretagnolle-Huber between ``B^0``
  and the ``B^i`` that moves arm ``i`` from ``tau + Delta_i`` to ``tau - Delta_i``, the
  locally private KL contraction (Basu et al. 2019, Lemma 4, after Duchi, Jordan & Wainwright
  2013: ``KL <= 4 (e^eps - 1)^2 TV^2`` with ``TV = 2 Delta_i``) and an arm with
  ``E_0[T_i] <= T / (H Delta_i^2)`` give ``max_i E_i[L] >= (1/4) exp(-c' (e^eps - 1)^2 T / H)``
  with ``c' = 16`` (``constant``).
* Theorem 4.1 (upper, Algorithm 2; Appendix D after Chen et al. 2014): on the good event an
  arm is pulled only while ``rad_i >= Delta^eps_i / 2``, so
  ``T <= K + 2 H^eps log(4 K T^3 / delta)``; :func:`thm41_upper` solves this implicit
  inequality for the largest admissible ``T`` (``scipy.optimize.brentq``).
* Theorem 4.2 (lower, any eps-LDP delta-correct algorithm; Appendix E): Kaufmann et al. 2016,
  Lemma 1, ``kl(delta, 1 - delta) >= log(1/(2.4 delta))``, and the contraction
  ``KL <= 4 (e^eps - 1)^2 TV^2 <= 2 (e^eps - 1)^2 kl`` (Pinsker), moving each arm to the
  threshold: ``E[tau_delta] >= sum_i log(1/(2.4 delta)) / (c'' (e^eps - 1)^2 kl(mu_i, tau))``
  with ``c'' = 2`` (``constant``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import xlogy

from dpaudit.validation import (
    InvalidParameterError,
    check_epsilon,
    check_int,
    check_means,
    check_real,
)

__all__ = [
    "complexity",
    "private_complexity",
    "thm31_upper",
    "thm32_lower",
    "thm41_upper",
    "thm42_lower",
]


def complexity(means: object, tau: float, gamma: float = 0.0) -> float:
    """``H = sum_i (|mu_i - tau| + gamma)^-2`` (Section 2.4)."""
    mu = check_means(means)
    gaps = np.abs(mu - tau) + gamma
    if np.any(gaps <= 0):
        raise InvalidParameterError(f"tau={tau!r} must differ from every arm mean when "
                                    "gamma=0 (an arm at the threshold has infinite H)")
    return float(np.sum(gaps ** -2.0))


def private_complexity(means: object, tau: float, epsilon: float, gamma: float = 0.0) -> float:
    """``H^eps = ((e^eps + 1)/(e^eps - 1))^2 H`` (Eq. (8): gaps scale by ``kappa``)."""
    eps = check_epsilon(epsilon)
    return complexity(means, tau, gamma) / math.tanh(eps / 2.0) ** 2


def thm31_upper(means: object, tau: float, gamma: float, horizon: int, epsilon: float, *,
                constant: float = 16.0) -> float:
    """Theorem 3.1: ``exp(-T/(c H^eps) + 2 log((log T + 1) K))``, capped at 1."""
    k = check_means(means).size
    t = check_int("horizon", horizon, low=1)
    c = check_real("constant", constant, low=0.0, low_open=True)
    h = private_complexity(means, tau, epsilon, gamma)
    return min(1.0, math.exp(-t / (c * h) + 2.0 * math.log((math.log(t) + 1.0) * k)))


def thm32_lower(gaps: object, horizon: int, epsilon: float, *, constant: float = 16.0
                ) -> float:
    """Theorem 3.2: ``(1/4) exp(-c' (e^eps - 1)^2 T / H)``, ``H = sum_i gaps_i^-2``."""
    g = np.asarray(gaps, float)
    if g.ndim != 1 or g.size < 1 or np.any(~np.isfinite(g)) or np.any(g <= 0):
        raise InvalidParameterError(f"gaps={gaps!r} must be a non-empty 1-d sequence of "
                                    "finite numbers in (0, inf)")
    t = check_int("horizon", horizon, low=1)
    eps = check_epsilon(epsilon)
    c = check_real("constant", constant, low=0.0, low_open=True)
    h = float(np.sum(g ** -2.0))
    return 0.25 * math.exp(-c * math.expm1(eps) ** 2 * t / h)


def thm41_upper(means: object, tau: float, epsilon: float, delta: float, *,
                radius_constant: float = 4.0, radius_power: float = 3.0) -> float:
    """Largest ``T`` with ``T <= K + 2 H^eps log(radius_constant K T^p / delta)``."""
    k = check_means(means).size
    dlt = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    h = private_complexity(means, tau, epsilon)

    def slack(log_t: float) -> float:
        t = math.exp(log_t)
        return k + 2.0 * h * (math.log(radius_constant * k / dlt) + radius_power * log_t) - t

    lo = math.log(max(k, 2.0 * h))  # slack(lo) > 0 there; slack decreases past 2 h p
    hi = lo + 1.0
    while slack(hi) > 0.0:
        hi += 1.0
    return math.exp(brentq(slack, lo, hi, xtol=1e-12))


def _kl(p: np.ndarray, q: float) -> np.ndarray:
    return xlogy(p, p / q) + xlogy(1.0 - p, (1.0 - p) / (1.0 - q))


def thm42_lower(means: object, tau: float, epsilon: float, delta: float, *,
                constant: float = 2.0) -> float:
    """Theorem 4.2: ``sum_i log(1/(2.4 delta)) / (c'' (e^eps - 1)^2 kl(mu_i, tau))``."""
    mu = check_means(means)
    eps = check_epsilon(epsilon)
    dlt = check_real("delta", delta, low=0.0, high=1.0 / 2.4, low_open=True, high_open=True)
    c = check_real("constant", constant, low=0.0, low_open=True)
    return float(np.sum(math.log(1.0 / (2.4 * dlt))
                        / (c * math.expm1(eps) ** 2 * _kl(mu, tau))))
