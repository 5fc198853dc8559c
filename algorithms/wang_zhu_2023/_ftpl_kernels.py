"""The compiled kernels of DP-FTPL-New (Wang & Zhu 2023, Algorithm 3: one Lemma-15 draw per
arm by its closed-form inverse CDF) and DP-FTPL-Gauss (Algorithm 1: start phase, then
``N(R/N, v/N)`` per arm), run by :func:`dpaudit.algorithms._step_kernels.run_kernel`.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._kernels import jit
from dpaudit.algorithms._step_kernels import book, observe

__all__ = ["ftpl_gauss_kernel", "ftpl_new_kernel"]


@jit
def ftpl_new_kernel(rng, rows, drawn, rev, horizon, gaps, cps, eps, dl, rate, log_horizon,
                    log_term, n, s, regret, curve, actions, record):  # pragma: no cover
    """DP-FTPL-New: each arm once, then ``argmax_a theta_a`` with ``theta_a`` the Lemma-15
    draw ``ppf(U_a)`` of centre ``x0_a = s_a/n_a + sqrt(log T / n_a) + L / n_a`` and count
    ``rate n_a`` (``rate`` is the perturbation's ``rate_multiplier``); the same closed form as
    :meth:`~dpaudit.mechanisms.lemma15.Lemma15Perturbation.ppf`, ``U = 0`` mapped to the
    smallest positive double as :meth:`~.Lemma15Perturbation.sample` does."""
    runs, k = n.shape
    a_eps = math.expm1(eps) if eps > 0.0 else 0.0
    head = math.log1p(a_eps / (2.0 * dl)) if (eps > 0.0 and dl > 0.0) else 0.0
    tiny = 2.2250738585072014e-308
    for r in range(runs):
        reg, j = 0.0, 0
        for t in range(1, horizon + 1):
            if t <= k:
                arm = t - 1
            else:
                best, arm = -np.inf, 0
                for a in range(k):
                    na = n[r, a]
                    x0 = s[r, a] / na + math.sqrt(log_horizon / na) + log_term / na
                    u = rng.random()
                    if u == 0.0:
                        u = tiny
                    tail = min(u, 1.0 - u)
                    nn = na * rate
                    if eps == 0.0:
                        dist = (0.5 - tail) / (nn * dl)
                    elif dl == 0.0:
                        dist = -math.log(2.0 * tail) / (nn * eps)
                    else:
                        dist = (head - math.log1p(tail * a_eps / dl)) / (nn * eps)
                    th = x0 - dist if u <= 0.5 else x0 + dist
                    if th > best:
                        best, arm = th, a
            x = observe(rng, rows, drawn, rev, t, arm, False)
            n[r, arm] += 1.0
            s[r, arm] += x
            reg, j = book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
        regret[r] = reg


@jit
def ftpl_gauss_kernel(rng, rows, drawn, rev, horizon, gaps, cps, start, variance, n, s, regret,
                      curve, actions, record):  # pragma: no cover - compiled
    """DP-FTPL-Gauss: arm 1 ``start`` times, then arm 2, ... (Algorithm 1, lines 2-7), then
    ``argmax_a theta_a``, ``theta_a = s_a/n_a + sqrt(variance/n_a) Z_a``."""
    runs, k = n.shape
    mean = np.empty(k)
    sd = np.empty(k)
    for r in range(runs):
        reg, j = 0.0, 0
        for t in range(1, horizon + 1):
            if t <= k * start:
                arm = (t - 1) // start
            else:
                if t == k * start + 1:
                    for a in range(k):
                        mean[a] = s[r, a] / n[r, a]
                        sd[a] = math.sqrt(variance / n[r, a])
                best, arm = -np.inf, 0
                for a in range(k):
                    th = mean[a] + sd[a] * rng.standard_normal()
                    if th > best:
                        best, arm = th, a
            x = observe(rng, rows, drawn, rev, t, arm, False)
            n[r, arm] += 1.0
            s[r, arm] += x
            if t > k * start:
                mean[arm] = s[r, arm] / n[r, arm]
                sd[arm] = math.sqrt(variance / n[r, arm])
            reg, j = book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
        regret[r] = reg
