"""Compiled per-step kernels of the policies outside the UCB-family kernel (:mod:`._kernels`).

Each kernel simulates ``runs`` runs one after another, one step at a time, with scalar
arithmetic, drawing its random numbers from the caller's :class:`numpy.random.Generator`
inside the compiled code (numba reproduces NumPy's scalar ``random``, ``standard_normal`` and
``beta`` draws bit for bit and advances the caller's generator). So the compiled kernel and
its own Python function (``kernel.py_func``, what runs without numba) give the same numbers
for the same seed (tested); the policies' numpy lockstep loops (``backend="numpy"``) consume
the generator in another order and have the same law (tested). Memory is ``O(runs K)`` plus
the recorded actions and fixed-size blocks of uniforms (at most 8 MB, :data:`LANE_NUMBERS`):
nothing grows with the horizon.

Kernels and the algorithm each follows (the docstrings of the policies give the equations):

* :data:`kl_ucb_kernel`: KL-UCB (Garivier & Cappe 2011), the index inverted per arm by the
  same safeguarded Newton iteration as :func:`~dpaudit.algorithms._kl.kl_ucb_index`; ties
  broken uniformly. It makes the decisions of :func:`kl_ucb_plain_kernel` (every step's
  roots, Pinsker-pruned) and skips the roots of the steps whose argmax it can certify,
  over windows of steps opened by one KL comparison each (:func:`_kl_window`) and kept by
  one multiply-compare per step.
* :func:`thompson_kernel`: Beta-Bernoulli Thompson sampling (Agrawal & Goyal 2012).
* :func:`ftpl_new_kernel`: DP-FTPL-New (Wang & Zhu 2023, Algorithm 3): one Lemma-15 draw per
  arm by its closed-form inverse CDF.
* :func:`ftpl_gauss_kernel`: DP-FTPL-Gauss (Wang & Zhu 2023, Algorithm 1): start phase, then
  ``N(R/N, v/N)`` per arm.
* :func:`one_point_ucb_kernel`: Zheng et al. 2020, Algorithm 1 with UCB: the server sees
  ``1/2 - r + N(0, sigma^2)``.
* :data:`apt_kernel`: private APT (Algorithm 1 of the LDP thresholding paper, Barbara,
  Lazzaro & Pike-Burke 2025) on PrivBern bits, four runs advanced together
  (:class:`LaneFed`).

KL-UCB and private APT draw only uniforms; their kernels take them from blocks NumPy draws
(:class:`BlockFed`, :class:`StreamFed`): the same doubles in the same order as scalar
``rng.random()`` calls, about twice as fast.

Rewards: every step draws one uniform ``U`` (also at a revised or fixed step, as
:class:`~dpaudit.sim.rewards.BernoulliRewards` does, so neighbouring sources stay coupled).
A row of Bernoulli means gives ``U < p``; a row of fixed rewards gives the reward ``p`` as it
is (``as_is``) or its Bernoulli observation ``U < p`` (Wang & Zhu 2023, Sec. 3.1), which is
``p`` itself for 0/1 rewards.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._kernels import jit
from dpaudit.algorithms._lockstep import probability_rows
from dpaudit.sim.bandits import SimulationResult
from dpaudit.validation import InvalidParameterError

__all__ = ["BlockFed", "StreamFed", "apt_kernel", "ftpl_gauss_kernel", "ftpl_new_kernel",
           "kl_ucb_kernel", "kl_ucb_plain_kernel",
           "one_point_ucb_kernel", "reward_rows", "run_kernel", "thompson_kernel"]


def run_kernel(kernel, source: object, horizon: int, runs: int, *, rng: np.random.Generator,
               cps: np.ndarray, record: bool, params: tuple, python: bool = False,
               ) -> tuple[SimulationResult, np.ndarray, np.ndarray]:
    """Run ``kernel`` (arguments already validated by ``check_simulation``); returns the
    result and the final ``(counts, sums)`` as floats. ``python=True`` runs the kernel's
    Python function (``py_func``): the same numbers, slowly (the tests' cross-check)."""
    k = int(source.n_arms)
    rows, drawn, rev = reward_rows(source, horizon)
    if rows.shape[1] != k:
        raise InvalidParameterError(f"reward rows have {rows.shape[1]} arms, expected {k}")
    gaps = np.ascontiguousarray(source.gaps, dtype=float)
    cps = np.ascontiguousarray(cps, dtype=np.int64)
    n, s = np.zeros((runs, k)), np.zeros((runs, k))
    regret, curve = np.zeros(runs), np.zeros((runs, cps.size))
    actions = np.zeros((runs, horizon) if record else (1, 1), dtype=np.int64)
    fn = getattr(kernel, "py_func", kernel) if python else kernel
    fn(rng, rows, drawn, rev, int(horizon), gaps, cps, *params, n, s, regret, curve, actions,
       bool(record))
    res = SimulationResult(regret=regret, counts=n.astype(np.int64), checkpoints=cps,
                           curve=curve, actions=actions if record else None)
    return res, n, s


def reward_rows(source: object, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(rows, drawn, rev)`` of a source for the kernels: reward rows, whether each holds
    Bernoulli means, and where step ``t`` reads its row: ``rev = -1`` row ``t - 1`` (a
    table), ``rev = 0`` row 0, ``rev > 0`` row 1 at step ``rev`` and row 0 elsewhere."""
    rows, drawn, _ = probability_rows(source, horizon)
    if getattr(source, "table", None) is not None:
        rev = -1
    else:
        step = getattr(source, "revision_step", None)
        rev = 0 if step is None else int(step)
    return np.ascontiguousarray(rows, dtype=float), np.ascontiguousarray(drawn), rev


@jit
def _row(rev, t):  # pragma: no cover - compiled
    if rev < 0:
        return t - 1
    if rev > 0 and t == rev:
        return 1
    return 0


@jit
def _observe(rng, rows, drawn, rev, t, arm, as_is):  # pragma: no cover - compiled
    """The reward the policy observes for ``arm`` at step ``t`` (one uniform drawn)."""
    row = _row(rev, t)
    p = rows[row, arm]
    u = rng.random()
    if drawn[row] or not as_is:
        return 1.0 if u < p else 0.0
    return p


@jit
def _book(t, arm, gaps, cps, j, reg, r, curve, actions, record):  # pragma: no cover
    """Regret, checkpoint curve and recorded action of step ``t``; returns ``(reg, j)``."""
    reg += gaps[arm]
    while j < cps.shape[0] and cps[j] == t:
        curve[r, j] = reg
        j += 1
    if record:
        actions[r, t - 1] = arm
    return reg, j


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
                arm = _pick(idx, best, m, rng)
            x = _observe(rng, rows, drawn, rev, t, arm, True)
            n[r, arm] += 1.0
            s[r, arm] += x
            reg, j = _book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
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
                        row = _row(rev, t)
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
                        arm = _pick_with(idx[0], best, m, u)
                        hint[0] = -1.0
                    else:
                        arm = _pick_with(idx[0], best, 1, 0.0)
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
            row = _row(rev, t)
            pr = rows[row, arm]
            x = (1.0 if u < pr else 0.0) if drawn[row] else pr
            n[r, arm] += 1.0
            s[r, arm] += x
            reg, j = _book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
            t += 1
        regret[r] = reg
        r, t, j, wend = r + 1, 1, 0, 0
        hint[0] = -1.0
    ist[0], ist[1], ist[2], ist[3], ist[4] = r, t, j, warm, wend
    hint[3] = floor


@jit
def _pick_with(idx, best, m, u):  # pragma: no cover - compiled
    """:func:`_pick` with its uniform ``u`` given (read only when ``m > 1``)."""
    jj = 0 if m == 1 else min(int(u * m), m - 1)
    for a in range(idx.shape[0]):
        if idx[a] >= best:
            if jj == 0:
                return a
            jj -= 1
    return 0


@jit
def _pick(idx, best, m, rng):  # pragma: no cover - compiled
    """The first maximum, or a uniformly chosen one of ``m > 1`` tied maxima."""
    jj = 0 if m == 1 else min(int(rng.random() * m), m - 1)
    for a in range(idx.shape[0]):
        if idx[a] >= best:
            if jj == 0:
                return a
            jj -= 1
    return 0


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
            x = _observe(rng, rows, drawn, rev, t, arm, True)
            n[r, arm] += 1.0
            s[r, arm] += x
            reg, j = _book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
        regret[r] = reg


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
            x = _observe(rng, rows, drawn, rev, t, arm, False)
            n[r, arm] += 1.0
            s[r, arm] += x
            reg, j = _book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
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
            x = _observe(rng, rows, drawn, rev, t, arm, False)
            n[r, arm] += 1.0
            s[r, arm] += x
            if t > k * start:
                mean[arm] = s[r, arm] / n[r, arm]
                sd[arm] = math.sqrt(variance / n[r, arm])
            reg, j = _book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
        regret[r] = reg


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
            x = _observe(rng, rows, drawn, rev, t, arm, False)
            n[r, arm] += 1.0
            s[r, arm] += (0.5 - x) + sigma * rng.standard_normal()
            reg, j = _book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
        regret[r] = reg


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
            row = _row(rev, t)
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
            reg, j = _book(t, arm, gaps, cps, j, reg, r, curve, actions, record)
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
        row = _row(rev, t)
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


#: uniforms per block of the block-fed kernels (256 KB: fits the cache, and one call into
#: compiled code per 16384 steps)
BLOCK = 1 << 15


class BlockFed:
    """A kernel whose random numbers are a fixed count of uniforms per step, fed from NumPy.

    numba's scalar ``rng.random()`` costs about twice NumPy's bulk fill of the same numbers
    (measured), so the driver draws the stream in blocks (``rng.random(out=...)``: the same
    doubles, in the same order, as the scalar calls) and the compiled ``inner`` consumes them
    run after run, step after step, resuming where the block ended. Called with the
    signature of the other kernels (:func:`run_kernel`); ``py_func`` runs ``inner``'s Python
    function on the same blocks (the tests' cross-check)."""

    def __init__(self, inner, per_step: int) -> None:
        self.inner, self.per_step = inner, per_step
        self.__name__ = getattr(inner, "__name__", "kernel")

    def __call__(self, *args) -> None:
        self._drive(self.inner, *args)

    def py_func(self, *args) -> None:
        self._drive(getattr(self.inner, "py_func", self.inner), *args)

    def _drive(self, inner, rng, rows, drawn, rev, horizon, gaps, cps, *rest) -> None:
        params, (n, s, regret, curve, actions, record) = rest[:-6], rest[-6:]
        runs, k = n.shape
        total = runs * horizon * self.per_step
        block = max(self.per_step, BLOCK // self.per_step * self.per_step)
        buf = np.empty(min(block, total))
        ist = np.array([0, 1, 0], dtype=np.int64)
        idx = np.zeros((3, k))
        done = 0
        while done < total:
            m = min(block, total - done)
            b = buf[:m]
            rng.random(out=b)
            inner(b, ist, rows, drawn, rev, horizon, gaps, cps, *params, n, s, regret, curve,
                  actions, record, idx)
            done += m


#: how many runs the private APT kernel advances together (:func:`_apt_lanes`), and the most
#: uniforms it holds for them at once (8 MB): longer runs go one at a time in blocks
LANES = 4
LANE_NUMBERS = 1 << 20


class LaneFed(BlockFed):
    """Private APT's driver: runs in groups of :data:`LANES` whose uniforms (drawn in one
    call, the generator's next numbers in order) fit :data:`LANE_NUMBERS`, each group by
    :func:`_apt_lanes`; the remaining runs, or all of them when a run is too long, by the
    block-fed one-run kernel. The generator ends where the one-run kernel leaves it."""

    def __init__(self, inner, lanes_kernel, per_step: int) -> None:
        super().__init__(inner, per_step)
        self.lanes_kernel = lanes_kernel

    def __call__(self, *args) -> None:
        self._drive_lanes(self.lanes_kernel, self.inner, *args)

    def py_func(self, *args) -> None:
        self._drive_lanes(getattr(self.lanes_kernel, "py_func", self.lanes_kernel),
                          getattr(self.inner, "py_func", self.inner), *args)

    def _drive_lanes(self, lanes_kernel, inner, rng, rows, drawn, rev, horizon, gaps, cps,
                     *rest) -> None:
        params, (n, s, regret, curve, actions, record) = rest[:-6], rest[-6:]
        runs = n.shape[0]
        per_run = horizon * self.per_step
        lanes = min(LANES, LANE_NUMBERS // per_run, runs)
        done = 0
        if lanes >= 2:
            buf = np.empty(lanes * per_run)
            while runs - done >= lanes:
                rng.random(out=buf)
                lanes_kernel(buf, done, lanes, rows, drawn, rev, horizon, gaps, cps, *params,
                             n, s, regret, curve, actions, record)
                done += lanes
        if done < runs:  # the rest, one run after another (the block-fed kernel)
            sub = slice(done, runs)
            sub_curve = np.ascontiguousarray(curve[sub])
            sub_actions = actions[sub] if record else actions
            sub_n, sub_s = np.ascontiguousarray(n[sub]), np.ascontiguousarray(s[sub])
            sub_regret = np.ascontiguousarray(regret[sub])
            self._drive(inner, rng, rows, drawn, rev, horizon, gaps, cps, *params, sub_n,
                        sub_s, sub_regret, sub_curve, sub_actions, record)
            n[sub], s[sub], regret[sub], curve[sub] = sub_n, sub_s, sub_regret, sub_curve
            if record:
                actions[sub] = sub_actions


#: Private APT: each arm once, then ``argmin_a sqrt(n_a) (|s_a/n_a - tau^eps| +
#: gamma^eps)`` (first minimum); the user reports the PrivBern bit ``V < r p_hi + (1 - r)
#: p_lo`` of its reward ``r`` (Barbara, Lazzaro & Pike-Burke 2025, Algorithm 1). Two
#: uniforms per step (``U`` of the reward, ``V``), fed in blocks (:class:`BlockFed`).
apt_kernel = LaneFed(_apt_block, _apt_lanes, 2)


class StreamFed(BlockFed):
    """A kernel drawing one uniform per step and sometimes more (KL-UCB's tie-break): the
    driver hands it blocks of at most one number per remaining step, so it never draws a
    number the kernel does not use (the generator ends where the scalar kernel leaves it),
    and the kernel draws from ``rng`` itself when a block runs out mid-step."""

    def _drive(self, inner, rng, rows, drawn, rev, horizon, gaps, cps, *rest) -> None:
        params, (n, s, regret, curve, actions, record) = rest[:-6], rest[-6:]
        runs, k = n.shape
        total = runs * horizon
        buf = np.empty(min(BLOCK, total))
        ist = np.array([0, 1, 0, 0, 0], dtype=np.int64)
        idx = np.zeros((4, k))  # the exact step's indices; each arm's last index, its c, n
        hint = np.full(4, -1.0)
        while ist[0] < runs:
            m = min(BLOCK, total - int(ist[0]) * horizon - int(ist[1]) + 1)
            b = buf[:m]
            rng.random(out=b)
            inner(rng, b, ist, rows, drawn, rev, horizon, gaps, cps, *params, n, s, regret,
                  curve, actions, record, idx, hint)


#: KL-UCB (Garivier & Cappe 2011) with :func:`kl_ucb_plain_kernel`'s decisions: certified
#: windows (:func:`_kl_block`) skip the roots of steps whose argmax cannot change.
kl_ucb_kernel = StreamFed(_kl_block, 1)
