"""Explore-then-commit as one function that draws its own rewards through a module-level
function, ``pull(means, arm)`` (numba-compiled here, as it often is), the shape of simulation
scripts: ``run_etc(means, horizon, epsilon)``.

The algorithm is that of :mod:`examples.gallery.one_based` (Laplace-noised sums of ``m`` pulls
per arm, then commit; epsilon-DP for reward tables differing in one step, Dwork & Roth 2014,
Theorem 3.6). ``--reward-fn examples.gallery.module_reward:pull`` hands ``pull`` the audited
rewards; nothing else is needed.
"""

import numba
import numpy as np


@numba.njit(cache=False)
def pull(means, arm):
    """A Bernoulli reward of ``arm`` (what the audit replaces by the audited rewards)."""
    return 1.0 if np.random.random() < means[arm] else 0.0


def _run(means, horizon, epsilon, m, scale):
    k = len(means)
    sums = np.zeros(k)
    actions = []
    for t in range(m * k):
        a = t % k
        sums[a] += pull(means, a)
        actions.append(a)
    best = int(np.argmax(sums + np.random.laplace(0.0, scale, size=k)))
    for _ in range(horizon - m * k):
        pull(means, best)
        actions.append(best)
    return actions


def run_etc(means, horizon, epsilon, m=8):
    """Correct: ``Lap(1 / epsilon)`` on each sum."""
    return _run(means, horizon, epsilon, m, 1.0 / epsilon)


def run_etc_mean_scale(means, horizon, epsilon, m=8):
    """Broken: a mean's noise scale ``1 / (epsilon m)`` on the sum ((m epsilon)-DP)."""
    return _run(means, horizon, epsilon, m, 1.0 / (epsilon * m))
