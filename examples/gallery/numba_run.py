"""A whole-run function compiled with numba: ``play(rewards, horizon, epsilon, seed)``.

Round robin over the arms for the first ``K`` steps, then the arm with the highest mean plus
``Lap(1 / (epsilon n))`` on its first reward only (a toy; correct for tables differing in one
step because each reward enters at most one release). numba's ``np.random`` is its own
generator: dpaudit seeds it through a compiled ``np.random.seed`` for every chunk of runs.
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
