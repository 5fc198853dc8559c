"""The compiled kernel of Beta-Bernoulli Thompson sampling (Thompson 1933; Agrawal & Goyal
2012), run by :func:`dpaudit.algorithms._step_kernels.run_kernel`.
"""

from __future__ import annotations

from dpaudit.algorithms._kernels import jit
from dpaudit.algorithms._step_kernels import book, observe

__all__ = ["thompson_kernel"]


@jit
def thompson_kernel(rng, rows, drawn, rev, horizon, gaps, cps, prior_a, prior_b, n, s, regret,
                    curve, actions, record):  # pragma: no cover - compiled
    """Thompson sampling: each arm once, then ``argmax_a theta_a``, ``theta_a ~ Beta(prior_a +
    s_a, prior_b + n_a - s_a)`` (ties have probability zero; the first maximum is taken)."""
    runs, k = n.shape
    for r in range(runs):
        reg, j = 0.0, 0
        for t in range(1, horizon + 1):
            if t <= k:
                arm = t - 1
            else:
                best, arm = -1.0, 0
                for a in range(k):
                    th = rng.beta(prior_a + s[r, a], prior_b + n[r, a] - s[r, a])
                    if th > best:
                        best, arm = th, a
            x = observe(rng, rows, drawn, rev, t, arm, True)
            n[r, arm] += 1.0
            s[r, arm] += x
            reg, j = book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
        regret[r] = reg
