"""Explore-then-commit with Laplace-noised sums, in the shape ``get_arm(t)`` / ``update(t, arm,
reward)`` with ``t`` counted from 1 (``for t in range(1, T + 1)``), as much research code does.

Each arm is pulled ``m`` times in a row (arm ``(t - 1) // m`` at steps 1 .. m K); then the arm
with the largest ``S_a + Lap(1 / epsilon)`` (``S_a``: its ``m`` rewards in [0, 1] summed,
sensitivity 1) is played to the end. Every reward enters one release, so the action sequence
is epsilon-DP for reward tables that differ in one step (parallel composition; Dwork & Roth
2014, Theorem 3.6; Azize & Basu 2022, Definition 2). No glue: dpaudit finds that ``t`` starts at 1.
"""

import numpy as np


class OneBasedETC:
    """Correct: ``Lap(1 / epsilon)`` on each sum."""

    def __init__(self, n_arms, epsilon, m=8):
        self.k, self.epsilon, self.m = n_arms, epsilon, m
        self.sums = [0.0] * n_arms
        self.best = None

    def noise_scale(self):
        return 1.0 / self.epsilon

    def get_arm(self, t):
        if t <= self.m * self.k:
            return (t - 1) // self.m  # t counts from 1: at t = 0 this is arm -1
        if self.best is None:
            noisy = [s + np.random.laplace(0.0, self.noise_scale()) for s in self.sums]
            self.best = int(np.argmax(noisy))
        return self.best

    def update(self, t, arm, reward):
        if t <= self.m * self.k:
            self.sums[arm] += reward


class MeanScaleETC(OneBasedETC):
    """Broken: the scale of a *mean*'s noise, ``1 / (epsilon m)``, added to the *sum*: the
    release is (m epsilon)-DP, not epsilon-DP."""

    def noise_scale(self):
        return 1.0 / (self.epsilon * self.m)
