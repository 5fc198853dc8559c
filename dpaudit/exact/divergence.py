"""Exact hockey-stick divergence and privacy curves for the laws used in the papers.

For two laws ``P`` and ``Q`` the tightest ``delta`` at ``epsilon`` is the hockey-stick
divergence ``H_eps(P || Q) = sup_S P(S) - e^eps Q(S)``; a mechanism is ``(eps, delta)``-DP
on a neighbouring pair iff ``max(H_eps(P||Q), H_eps(Q||P)) <= delta``. The map
``eps -> delta(eps)`` is the *privacy curve*. Every function here returns a
:class:`~dpaudit.exact.loss.Bounded`: the value and a bound on its absolute error.

* **Laplace and Gaussian** shifts come from Google's ``dp_accounting`` library
  (``LaplacePrivacyLoss`` / ``GaussianPrivacyLoss``): its inverse privacy loss gives the
  optimal half-line ``x*`` and its noise log-CDFs the two masses, combined here in log space
  as ``P(x*) (1 - exp(eps + log Q(x*) - log P(x*)))`` so that no ``e^eps`` is formed (the
  library's own ``get_delta_for_epsilon`` multiplies by ``e^eps`` and returns 0.5 for a correct
  Laplace mechanism at ``eps = 1000``). The analytic Gaussian sigma (Balle & Wang 2018) is
  ``dp_accounting.get_sigma_gaussian``. The closed forms (Laplace
  ``1 - exp((eps - Delta/b)/2)``; Balle & Wang's Theorem 8 for the Gaussian) are kept in
  ``tests/test_divergence.py``, where they and 40-digit mpmath quadrature agree with these
  functions within the stated error bounds over a grid including the extremes.
* **Monotone likelihood ratio** pairs (Beta): the optimal set is the half-line where
  ``p > e^eps q``; for ``P = Beta(A, B + 1)`` and ``Q = Beta(A + 1, B)`` (one Bernoulli
  observation changed, Wang & Zhu 2023, Thm 13's proof) ``p/q = (A/B)(1 - x)/x``, so the
  crossing is ``x_eps = A / (A + B e^eps)``.
* Everything else goes through :func:`continuous_hockey_stick`: Gauss-Legendre quadrature of
  ``max(0, p - e^eps q)`` between the breakpoints of the densities and the sign changes of
  ``p - e^eps q``, with the error estimate of :func:`dpaudit.exact.loss.piecewise_quadrature`.

**Error bounds of the closed forms.** At the optimal ``x*`` the derivative of
``P(x) - e^eps Q(x)`` vanishes, so the rounding of ``x*`` changes the value only to second
order. What remains: the relative error ``R`` of the library's noise (log-)CDF
(:data:`CDF_RELATIVE_ERROR`; scipy's ``log_ndtr``/Laplace CDF are accurate to a few units
of roundoff, and the tests check ``R`` against mpmath), the rounding of
``eps + log Q - log P`` (``u (2 + |eps| + |log Q|)`` relative), and the rounding of the
mechanism's own parameters: the ratio ``Delta/b`` (or ``Delta/sigma``) is itself a floating
result of the calibration, with relative error up to ``4u``, and the divergence moves by at
most ``1/2`` (Laplace) or ``phi(mu/2 - eps/mu)`` (Gaussian, ``mu = Delta/sigma``: the
derivative of Balle & Wang's formula, whose density terms cancel at the optimum) per unit of
that ratio.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import dp_accounting
import numpy as np
from dp_accounting.pld.privacy_loss_mechanism import (
    AdditiveNoisePrivacyLoss,
    GaussianPrivacyLoss,
    LaplacePrivacyLoss,
)
from scipy import special

from dpaudit.exact.conditions import bisect_sign_changes
from dpaudit.exact.loss import (
    UNIT_ROUNDOFF,
    Bounded,
    OutOfRangeError,
    piecewise_quadrature,
    smallest_passing,
)
from dpaudit.validation import InvalidParameterError, check_delta, check_epsilon, check_real

__all__ = [
    "CDF_RELATIVE_ERROR",
    "beta_hockey_stick",
    "classical_gaussian_sigma",
    "continuous_hockey_stick",
    "epsilon_for_delta",
    "gaussian_analytic_sigma",
    "gaussian_hockey_stick",
    "laplace_hockey_stick",
    "privacy_curve",
]

#: relative error allowed for a library CDF value (450 units of roundoff; tests check it)
CDF_RELATIVE_ERROR = 1e-13
#: relative error allowed for ``scipy.special.betainc`` (Cephes ``incbet``; tests check it)
BETAINC_RELATIVE_ERROR = 1e-12
_TINY = np.finfo(float).tiny  # smallest normal double


def _shift_ratio(name: str, sensitivity: float, scale: float) -> float:
    """``sensitivity / scale``, refusing parameters whose ratio double precision cannot hold."""
    ratio = sensitivity / scale
    if not math.isfinite(ratio) or (0.0 < scale < _TINY) or (0.0 < sensitivity < _TINY):
        raise OutOfRangeError(
            f"{name}: sensitivity {sensitivity:g} / scale {scale:g} is not representable to "
            "full precision in double arithmetic (overflow or subnormal numbers)")
    return ratio


def _profile(loss: AdditiveNoisePrivacyLoss, eps: float, ratio: float, slope: float,
             name: str) -> Bounded:
    """``H_eps`` of a dp_accounting additive-noise loss, in log space, with its error bound."""
    with np.errstate(all="ignore"):
        x = float(loss.inverse_privacy_loss(eps))
        log_p = float(loss.noise_log_cdf(x + loss.sensitivity))
        log_q = float(loss.noise_log_cdf(x))
    input_err = slope * 4.0 * UNIT_ROUNDOFF * ratio
    if x == -math.inf:  # the loss never reaches eps: the optimal set is empty
        return Bounded(0.0, input_err, f"{name} (dp_accounting): empty optimal set")
    if not (math.isfinite(x) and math.isfinite(log_p) and math.isfinite(log_q)):
        # e.g. scipy's Laplace logcdf is log(cdf), which underflows to -inf beyond x/b ~ -745
        raise OutOfRangeError(
            f"{name}: at eps = {eps:g} the optimal half-line ends at x* = {x:g}, where the "
            f"library's noise log-CDF is not finite (log P = {log_p:g}, log Q = {log_q:g}): "
            "double precision cannot evaluate the divergence here")
    log_e = eps + log_q
    rounding = CDF_RELATIVE_ERROR + UNIT_ROUNDOFF * (2.0 + abs(eps) + abs(log_q))
    if log_e >= log_p:
        # P <= e^eps Q at the optimum: the divergence is 0 unless rounding hid a positive gap
        gap = 2.0 * (CDF_RELATIVE_ERROR + rounding)
        err = input_err + (math.exp(log_p) * gap if log_e - log_p <= gap else 0.0)
        return Bounded(0.0, err, f"{name} (dp_accounting), log space")
    p = math.exp(log_p)
    value = p * -math.expm1(log_e - log_p)
    err = p * CDF_RELATIVE_ERROR + p * math.exp(log_e - log_p) * rounding + input_err
    return Bounded(value, err + 4.0 * UNIT_ROUNDOFF * value,
                   f"{name} (dp_accounting), log space")


def laplace_hockey_stick(epsilon: float, sensitivity: float, scale: float) -> Bounded:
    """``delta(eps)`` of ``Lap(0, b)`` vs ``Lap(Delta, b)`` (symmetric in the two directions).

    Exact value ``max(0, 1 - exp((eps - Delta/b)/2))``; computed by dp_accounting (module
    docstring), with the error bound derived there.
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    d = check_real("sensitivity", sensitivity, low=0.0)
    b = check_real("scale", scale, low=0.0, low_open=True)
    if d == 0.0:
        return Bounded(0.0, 0.0, "no shift")
    a = _shift_ratio("Laplace", d, b)
    loss = LaplacePrivacyLoss(b, sensitivity=d)
    top = float(loss.privacy_loss(-2.0 * d))  # the largest privacy loss, Delta/b
    if eps >= top * (1.0 - 8.0 * UNIT_ROUNDOFF):
        # delta(eps) is zero from eps = top on and 1/2-Lipschitz in eps, so at most
        # (top - eps)/2 here; plus the rounding of the ratio itself
        return Bounded(0.0, 0.5 * max(top - eps, 0.0) + 2.0 * UNIT_ROUNDOFF * a,
                       "Laplace (dp_accounting): epsilon at the largest privacy loss")
    return _profile(loss, eps, a, 0.5, "Laplace")


