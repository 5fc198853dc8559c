"""A noisy sum whose Laplace noise comes from a numba-compiled helper, out of the gray-box
stage's sight: the code declares its noise primitive and the primitive's sensitivity
(``dpaudit.noise_primitive``).

Correct: records are clipped to [0, 1] before they are summed (sensitivity 1). The planted bug
clips them to [0, 10]: the primitive's statistic moves by up to 10, ten times its declared
sensitivity.
"""

import numpy as np

from dpaudit import equal_on_neighbours, noise_primitive

try:
    from numba import njit
except ImportError:  # pragma: no cover - numba is a dependency of dpaudit
    def njit(fn):
        return fn


@njit
def _laplace(scale, n):
    return np.random.laplace(0.0, scale, n)


@noise_primitive(sensitivity=1.0, law="laplace", scale="scale")
def privatize(total, scale, n):
    return total + _laplace(scale, n)


class DeclaredSum:
    """Correct: clipped to [0, 1], declared sensitivity 1, scale 1 / epsilon."""

    epsilon, delta = 1.0, 0.0
    upper = 1.0
    neighbours = [((0.5, 0.2, 0.9), (0.5, 0.2, 9.0))]

    def sample(self, data, size, rng):
        values = np.clip(np.asarray(data, dtype=float), 0.0, self.upper)
        equal_on_neighbours(len(values), "number of records")
        return privatize(values.sum(), 1.0 / self.epsilon, size)


class WideClipSum(DeclaredSum):
    """Broken: clipped to [0, 10] while the primitive declares sensitivity 1."""

    upper = 10.0
