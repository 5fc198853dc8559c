"""A locally private UCB: each user privatises its own reward before the learner sees it
(local DP, Zheng et al. 2020). Shape: ``select()`` / ``update(arm, reward)`` and the device's
``privatize(reward)`` hook, which is what leaves the user.

The correct report is ``reward + Lap(1 / epsilon)`` (rewards in [0, 1], sensitivity 1).
"""

import math

import numpy as np


class LocalLaplaceUCB:
    """Correct: ``np.random.laplace(0.0, 1 / epsilon)``."""

    def __init__(self, n_arms, epsilon):
        self.k, self.epsilon = n_arms, epsilon
        self.n, self.s, self.t = [0] * n_arms, [0.0] * n_arms, 0

    def privatize(self, reward):
        return reward + np.random.laplace(0.0, 1.0 / self.epsilon)

    def select(self):
        for a in range(self.k):
            if self.n[a] == 0:
                return a
        width = [math.sqrt(2 * math.log(self.t + 1) / self.n[a]) * 2 / self.epsilon
                 for a in range(self.k)]
        return max(range(self.k), key=lambda a: self.s[a] / self.n[a] + width[a])

    def update(self, arm, reward):
        self.t += 1
        self.n[arm] += 1
        self.s[arm] += self.privatize(reward)  # the server only ever sees the report


class WrongArgumentLaplaceUCB(LocalLaplaceUCB):
    """Broken: the scale is passed as the first argument, which is the *location*:
    ``np.random.laplace(1 / epsilon)`` is ``1/epsilon + Lap(1)``, noise of scale 1 whatever
    epsilon is, so the report is 1-DP, not epsilon-DP, for every epsilon below 1. The actions
    hardly change (the shift is the same for every arm); the reports do."""

    def privatize(self, reward):
        return reward + np.random.laplace(1.0 / self.epsilon)
