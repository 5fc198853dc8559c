"""A mean of records in [0, 1] with Laplace noise, on datasets that differ by one record added
or removed.

Correct: the noise is calibrated to a public bound on the size (``n_max``), never to the data.
The planted bug reads the scale from ``len(data)``: the noise itself then reveals the size, so
the output's law moves with the data beyond the shift of the mean.
"""

import numpy as np


class PublicSizeMean:
    """Correct: the sum of the records, Lap(1 / epsilon), divided by the public ``n_max``."""

    epsilon, delta = 1.0, 0.0
    n_max = 10
    neighbours = [((0.5, 0.5, 0.5), (0.5, 0.5)), ((0.5, 0.5, 0.5), (0.5, 0.5, 0.5, 0.5))]

    def sample(self, data, size, rng):
        total = float(np.sum(data))
        return (total + rng.laplace(0.0, 1.0 / self.epsilon, size)) / self.n_max


class LenScaledMean(PublicSizeMean):
    """Broken: ``Lap(1 / (epsilon len(data)))`` on the mean: the scale is private."""

    def sample(self, data, size, rng):
        n = len(data)
        return float(np.mean(data)) + rng.laplace(0.0, 1.0 / (self.epsilon * n), size)
