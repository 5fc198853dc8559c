"""A local randomizer alone: a class whose one method is ``report(reward)``, no bandit methods,
the shape of a user's device code (Laplace mechanism on a reward in [0, 1], sensitivity 1:
``Lap(1 / epsilon)`` is epsilon-LDP; Dwork & Roth 2014, Theorem 3.6; Zheng et al. 2020).
``--notion ldp`` audits it as it is (no ``--interface``, no glue).
"""

import numpy as np


class LaplaceReporter:
    """Correct: ``reward + Lap(1 / epsilon)``."""

    def __init__(self, epsilon):
        self.epsilon = epsilon

    def report(self, reward):
        return reward + np.random.laplace(0.0, 1.0 / self.epsilon)


class HalfScaleReporter(LaplaceReporter):
    """Broken: ``Lap(1 / (2 epsilon))``, the scale of a sensitivity of 1/2 (2 epsilon-LDP)."""

    def report(self, reward):
        return reward + np.random.laplace(0.0, 0.5 / self.epsilon)
