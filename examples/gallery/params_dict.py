"""Explore-then-commit built as ``ETC(env, n, params)``: an environment, the horizon under a
name of its own (``n``) and one ``params`` dict for every other setting, with a ``run()``
method that pulls the arms itself, the shape of many experiment classes.

Algorithm and privacy argument: :mod:`examples.gallery.one_based`. ``--set n=24`` reaches the
constructor's ``n`` while the dict receives epsilon and the rest.
"""

import numpy as np


class ETC:
    """Correct: ``Lap(1 / epsilon)`` on each sum."""

    def __init__(self, env, n, params):
        self.env, self.n = env, n
        self.k, self.epsilon = params["n_arms"], params["epsilon"]
        self.m = params.get("m", 8)

    def scale(self):
        return 1.0 / self.epsilon

    def run(self):
        sums = np.zeros(self.k)
        for t in range(self.m * self.k):
            sums[t % self.k] += self.env.pull(t % self.k)
        best = int(np.argmax(sums + np.random.laplace(0.0, self.scale(), size=self.k)))
        for _ in range(self.n - self.m * self.k):
            self.env.pull(best)


class MeanScaleETC(ETC):
    """Broken: a mean's noise scale ``1 / (epsilon m)`` on the sum ((m epsilon)-DP)."""

    def scale(self):
        return 1.0 / (self.epsilon * self.m)
