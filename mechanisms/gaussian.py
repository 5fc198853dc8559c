"""The Gaussian mechanism with classical or analytic calibration (reference for (eps, delta)-DP).

Implements ``M(x) = x + N(0, sigma^2 I)`` for a query of L2 sensitivity ``Delta``; seed 004
(Zheng et al. 2020) privatises each user's gradient/reward this way for (eps, delta)-LDP.

Two calibrations (parameter ``calibration``):

``"classical"`` (Dwork & Roth 2014, Theorem A.1)
    ``sigma = Delta sqrt(2 log(1.25 / delta)) / epsilon``. The theorem assumes
    ``epsilon < 1``; for large epsilon this sigma is genuinely *not* (eps, delta)-DP (e.g.
    eps = 10, delta = 1e-5 gives true delta ~ 2e-5), so it is refused for ``epsilon > 1``.
``"analytic"`` (Balle & Wang 2018, "Improving the Gaussian mechanism", Theorem 8)
    The smallest ``sigma`` with ``delta(eps; sigma) <= delta`` for the exact privacy profile
    ``delta(eps) = Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) -
    eps sigma/Delta)``. Solved numerically (Brent's method in ``log sigma`` on the log of the
    profile, which is strictly decreasing in sigma), rather than by the paper's Algorithm 1;
    both find the same root. :meth:`Gaussian.delta_at` evaluates the profile, so the exact
    helper can confirm that the calibrated mechanism is tight.

The profile is evaluated as ``Phi(a) * (-expm1(eps + log Phi(b) - log Phi(a)))`` with
``scipy.special.log_ndtr`` so that it stays accurate for delta down to 1e-300.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr

from dpaudit.validation import (
    InvalidParameterError,
    check_choice,
    check_epsilon,
    check_real,
)

from ._additive import AdditiveNoiseMechanism, as_real_data

__all__ = ["CALIBRATIONS", "Gaussian", "analytic_sigma", "classical_sigma", "gaussian_delta"]

CALIBRATIONS = ("analytic", "classical")


def gaussian_delta(epsilon: float, sigma: float, distance: float = 1.0) -> float:
    """Exact privacy profile of ``N(x, sigma^2)`` vs ``N(x', sigma^2)``, ``|x - x'| = distance``.

    Balle & Wang (2018), Theorem 8: the tight ``delta`` at ``epsilon`` (``epsilon >= 0``).
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    sigma = check_real("sigma", sigma, low=0.0, low_open=True)
    dist = check_real("distance", distance, low=0.0)
    if dist == 0.0:
        return 0.0
    return math.exp(_log_profile(eps, sigma, dist))


def _log_profile(eps: float, sigma: float, dist: float) -> float:
    a = dist / (2.0 * sigma) - eps * sigma / dist
    b = -dist / (2.0 * sigma) - eps * sigma / dist
    la, lb = float(log_ndtr(a)), float(log_ndtr(b))
    inner = eps + lb - la  # < 0 since b < a
    if inner >= 0.0:  # only reachable through rounding when both terms underflow together
        return -math.inf
    return la + math.log(-math.expm1(inner))


def classical_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """``Delta sqrt(2 log(1.25/delta)) / epsilon`` (Dwork & Roth 2014, Thm A.1; eps <= 1)."""
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def analytic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest sigma whose exact profile at ``epsilon`` is ``<= delta`` (Balle & Wang 2018)."""
    eps = check_epsilon(epsilon)
    dlt = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    sens = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    target = math.log(dlt)

    def gap(log_sigma: float) -> float:
        return _log_profile(eps, math.exp(log_sigma), sens) - target

    lo, hi = math.log(sens) - 2.0, math.log(sens) + 2.0
    while gap(lo) < 0:  # profile too small: sigma must be smaller
        lo -= 2.0
    while gap(hi) > 0:
        hi += 2.0
    root = brentq(gap, lo, hi, xtol=1e-13, rtol=1e-13, maxiter=500)
    sigma = math.exp(root)
    # step up to the first float whose profile is within the claim (never under-noise)
    while math.exp(_log_profile(eps, sigma, sens)) > dlt:
        sigma = math.nextafter(sigma, math.inf) * (1 + 1e-15)
    return sigma


class Gaussian(AdditiveNoiseMechanism):
    """Gaussian mechanism ``x + N(0, sigma^2 I)`` calibrated to an (epsilon, delta) claim.

    Parameters
    ----------
    epsilon, delta:
        The claim; ``epsilon > 0`` and ``0 < delta < 1`` (a Gaussian is never pure DP).
    sensitivity:
        L2 sensitivity of the query (default 1).
    calibration:
        ``"analytic"`` (default; Balle & Wang 2018, tight) or ``"classical"`` (Dwork & Roth,
        only for ``epsilon <= 1``). See the module docstring.
    """

    notion = "ldp"

    def __init__(self, epsilon: float, delta: float, *, sensitivity: float = 1.0,
                 calibration: str = "analytic") -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True,
                                high_open=True)
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        self.calibration = check_choice("calibration", calibration, CALIBRATIONS)
        if self.calibration == "classical" and self.epsilon > 1.0:
            raise InvalidParameterError(
                f"epsilon={epsilon!r} must be a finite number in (0, 1] for "
                "calibration='classical' (Dwork & Roth 2014, Thm A.1 assumes epsilon < 1 and the "
                "formula under-noises for large epsilon); use calibration='analytic'")
        self.sigma = self._calibrated_sigma()

    def _calibrated_sigma(self) -> float:
        if self.calibration == "classical":
            return classical_sigma(self.epsilon, self.delta, self.sensitivity)
        return analytic_sigma(self.epsilon, self.delta, self.sensitivity)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"sensitivity={self.sensitivity!r}, calibration={self.calibration!r})")

    def _noise(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return self.sigma * rng.standard_normal(size=shape)

    # -- law ------------------------------------------------------------------------------
    def cdf(self, y: object, data: object) -> np.ndarray:
        return ndtr((np.asarray(y, float) - as_real_data(data)) / self.sigma)

    def sf(self, y: object, data: object) -> np.ndarray:
        return ndtr((as_real_data(data) - np.asarray(y, float)) / self.sigma)

    def logpdf(self, y: object, data: object) -> np.ndarray:
        z = (np.asarray(y, float) - as_real_data(data)) / self.sigma
        return -0.5 * z * z - math.log(self.sigma * math.sqrt(2.0 * math.pi))

    def pdf(self, y: object, data: object) -> np.ndarray:
        return np.exp(self.logpdf(y, data))

    def privacy_loss(self, y: object, data: object, data_prime: object) -> np.ndarray:
        """``log p(y | x) - log p(y | x')`` summed over the coordinates of one release."""
        x, xp = as_real_data(data), as_real_data(data_prime, "data_prime")
        loss = self.logpdf(y, x) - self.logpdf(y, xp)
        return loss.reshape(loss.shape[: loss.ndim - x.ndim] + (-1,)).sum(axis=-1)

    def delta_at(self, epsilon: float, data: object = None, data_prime: object = None) -> float:
        """Tight ``delta`` at ``epsilon`` between two inputs (default: the neighbour pair)."""
        if data is None and data_prime is None:
            dist = self.sensitivity
        else:
            x, xp = as_real_data(data), as_real_data(data_prime, "data_prime")
            dist = float(np.sqrt(((x - xp) ** 2).sum()))
        return gaussian_delta(epsilon, self.sigma, dist)

    def sympy_logpdf(self, y: sp.Symbol | None = None, x: sp.Symbol | None = None) -> sp.Expr:
        """Sympy form of the scalar log density, in symbols ``y`` and ``x``."""
        y = sp.Symbol("y", real=True) if y is None else y
        x = sp.Symbol("x", real=True) if x is None else x
        s = sp.Float(self.sigma, 30)
        return -(y - x) ** 2 / (2 * s**2) - sp.log(s * sp.sqrt(2 * sp.pi))
