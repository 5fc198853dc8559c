"""UCB1's compiled kernels (Auer, Cesa-Bianchi & Fischer 2002; index ``s/n + sqrt(c ln t /
n)``): one chunk of lockstep steps, the same numbers as the numpy reference of
:class:`~dpaudit.algorithms.baselines.ucb.UCB` (tested), run by the generic driver
(:class:`dpaudit.algorithms._policy.LockstepIndexPolicy`).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._kernels import SCREEN, jit, pick_tied, reciprocal_roots, reward_at

__all__ = ["ucb_step"]


def _kernel_ucb_py(t0, u, v, prob, drawn, cp_col, logt, gaps, n, s, c_explore, regret, curve,
                   actions, record):  # pragma: no cover - jitted
    """UCB1 (Auer, Cesa-Bianchi & Fischer 2002) for one chunk, with the numpy reference's
    decisions (:meth:`UCB.index_numpy <dpaudit.algorithms.baselines.ucb.UCB.index_numpy>`):
    each step first compares screening values ``mean + sqrt(c ln t) rs`` (``mean = s/n``,
    ``rs = 1/sqrt(n)`` kept per arm between steps: no division or root per arm and step)
    and decides on them when the best leads by more than ``SCREEN`` (:data:`._kernels.SCREEN`)
    times its magnitude; otherwise it computes the exact indices ``s/n + sqrt(c ln t / n)``
    in the reference's order and breaks ties with the same uniform.

    A run's counts and sums live in local arrays over the chunk (the count as a float,
    exact below 2^53) and are written back at its end: a step updates them in place of the
    two-dimensional state, and the exact fallback reads the same doubles."""
    runs, k = n.shape
    chunk = u.shape[1]
    root = np.sqrt(c_explore * logt)
    mean = np.zeros(k)
    rs = np.ones(k)
    nf = np.zeros(k)
    sl = np.zeros(k)
    idx = np.empty(k)
    for r in range(runs):
        ur, vr = u[r], v[r]
        for a in range(k):
            nf[a] = float(n[r, a])
            sl[a] = s[r, a]
            if n[r, a] > 0:
                rs[a] = 1.0 / math.sqrt(nf[a])
                mean[a] = sl[a] * (rs[a] * rs[a])
        reg = regret[r]
        for c in range(chunk):
            t = t0 + c
            if t <= k:
                arm = (t - 1) % k
            else:
                sq = root[c]
                best = -np.inf
                second = -np.inf
                arm = 0
                for a in range(k):
                    val = mean[a] + sq * rs[a]
                    if val > best:
                        second = best
                        best = val
                        arm = a
                    elif val > second:
                        second = val
                if not best - second > SCREEN * (best + abs(second)):
                    cl = c_explore * logt[c]
                    best = -np.inf
                    m = 0
                    for a in range(k):
                        na = nf[a]
                        val = sl[a] / na + math.sqrt(cl / na)
                        idx[a] = val
                        if val > best:
                            best = val
                            m = 1
                            arm = a
                        elif val == best:
                            m += 1
                    if m > 1:
                        arm = pick_tied(idx, best, m, vr[c])
            x = reward_at(ur[c], prob, drawn, c, arm)
            sa = sl[arm] + x
            sl[arm] = sa
            cnt = nf[arm] + 1.0
            nf[arm] = cnt
            ra = 1.0 / math.sqrt(cnt)
            rs[arm] = ra
            mean[arm] = sa * (ra * ra)
            reg += gaps[arm]
            if cp_col[c] >= 0:
                curve[r, cp_col[c]] = reg
            if record:
                actions[r, t - 1] = arm
        regret[r] = reg
        for a in range(k):
            n[r, a] = int(nf[a])
            s[r, a] = sl[a]


def _kernel_ucb2_py(t0, u, v, prob, drawn, cp_col, logt, gaps, n, s, c_explore, regret, curve,
                    actions, record, rst, ivt):  # pragma: no cover - jitted
    """:func:`_kernel_ucb_py` (UCB1, Auer, Cesa-Bianchi & Fischer 2002, index ``s/n + sqrt(c
    ln t / n)``) for two arms, its state in scalars and its screened argmax
    without branches: ``arm = 1`` exactly when the second value is larger (the loop's
    first maximum), ``best``/``second`` the larger/other value, the same screen and the
    same exact fallback (:func:`_kernel_ucb_py`'s loop over the arms, the tie-break on
    ``v``). The pulled arm's count, sum, reciprocal root and mean are the loop's doubles,
    computed once and stored by selection; for a count ``c`` below the size of ``rst`` its
    reciprocal root and square are read from ``rst[c]``, ``ivt[c]`` (:func:`reciprocal_roots`,
    the same doubles), and the Bernoulli reward is the comparison's 0/1 converted rather
    than a branch (mispredicted at every tenth step of an arm of mean 0.9): with neither a
    branch to predict past nor a square root and division to wait for, the next decision
    follows sooner. Same numbers (tested)."""
    runs = n.shape[0]
    chunk = u.shape[1]
    root = np.sqrt(c_explore * logt)
    idx = np.empty(2)
    for r in range(runs):
        ur, vr = u[r], v[r]
        i0, i1 = n[r, 0], n[r, 1]
        n0, n1 = float(i0), float(i1)
        s0, s1 = s[r, 0], s[r, 1]
        rs0, rs1, m0, m1 = 1.0, 1.0, 0.0, 0.0
        if n[r, 0] > 0:
            rs0 = 1.0 / math.sqrt(n0)
            m0 = s0 * (rs0 * rs0)
        if n[r, 1] > 0:
            rs1 = 1.0 / math.sqrt(n1)
            m1 = s1 * (rs1 * rs1)
        reg = regret[r]
        for c in range(chunk):
            t = t0 + c
            if t <= 2:
                arm = (t - 1) % 2
            else:
                sq = root[c]
                v0 = m0 + sq * rs0
                v1 = m1 + sq * rs1
                up = v1 > v0
                arm = 1 if up else 0
                best = v1 if up else v0
                second = v0 if up else v1
                if not best - second > SCREEN * (best + abs(second)):
                    cl = c_explore * logt[c]
                    idx[0] = s0 / n0 + math.sqrt(cl / n0)
                    idx[1] = s1 / n1 + math.sqrt(cl / n1)
                    if idx[1] > idx[0]:
                        arm = 1
                    elif idx[1] < idx[0]:
                        arm = 0
                    else:
                        arm = pick_tied(idx, idx[0], 2, vr[c])
            one = arm == 1
            pr = prob[c, 1] if one else prob[c, 0]
            if drawn[c]:
                x = float(np.int64(ur[c] < pr))  # 1.0 or 0.0, without a branch
            else:
                x = pr
            sa = (s1 if one else s0) + x
            cnt = (n1 if one else n0) + 1.0
            ic = (i1 if one else i0) + 1
            if ic < rst.shape[0]:
                ra, ia = rst[ic], ivt[ic]
            else:
                ra = 1.0 / math.sqrt(cnt)
                ia = ra * ra
            ma = sa * ia
            if one:
                s1, n1, i1, rs1, m1 = sa, cnt, ic, ra, ma
            else:
                s0, n0, i0, rs0, m0 = sa, cnt, ic, ra, ma
            reg += gaps[arm]
            if cp_col[c] >= 0:
                curve[r, cp_col[c]] = reg
            if record:
                actions[r, t - 1] = arm
        regret[r] = reg
        n[r, 0], n[r, 1] = i0, i1
        s[r, 0], s[r, 1] = s0, s1


_kernel_ucb = jit(_kernel_ucb_py, divide_checks=False)
_kernel_ucb2 = jit(_kernel_ucb2_py, divide_checks=False)


def ucb_step(st, ch, gaps: np.ndarray, prm: np.ndarray, regret: np.ndarray,
             curve: np.ndarray, act: np.ndarray, rec: bool) -> None:
    """One chunk of UCB1 (``prm[0]`` the exploration constant ``c``): the two-arm kernel
    for ``K = 2``, the general one otherwise."""
    args = (ch.t0, ch.u, ch.v, ch.prob, ch.drawn, ch.cp_col, ch.logt, gaps, st.n, st.s,
            float(prm[0]), regret, curve, act, rec)
    if st.n.shape[1] == 2:
        _kernel_ucb2(*args, *reciprocal_roots())
    else:
        _kernel_ucb(*args)
