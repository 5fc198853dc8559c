"""Exact hockey-stick divergence and privacy curves for the laws used in the seed papers.

For two laws ``P`` and ``Q`` the tightest ``delta`` at ``epsilon`` is the hockey-stick
divergence ``H_eps(P || Q) = sup_S P(S) - e^eps Q(S)``; a mechanism is ``(eps, delta)``-DP
on a neighbouring pair iff ``max(H_eps(P||Q), H_eps(Q||P)) <= delta``. The map
``eps -> delta(eps)`` is the *privacy curve*.

Closed forms (each pinned in ``tests/test_divergence.py`` against 50-digit mpmath quadrature):

* **Laplace** shift ``Delta`` at scale ``b`` (``a = Delta / b``): the optimal set is a
  half-line and ``delta(eps) = max(0, 1 - exp((eps - a) / 2))``; so ``delta(eps) = 0`` iff
  ``eps >= Delta / b``.
* **Gaussian** shift ``Delta`` at standard deviation ``sigma`` (``mu = Delta / sigma``):
  ``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)`` (Balle & Wang 2018,
  "Improving the Gaussian mechanism", Theorem 8; the analytic Gaussian mechanism).
* **Monotone likelihood ratio** pairs (Beta, any location family with log-concave density):
  the optimal set is the half-line where ``p > e^eps q``; the divergence is
  ``F_P(x_eps) - e^eps F_Q(x_eps)`` at the crossing ``x_eps``. For ``P = Beta(A, B + 1)`` and
  ``Q = Beta(A + 1, B)`` (one Bernoulli observation changed, seed 003 Thm 13's proof)
  ``p/q = (A/B)(1 - x)/x``, so ``x_eps = A / (A + B e^eps)``.

Everything else goes through :func:`continuous_hockey_stick`: Gauss-Legendre quadrature of
``max(0, p - e^eps q)`` between the breakpoints of the densities and the sign changes of
``p - e^eps q`` (found on a fine grid and refined by bisection), with the error estimate of
:func:`dpaudit.exact.piecewise_quadrature`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import special

from .conditions import bisect_sign_changes
from .exact import piecewise_quadrature
from .validation import InvalidParameterError, check_delta, check_epsilon, check_real

__all__ = [
    "beta_hockey_stick",
    "classical_gaussian_sigma",
    "continuous_hockey_stick",
    "epsilon_for_delta",
    "gaussian_analytic_sigma",
    "gaussian_hockey_stick",
    "laplace_hockey_stick",
    "privacy_curve",
]


def laplace_hockey_stick(epsilon: float, sensitivity: float, scale: float) -> float:
    """``delta(eps)`` of the Laplace mechanism: ``max(0, 1 - exp((eps - Delta/b)/2))``.

    Symmetric in the two directions. Derivation: the log-likelihood ratio of ``Lap(0, b)`` and
    ``Lap(Delta, b)`` is ``(|x - Delta| - |x|)/b``, equal to ``a = Delta/b`` on ``x <= 0`` and
    linear in between; the set ``{ratio > e^eps}`` is ``x < (Delta - eps b)/2`` and its
    hockey-stick mass integrates to the formula.
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    d = check_real("sensitivity", sensitivity, low=0.0)
    b = check_real("scale", scale, low=0.0, low_open=True)
    a = d / b
    if eps >= a:
        return 0.0
    return float(-math.expm1((eps - a) / 2.0))


