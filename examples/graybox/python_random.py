"""A Gaussian mechanism drawing its noise through Python's ``random`` module.

The query (the sum of two records in [0, 1]) has L2 sensitivity 1 for one changed record; the
analytic calibration of Balle & Wang (2018) for (1, 1e-5) and sensitivity 1 is sigma = 3.73.
The planted bug uses that sigma for a query of sensitivity 2 (each record counted twice).
"""

import random

import numpy as np

SIGMA = 3.7307  # Balle & Wang 2018, analytic calibration at (1, 1e-5), sensitivity 1


class GaussSum:
    """Correct: the sum plus ``random.gauss(0, SIGMA)``."""

    epsilon, delta = 1.0, 1e-5
    neighbours = [((0.0, 0.0), (0.0, 1.0))]

    def sample(self, data, size, rng):
        s = float(np.sum(data))
        return np.array([s + random.gauss(0.0, SIGMA) for _ in range(size)])


class DoubledGaussSum(GaussSum):
    """Broken: ``2 * sum`` (sensitivity 2) with the sigma of sensitivity 1."""

    def sample(self, data, size, rng):
        s = 2.0 * float(np.sum(data))
        return np.array([s + random.gauss(0.0, SIGMA) for _ in range(size)])
