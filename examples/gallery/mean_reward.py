"""Explore-then-commit as one function whose reward function is passed the arm's *mean*, not
the arm: ``run_etc(means, horizon, epsilon, seed)`` calling ``bernoulli(means[a], rng)``, the
shape of simulation scripts that draw each reward from the arm's parameter.

The algorithm is that of :mod:`examples.gallery.one_based` (Laplace-noised sums of ``m`` pulls
per arm, then commit; epsilon-DP for reward tables differing in one step, Dwork & Roth 2014,
Theorem 3.6). ``--reward-fn examples.gallery.mean_reward:bernoulli`` hands ``bernoulli`` the
audited rewards: dpaudit gives ``run_etc`` distinct placeholder means, so the mean each call
is passed says which arm it draws for.
"""

import numpy as np


def bernoulli(p, rng):
    """A Bernoulli(``p``) reward (what the audit replaces by the audited rewards)."""
    return 1.0 if rng.random() < p else 0.0


def _run(means, horizon, epsilon, m, scale, seed):
    rng = np.random.default_rng(seed)
    k = len(means)
    sums = np.zeros(k)
    actions = []
    for t in range(m * k):
        a = t % k
        sums[a] += bernoulli(means[a], rng)
        actions.append(a)
    best = int(np.argmax(sums + rng.laplace(0.0, scale, size=k)))
    for _ in range(horizon - m * k):
        bernoulli(means[best], rng)
        actions.append(best)
    return actions


def run_etc(means, horizon, epsilon, m=8, seed=None):
    """Correct: ``Lap(1 / epsilon)`` on each sum."""
    return _run(means, horizon, epsilon, m, 1.0 / epsilon, seed)


def run_etc_mean_scale(means, horizon, epsilon, m=8, seed=None):
    """Broken: a mean's noise scale ``1 / (epsilon m)`` on the sum ((m epsilon)-DP)."""
    return _run(means, horizon, epsilon, m, 1.0 / (epsilon * m), seed)