def gaussian_hockey_stick(epsilon: float, sensitivity: float, sigma: float) -> float:
    """``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)``, ``mu = Delta/sigma``.

    Balle & Wang (2018), Theorem 8. Evaluated in log space (``log_ndtr``) so that tiny deltas
    keep their relative accuracy; symmetric in the two directions.
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    d = check_real("sensitivity", sensitivity, low=0.0)
    s = check_real("sigma", sigma, low=0.0, low_open=True)
    mu = d / s
    if mu == 0.0:
        return 0.0
    la = special.log_ndtr(mu / 2.0 - eps / mu)
    lb = eps + special.log_ndtr(-mu / 2.0 - eps / mu)
    if lb >= la:
        return 0.0
    return float(math.exp(la) * -math.expm1(lb - la))


def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """``sigma = Delta sqrt(2 ln(1.25/delta)) / eps`` (Dwork & Roth Thm A.1; seed 004 Sec. 2)."""
    eps = check_epsilon(epsilon)
    dl = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    return d * math.sqrt(2.0 * math.log(1.25 / dl)) / eps


def gaussian_analytic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest ``sigma`` with ``gaussian_hockey_stick(eps, Delta, sigma) <= delta``.

    Balle & Wang (2018) Algorithm 1 solves the same monotone equation; here by bisection on
    ``log sigma`` to relative precision 1e-12 (``delta(eps)`` decreases in ``sigma``).
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    dl = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)

    def ok(log_s: float) -> bool:
        return gaussian_hockey_stick(eps, d, math.exp(log_s)) <= dl

    lo, hi = math.log(d) - 10.0, math.log(d) + 10.0
    while ok(lo):
        lo -= 10.0
    while not ok(hi):
        hi += 10.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return math.exp(hi)


def beta_hockey_stick(
    epsilon: float, a: np.ndarray | float, b: np.ndarray | float
) -> np.ndarray:
    """``max(H_eps(P||Q), H_eps(Q||P))`` for ``P = Beta(a, b + 1)``, ``Q = Beta(a + 1, b)``.

    This is the pair of seed 003 Thm 13's proof (one reward of a Bernoulli history flipped).
    Both directions use the monotone likelihood ratio ``p/q = (a/b)(1 - x)/x``: the optimal
    sets are ``x < a/(a + b e^eps)`` for ``H(P||Q)`` and ``x > a e^eps/(b + a e^eps)`` for
    ``H(Q||P)``. Vectorised over ``a`` and ``b`` (``scipy.special.betainc``, double precision).
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if np.any(~np.isfinite(a)) or np.any(~np.isfinite(b)) or np.any(a <= 0) or np.any(b <= 0):
        raise InvalidParameterError("a and b must be positive finite Beta parameters")
    g = math.exp(eps)
    x1 = a / (a + b * g)
    h_pq = special.betainc(a, b + 1, x1) - g * special.betainc(a + 1, b, x1)
    x2 = a * g / (b + a * g)
    # survival functions: 1 - I_x(.,.) = I_{1-x}(swapped)
    h_qp = special.betainc(b, a + 1, 1 - x2) - g * special.betainc(b + 1, a, 1 - x2)
    return np.maximum(np.maximum(h_pq, h_qp), 0.0)


def continuous_hockey_stick(
    pdf_p: Callable[[np.ndarray], np.ndarray],
    pdf_q: Callable[[np.ndarray], np.ndarray],
    epsilon: float,
    support: tuple[float, float],
    *,
    breakpoints: tuple[float, ...] = (),
    grid: int = 4001,
    nodes: int = 48,
) -> tuple[float, float]:
    """``H_eps(P||Q) = int max(0, p - e^eps q)`` over ``support``; returns ``(value, error)``.

    ``support`` must contain all of ``P``'s mass (outside it ``max(0, p - e^eps q) = 0`` only
    if ``p = 0``); ``breakpoints`` are where either density is not smooth. Sign changes of
    ``p - e^eps q`` are added as breakpoints so the integrand is smooth on every piece.
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    lo, hi = float(support[0]), float(support[1])
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InvalidParameterError(f"support={support!r} must be a finite interval lo < hi")
    g = math.exp(eps)

    def diff(x: np.ndarray) -> np.ndarray:
        return pdf_p(x) - g * pdf_q(x)

    cuts = [lo, hi, *[b for b in breakpoints if lo < b < hi]]
    cuts += bisect_sign_changes(diff, np.linspace(lo, hi, grid)).tolist()
    value, err = piecewise_quadrature(lambda x: np.maximum(diff(x), 0.0), np.array(cuts),
                                      nodes=nodes)
    return max(value, 0.0), err


def privacy_curve(
    delta_of: Callable[[float], float], epsilons: np.ndarray | list[float]
) -> np.ndarray:
    """``delta(eps)`` on a grid of epsilons, for any exact divergence ``delta_of``."""
    return np.array([delta_of(float(e)) for e in np.asarray(epsilons, dtype=float)])


def epsilon_for_delta(
    delta_of: Callable[[float], float], delta: float, *, eps_max: float = 100.0,
    tol: float = 1e-10,
) -> float:
    """Smallest ``eps`` with ``delta_of(eps) <= delta`` (bisection; ``delta_of`` decreasing).

    Returns ``inf`` when even ``eps_max`` does not suffice.
    """
    dl = check_delta(delta)
    if delta_of(0.0) <= dl:
        return 0.0
    if delta_of(eps_max) > dl:
        return math.inf
    lo, hi = 0.0, eps_max
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if delta_of(mid) <= dl else (mid, hi)
    return hi
