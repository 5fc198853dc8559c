"""Successive elimination written three ways, for the gray-box stage's reading of noise that
the code stores as plain numbers before it adds a statistic (policies: ``audit-policy``).

``StoredNoiseSE`` draws each epoch's Laplace noise into a float array, then adds the arms'
epoch means to it: the stage follows the noise through the stored numbers (correct:
epsilon-DP for tables differing in one step, every reward in one release). ``ArrayNoiseSE``
does everything in numpy float arrays: the stage loses the noise there and says so (no
pointer). ``SharedStoredNoiseSE`` stores one draw per epoch for all arms (the planted bug of
shared noise).
"""

import numpy as np


class StoredNoiseSE:
    """Correct: per-arm Laplace noise stored in a float array, then added to the means."""

    def __init__(self, n_arms, horizon, epsilon):
        self.k, self.eps = n_arms, epsilon
        self.active, self.queue = list(range(n_arms)), []
        self.sums, self.r, self.e = [0.0] * n_arms, 0, 0
        self.noise = np.zeros(n_arms)

    def select(self):
        if len(self.active) == 1:
            return self.active[0]
        if not self.queue:
            self.e += 1
            self.r = 2 ** self.e
            self.queue = [a for _ in range(self.r) for a in self.active]
            self.sums = [0.0] * self.k
        return self.queue[0]

    def draw_noise(self):
        for a in self.active:
            self.noise[a] = np.random.laplace(0.0, 1.0 / (self.eps * self.r))

    def update(self, arm, reward):
        if len(self.active) == 1:
            return
        self.queue.pop(0)
        self.sums[arm] += reward
        if not self.queue:
            self.draw_noise()
            noisy = {a: self.sums[a] / self.r + self.noise[a] for a in self.active}
            w = 2.0 / (self.eps * self.r) + (1.0 / self.r) ** 0.5
            top = max(noisy.values())
            self.active = [a for a in self.active if noisy[a] >= top - w]


class SharedStoredNoiseSE(StoredNoiseSE):
    """Broken: one Laplace draw per epoch, stored for every arm (it cancels in the test)."""

    def draw_noise(self):
        z = np.random.laplace(0.0, 1.0 / (self.eps * self.r))
        for a in self.active:
            self.noise[a] = z


class ArrayNoiseSE(StoredNoiseSE):
    """Correct, vectorised in float arrays: the noise leaves the stage's sight."""

    def update(self, arm, reward):
        if len(self.active) == 1:
            return
        self.queue.pop(0)
        self.sums[arm] += reward
        if not self.queue:
            act = np.array(self.active)
            noise = np.asarray(np.random.laplace(0.0, 1.0 / (self.eps * self.r), len(act)),
                               dtype=float)
            noisy = np.array([self.sums[a] for a in act], dtype=float) / self.r + noise
            w = 2.0 / (self.eps * self.r) + (1.0 / self.r) ** 0.5
            top = noisy.max()
            self.active = [int(a) for a, v in zip(act, noisy, strict=True) if v >= top - w]
