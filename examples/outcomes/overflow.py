"""A geometric mean computed as a product, which overflows to +inf on one neighbour.

The noisy geometric mean of values clipped to ``[1, 10]`` lies in ``[1, 10]``, so
``geometric mean + Lap(9 / epsilon)`` is epsilon-DP (sensitivity at most the range, 9; Dwork &
Roth 2014, Theorem 3.6). The textbook formula ``prod(x) ** (1 / n)`` overflows: 308 records of
10 have the product 1e308, still a float, and 309 have 1e309, which is +inf, and so is its
root and the release, on every draw. The event "output is +inf" has probability 1 under one
neighbour and 0 under the other.
"""

import numpy as np

#: 308 records of the largest value, and the same with one more
SMALL = (10.0,) * 308
LARGE = (10.0,) * 309


class ProductGeometricMean:
    """Broken: ``prod(clip(x, 1, 10)) ** (1 / n) + Lap(9 / epsilon)``; the product overflows."""

    def __init__(self, epsilon: float = 1.0) -> None:
        self.epsilon, self.delta = epsilon, 0.0
        self.neighbours = [(SMALL, LARGE)]

    def geometric_mean(self, data) -> float:
        x = np.clip(np.asarray(data, dtype=float), 1.0, 10.0)
        with np.errstate(over="ignore"):
            return float(np.prod(x) ** (1.0 / x.size))

    def sample(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.geometric_mean(data) + rng.laplace(0.0, 9.0 / self.epsilon, size)


class LogGeometricMean(ProductGeometricMean):
    """Correct twin: ``exp(mean(log(x)))``, the same value computed in log space (no
    overflow)."""

    def geometric_mean(self, data) -> float:
        x = np.clip(np.asarray(data, dtype=float), 1.0, 10.0)
        return float(np.exp(np.log(x).mean()))
