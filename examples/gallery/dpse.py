"""Successive elimination with Laplace-noised epoch means, after DP-SE (Sajed & Sheffet 2019).

Shape: a time index in both methods, ``get_arm(t)`` and ``update(t, arm, reward)``.

Epoch ``e`` pulls every active arm ``r = 2^e`` times, round robin; at its end each active arm
releases the mean of *this epoch's* ``r`` rewards plus ``Lap(1 / (epsilon r))`` (sensitivity
``1/r``), and an arm whose release is more than ``w_e`` below the best is eliminated, with
``w_e = sqrt(log(4 K e^2 / beta) / (2 r)) + log(2 K e^2 / beta) / (epsilon r)``. Every reward
enters exactly one release, so the action sequence is epsilon-DP for reward tables that differ
in one step (parallel composition; Azize & Basu 2022, Definition 2). With ``K = 2``,
``epsilon = 1`` and ``beta = 0.1`` a gap of 1 is first eliminated in epoch 4 (steps 31-60),
so a horizon of 64 shows a decision.
"""

import math

import numpy as np


class DPSE:
    """Correct: one Laplace draw per arm and epoch."""

    def __init__(self, n_arms, horizon, epsilon, beta=0.1):
        self.k, self.horizon, self.epsilon, self.beta = n_arms, horizon, epsilon, beta
        self.active = list(range(n_arms))
        self.epoch = 0
        self.queue = []
        self.sums = {}
        self.r = 0

    def get_arm(self, t):
        if len(self.active) == 1:
            return self.active[0]
        if not self.queue:
            self.epoch += 1
            self.r = 2 ** self.epoch
            self.queue = [a for _ in range(self.r) for a in self.active]
            self.sums = {a: 0.0 for a in self.active}
        return self.queue[0]

    def update(self, t, arm, reward):
        if len(self.active) == 1:
            return
        self.queue.pop(0)
        self.sums[arm] += reward
        if not self.queue:
            self.eliminate(self.releases())

    def releases(self):
        return {a: self.sums[a] / self.r + np.random.laplace(0.0, 1.0 / (self.epsilon * self.r))
                for a in self.active}

    def eliminate(self, noisy):
        e, r, k = self.epoch, self.r, self.k
        w = (math.sqrt(math.log(4 * k * e * e / self.beta) / (2 * r))
             + math.log(2 * k * e * e / self.beta) / (self.epsilon * r))
        top = max(noisy.values())
        self.active = [a for a in self.active if noisy[a] >= top - w]


class SharedNoiseDPSE(DPSE):
    """Broken: one Laplace draw per epoch, shared by all arms.

    Every release carries the same noise, so it cancels in ``noisy[a] >= top - w``: the
    elimination is the raw comparison of epoch means, a deterministic function of the
    rewards. On a table whose gap sits at the elimination threshold one changed reward decides
    whether an arm is eliminated, with probability one. A search on tables where all arms pay
    the same never sees an elimination at all.
    """

    def releases(self):
        z = np.random.laplace(0.0, 1.0 / (self.epsilon * self.r))
        return {a: self.sums[a] / self.r + z for a in self.active}
