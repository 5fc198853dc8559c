"""Correct mechanisms whose law the gray-box stage does not read exactly: it hands them to the
sampled audit (with no false finding on the way).

``UserRandomizedResponse`` keeps a bit with probability ``e^eps / (1 + e^eps)`` through
``rng.random`` (a draw the stage serves alike on both inputs but never shifts);
``ExponentialsLaplace`` adds Laplace noise drawn as the difference of two exponentials (the
Laplace law, through methods the probe does not read). Both are epsilon-DP.
"""

import numpy as np


class UserRandomizedResponse:
    """Binary randomized response, written as user code."""

    epsilon, delta = 1.0, 0.0
    neighbours = [(0, 1)]

    def sample(self, data, size, rng):
        keep = rng.random(size) < np.exp(self.epsilon) / (1.0 + np.exp(self.epsilon))
        return np.where(keep, data, 1 - data)


class ExponentialsLaplace:
    """A count plus Lap(1 / epsilon), drawn as exponential minus exponential."""

    epsilon, delta = 1.0, 0.0
    neighbours = [((1, 0, 1), (1, 1, 1))]

    def sample(self, data, size, rng):
        b = 1.0 / self.epsilon
        return float(np.sum(data)) + rng.exponential(b, size) - rng.exponential(b, size)
