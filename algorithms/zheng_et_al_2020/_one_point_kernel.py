"""The compiled kernel of the one-point LDP reduction with UCB (Zheng et al. 2020, Algorithm
1): the server sees ``1/2 - r + N(0, sigma^2)``; run by
:func:`dpaudit.algorithms._step_kernels.run_kernel`.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._kernels import jit
from dpaudit.algorithms._step_kernels import book, observe

__all__ = ["one_point_ucb_kernel"]


@jit
def one_point_ucb_kernel(rng, rows, drawn, rev, horizon, gaps, cps, sigma, radius, n, s, regret,
                         curve, actions, record):  # pragma: no cover - compiled
    """One-point UCB: each arm once, then ``argmax_a -s_a/n_a + R sqrt(8 ln t / n_a)`` (first
    maximum) where ``s_a`` sums the reports ``1/2 - r + sigma Z``, ``r`` the Bernoulli
    observation of the reward."""
    runs, k = n.shape
    for r in range(runs):
        reg, j = 0.0, 0
        for t in range(1, horizon + 1):
            if t <= k:
                arm = t - 1
            else:
                lt8 = 8.0 * math.log(t)
                best, arm = -np.inf, 0
                for a in range(k):
                    val = -s[r, a] / n[r, a] + radius * math.sqrt(lt8 / n[r, a])
                    if val > best:
                        best, arm = val, a
            x = observe(rng, rows, drawn, rev, t, arm, False)
            n[r, arm] += 1.0
            s[r, arm] += (0.5 - x) + sigma * rng.standard_normal()
            reg, j = book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
        regret[r] = reg
