"""A noisy sum of records in [0, 1] with Lap(1 / epsilon) (epsilon-DP).

The planted bug adds a "fast path": when the raw sum is small it returns the noisy sum of the
largest record instead. The comparison reads the raw data, so which statistic is released
depends on the data with probability one.
"""

import numpy as np


class NoisySum:
    """Correct: always the noisy sum."""

    epsilon, delta = 1.0, 0.0
    neighbours = [((0.5, 0.5, 0.9), (0.5, 0.5, 0.1))]

    def sample(self, data, size, rng):
        values = np.clip(np.asarray(data, dtype=float), 0.0, 1.0)
        return values.sum() + rng.laplace(0.0, 1.0 / self.epsilon, size)


class BranchingSum(NoisySum):
    """Broken: ``if values.sum() < 1.5`` chooses the statistic on the raw data."""

    def sample(self, data, size, rng):
        values = np.clip(np.asarray(data, dtype=float), 0.0, 1.0)
        if values.sum() < 1.5:
            return values.max() * 10.0 + rng.laplace(0.0, 1.0 / self.epsilon, size)
        return values.sum() + rng.laplace(0.0, 1.0 / self.epsilon, size)
