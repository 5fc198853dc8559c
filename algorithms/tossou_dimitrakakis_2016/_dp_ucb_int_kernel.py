"""The compiled kernel of DP-UCB-Int (Tossou & Dimitrakakis 2016, Algorithm 3): one chunk of
lockstep steps, the same numbers as the numpy reference of :class:`~.dp_ucb_int.DPUCBInt`
(tested), run by the generic driver (:class:`dpaudit.algorithms._policy.LockstepIndexPolicy`).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._kernels import jit, lap, pick_tied, reward_at

__all__ = ["dp_ucb_int_step"]


def _dp_ucb_int_kernel_py(t0, u, v, mag, sbits, prob, drawn, cp_col, logt, gaps, n, s, pm, fidx,
                          prm, table, regret, curve, actions,
                          record):  # pragma: no cover - jitted
    """DP-UCB-Int (Algorithm 3) for one chunk: round robin for ``t <= K f`` (``f =
    prm[0]``), then ``argmax_a mu~_a + sqrt(2 ln t / n_a)`` (or the index frozen at the
    release, ``prm[2] > 0``) with the reference's expressions and tie-break; ``mu~_a =
    s_a/n_a + Lap(table[n_a])`` refreshed when ``n_a`` is a multiple of ``prm[1]``."""
    runs, k = n.shape
    chunk = u.shape[1]
    init = k * int(prm[0])
    idx = np.empty(k)
    for r in range(runs):
        for c in range(chunk):
            t = t0 + c
            lt = logt[c]
            if t <= init:
                arm = (t - 1) % k
            else:
                best = -np.inf
                m = 0
                for a in range(k):
                    na = float(n[r, a])
                    bonus = math.sqrt(2.0 * lt / na)
                    val = fidx[r, a] if prm[2] > 0 else pm[r, a] + bonus
                    idx[a] = val
                    if val > best:
                        best = val
                        m = 1
                    elif val == best:
                        m += 1
                arm = pick_tied(idx, best, m, v[r, c])
            x = reward_at(u[r, c], prob, drawn, c, arm)
            n[r, arm] += 1
            s[r, arm] += x
            pos = n[r, arm]
            if pos % int(prm[1]) == 0:
                fresh = s[r, arm] / pos + lap(mag, sbits, r, c, 0) * table[pos]
                pm[r, arm] = fresh
                fidx[r, arm] = fresh + math.sqrt(2.0 * lt / pos)
            regret[r] += gaps[arm]
            if cp_col[c] >= 0:
                curve[r, cp_col[c]] = regret[r]
            if record:
                actions[r, t - 1] = arm


_dp_ucb_int_kernel = jit(_dp_ucb_int_kernel_py)


def dp_ucb_int_step(st, ch, gaps: np.ndarray, prm: np.ndarray, table: np.ndarray,
                    regret: np.ndarray, curve: np.ndarray, act: np.ndarray, rec: bool) -> None:
    """One chunk of DP-UCB-Int (``prm``: ``f``, the release interval, frozen bonus or not;
    ``table[n]`` the release noise scale at count ``n``)."""
    _dp_ucb_int_kernel(ch.t0, ch.u, ch.v, ch.mag, ch.sbits, ch.prob, ch.drawn, ch.cp_col,
                       ch.logt, gaps, st.n, st.s, st.pm, st.fidx, prm, table, regret, curve,
                       act, rec)
