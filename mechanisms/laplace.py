"""The Laplace mechanism, the reference for pure epsilon-DP on a real-valued query.

Implements ``M(x) = x + Lap(b)`` with ``b = sensitivity / epsilon`` (Dwork, McSherry, Nissim
& Smith 2006; used by Azize & Basu 2022, Lemma 1, on last-episode means, and by Tossou &
Dimitrakakis 2016's tree and
hybrid counters). For neighbours with ``||x - x'||_1 <= sensitivity`` the log density ratio
``(|y - x'| - |y - x|) / b`` summed over coordinates is at most ``||x - x'||_1 / b <= epsilon``
(proof: triangle inequality, coordinate by coordinate).

The class speaks the black-box protocol of :mod:`dpaudit.interfaces` (``sample(data, size,
rng)``, ``epsilon``, ``delta``, ``neighbours``) and exposes its law (``scale``, ``cdf``,
``sf``, ``logpdf``, ``pdf``, ``privacy_loss``, a sympy density) for exact and symbolic checks.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import stats

from dpaudit.mechanisms._additive import AdditiveNoiseMechanism, as_real_data, check_generator
from dpaudit.validation import check_epsilon, check_real

__all__ = ["Laplace", "as_real_data", "check_generator"]



class Laplace(AdditiveNoiseMechanism):
    """Laplace mechanism ``x + Lap(sensitivity / epsilon)`` per coordinate.

    Parameters
    ----------
    epsilon:
        The claimed privacy parameter, in ``(0, inf)``.
    sensitivity:
        L1 sensitivity of the query (how far neighbouring query answers may be apart).
        Default 1 (a count, or a mean of rewards in [0, 1] over one sample).

    Notes
    -----
    ``delta`` is 0 (pure DP). ``neighbours`` is the extreme pair ``(0, sensitivity)``, at
    which the privacy loss attains ``epsilon`` on the tail ``y >= sensitivity``.
    """

    notion = "ldp"

    def __init__(self, epsilon: float, *, sensitivity: float = 1.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        self.scale = self._calibrated_scale()

    def _calibrated_scale(self) -> float:
        """``b = sensitivity / epsilon`` (the calibration a faulty subclass gets wrong)."""
        return self.sensitivity / self.epsilon

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon!r}, sensitivity={self.sensitivity!r})"

    def _noise(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.laplace(0.0, self.scale, size=shape)

    # -- law (scipy.stats.laplace) ----------------------------------------------------------
    def cdf(self, y: object, data: object) -> np.ndarray:
        """``P[M(x) <= y]`` per coordinate."""
        return stats.laplace.cdf(np.asarray(y, float), loc=as_real_data(data), scale=self.scale)

    def sf(self, y: object, data: object) -> np.ndarray:
        """``P[M(x) > y]`` per coordinate (accurate in the far upper tail)."""
        return stats.laplace.sf(np.asarray(y, float), loc=as_real_data(data), scale=self.scale)

    def logpdf(self, y: object, data: object) -> np.ndarray:
        """``-log(2 b) - |y - x| / b`` per coordinate."""
        return stats.laplace.logpdf(np.asarray(y, float), loc=as_real_data(data),
                                    scale=self.scale)

    def pdf(self, y: object, data: object) -> np.ndarray:
        return np.exp(self.logpdf(y, data))

    def privacy_loss(self, y: object, data: object, data_prime: object) -> np.ndarray:
        """``log p(y | x) - log p(y | x')`` summed over coordinates (last axes of ``y``)."""
        x, xp = as_real_data(data), as_real_data(data_prime, "data_prime")
        y = np.asarray(y, float)
        loss = (np.abs(y - xp) - np.abs(y - x)) / self.scale
        return loss.reshape(loss.shape[: loss.ndim - x.ndim] + (-1,)).sum(axis=-1)

    def epsilon_between(self, data: object, data_prime: object) -> float:
        """Exact pure-DP loss between two inputs: ``||x - x'||_1 / b``."""
        x, xp = as_real_data(data), as_real_data(data_prime, "data_prime")
        return float(np.abs(x - xp).sum() / self.scale)

    def sympy_logpdf(self, y: sp.Symbol | None = None, x: sp.Symbol | None = None) -> sp.Expr:
        """Sympy form of the scalar log density, in symbols ``y`` and ``x``."""
        y = sp.Symbol("y", real=True) if y is None else y
        x = sp.Symbol("x", real=True) if x is None else x
        b = sp.nsimplify(self.scale)
        return -sp.log(2 * b) - sp.Abs(y - x) / b
