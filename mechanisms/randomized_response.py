"""k-ary randomized response, the textbook epsilon-LDP release of a categorical datum.

Warner (1965) for ``k = 2``; the k-ary form (Kairouz, Oh & Viswanath 2014, "Extremal
mechanisms for local differential privacy", the "direct encoding"): report the true value
``x in {0, ..., k-1}`` with probability ``e^eps / (e^eps + k - 1)`` and each of the other
``k - 1`` values with probability ``1 / (e^eps + k - 1)``. Any output's probability under two
inputs differs by a factor of at most ``e^eps`` (equality for the output ``x`` itself), so
the mechanism is exactly eps-LDP. Used as the local randomiser of a bit (``k = 2``) by the
LDP bandit papers (Barbara, Lazzaro & Pike-Burke 2025 reduces PrivBern to it for ``r in {0, 1}``).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import sympy as sp

from dpaudit.mechanisms._additive import check_generator
from dpaudit.validation import InvalidParameterError, check_epsilon, check_int

__all__ = ["RandomizedResponse"]


class RandomizedResponse:
    """k-ary randomized response with claim ``epsilon`` (``delta = 0``).

    Parameters
    ----------
    epsilon:
        The claim, in ``(0, inf)``.
    k:
        Number of categories (default 2, Warner's binary randomized response).
    """

    notion = "ldp"

    def __init__(self, epsilon: float, *, k: int = 2) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.k = check_int("k", k, low=2)
        self.n_outcomes = self.k
        self.p_keep, self.p_other = self._calibrated_probabilities()

    def _calibrated_probabilities(self) -> tuple[float, float]:
        """``(e^eps, 1) / (e^eps + k - 1)`` computed stably for large epsilon."""
        # e^eps / (e^eps + k - 1) = 1 / (1 + (k - 1) e^-eps)
        other = math.exp(-self.epsilon) / (1.0 + (self.k - 1) * math.exp(-self.epsilon))
        return 1.0 - (self.k - 1) * other, other

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon!r}, k={self.k!r})"

    @property
    def neighbours(self) -> tuple[tuple[int, int], ...]:
        """Any two distinct values are extreme; ``(0, 1)``."""
        return ((0, 1),)

    def _data(self, data: object, name: str = "data") -> np.ndarray:
        arr = np.asarray(data)
        if (isinstance(data, bool | np.bool_) or arr.dtype == bool
                or not (np.issubdtype(arr.dtype, np.integer)
                        or all(isinstance(v, numbers.Integral) for v in arr.ravel()))
                or np.any(arr < 0) or np.any(arr >= self.k)):
            raise InvalidParameterError(
                f"{name}={data!r} must be an integer (or integer array) in [0, {self.k - 1}]")
        return arr.astype(np.int64)

    def output_probabilities(self, data: object) -> np.ndarray:
        """``P[Y = j | x]`` for ``j = 0..k-1`` along a new last axis."""
        x = self._data(data)
        probs = np.full((*x.shape, self.k), self.p_other)
        np.put_along_axis(probs, x[..., None], self.p_keep, axis=-1)
        return probs

    def sample(self, data: object, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent reports; shape ``(size, *shape(data))``, integers in [0, k)."""
        x = self._data(data)
        size = check_int("size", size, low=1)
        rng = check_generator(rng)
        shape = (size, *x.shape)
        keep = rng.random(size=shape) < self.p_keep
        other = rng.integers(0, self.k - 1, size=shape)
        other = other + (other >= x)  # uniform over the k - 1 values different from x
        return np.where(keep, x, other).astype(np.int64)

    def epsilon_between(self, data: object, data_prime: object) -> float:
        """Exact pure-DP loss between two inputs (max over outputs, summed over coords)."""
        lp = np.log(self.output_probabilities(data))
        lq = np.log(self.output_probabilities(self._data(data_prime, "data_prime")))
        return float(np.abs(lp - lq).max(axis=-1).sum())

    def sympy_probabilities(self, eps: sp.Symbol | None = None) -> tuple[sp.Expr, sp.Expr]:
        """``(P[keep], P[each other value])`` in the sympy symbol ``epsilon``."""
        eps = sp.Symbol("epsilon", positive=True) if eps is None else eps
        den = sp.exp(eps) + self.k - 1
        return sp.exp(eps) / den, 1 / den
