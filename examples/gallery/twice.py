"""A locally private policy that reports each reward to its server, in the shape
``step(reward, arm)`` (called with ``(None, None)`` first), passing reports to
``self.aggregate(value)``.

Each reward is reported twice (once for the mean, once for an exploration bonus); under local
DP (Zheng et al. 2020) the two reports of one reward compose, so each may spend only half the
budget: ``Lap(2 / epsilon)`` each.
"""

import numpy as np


class TwiceReported:
    """Correct: two reports of ``Lap(2 / epsilon)`` each (epsilon / 2 + epsilon / 2)."""

    scale_factor = 2.0

    def __init__(self, n_arms, epsilon):
        self.k, self.epsilon = n_arms, epsilon
        self.sums, self.bonus, self.n = [0.0] * n_arms, [0.0] * n_arms, [0] * n_arms
        self.inbox = []

    def aggregate(self, value):
        self.inbox.append(value)

    def step(self, reward, arm):
        if arm is not None:
            b = self.scale_factor / self.epsilon
            self.aggregate(reward + np.random.laplace(0.0, b))
            self.aggregate(reward + np.random.laplace(0.0, b))
            self.sums[arm] += self.inbox[-2]
            self.bonus[arm] += self.inbox[-1]
            self.n[arm] += 1
        unplayed = [a for a in range(self.k) if self.n[a] == 0]
        if unplayed:
            return unplayed[0]
        return max(range(self.k), key=lambda a: (self.sums[a] + self.bonus[a]) / self.n[a])


class ReusedBudget(TwiceReported):
    """Broken: each of the two reports of one reward is noised for the whole budget,
    ``Lap(1 / epsilon)``, so the reward is released at 2 epsilon."""

    scale_factor = 1.0
