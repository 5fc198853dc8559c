"""A bounded sum with Laplace noise: records are clipped to [0, 1], so one changed record moves
the sum by at most 1, and Lap(1 / epsilon) makes it epsilon-DP.

The planted bug clips a copy and sums the original: a record of 5 moves the sum by 5.
"""

import numpy as np


class ClippedSum:
    """Correct: the sum of the clipped records plus Lap(1 / epsilon)."""

    epsilon, delta = 1.0, 0.0
    neighbours = [((0.2, 0.7, 0.4), (0.2, 0.7, 5.0)), ((0.2, 0.7, 0.4), (0.2, 0.7, -3.0))]

    def sample(self, data, size, rng):
        clipped = np.clip(np.asarray(data, dtype=float), 0.0, 1.0)
        return clipped.sum() + rng.laplace(0.0, 1.0 / self.epsilon, size)


class UnclippedSum(ClippedSum):
    """Broken: clips into ``clipped`` and sums ``values``: the sensitivity is unbounded, and on
    the declared neighbours the sum moves by 4.6 against the scale 1."""

    def sample(self, data, size, rng):
        values = np.asarray(data, dtype=float)
        clipped = np.clip(values, 0.0, 1.0)  # noqa: F841 - the bug: computed, never used
        return values.sum() + rng.laplace(0.0, 1.0 / self.epsilon, size)
