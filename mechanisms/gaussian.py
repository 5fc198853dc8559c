"""The Gaussian mechanism with classical or analytic calibration (reference for (eps, delta)-DP).

Implements ``M(x) = x + N(0, sigma^2 I)`` for a query of L2 sensitivity ``Delta``; Zheng et al. 2020
(Zheng et al. 2020) privatises each user's gradient/reward this way for (eps, delta)-LDP.

Two calibrations (parameter ``calibration``):

``"classical"`` (Dwork & Roth 2014, Theorem A.1)
    ``sigma = Delta sqrt(2 log(1.25 / delta)) / epsilon``. The theorem assumes
    ``epsilon < 1``; for large epsilon this sigma is genuinely *not* (eps, delta)-DP (e.g.
    eps = 10, delta = 1e-5 gives true delta ~ 2e-5), so it is refused for ``epsilon > 1``.
``"analytic"`` (Balle & Wang 2018, "Improving the Gaussian mechanism", Theorem 8)
    The smallest ``sigma`` with ``delta(eps; sigma) <= delta`` for the exact privacy profile
    ``delta(eps) = Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) -
    eps sigma/Delta)``, from Google's ``dp_accounting`` (Brent's method), taking the upper end
    of the root's bracket so the mechanism never under-noises.

The profile and both calibrations live once, in :mod:`dpaudit.exact.divergence`
(:func:`~dpaudit.exact.divergence.gaussian_hockey_stick`, :func:`~dpaudit.exact.divergence.
gaussian_analytic_sigma`, :func:`~dpaudit.exact.divergence.classical_gaussian_sigma`); this module
re-exports the sigmas under their short names.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy.special import ndtr

from dpaudit.exact.divergence import classical_gaussian_sigma as classical_sigma
from dpaudit.exact.divergence import gaussian_analytic_sigma as analytic_sigma
from dpaudit.exact.divergence import gaussian_hockey_stick
from dpaudit.exact.loss import Bounded
from dpaudit.mechanisms._additive import AdditiveNoiseMechanism, as_real_data
from dpaudit.validation import (
    InvalidParameterError,
    check_choice,
    check_epsilon,
    check_real,
)

__all__ = ["CALIBRATIONS", "Gaussian", "analytic_sigma", "classical_sigma"]

CALIBRATIONS = ("analytic", "classical")


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

    @property
    def gdp_mu(self) -> float:
        """The Gaussian DP parameter the analysis implies, ``sensitivity / sigma`` (Dong, Roth
        & Su 2022, Thm 2.7): the sampled audit's privacy profile compares the code's lower
        bound with it (a subclass whose ``_noise`` adds less noise than ``sigma`` shows above
        it)."""
        return self.sensitivity / self.sigma

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

    def delta_at(self, epsilon: float, data: object = None,
                 data_prime: object = None) -> Bounded:
        """Tight ``delta`` at ``epsilon`` between two inputs (default: the neighbour pair),
        with its error bound (:func:`dpaudit.exact.divergence.gaussian_hockey_stick`)."""
        if data is None and data_prime is None:
            dist = self.sensitivity
        else:
            x, xp = as_real_data(data), as_real_data(data_prime, "data_prime")
            dist = float(np.sqrt(((x - xp) ** 2).sum()))
        return gaussian_hockey_stick(epsilon, dist, self.sigma)

    def sympy_logpdf(self, y: sp.Symbol | None = None, x: sp.Symbol | None = None) -> sp.Expr:
        """Sympy form of the scalar log density, in symbols ``y`` and ``x``."""
        y = sp.Symbol("y", real=True) if y is None else y
        x = sp.Symbol("x", real=True) if x is None else x
        s = sp.Float(self.sigma, 30)
        return -(y - x) ** 2 / (2 * s**2) - sp.log(s * sp.sqrt(2 * sp.pi))
