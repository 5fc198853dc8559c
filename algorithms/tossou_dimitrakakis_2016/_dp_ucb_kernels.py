"""Compiled kernels of DP-UCB-Bound and DP-UCB (Tossou & Dimitrakakis 2016, Algorithms 1
and 2): one chunk of lockstep steps each, the same numbers as the numpy references of
:class:`~.dp_ucb.DPUCBBound` and :class:`~.dp_ucb.DPUCB` (tested), run by the generic driver
(:class:`dpaudit.algorithms._policy.LockstepIndexPolicy`).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._kernels import SCREEN, bitlen, jit, lap, pick_tied, reward_at, screen_max

__all__ = ["LN4", "dp_ucb_bound_step", "dp_ucb_step"]

LN4 = math.log(4.0)


def _bound_kernel_py(t0, u, v, mag, sbits, prob, drawn, cp_col, logt, gaps, n, s, nodes, tsum,
                     lsum, prm, table, regret, curve, actions,
                     record):  # pragma: no cover - jitted
    """DP-UCB-Bound (Algorithm 1) for one chunk, with the numpy reference's decisions,
    screened (the divider was the bottleneck: 3 to 5 divisions or roots per arm and step).

    Each step first compares *screening* values made of multiplications of per-arm terms
    kept between steps (they change only when the arm is pulled): ``rs = 1/sqrt(n)``, ``inv
    = rs^2``, the noisy mean ``(s + L + T) inv`` and ``(ln n + 1) inv`` (``inv`` at a power
    of two); and per step ``sqrt(2 ln t)`` (one root per step for all runs) and ``c (ln 4 +
    4 ln t)``. Each screening value is within a few ulps (relative ``< 1e-15`` of the
    magnitudes ``|mean| + bonus + extra``) of the index the numpy path computes; when the
    best screening value leads every other by more than ``SCREEN`` times the largest
    magnitude, the exact indices have the same unique argmax, so the decision is the same.
    Otherwise (a tie or near tie) the step computes the exact indices by the reference's
    expressions, in its order, and breaks ties with the same uniform. The pulled arm's
    hybrid counter takes its element by the reference's expressions. So the decisions, the
    counters and every output are identical to the numpy path's (tested); no fastmath (it
    could reassociate the exact expressions)."""
    runs, k = n.shape
    chunk = u.shape[1]
    levels = nodes.shape[2]
    root2 = np.sqrt(2.0 * logt)
    mean = np.zeros(k)
    rs = np.ones(k)
    extra = np.zeros(k)
    idx = np.empty(k)
    for r in range(runs):
        for a in range(k):
            if n[r, a] > 0:
                cnt = n[r, a]
                ra = 1.0 / math.sqrt(float(cnt))
                inv = ra * ra
                rs[a] = ra
                mean[a] = (s[r, a] + lsum[r, a] + tsum[r, a]) * inv
                extra[a] = inv if (cnt & (cnt - 1)) == 0 else (table[cnt] + 1.0) * inv
        reg = regret[r]
        for c in range(chunk):
            t = t0 + c
            if t <= k:
                arm = (t - 1) % k
            else:
                lt = logt[c]
                sq = root2[c]
                pl = prm[2] * (LN4 + 4.0 * lt)
                arm, best, second, size = screen_max(mean, rs, extra, sq, pl)
                if not best - second > SCREEN * size:
                    two = 2.0 * lt
                    best = -np.inf
                    m = 0
                    for a in range(k):
                        na = float(n[r, a])
                        val = (s[r, a] + lsum[r, a] + tsum[r, a]) / na + math.sqrt(two / na)
                        cnt = n[r, a]
                        if (cnt & (cnt - 1)) == 0:
                            nu = pl
                        else:
                            nu = pl * (table[cnt] + 1.0)
                        val = val + nu / na
                        idx[a] = val
                        if val > best:
                            best = val
                            m = 1
                            arm = a
                        elif val == best:
                            m += 1
                    if m > 1:
                        arm = pick_tied(idx, best, m, v[r, c])
            x = reward_at(u[r, c], prob, drawn, c, arm)
            n[r, arm] += 1
            s[r, arm] += x
            pos = n[r, arm]
            z = mag[r, c, 0] if sbits[r, c, 0] & 1 else -mag[r, c, 0]
            # the pulled arm's counter takes its element (the steps of counter_inc, HYBRID)
            if (pos & (pos - 1)) == 0:
                lsum[r, arm] += z / prm[0]
                for j in range(levels):
                    nodes[r, arm, j] = 0.0
                tsum[r, arm] = 0.0
            else:
                kb = bitlen(pos) - 1
                mm = pos - (1 << kb)
                val = z * kb / prm[1]
                lvl = bitlen(mm & -mm) - 1
                ts = tsum[r, arm]
                for j in range(lvl):
                    ts = ts - nodes[r, arm, j]
                    nodes[r, arm, j] = 0.0
                nodes[r, arm, lvl] = val
                tsum[r, arm] = ts + val
            ra = 1.0 / math.sqrt(float(pos))
            inv = ra * ra
            rs[arm] = ra
            mean[arm] = (s[r, arm] + lsum[r, arm] + tsum[r, arm]) * inv
            extra[arm] = inv if (pos & (pos - 1)) == 0 else (table[pos] + 1.0) * inv
            reg += gaps[arm]
            if cp_col[c] >= 0:
                curve[r, cp_col[c]] = reg
            if record:
                actions[r, t - 1] = arm
        regret[r] = reg


def _dp_ucb_kernel_py(t0, u, v, mag, sbits, prob, drawn, cp_col, logt, gaps, n, s, nodes, tsum,
                      lsum, prm, regret, curve, actions, record):  # pragma: no cover - jitted
    """DP-UCB (Algorithm 2) for one chunk: the index ``(s + N)/n + sqrt(2 ln t / n)`` with
    the reference's expressions and tie-break; every arm's hybrid counter takes an element at
    every step (the reward for the played arm, 0 for the others), so all counters share one
    node schedule per step (the steps of :func:`._kernels.counter_inc`, ``HYBRID``, at
    position ``t``)."""
    runs, k = n.shape
    chunk = u.shape[1]
    idx = np.empty(k)
    for r in range(runs):
        for c in range(chunk):
            t = t0 + c
            lt = logt[c]
            if t <= k:
                arm = (t - 1) % k
            else:
                best = -np.inf
                m = 0
                for a in range(k):
                    na = float(n[r, a])
                    bonus = math.sqrt(2.0 * lt / na)
                    val = (s[r, a] + lsum[r, a] + tsum[r, a]) / na + bonus
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
            if (t & (t - 1)) == 0:
                for a in range(k):
                    lsum[r, a] += lap(mag, sbits, r, c, a) / prm[0]
                    tsum[r, a] = 0.0
                    for j in range(nodes.shape[2]):
                        nodes[r, a, j] = 0.0
            else:
                kb = bitlen(t) - 1
                lvl = bitlen((t - (1 << kb)) & -(t - (1 << kb))) - 1
                for a in range(k):
                    ts = tsum[r, a]
                    for j in range(lvl):
                        ts = ts - nodes[r, a, j]
                        nodes[r, a, j] = 0.0
                    val = lap(mag, sbits, r, c, a) * kb / prm[1]
                    nodes[r, a, lvl] = val
                    tsum[r, a] = ts + val
            regret[r] += gaps[arm]
            if cp_col[c] >= 0:
                curve[r, cp_col[c]] = regret[r]
            if record:
                actions[r, t - 1] = arm


_bound_kernel = jit(_bound_kernel_py)
_dp_ucb_kernel = jit(_dp_ucb_kernel_py)


def dp_ucb_bound_step(st, ch, gaps: np.ndarray, prm: np.ndarray, table: np.ndarray,
                      regret: np.ndarray, curve: np.ndarray, act: np.ndarray,
                      rec: bool) -> None:
    """One chunk of DP-UCB-Bound (``prm``: ``eps_log``, ``eps_bin``, ``c/eps``; ``table[n]
    = ln n``)."""
    _bound_kernel(ch.t0, ch.u, ch.v, ch.mag, ch.sbits, ch.prob, ch.drawn, ch.cp_col, ch.logt,
                  gaps, st.n, st.s, st.nodes, st.tsum, st.lsum, prm, table, regret, curve,
                  act, rec)


def dp_ucb_step(st, ch, gaps: np.ndarray, prm: np.ndarray, regret: np.ndarray,
                curve: np.ndarray, act: np.ndarray, rec: bool) -> None:
    """One chunk of DP-UCB (``prm``: ``eps_log``, ``eps_bin``)."""
    _dp_ucb_kernel(ch.t0, ch.u, ch.v, ch.mag, ch.sbits, ch.prob, ch.drawn, ch.cp_col,
                   ch.logt, gaps, st.n, st.s, st.nodes, st.tsum, st.lsum, prm, regret, curve,
                   act, rec)
