"""Four broken private UCBs: each differs from ``EpisodeLaplaceUCB`` in one method.

Each docstring says what is wrong and why the action sequence is not epsilon-DP for reward
tables that differ in one step (Azize & Basu 2022, Definition 2). These are the mistakes
dpaudit's ``audit-policy`` command must catch without being told where to look.
"""

import numpy as np

from .ucb import EpisodeLaplaceUCB


class RawInitialMeansUCB(EpisodeLaplaceUCB):
    """Broken: the initial per-arm means (one pull each) are used without noise.

    "One sample is too noisy to privatise anyway" -- but the first index comparison then
    depends deterministically on the rewards of the first K steps: changing one of them
    changes which arm the first real episode plays with probability one.
    """

    def end_episode(self):
        n = self.ep_len
        self.last_len[self.arm] = n
        if self.pulls[self.arm] == 1:       # initial release: raw reward
            self.private_mean[self.arm] = self.ep_sum
        else:
            self.private_mean[self.arm] = self.ep_sum / n + self.noise(n)


class CumulativeMeanUCB(EpisodeLaplaceUCB):
    """Broken: noise not rescaled when an episode doubles.

    Each release is the mean of *all* N_a rewards of the arm (not the last episode's), with
    Laplace noise 1/(epsilon N_a) sized for one release. When the count doubles the release
    covers the old rewards again, so a reward enters up to log2(T) releases; the scale had to
    grow with the number of releases it enters (composition) and does not.
    """

    def __init__(self, n_arms, horizon, epsilon, alpha=3.1):
        super().__init__(n_arms, horizon, epsilon, alpha)
        self.total = [0.0] * n_arms

    def update(self, arm, reward):
        self.total[arm] += reward
        super().update(arm, reward)

    def end_episode(self):
        n = self.pulls[self.arm]
        self.last_len[self.arm] = n
        self.private_mean[self.arm] = self.total[self.arm] / n + self.noise(n)


class EarlyStopUCB(EpisodeLaplaceUCB):
    """Broken: a data-dependent stopping rule computed on raw rewards.

    An episode is abandoned as soon as, after at least two pulls, its raw mean is at most 1/2
    ("the arm is having a bad run"). The release itself is noised correctly, but the episode's
    length -- visible in the action sequence -- is a deterministic function of raw rewards:
    on a table of ones a single zero among an episode's first two steps cuts it short, which
    no run on the table of ones can do.
    """

    def update(self, arm, reward):
        super().update(arm, reward)
        if self.left > 0 and self.ep_len >= 2 and self.ep_sum <= self.ep_len / 2:
            self.left = 0
            self.end_episode()


class SharedNoiseUCB(EpisodeLaplaceUCB):
    """Broken: one noise draw reused across arms and releases.

    The Laplace variable is drawn once, in the constructor, and rescaled for every release.
    Two arms released on episodes of the same length carry the same noise, which cancels when
    their indexes are compared: after the initial pulls the choice is the raw argmax.
    """

    def __init__(self, n_arms, horizon, epsilon, alpha=3.1):
        super().__init__(n_arms, horizon, epsilon, alpha)
        self.z = np.random.laplace(0.0, 1.0)

    def noise(self, n):
        return self.z / (self.epsilon * n)