def gaussian_hockey_stick(epsilon: float, sensitivity: float, sigma: float) -> Bounded:
    """``delta(eps)`` of ``N(0, sigma^2)`` vs ``N(Delta, sigma^2)`` (Balle & Wang 2018, Thm 8).

    ``Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)`` with ``mu = Delta/sigma``, computed by
    dp_accounting in log space (module docstring), so tiny deltas keep their relative accuracy.
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    d = check_real("sensitivity", sensitivity, low=0.0)
    s = check_real("sigma", sigma, low=0.0, low_open=True)
    if d == 0.0:
        return Bounded(0.0, 0.0, "no shift")
    mu = _shift_ratio("Gaussian", d, s)
    # d delta / d mu = phi(mu/2 - eps/mu) (the density terms cancel at the optimum)
    z = mu / 2.0 - eps / mu
    slope = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi) if abs(z) < 40.0 else 0.0
    return _profile(GaussianPrivacyLoss(s, sensitivity=d), eps, mu, slope, "Gaussian")


def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """``sigma = Delta sqrt(2 ln(1.25/delta)) / eps`` (Dwork & Roth 2014, Thm A.1)."""
    eps = check_epsilon(epsilon)
    dl = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    return d * math.sqrt(2.0 * math.log(1.25 / dl)) / eps


def gaussian_analytic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0, *,
                            tol: float = 1e-12) -> float:
    """Smallest ``sigma`` with ``gaussian_hockey_stick(eps, Delta, sigma) <= delta``.

    Balle & Wang (2018): ``dp_accounting.get_sigma_gaussian`` solves the monotone equation
    with Brent's method (absolute tolerance ``tol`` on the unit-sensitivity sigma). The
    returned value is the *upper* end of Brent's guaranteed bracket ``root +- (tol + 4u root)``
    times ``Delta``; it is then raised (by ``1e-13, 2e-13, 4e-13, ...`` relative) until the
    profile's *upper* error bound is at most ``delta``, so the mechanism never under-noises
    even where the profile is a small difference of two larger terms (tiny ``eps`` and
    ``delta``).
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    dl = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    try:
        with np.errstate(all="ignore"):
            root = float(dp_accounting.get_sigma_gaussian(eps, dl, tol=tol))
    except (ValueError, ArithmeticError, RuntimeError) as exc:
        raise OutOfRangeError(f"analytic Gaussian sigma at eps={eps:g}, delta={dl:g}: the "
                              f"library's root finder failed ({exc})") from exc
    sigma = d * (root + 2.0 * (tol + 4.0 * UNIT_ROUNDOFF * root))
    if not (math.isfinite(sigma) and sigma >= _TINY):
        raise OutOfRangeError(f"analytic Gaussian sigma at eps={eps:g}, delta={dl:g} is "
                              f"{sigma:g}: outside double precision's normal range")
    base, step = sigma, 1e-13
    for _ in range(60):  # doubling steps: at most a factor 1 + 2^60 * 1e-13 above the root
        if gaussian_hockey_stick(eps, d, sigma).upper <= dl:
            return sigma
        step *= 2.0
        sigma = base * (1.0 + step)
    raise OutOfRangeError(f"analytic Gaussian sigma at eps={eps:g}, delta={dl:g}: the profile "
                          "stays above delta near the library's root")


