"""A locally private policy with Gaussian reports, claimed (epsilon, delta)-LDP. Shape:
``choose()`` / ``observe(arm, reward)`` and a ``report(reward)`` hook.

The classical calibration (Dwork & Roth 2014, Theorem A.1) is
``sigma = sqrt(2 ln(1.25 / delta)) / epsilon`` for sensitivity 1, valid for ``epsilon < 1``
(the theorem's hypothesis; above it the calibration can fail), so the constructor refuses
larger epsilons.
"""

import math

import numpy as np


class GaussianReports:
    """Correct: the classical calibration."""

    def __init__(self, n_arms, epsilon, delta):
        if not 0 < epsilon < 1 or not 0 < delta < 1:
            raise ValueError(f"epsilon={epsilon} must be in (0, 1) and delta={delta} in "
                             "(0, 1) for the classical calibration")
        self.k = n_arms
        self.sigma = self.calibrate(epsilon, delta)
        self.s, self.n = [0.0] * n_arms, [0] * n_arms

    @staticmethod
    def calibrate(epsilon, delta):
        return math.sqrt(2 * math.log(1.25 / delta)) / epsilon

    def report(self, reward):
        return reward + np.random.normal(0.0, self.sigma)

    def choose(self):
        for a in range(self.k):
            if self.n[a] == 0:
                return a
        return max(range(self.k), key=lambda a: self.s[a] / self.n[a])

    def observe(self, arm, reward):
        self.s[arm] += self.report(reward)
        self.n[arm] += 1


class SqrtTwoGaussian(GaussianReports):
    """Broken: the factor 2 under the square root is lost, so sigma is sqrt(2) too small
    (``sqrt(ln(1.25 / delta)) / epsilon``)."""

    @staticmethod
    def calibrate(epsilon, delta):
        return math.sqrt(math.log(1.25 / delta)) / epsilon
