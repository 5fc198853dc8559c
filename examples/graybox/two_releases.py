"""The count of ones in a bit vector, released with Laplace noise.

A changed record moves the count by 1: one release with Lap(1 / epsilon) is epsilon-DP. The
planted bug releases it twice (a noisy count and a "refined" noisy count), each at the full
epsilon, so the pair of outputs is 2 epsilon-DP (basic composition, tight for Laplace).
"""

import numpy as np


class NoisyCount:
    """Correct: one release."""

    epsilon, delta = 1.0, 0.0
    neighbours = [((1, 0, 1, 1), (1, 0, 1, 0))]

    def sample(self, data, size, rng):
        count = float(np.sum(data))
        return (count + rng.laplace(0.0, 1.0 / self.epsilon, size))[:, None]


class TwiceReleasedCount(NoisyCount):
    """Broken: two releases of the same count, each Lap(1 / epsilon)."""

    def sample(self, data, size, rng):
        count = float(np.sum(data))
        first = count + rng.laplace(0.0, 1.0 / self.epsilon, size)
        second = count + rng.laplace(0.0, 1.0 / self.epsilon, size)
        return np.stack([first, second], axis=1)
