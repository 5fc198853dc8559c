"""KL-UCB's compiled kernels (Garivier & Cappe 2011): the index inverted per arm by the same
safeguarded Newton iteration as :func:`~dpaudit.algorithms._kl.kl_ucb_index`, ties broken
uniformly. :data:`kl_ucb_kernel` makes the decisions of :func:`kl_ucb_plain_kernel` (every
step's roots, Pinsker-pruned) and skips the roots of the steps whose argmax it can certify,
over windows of steps opened by one KL comparison each (:func:`_kl_window`) and kept by one
multiply-compare per step; it draws only uniforms, fed in blocks by
:class:`~dpaudit.algorithms._step_kernels.StreamFed` (the same doubles in the same order as
scalar ``rng.random()`` calls, about twice as fast). Run by
:func:`dpaudit.algorithms._step_kernels.run_kernel`.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._kernels import jit
from dpaudit.algorithms._step_kernels import StreamFed, book, observe, pick, pick_with, row_of

__all__ = ["kl_ucb_kernel", "kl_ucb_plain_kernel"]


@jit
def _kl_inverse(p, c):  # pragma: no cover - compiled
    """``max{q in [p, 1] : kl(p, q) <= c}``, scalar form of ``adap.kl_ucb_index``."""
    if p >= 1.0:
        return 1.0
    if c <= 0.0:
        return p
    if p <= 0.0:
        return -math.expm1(-c)
    top = 1.0 - 1e-15
    base = p * math.log(p) + (1.0 - p) * math.log1p(-p) - c
    u_lo = -math.log1p(-min(p, top))
    u = -math.log1p(-min(p + math.sqrt(c / 2.0), top))
    for _ in range(60):
        em = -math.expm1(-u)
        val = base - p * math.log(em) + (1.0 - p) * u
        slope = (1.0 - p) - p * (1.0 - em) / max(em, 1e-300)
        step = max(val, 0.0) / slope if slope > 0.0 else 0.0
        u = max(u - step, u_lo)
        if step <= 1e-12:
            break
    return max(-math.expm1(-u), p)


@jit
def _kl_level(t, c_explore):  # pragma: no cover - compiled
    """KL-UCB's exploration level ``ln t + c ln ln t`` (``c ln ln t`` only once ``ln t > 1``;
    with ``c = 0`` the term is ``0.0`` and ``ln t + 0.0`` is ``ln t``: not computed)."""
    lt = math.log(t)
    if c_explore == 0.0:
        return lt
    return lt + (c_explore * math.log(lt) if lt > 1.0 else 0.0)


@jit
def _kl_scores(s, n, r, level, idx, prune):  # pragma: no cover - compiled
    """The indices of run ``r`` into ``idx`` and ``(best, number of arms at best)``.

    ``prune``: Pinsker's bound ``p + sqrt(c/2) >= index``: an arm whose bound is below the
    exact index of the arm with the highest mean cannot win or tie, so its root is not
    needed (``idx`` is ``-inf`` there); without ``prune`` every root is computed (the full
    reference of the pruning test)."""
    k = n.shape[1]
    lead = 0
    if prune:
        for a in range(1, k):
            if s[r, a] / n[r, a] > s[r, lead] / n[r, lead]:
                lead = a
    best = _kl_inverse(s[r, lead] / n[r, lead], level / n[r, lead])
    idx[lead] = best
    m = 1
    for a in range(k):
        if a == lead:
            continue
        p, c = s[r, a] / n[r, a], level / n[r, a]
        if prune and p + math.sqrt(c / 2.0) < best:
            idx[a] = -np.inf
            continue
        val = _kl_inverse(p, c)
        idx[a] = val
        if val > best:
            best, m = val, 1
        elif val == best:
            m += 1
    return best, m


@jit
def kl_ucb_plain_kernel(rng, rows, drawn, rev, horizon, gaps, cps, c_explore, prune, n, s,
                        regret, curve, actions, record):  # pragma: no cover - compiled
    """KL-UCB step by step: each arm once, then ``argmax_a max{q : n_a kl(s_a/n_a, q) <= ln t
    + c ln ln t}`` with uniform tie-breaking (one uniform drawn only when maxima tie), every
    step's indices inverted (``prune``: Pinsker's bound skips arms that cannot win). The
    reference of :data:`kl_ucb_kernel`, which makes the same decisions from the same
    stream."""
    runs, k = n.shape
    idx = np.empty(k)
    for r in range(runs):
        reg, j = 0.0, 0
        for t in range(1, horizon + 1):
            if t <= k:
                arm = t - 1
            else:
                best, m = _kl_scores(s, n, r, _kl_level(t, c_explore), idx, prune)
                arm = pick(idx, best, m, rng)
            x = observe(rng, rows, drawn, rev, t, arm, True)
            n[r, arm] += 1.0
            s[r, arm] += x
            reg, j = book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
        regret[r] = reg


#: how far (absolute, on indices in [0, 1]) a certified leader's index must clear the
#: threshold, and every other arm's index stay below it: 1000x the root finder's tolerance,
#: so that the indices :func:`kl_ucb_plain_kernel` computes order the arms the same way
MARGIN = 1e-9
#: relative slack on the level in the certificates' KL comparisons (their rounding)
SLACK = 1e-9


@jit
def _kl(p, q):  # pragma: no cover - compiled
    """Bernoulli ``kl(p, q)`` for ``0 <= p <= 1``, ``0 < q < 1`` (``0 ln 0 = 0``)."""
    out = 0.0
    if p > 0.0:
        out += p * math.log(p / q)
    if p < 1.0:
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


@jit
def _kl_rivals(s, n, r, a, y):  # pragma: no cover - compiled
    """``min_b n_b kl(p_b, y - MARGIN)`` over the arms ``b != a`` (``-1`` if some ``p_b >= y -
    MARGIN``): arm ``b``'s index stays below ``y - MARGIN`` while the level is below its
    term. Fixed while only ``a`` is pulled, so computed once per threshold."""
    lo = y - MARGIN
    out = np.inf
    for b in range(n.shape[1]):
        if b == a:
            continue
        pb = s[r, b] / n[r, b]
        if pb >= lo:
            return -1.0
        out = min(out, n[r, b] * _kl(pb, lo))
    return out


#: how far below the threshold ``y + MARGIN`` a window's floor ``P`` on the leader's mean
#: stays at least: the rounding of ``kl(P, y + MARGIN)`` (absolute, a few ulps) then moves
#: the index it certifies by under 1e-10, far inside ``MARGIN``
FLOOR_GAP = 1e-6
#: the share of the leader's room in the count (pulls until its index, at its current
#: mean, would reach the threshold) a window plans for; the rest is margin for its mean to
#: fall (a speed choice only: any floor gives the same decisions)
ROOM = 0.3


@jit
def _kl_rival_end(t, horizon, rivals, c_explore):  # pragma: no cover - compiled
    """The last step ``t' <= horizon`` with ``level(t') (1 + SLACK) < rivals`` (``t - 1`` if
    step ``t`` has none): up to that step every arm but the leader keeps its index below the
    threshold's lower side (:func:`_kl_rivals`; the level grows with ``t``). Found by
    inverting ``u + c ln u`` (``u = ln t'``) and checked on the computed level itself, one
    step on either side."""
    top = 1.0 + SLACK
    goal = rivals / top
    if goal > math.log(horizon) + 1.0 and c_explore == 0.0:  # beyond the horizon's level
        return horizon if _kl_level(horizon, c_explore) * top < rivals else \
            _kl_rival_scan(t, horizon, rivals, c_explore)
    u = goal
    if c_explore > 0.0 and goal > 1.0:
        for _ in range(8):  # Newton on a concave increasing function: a few steps suffice
            u = max(u - (u + c_explore * math.log(u) - goal) / (1.0 + c_explore / u), 1.0)
    guess = int(math.exp(min(u, 700.0)))
    if t <= guess < horizon and _kl_level(guess, c_explore) * top < rivals \
            and _kl_level(guess + 1, c_explore) * top >= rivals:
        return guess  # the usual case: two levels checked
    return _kl_rival_scan(t, horizon, rivals, c_explore)


@jit
def _kl_rival_scan(t, horizon, rivals, c_explore):  # pragma: no cover - compiled
    """:func:`_kl_rival_end` when its inverse misses by more than a step: bisection on the
    computed level over ``[t - 1, horizon]``."""
    top = 1.0 + SLACK
    if _kl_level(horizon, c_explore) * top < rivals:
        return horizon
    lo, hi = t - 1, horizon  # level(lo) passes (or lo = t - 1), level(hi) fails
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _kl_level(mid, c_explore) * top < rivals:
            lo = mid
        else:
            hi = mid
    return lo


@jit
def _kl_window(s, n, r, a, t, y, level, rival_end, hint):  # pragma: no cover - compiled
    """The last step of a window from step ``t`` in which arm ``a`` is certainly the unique
    KL-UCB argmax (Garivier & Cappe 2011, the index ``max{q : n kl(p, q) <= level}``) while
    its mean stays at or above the floor ``hint[3]`` (set here), or ``t - 1``.

    The floor ``P`` (below the mean ``s_a/n_a`` and ``y + MARGIN - FLOOR_GAP``) and the
    largest count ``m`` with ``m kl(P, y + MARGIN) < level`` (the level of step ``t``, a
    lower bound of every later step's; a relative ``SLACK`` for rounding) certify the
    leader: at a step of the window its count is at most ``m``, its mean at least ``P``
    and the level at least ``level``, and the index (the largest ``q`` with ``n kl(p, q) <=
    level``) grows with the mean and with ``level/n``, so it exceeds ``y + MARGIN``; a mean
    at or above ``y + MARGIN`` certifies it by itself (the index is at least the mean). The
    other arms are not pulled in the window and stay below ``y - MARGIN`` up to step
    ``rival_end`` (:func:`_kl_rival_end`). A window step checks ``s_a >= hint[3] n_a`` with
    ``hint[3]`` a hair above ``P`` (the product's rounding), one multiply and compare: no
    logarithm, no root. The floor is placed (a speed choice only: any floor gives the same
    decisions) as low as still leaves the window the rivals' length or the share ``ROOM``
    of the room in the count, so that the mean's fluctuations rarely end it early."""
    hi = y + MARGIN
    if not (y - MARGIN > 0.0 and hi < 1.0) or rival_end < t:
        return t - 1
    na, sa = n[r, a], s[r, a]
    pa = sa / na
    if pa >= hi:
        hint[3] = hi * (1.0 + 4e-16)
        return rival_end
    lim = level * (1.0 - SLACK)
    top = min(pa, hi - FLOOR_GAP)
    # the floor: as low as leaves the window its rivals' length, or the share ROOM of the
    # count room, whichever is shorter, by kl(P, hi) ~ (hi - P)^2 / (2 hi (1 - hi)) near
    # hi (so one KL evaluation in the usual case); the mean itself if that fails
    wide = 2.0 * hi * (1.0 - hi) * lim
    most = wide / ((hi - top) * (hi - top))
    goal = min(ROOM * most + (1.0 - ROOM) * na, na + float(rival_end - t))
    if goal > na:
        floor = max(min(hi - math.sqrt(wide / goal), top), 0.0)
        d = _kl(floor, hi)
        m = min(math.floor(lim / d), 1e15)  # below 2^53: m - 1.0 is exact
        while m > 0.0 and m * d >= lim:
            m -= 1.0
        if m >= na:
            hint[3] = floor * (1.0 + 4e-16)
            return min(rival_end, t + int(m - na))
    d = _kl(top, hi)
    m = min(math.floor(lim / d), 1e15)
    while m > 0.0 and m * d >= lim:
        m -= 1.0
    if m < na:
        return t - 1
    hint[3] = top * (1.0 + 4e-16)
    return min(rival_end, t + int(m - na))


@jit
def _kl_guess(p, c, start):  # pragma: no cover - compiled
    """An approximation of the index ``max{q : kl(p, q) <= c}`` for ``0 <= p < 1``: two
    safeguarded Newton steps on ``kl(p, q) = c`` from ``start`` (an earlier index of the
    arm, when in ``(p, 1)``), three from the chi-square lower bound ``(q - p)^2 = c q (1 -
    q)``.
    It only places thresholds (:func:`_kl_decide` certifies every decision with KL
    comparisons), so its accuracy affects speed, never decisions."""
    q = start
    steps = 2
    if not (p < q < 1.0):
        q = (2.0 * p + c + math.sqrt(c * c + 4.0 * p * c * (1.0 - p))) / (2.0 * (1.0 + c))
        steps = 3
    for _ in range(steps):
        if not (p < q < 1.0):
            break
        step = (_kl(p, q) - c) * q * (1.0 - q) / (q - p)
        nxt = q - step
        q = nxt if nxt < 1.0 else 0.5 * (q + 1.0)
        if abs(step) < 1e-9:
            break
    return q


@jit
def _kl_decide(s, n, r, level, t, horizon, c_explore, hint, memo):  # pragma: no cover
    """Step ``t``'s KL-UCB argmax (Garivier & Cappe 2011) without roots when it is certain,
    else ``-1``.

    Each arm's index is approximated: :func:`_kl_guess` from the arm's last index, kept in
    ``memo`` with the ``c = level/n`` and count it solved, or, when the count is the same
    and ``c`` moved little, a first-order step from it (``dq/dc = q (1 - q) / (q - p)``, no
    logarithm). When the best approximation leads the next by more than ``1e-7``, the
    threshold ``y`` halfway between them is certified as a window's is: the leader's mean
    at or above ``y + MARGIN`` or ``n kl(p, y + MARGIN) < level`` (its index then exceeds
    ``y + MARGIN``), every other arm's ``n kl(p, y - MARGIN) > level``
    (:func:`_kl_rivals`; its index stays below ``y - MARGIN``), relative
    ``SLACK`` on the level. The indices :func:`kl_ucb_plain_kernel` computes are within its
    root finder's tolerance (``1e-12``) of the exact ones, so they have the same unique
    maximum and no tie-break uniform is drawn: the same decision. On success ``hint`` holds
    the threshold, its rivals' term and their last step (:func:`_kl_rival_end`)."""
    k = n.shape[1]
    best, second, arm = -1.0, -1.0, -1
    for b in range(k):
        pb, cb = s[r, b] / n[r, b], level / n[r, b]
        q = memo[0, b]
        if pb >= 1.0:
            q = 1.0  # the root finder's own value
        elif memo[2, b] == n[r, b] and pb < q < 1.0 and 0.0 <= cb - memo[1, b] < 1e-3:
            # the same count since its last index: only the level moved, a first-order step
            q += (cb - memo[1, b]) * q * (1.0 - q) / (q - pb)
        else:
            q = _kl_guess(pb, cb, q)
            memo[0, b], memo[1, b], memo[2, b] = q, cb, n[r, b]
        if q > best:
            best, second, arm = q, best, b
        elif q > second:
            second = q
    if not best - second > 1e-7:
        return -1
    y = 0.5 * (best + second)
    hi = y + MARGIN
    if not (y - MARGIN > 0.0 and hi < 1.0):
        return -1
    pa = s[r, arm] / n[r, arm]
    if pa < hi and (hi - pa < FLOOR_GAP or n[r, arm] * _kl(pa, hi) >= level * (1.0 - SLACK)):
        return -1
    rivals = _kl_rivals(s, n, r, arm, y)
    if not level * (1.0 + SLACK) < rivals:
        return -1
    hint[0], hint[1] = y, rivals
    hint[2] = float(_kl_rival_end(t + 1, horizon, rivals, c_explore))
    return arm


@jit
def _kl_run(buf, p, t, last, floor, na, sa, reg, gap, pr, dr, cps, j, curve, r, actions,
            record, arm):  # pragma: no cover - compiled
    """The steps ``t .. last - 1`` of a window on a one-row source, while the winner's sum
    ``sa`` stays at or above ``floor`` times its count ``na``: each draws its uniform from
    ``buf[p]``, adds the reward and the regret in the general step's order and books the
    checkpoints and the action. A function of its own so that its few loop variables stay in
    registers. Returns ``(t, p, j, na, sa, reg)``."""
    cp = cps[j] if j < cps.shape[0] else -1
    while t < last and sa >= floor * na:
        u = buf[p]
        p += 1
        x = (1.0 if u < pr else 0.0) if dr else pr
        na += 1.0
        sa += x
        reg += gap
        if t == cp:
            while j < cps.shape[0] and cps[j] == t:
                curve[r, j] = reg
                j += 1
            cp = cps[j] if j < cps.shape[0] else -1
        if record:
            actions[r, t - 1] = arm
        t += 1
    return t, p, j, na, sa, reg


@jit
def _kl_block(rng, buf, ist, rows, drawn, rev, horizon, gaps, cps, c_explore, n, s, regret,
              curve, actions, record, idx, hint):  # pragma: no cover - compiled
    """KL-UCB with :func:`kl_ucb_plain_kernel`'s decisions, at a fraction of its roots.

    After an exact decision with a unique maximum the kernel keeps the winner and a
    threshold ``y`` halfway between its index and the next best (an upper bound of it when
    Pinsker pruned it), the other arms' KL terms (:func:`_kl_rivals`) and the last step
    their indices certainly stay below it (:func:`_kl_rival_end`). A step outside a window
    opens one (:func:`_kl_window`: a floor on the winner's mean and a last step, from one KL
    evaluation and one level); a step inside costs its reward draw, its bookkeeping and one
    multiply-compare of the winner's sum against the floor, and the window ends at its last
    step or when the mean falls below the floor. When no window opens the step is the plain
    kernel's (Pinsker-pruned roots, the tie-break uniform when maxima tie), which sets a new
    winner and threshold. Uniforms come from ``buf`` (the generator's next numbers, drawn in
    a block by :class:`StreamFed`) and from ``rng`` once ``buf`` is used up mid-step, so
    they are consumed in the plain kernel's order; resumed from ``ist`` (``hint``: the
    threshold, ``-1`` when there is none, its rivals' term, their last step and the window's
    floor)."""
    runs, k = n.shape
    r, t, j, warm, wend = ist[0], ist[1], ist[2], ist[3], ist[4]
    floor = hint[3]
    p = 0
    nb = buf.shape[0]
    while r < runs:
        reg = regret[r]
        while t <= horizon:
            if p >= nb:
                regret[r] = reg
                ist[0], ist[1], ist[2], ist[3], ist[4] = r, t, j, warm, wend
                hint[3] = floor
                return
            if t <= k:
                arm = t - 1
            elif t < wend and s[r, warm] >= floor * n[r, warm]:
                # inside the window: its steps in a tight loop, the winner's count and sum
                # in registers (the same additions in the same order as the general step)
                last = min(wend, t + nb - p)
                na, sa = n[r, warm], s[r, warm]
                gap = gaps[warm]
                if rev == 0:  # one row of rewards: no per-step row lookup
                    t, p, j, na, sa, reg = _kl_run(buf, p, t, last, floor, na, sa, reg, gap,
                                                   rows[0, warm], drawn[0], cps, j, curve, r,
                                                   actions, record, warm)
                else:  # the same steps, each reading its step's row
                    while t < last and sa >= floor * na:
                        row = row_of(rev, t)
                        pr = rows[row, warm]
                        u = buf[p]
                        p += 1
                        x = (1.0 if u < pr else 0.0) if drawn[row] else pr
                        na += 1.0
                        sa += x
                        reg += gap
                        while j < cps.shape[0] and cps[j] == t:
                            curve[r, j] = reg
                            j += 1
                        if record:
                            actions[r, t - 1] = warm
                        t += 1
                n[r, warm], s[r, warm] = na, sa
                continue
            else:
                wend = 0
                level = _kl_level(t, c_explore)
                if hint[0] > 0.0 and c_explore >= 0.0:
                    last = _kl_window(s, n, r, warm, t, hint[0], level, int(hint[2]), hint)
                    if last >= t:
                        wend, floor = last + 1, hint[3]
                if wend == 0:
                    cheap = _kl_decide(s, n, r, level, t, horizon, c_explore, hint, idx[1:])
                    if cheap >= 0:
                        warm, wend = cheap, t + 1  # the next step tries a window
                if wend > 0:
                    arm = warm
                else:
                    best, m = _kl_scores(s, n, r, level, idx[0], True)
                    for b in range(k):
                        if idx[0, b] > -np.inf:
                            idx[1, b], idx[2, b], idx[3, b] = idx[0, b], level / n[r, b], \
                                n[r, b]
                    if m > 1:
                        if p < nb:
                            u = buf[p]
                            p += 1
                        else:
                            u = rng.random()
                        arm = pick_with(idx[0], best, m, u)
                        hint[0] = -1.0
                    else:
                        arm = pick_with(idx[0], best, 1, 0.0)
                        second = 0.0
                        for b in range(k):
                            if b != arm:
                                pb, cb = s[r, b] / n[r, b], level / n[r, b]
                                bound = idx[0, b] if idx[0, b] > -np.inf else \
                                    min(pb + math.sqrt(cb / 2.0), 1.0)
                                second = max(second, bound)
                        warm = arm
                        hint[0] = 0.5 * (best + second)
                        hint[1] = _kl_rivals(s, n, r, arm, hint[0])
                        hint[2] = float(_kl_rival_end(t + 1, horizon, hint[1], c_explore)) \
                            if hint[1] > 0.0 else -1.0
            if p < nb:
                u = buf[p]
                p += 1
            else:
                u = rng.random()
            row = row_of(rev, t)
            pr = rows[row, arm]
            x = (1.0 if u < pr else 0.0) if drawn[row] else pr
            n[r, arm] += 1.0
            s[r, arm] += x
            reg, j = book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
            t += 1
        regret[r] = reg
        r, t, j, wend = r + 1, 1, 0, 0
        hint[0] = -1.0
    ist[0], ist[1], ist[2], ist[3], ist[4] = r, t, j, warm, wend
    hint[3] = floor


#: KL-UCB (Garivier & Cappe 2011) with :func:`kl_ucb_plain_kernel`'s decisions: certified
#: windows (:func:`_kl_block`) skip the roots of steps whose argmax cannot change.
kl_ucb_kernel = StreamFed(_kl_block, 1)
