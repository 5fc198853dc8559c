"""The compiled kernels of private APT (Barbara, Lazzaro & Pike-Burke 2025, Algorithm 1) on
PrivBern bits: :func:`_apt_block` (one run after another, on blocks of pre-drawn uniforms)
and :func:`_apt_lanes` (four runs advanced together), driven by
:class:`~dpaudit.algorithms._step_kernels.LaneFed`; run by
:func:`dpaudit.algorithms._step_kernels.run_kernel`.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._kernels import jit
from dpaudit.algorithms._step_kernels import LaneFed, book, row_of

__all__ = ["apt_kernel"]


@jit
def _apt_block(buf, ist, rows, drawn, rev, horizon, gaps, cps, tau_eps, gamma_eps, p_hi, p_lo,
               n, s, regret, curve, actions, record, idx):  # pragma: no cover - compiled
    """Private APT on a block of pre-drawn uniforms, two per step (the reward's, then the
    PrivBern bit's), resumed at run ``ist[0]``, step ``ist[1]``, checkpoint ``ist[2]``.

    ``idx[0]`` holds the arms' indices, ``idx[1]``/``idx[2]`` each arm's next index if its
    next report is 1/0: both computed by the reference's expression ``sqrt(n) (|s/n - tau| +
    gamma)`` on the counts and sums the arm will then have (``n + 1.0`` and ``s + 1.0`` or
    ``s + 0.0``, the same doubles the update makes), so after a pull the new index is a
    choice between two ready numbers, and the square root and division that the next
    decision waited for are done a step ahead (the step-to-step chain of dependent
    operations was the cost: 25 ns per step against 5 ns with no index). Same numbers as the
    reference (tested)."""
    runs, k = n.shape
    r, t, j = ist[0], ist[1], ist[2]
    cur, one, zero = idx[0], idx[1], idx[2]
    p = 0
    while r < runs:
        reg = regret[r]
        if t == 1:
            for a in range(k):
                one[a] = math.sqrt(1.0) * (abs(1.0 / 1.0 - tau_eps) + gamma_eps)
                zero[a] = math.sqrt(1.0) * (abs(0.0 / 1.0 - tau_eps) + gamma_eps)
        while t <= horizon:
            if p + 2 > buf.shape[0]:
                regret[r] = reg
                ist[0], ist[1], ist[2] = r, t, j
                return
            if t <= k:
                arm = t - 1
            else:  # the first minimum, without branches
                best, arm = cur[0], 0
                for a in range(1, k):
                    lower = cur[a] < best
                    arm = a if lower else arm
                    best = cur[a] if lower else best
            row = row_of(rev, t)
            pr = rows[row, arm]
            x = 1.0 if buf[p] < pr else 0.0
            if not drawn[row]:
                x = pr  # a fixed reward, observed as it is (as_is)
            p1 = x * p_hi + (1.0 - x) * p_lo
            bit = buf[p + 1] < p1
            p += 2
            n[r, arm] += 1.0
            s[r, arm] += 1.0 if bit else 0.0
            cur[arm] = one[arm] if bit else zero[arm]
            nn = n[r, arm] + 1.0
            root = math.sqrt(nn)
            one[arm] = root * (abs((s[r, arm] + 1.0) / nn - tau_eps) + gamma_eps)
            zero[arm] = root * (abs((s[r, arm] + 0.0) / nn - tau_eps) + gamma_eps)
            reg, j = book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
            t += 1
        regret[r] = reg
        r, t, j = r + 1, 1, 0
    ist[0], ist[1], ist[2] = r, t, j


@jit
def _apt_lanes(buf, r0, lanes, rows, drawn, rev, horizon, gaps, cps, tau_eps, gamma_eps, p_hi,
               p_lo, n, s, regret, curve, actions, record):  # pragma: no cover - compiled
    """:func:`_apt_block` (private APT, Barbara, Lazzaro & Pike-Burke 2025, Algorithm 1) on
    the ``lanes`` runs ``r0, r0 + 1, ...`` at once, step by step:
    ``buf`` holds their uniforms one run after another (run ``r0 + g`` reads ``buf[2 T g +
    2 (t - 1)]`` and the next one at step ``t``, exactly the numbers the one-run kernel
    reads). Each run's decision waits on its previous step (the argmin on the index its
    last update stored: a square root and a division); the runs are independent, so their
    steps interleaved keep the core busy while one waits, and the pulled arm's index is
    simply recomputed after its update (the reference's ``sqrt(n) (|s/n - tau| + gamma)``
    on the new count and sum, the doubles :func:`_apt_block` precomputes a step ahead).
    What stays on a run's chain is shortened: with four arms the first minimum is found
    by a tree (pairs, then their minima; the left one kept on equality, so the first
    minimum), and for a Bernoulli reward ``x`` in {0, 1} the PrivBern probability ``x p_hi
    + (1 - x) p_lo`` is ``p_hi`` or ``p_lo`` exactly, so the report bit is ``V < p_hi`` or
    ``V < p_lo``, both compared before the arm is known. Counts, sums and indices live in
    local arrays. The same numbers (tested)."""
    k = n.shape[1]
    cur = np.empty(lanes * k)
    nl = np.empty(lanes * k)
    sl = np.empty(lanes * k)
    for g in range(lanes):
        for a in range(k):
            nl[g * k + a] = n[r0 + g, a]
            sl[g * k + a] = s[r0 + g, a]
    step = 2 * horizon
    reg = np.zeros(lanes)
    js = np.zeros(lanes, dtype=np.int64)
    ncp = cps.shape[0]
    for t in range(1, horizon + 1):
        row = row_of(rev, t)
        dr = drawn[row]
        prow = rows[row]
        base = 2 * (t - 1)
        for g in range(lanes):
            o = g * k
            if t <= k:
                arm = t - 1
            elif k == 4:  # the first minimum by a tree
                c0, c1, c2, c3 = cur[o], cur[o + 1], cur[o + 2], cur[o + 3]
                l1 = c1 < c0
                a01 = 1 if l1 else 0
                m01 = c1 if l1 else c0
                l3 = c3 < c2
                a23 = 3 if l3 else 2
                m23 = c3 if l3 else c2
                arm = a23 if m23 < m01 else a01
            else:  # the first minimum, without branches
                best, arm = cur[o], 0
                for a in range(1, k):
                    ca = cur[o + a]
                    lower = ca < best
                    arm = a if lower else arm
                    best = ca if lower else best
            pr = prow[arm]
            q = g * step + base
            vq = buf[q + 1]
            if dr:  # x p_hi + (1 - x) p_lo is p_hi or p_lo exactly for x in {0, 1}
                bit = (vq < p_hi) if buf[q] < pr else (vq < p_lo)
            else:  # a fixed reward, observed as it is (as_is)
                bit = vq < pr * p_hi + (1.0 - pr) * p_lo
            nn = nl[o + arm] + 1.0
            ss = sl[o + arm] + (1.0 if bit else 0.0)
            nl[o + arm] = nn
            sl[o + arm] = ss
            cur[o + arm] = math.sqrt(nn) * (abs(ss / nn - tau_eps) + gamma_eps)
            reg[g] += gaps[arm]
            jg = js[g]
            if jg < ncp and cps[jg] == t:
                while jg < ncp and cps[jg] == t:
                    curve[r0 + g, jg] = reg[g]
                    jg += 1
                js[g] = jg
            if record:
                actions[r0 + g, t - 1] = arm
    for g in range(lanes):
        regret[r0 + g] = reg[g]
        for a in range(k):
            n[r0 + g, a] = nl[g * k + a]
            s[r0 + g, a] = sl[g * k + a]


#: Private APT: each arm once, then ``argmin_a sqrt(n_a) (|s_a/n_a - tau^eps| +
#: gamma^eps)`` (first minimum); the user reports the PrivBern bit ``V < r p_hi + (1 - r)
#: p_lo`` of its reward ``r`` (Barbara, Lazzaro & Pike-Burke 2025, Algorithm 1). Two
#: uniforms per step (``U`` of the reward, ``V``), fed in blocks (:class:`BlockFed`).
apt_kernel = LaneFed(_apt_block, _apt_lanes, 2)
