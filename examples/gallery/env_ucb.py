"""An episodic Laplace UCB that draws its own rewards from an environment, after Azize & Basu
(2022), Algorithm 1 (AdaP-UCB).

Shape: ``EnvEpisodeUCB(env, horizon, params)`` and ``run()``, pulling ``env.pull(arm)``; the
settings are a dict (``params["epsilon"]``, ``params.get("alpha", 3.1)``); the noise comes
from a module-level generator ``RNG`` that nobody seeds. dpaudit hands it an environment that
serves its reward inputs, records the arms pulled and reseeds ``RNG`` before every run.

An episode plays the arm with the highest index until its pull count doubles; the arm's
private mean is the mean of that episode's rewards plus ``Lap(1 / (epsilon n))``, so every
reward enters one release (epsilon-DP for tables differing in one step, Definition 2).
"""

import math

import numpy as np

RNG = np.random.default_rng()


class EnvEpisodeUCB:
    """Correct: every release, the initial one included, is noised."""

    def __init__(self, env, horizon, params):
        self.env, self.horizon = env, horizon
        self.epsilon = params["epsilon"]
        self.alpha = params.get("alpha", 3.1)
        self.k = env.n_arms

    def release(self, total, n):
        return total / n + RNG.laplace(0.0, 1.0 / (self.epsilon * n))

    def first_release(self, reward):
        return self.release(reward, 1)

    def run(self):
        pulls, mean, last = [0] * self.k, [0.0] * self.k, [1] * self.k
        t = 0
        for a in range(self.k):  # initialisation: one pull of every arm
            if t < self.horizon:
                mean[a] = self.first_release(self.env.pull(a))
                pulls[a], t = 1, t + 1
        while t < self.horizon:
            log_t = math.log(t + 1)
            arm = max(range(self.k), key=lambda a: mean[a] + math.sqrt(
                self.alpha * log_t / (2 * last[a]) + self.alpha * log_t / (self.epsilon * last[a])))
            n = min(pulls[arm], self.horizon - t)
            total = sum(self.env.pull(arm) for _ in range(n))
            pulls[arm] += n
            last[arm] = n
            mean[arm] = self.release(total, n)
            t += n


class RawFirstPullUCB(EnvEpisodeUCB):
    """Broken: the initial one-pull means are used without noise ("one sample is noise
    anyway"). The first index comparison is then a deterministic function of the first K
    rewards: changing one of them changes the first episode's arm with probability one."""

    def first_release(self, reward):
        return float(reward)
