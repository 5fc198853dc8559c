"""The compiled kernel of Private-UCB (Mishra & Thakurta 2015): one chunk of lockstep steps,
the same numbers as the numpy reference of :class:`~.private_ucb.PrivateUCB` (tested), run by
the generic driver (:class:`dpaudit.algorithms._policy.LockstepIndexPolicy`).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._kernels import SCREEN, bitlen, jit, pick_tied, reward_at, screen_max

__all__ = ["private_ucb_step"]


def _private_ucb_kernel_py(t0, u, v, mag, sbits, prob, drawn, cp_col, logt, gaps, n, s, nodes,
                           tsum, lsum, prm, table, regret, curve, actions,
                           record):  # pragma: no cover - jitted
    """Private-UCB for one chunk, with the numpy reference's decisions, screened: the
    screening values ``(s + L + T) inv + sqrt(2 ln t) rs + B inv`` (``rs = 1/sqrt(n)``,
    ``inv = rs^2`` kept per arm between steps) decide when the best leads every other by
    more than ``SCREEN`` times the largest magnitude (then the exact indices have the same
    unique argmax); otherwise the exact indices ``(s + N)/n + sqrt(2 ln t / n) + B/n`` are
    computed by the reference's expressions, in its order, with the same tie-break. The
    pulled arm's tree takes its element by the reference's expressions: identical numbers
    (tested); no fastmath."""
    runs, k = n.shape
    chunk = u.shape[1]
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
                extra[a] = prm[1] * inv
        reg = regret[r]
        for c in range(chunk):
            t = t0 + c
            if t <= k:
                arm = (t - 1) % k
            else:
                lt = logt[c]
                sq = root2[c]
                pl = 1.0
                arm, best, second, size = screen_max(mean, rs, extra, sq, pl)
                if not best - second > SCREEN * size:
                    two = 2.0 * lt
                    best = -np.inf
                    m = 0
                    for a in range(k):
                        na = float(n[r, a])
                        val = (s[r, a] + lsum[r, a] + tsum[r, a]) / na + math.sqrt(two / na)
                        val = val + prm[1] / na
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
            # the pulled arm's tree takes its element (the steps of counter_inc, TREE)
            mm = pos
            val = z * prm[0]
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
            extra[arm] = prm[1] * inv
            reg += gaps[arm]
            if cp_col[c] >= 0:
                curve[r, cp_col[c]] = reg
            if record:
                actions[r, t - 1] = arm
        regret[r] = reg


_private_ucb_kernel = jit(_private_ucb_kernel_py)


def private_ucb_step(st, ch, gaps: np.ndarray, prm: np.ndarray, table: np.ndarray,
                     regret: np.ndarray, curve: np.ndarray, act: np.ndarray,
                     rec: bool) -> None:
    """One chunk of Private-UCB (``prm``: node scale ``L/eps``, widening ``B``)."""
    _private_ucb_kernel(ch.t0, ch.u, ch.v, ch.mag, ch.sbits, ch.prob, ch.drawn, ch.cp_col,
                        ch.logt, gaps, st.n, st.s, st.nodes, st.tsum, st.lsum, prm, table,
                        regret, curve, act, rec)
