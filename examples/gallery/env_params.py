"""Explore-then-commit built from its environment alone, ``EnvETC(env)`` with ``run()``: the
number of arms, the horizon and the privacy budget are read off the environment
(``env.n_arms``, ``env.horizon``, ``env.epsilon``), as in simulators where the environment
carries the experiment's settings.

dpaudit's environment serves the audited rewards and reports the claim (``epsilon``,
``delta``) beside ``n_arms`` and ``horizon``. Algorithm and privacy argument:
:mod:`examples.gallery.one_based`.
"""

import numpy as np


class EnvETC:
    """Correct: ``Lap(1 / epsilon)`` on each sum."""

    m = 8

    def __init__(self, env):
        self.env = env
        self.k, self.horizon, self.epsilon = env.n_arms, env.horizon, env.epsilon

    def scale(self):
        return 1.0 / self.epsilon

    def run(self):
        sums = np.zeros(self.k)
        for t in range(self.m * self.k):
            sums[t % self.k] += self.env.pull(t % self.k)
        best = int(np.argmax(sums + np.random.laplace(0.0, self.scale(), size=self.k)))
        for _ in range(self.horizon - self.m * self.k):
            self.env.pull(best)


class EnvMeanScaleETC(EnvETC):
    """Broken: a mean's noise scale ``1 / (epsilon m)`` on the sum ((m epsilon)-DP)."""

    def scale(self):
        return 1.0 / (self.epsilon * self.m)
