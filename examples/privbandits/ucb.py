"""A global-DP UCB with Laplace-noised per-episode means, after Azize & Basu (2022).

Azize & Basu 2022, Algorithm 1 (AdaP-UCB): episodes; an episode plays the arm with the highest
index until its pull count doubles; the arm's private mean is the mean of *that episode's*
rewards plus Laplace noise of scale 1/(epsilon * episode length), so every reward enters
exactly one release and the action sequence is epsilon-DP for reward tables that differ in
one step (their Definition 2). The index is the printed one (the epsilon term under the
square root), with alpha = 3.1.
"""

import math

import numpy as np


class EpisodeLaplaceUCB:
    """Correct: each reward enters one Laplace release, noise 1/(epsilon * episode length)."""

    def __init__(self, n_arms, horizon, epsilon, alpha=3.1):
        self.n_arms = n_arms
        self.horizon = horizon
        self.epsilon = epsilon
        self.alpha = alpha
        self.t = 0
        self.pulls = [0] * n_arms          # N_a
        self.private_mean = [0.0] * n_arms  # last release of each arm
        self.last_len = [0] * n_arms       # length of the episode behind that release
        self.arm = None
        self.left = 0
        self.ep_sum = 0.0
        self.ep_len = 0

    def select(self):
        if self.left == 0:
            self.start_episode()
        return self.arm

    def update(self, arm, reward):
        self.t += 1
        self.pulls[arm] += 1
        self.ep_sum += reward
        self.ep_len += 1
        self.left -= 1
        if self.left == 0:
            self.end_episode()

    def start_episode(self):
        self.ep_sum = 0.0
        self.ep_len = 0
        for a in range(self.n_arms):
            if self.pulls[a] == 0:  # initialisation: one pull of every arm
                self.arm, self.left = a, 1
                return
        self.arm = max(range(self.n_arms), key=self.index)
        self.left = self.pulls[self.arm]   # play until N_a doubles

    def index(self, a):
        n = self.last_len[a]
        log_t = math.log(self.t + 1)
        return self.private_mean[a] + math.sqrt(
            self.alpha * log_t / (2 * n) + self.alpha * log_t / (self.epsilon * n))

    def end_episode(self):
        n = self.ep_len
        self.last_len[self.arm] = n
        self.private_mean[self.arm] = self.ep_sum / n + self.noise(n)

    def noise(self, n):
        return np.random.laplace(0.0, 1.0 / (self.epsilon * n))


def play_episode_ucb(rewards, horizon, epsilon=1.0):
    """The same algorithm as a whole-run function: ``rewards[t][a]`` -> list of arms."""
    policy = EpisodeLaplaceUCB(len(rewards[0]), horizon, epsilon)
    actions = []
    for t in range(horizon):
        a = policy.select()
        policy.update(a, rewards[t][a])
        actions.append(a)
    return actions
