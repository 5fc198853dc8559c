"""Shared pieces of the additive-noise mechanisms ``M(x) = x + noise`` (Laplace, Gaussian).

Validation of generators and query answers, and the black-box protocol both mechanisms speak:
``neighbours`` is the extreme pair ``(0, sensitivity)`` and ``sample`` adds ``size``
independent noise draws to the answer. A subclass supplies ``_noise(rng, shape)``.
"""

from __future__ import annotations

import numpy as np

from dpaudit.validation import InvalidParameterError, check_int

__all__ = ["AdditiveNoiseMechanism", "as_real_data", "check_generator"]


def check_generator(rng: object) -> np.random.Generator:
    """Samplers take an explicit ``numpy.random.Generator`` (never the global state)."""
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            f"rng={rng!r} must be a numpy.random.Generator (e.g. "
            f"dpaudit.stats.rng.generator(seed))")
    return rng


def as_real_data(data: object, name: str = "data") -> np.ndarray:
    """A query answer: a finite real scalar or array (returned as a float array)."""
    try:
        arr = np.asarray(data, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name}={data!r} must be a finite real number or array") \
            from None
    if isinstance(data, bool | np.bool_) or not np.all(np.isfinite(arr)):
        raise InvalidParameterError(f"{name}={data!r} must be a finite real number or array")
    return arr


class AdditiveNoiseMechanism:
    """Base of ``x + noise`` mechanisms: the black-box protocol on top of ``_noise``."""

    sensitivity: float

    def _noise(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    @property
    def neighbours(self) -> tuple[tuple[float, float], ...]:
        """Query answers at the largest allowed distance: ``(0, sensitivity)``."""
        return ((0.0, self.sensitivity),)

    # -- black-box protocol --------------------------------------------------------------
    def sample(self, data: object, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases; shape ``(size, *shape(data))``."""
        x = as_real_data(data)
        size = check_int("size", size, low=1)
        rng = check_generator(rng)
        return x + self._noise(rng, (size, *x.shape))
