"""Explore-then-commit with a long warm-up: round robin over the arms for the first
``warmup = 1000`` steps whatever the rewards, then the arm with the largest noisy sum to the
end, the shape of policies with a fixed exploration phase.

Its actions depend on the rewards only from step ``warmup + 1``: at a shorter horizon nothing
a neighbouring input changes can move them, and the audit says so at once (INCONCLUSIVE, no
sampling) with the horizon, samples, search budget and ``--seconds`` that reach a verdict in
one command. Each arm's sum of ``warmup / K`` rewards (sensitivity 1) gets ``Lap(1 /
epsilon)``: one release per reward, epsilon-DP for reward tables that differ in one step
(Dwork & Roth 2014, Theorem 3.6).
"""

import numpy as np


class LateCommitETC:
    """Correct: ``Lap(1 / epsilon)`` on each sum."""

    def __init__(self, n_arms, epsilon, warmup=1000):
        self.k, self.epsilon, self.warmup = n_arms, epsilon, warmup
        self.sums = [0.0] * n_arms
        self.t, self.best = 0, None

    def scale(self):
        return 1.0 / self.epsilon

    def select(self):
        if self.t < self.warmup:
            return self.t % self.k
        if self.best is None:
            noise = np.random.laplace(0.0, self.scale(), size=self.k)
            self.best = int(np.argmax(np.array(self.sums) + noise))
        return self.best

    def update(self, arm, reward):
        if self.t < self.warmup:
            self.sums[arm] += reward
        self.t += 1


class LateCommitMeanScale(LateCommitETC):
    """Broken: a mean's noise scale on the sum, ``1 / (epsilon n)`` with ``n = warmup / K``
    pulls per arm: the commitment is (n epsilon)-DP."""

    def scale(self):
        return self.k / (self.epsilon * self.warmup)
