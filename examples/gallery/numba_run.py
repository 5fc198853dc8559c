"""Whole-run functions compiled with numba: ``play(rewards, horizon, epsilon)``.

``play``: round robin over the arms for the first ``K`` steps, then the arm with the highest
mean plus ``Lap(1 / (epsilon n))`` on its first reward only (a toy; correct for tables
differing in one step because each reward enters at most one release). numba's ``np.random``
is its own generator: dpaudit seeds it through a compiled ``np.random.seed`` for every chunk of
runs, and its gray-box stage reads the Python function (``.py_func``), whose draws it serves.

``play_two_pulls`` pulls each arm twice and releases each arm's mean of two rewards (its
sensitivity is 1/2) with ``Lap(1 / (2 epsilon))``; ``play_two_pulls_sum`` releases the *sum*
(sensitivity 1) with that same scale: the Laplace noise is on a statistic of twice the
sensitivity it was calibrated for, so each release costs 2 epsilon.
"""

import numpy as np

try:
    from numba import njit
except ImportError:  # pragma: no cover - numba is a dependency of dpaudit
    def njit(fn):
        return fn


@njit
def play(rewards, horizon, epsilon):
    k = rewards.shape[1]
    actions = np.zeros(horizon, dtype=np.int64)
    noisy = np.zeros(k)
    for t in range(min(k, horizon)):
        actions[t] = t
        noisy[t] = rewards[t, t] + np.random.laplace(0.0, 1.0 / epsilon)
    best = int(np.argmax(noisy))
    for t in range(k, horizon):
        actions[t] = best
    return actions


@njit
def play_two_pulls(rewards, horizon, epsilon):
    """Correct: the mean of two rewards (sensitivity 1/2) plus ``Lap(1 / (2 epsilon))``."""
    k = rewards.shape[1]
    actions = np.zeros(horizon, dtype=np.int64)
    sums = np.zeros(k)
    for t in range(min(2 * k, horizon)):
        a = t % k
        actions[t] = a
        sums[a] += rewards[t, a]
    noisy = np.zeros(k)
    for a in range(k):
        noisy[a] = sums[a] / 2.0 + np.random.laplace(0.0, 1.0 / (2.0 * epsilon))
    best = int(np.argmax(noisy))
    for t in range(2 * k, horizon):
        actions[t] = best
    return actions


@njit
def play_two_pulls_sum(rewards, horizon, epsilon):
    """Broken: the sum of two rewards (sensitivity 1) with the mean's ``Lap(1 / (2 epsilon))``."""
    k = rewards.shape[1]
    actions = np.zeros(horizon, dtype=np.int64)
    sums = np.zeros(k)
    for t in range(min(2 * k, horizon)):
        a = t % k
        actions[t] = a
        sums[a] += rewards[t, a]
    noisy = np.zeros(k)
    for a in range(k):
        noisy[a] = sums[a] + np.random.laplace(0.0, 1.0 / (2.0 * epsilon))
    best = int(np.argmax(noisy))
    for t in range(2 * k, horizon):
        actions[t] = best
    return actions