def beta_hockey_stick(epsilon: float, a: np.ndarray | float, b: np.ndarray | float) -> Bounded:
    """``max(H_eps(P||Q), H_eps(Q||P))`` for ``P = Beta(a, b + 1)``, ``Q = Beta(a + 1, b)``.

    The pair of Wang & Zhu (2023) Thm 13's proof (one reward of a Bernoulli history flipped).
    Both directions use the monotone likelihood ratio ``p/q = (a/b)(1 - x)/x``: the optimal
    sets are ``x < a/(a + b e^eps)`` for ``H(P||Q)`` and ``x > a e^eps/(b + a e^eps)`` for
    ``H(Q||P)``. Vectorised over ``a`` and ``b`` (``scipy.special.betainc``, double
    precision); ``e^eps`` times a mass is formed as ``exp(eps + log mass)`` so any epsilon
    works. Error: :data:`BETAINC_RELATIVE_ERROR` on each of the four masses (the crossing's
    rounding is second order, as for every optimal half-line).
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if np.any(~np.isfinite(a)) or np.any(~np.isfinite(b)) or np.any(a <= 0) or np.any(b <= 0):
        raise InvalidParameterError("a and b must be positive finite Beta parameters")
    w = math.exp(-eps)  # e^-eps never overflows
    with np.errstate(divide="ignore"):
        x1 = a * w / (a * w + b)
        p1, q1 = special.betainc(a, b + 1, x1), special.betainc(a + 1, b, x1)
        q1e = np.exp(eps + np.log(q1))
        x2 = a / (b * w + a)  # = a e^eps / (b + a e^eps)
        # upper tails Q(x > x2) and P(x > x2): 1 - I_x(p, q) = I_{1-x}(q, p)
        q2, p2 = special.betainc(b, a + 1, 1 - x2), special.betainc(b + 1, a, 1 - x2)
        p2e = np.exp(eps + np.log(p2))
    h_pq, h_qp = p1 - q1e, q2 - p2e
    err = BETAINC_RELATIVE_ERROR * np.maximum(p1 + q1e, q2 + p2e) + 4 * UNIT_ROUNDOFF
    value = np.maximum(np.maximum(h_pq, h_qp), 0.0)
    return Bounded(value, err, "Beta pair, scipy betainc")


def continuous_hockey_stick(
    pdf_p: Callable[[np.ndarray], np.ndarray],
    pdf_q: Callable[[np.ndarray], np.ndarray],
    epsilon: float,
    support: tuple[float, float],
    *,
    breakpoints: tuple[float, ...] = (),
    grid: int = 4001,
    nodes: int = 48,
) -> Bounded:
    """``H_eps(P||Q) = int max(0, p - e^eps q)`` over ``support``, with its error estimate.

    ``support`` must contain all of ``P``'s mass (outside it ``max(0, p - e^eps q) = 0`` only
    if ``p = 0``); ``breakpoints`` are where either density is not smooth. Sign changes of
    ``p - e^eps q`` are located with scipy's bracketing root finder and added as breakpoints,
    so the integrand is smooth on every piece.
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    lo, hi = float(support[0]), float(support[1])
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InvalidParameterError(f"support={support!r} must be a finite interval lo < hi")
    if eps > 700.0:
        raise OutOfRangeError(f"epsilon = {eps:g}: e^eps overflows double precision")
    g = math.exp(eps)

    def diff(x: np.ndarray) -> np.ndarray:
        return pdf_p(x) - g * pdf_q(x)

    cuts = [lo, hi, *[b for b in breakpoints if lo < b < hi]]
    cuts += bisect_sign_changes(diff, np.linspace(lo, hi, grid)).tolist()
    value, err = piecewise_quadrature(lambda x: np.maximum(diff(x), 0.0), np.array(cuts),
                                      nodes=nodes)
    return Bounded(max(value, 0.0), err, f"Gauss-Legendre, {nodes} vs {2 * nodes} nodes")


def _value(x: Bounded | float) -> float:
    return float(x.value) if isinstance(x, Bounded) else float(x)


def privacy_curve(
    delta_of: Callable[[float], Bounded | float], epsilons: np.ndarray | list[float]
) -> np.ndarray:
    """``delta(eps)`` on a grid of epsilons, for any exact divergence ``delta_of``."""
    return np.array([_value(delta_of(float(e))) for e in np.asarray(epsilons, dtype=float)])


def epsilon_for_delta(
    delta_of: Callable[[float], Bounded | float], delta: float, *, eps_max: float = 100.0,
    xtol: float = 1e-10,
) -> Bounded:
    """Smallest ``eps`` with ``delta_of(eps) <= delta`` (``delta_of`` non-increasing).

    Found with scipy's bracketing root finder (:func:`dpaudit.exact.loss.smallest_passing`); the
    error is the final bracket's width. A value within its own error bound of ``delta``
    counts as passing. ``inf`` when even ``eps_max`` does not suffice.
    """
    dl = check_delta(delta)

    def fails(e: float) -> bool:
        r = delta_of(e)
        return bool((r.lower if isinstance(r, Bounded) else float(r)) > dl)

    if not fails(0.0):
        return Bounded(0.0, 0.0, "delta met at epsilon = 0")
    if fails(eps_max):
        return Bounded(math.inf, 0.0, f"delta not met below eps_max = {eps_max:g}")
    return smallest_passing(fails, 0.0, eps_max, xtol=xtol)
