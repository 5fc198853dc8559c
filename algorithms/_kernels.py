"""One chunk of lockstep steps of the UCB-family policies: numpy reference and compiled kernel.

Both functions advance the same state with the same pre-drawn numbers (:mod:`._lockstep`) and
do the same floating-point operations in the same order, so they return identical numbers
(tested). The numpy path is the tested reference; the compiled path (numba, a dependency) runs
the same loop per run without Python overhead. :func:`use_compiled` chooses the path for
every policy and says once (a :class:`SlowPathWarning`) when numba cannot be imported.

Kinds and their index at step ``t`` (``n`` pulls, ``s`` reward sum, ``N`` counter noise):

* ``UCB``: ``s/n + sqrt(2 ln t / n)`` (Auer, Cesa-Bianchi & Fischer 2002, UCB1 as written by
  Tossou & Dimitrakakis 2016, Sec. 3).
* ``BOUND`` (DP-UCB-Bound): ``(s + N)/n + sqrt(2 ln t / n) + nu(t, n)/n``, hybrid counter on
  the arm's own rewards.
* ``DPUCB``: ``(s + N)/n + sqrt(2 ln t / n)``, every arm's hybrid counter receives an element
  at every step (the reward for the played arm, 0 for the others).
* ``PRIVATE`` (Private-UCB): ``(s + N)/n + sqrt(2 ln t / n) + B/n``, binary tree per arm.
* ``INT`` (DP-UCB-Int): ``mu~ + sqrt(2 ln t / n)``, ``mu~`` refreshed when ``n`` is a
  multiple of the release interval.

``prm`` holds the kind's constants (see each policy); ``table[n]`` is ``ln n`` (BOUND) or the
release noise scale at count ``n`` (INT).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._counters import HYBRID, TREE, increment_all, increment_selected

__all__ = ["BOUND", "DPUCB", "INT", "PRIVATE", "UCB", "HAVE_NUMBA", "SlowPathWarning",
           "jit", "step_numba", "step_numpy", "use_compiled"]

UCB, BOUND, DPUCB, PRIVATE, INT = 0, 1, 2, 3, 4
LN4 = math.log(4.0)
#: relative lead of a screened decision (see :func:`_kernel_counter_py`): 1000x the
#: screening values' worst error, so a screened argmax is the exact one
SCREEN = 1e-12

try:
    import numba
    HAVE_NUMBA = True
    NUMBA_ERROR = ""
except ImportError as exc:  # pragma: no cover - numba is a dependency; a broken install
    numba = None
    HAVE_NUMBA = False
    NUMBA_ERROR = f"{type(exc).__name__}: {exc}"

BACKENDS = ("auto", "numpy", "numba")


class SlowPathWarning(RuntimeWarning):
    """numba is missing or broken: simulation runs the slower numpy lockstep path."""


_warned = False


def jit(fn, *, divide_checks: bool = True):
    """``numba.njit(cache=True)(fn)`` (compiled on first call, cached on disk), or ``fn``
    itself when numba cannot be imported. ``divide_checks=False`` compiles with NumPy's error
    model: no test for a zero divisor before each division (Python's model raises
    ``ZeroDivisionError``; NumPy's gives IEEE results), for kernels whose divisors are never
    zero; the quotients themselves are the same doubles."""
    if not HAVE_NUMBA:
        return fn
    return numba.njit(cache=True, error_model="python" if divide_checks else "numpy")(fn)


def overrides(obj: object, base: type, names: tuple[str, ...]) -> bool:
    """Whether ``obj``'s class replaces any of ``base``'s methods ``names``: a compiled kernel
    written for ``base`` would not run the subclass's code (a planted twin's bug lives in such
    a method), so the numpy path, which calls them, must run instead."""
    return any(getattr(type(obj), n, None) is not getattr(base, n, None) for n in names)


def use_compiled(backend: str) -> bool:
    """Whether a simulation runs its compiled kernel: ``backend`` ``"numba"`` (compiled, an
    error without numba), ``"numpy"`` (the numpy lockstep reference) or ``"auto"`` (compiled
    when numba imports; otherwise numpy, with one :class:`SlowPathWarning` per process)."""
    from dpaudit.validation import InvalidParameterError, check_choice
    check_choice("backend", backend, BACKENDS)
    if backend == "numba" and not HAVE_NUMBA:
        raise InvalidParameterError(f"backend='numba' must have numba installed "
                                    f"({NUMBA_ERROR})")
    if backend == "auto" and not HAVE_NUMBA:
        global _warned
        if not _warned:
            _warned = True
            import warnings
            warnings.warn(SlowPathWarning(
                f"numba cannot be imported ({NUMBA_ERROR}): simulations run the numpy "
                "lockstep path, 10-100x slower; reinstall numba (a dependency of dpaudit) to "
                "get the compiled kernels"), stacklevel=3)
    return HAVE_NUMBA and backend != "numpy"


class State:
    """Per-run, per-arm state of one simulation (arrays shared by both paths)."""

    def __init__(self, runs: int, k: int, counter_levels: int) -> None:
        self.n = np.zeros((runs, k), dtype=np.int64)
        self.s = np.zeros((runs, k))
        self.nodes = np.zeros((runs, k, counter_levels))
        self.tsum = np.zeros((runs, k))
        self.lsum = np.zeros((runs, k))
        self.pm = np.zeros((runs, k))
        self.fidx = np.zeros((runs, k))


def _index_numpy(kind: int, st: State, logt: float, prm: np.ndarray, table: np.ndarray
                 ) -> np.ndarray:
    n = st.n.astype(float)
    bonus = np.sqrt(2.0 * logt / n)
    if kind == UCB:
        return st.s / n + np.sqrt(prm[0] * logt / n)
    if kind == INT:
        return st.fidx if prm[2] > 0 else st.pm + bonus
    mean = (st.s + st.lsum + st.tsum) / n
    if kind == BOUND:
        lt4 = LN4 + 4.0 * logt
        pow2 = (st.n & (st.n - 1)) == 0
        nu = np.where(pow2, prm[2] * lt4, prm[2] * lt4 * (table[st.n] + 1.0))
        return mean + bonus + nu / n
    if kind == PRIVATE:
        return mean + bonus + prm[1] / n
    return mean + bonus


def step_numpy(kind: int, st: State, ch, gaps: np.ndarray, prm: np.ndarray,
               table: np.ndarray, regret: np.ndarray, curve: np.ndarray,
               actions: np.ndarray | None, releases=None) -> None:
    """The lockstep numpy reference for one chunk (all runs advance one step at a time).

    ``releases`` (the recording hook, :mod:`dpaudit.sim.releases`) receives every noisy
    statistic as it is released: the pulled arm's counter output ``S~`` (label
    ``"counter"``; BOUND, PRIVATE), every arm's counter output (``"counters"``, DPUCB: every
    counter takes an element each step; ``arm`` is the arm whose reward it was), or the
    interval release of the mean (``"interval mean"``, INT)."""
    runs, k = st.n.shape
    rows = np.arange(runs)
    init = k * int(prm[0]) if kind == INT else k
    for c in range(ch.u.shape[1]):
        t = ch.t0 + c
        z = ch.noise(c)
        if t <= init:
            arm = np.full(runs, (t - 1) % k)
        else:
            arm = _argmax_ties(_index_numpy(kind, st, ch.logt[c], prm, table), ch.v[:, c])
        p = ch.prob[c, arm]
        x = (ch.u[:, c] < p).astype(float) if ch.drawn[c] else p
        st.n[rows, arm] += 1
        st.s[rows, arm] += x
        pos = st.n[rows, arm]
        if kind == BOUND:
            increment_selected(st.nodes, st.tsum, st.lsum, rows, arm, pos, z[:, 0],
                               HYBRID, prm[0], prm[1])
        elif kind == PRIVATE:
            increment_selected(st.nodes, st.tsum, st.lsum, rows, arm, pos, z[:, 0],
                               TREE, prm[0], 0.0)
        elif kind == DPUCB:
            increment_all(st.nodes, st.tsum, st.lsum, t, z, HYBRID, prm[0], prm[1])
        elif kind == INT:
            rel = pos % int(prm[1]) == 0
            fresh = st.s[rows, arm] / pos + z[:, 0] * table[pos]
            st.pm[rows, arm] = np.where(rel, fresh, st.pm[rows, arm])
            frozen = fresh + np.sqrt(2.0 * ch.logt[c] / pos)
            st.fidx[rows, arm] = np.where(rel, frozen, st.fidx[rows, arm])
        if releases is not None:
            _record(releases, kind, st, rows, arm, t, fresh if kind == INT else None,
                    rel if kind == INT else None)
        regret += gaps[arm]
        if ch.cp_col[c] >= 0:
            curve[:, ch.cp_col[c]] = regret
        if actions is not None:
            actions[:, t - 1] = arm


def _record(releases, kind: int, st: State, rows: np.ndarray, arm: np.ndarray, t: int,
            fresh: np.ndarray | None, rel: np.ndarray | None) -> None:
    """One step's releases to the recording hook (see :func:`step_numpy`)."""
    if kind == INT:
        releases.record(fresh, step=t, arm=arm, active=rel, label="interval mean")
    elif kind == DPUCB:
        releases.record(st.s + st.lsum + st.tsum, step=t, arm=arm, label="counters")
    elif kind in (BOUND, PRIVATE):
        releases.record(st.s[rows, arm] + st.lsum[rows, arm] + st.tsum[rows, arm], step=t,
                        arm=arm, label="counter")


def _argmax_ties(index: np.ndarray, v: np.ndarray) -> np.ndarray:
    top = index >= index.max(axis=1, keepdims=True)
    m = top.sum(axis=1)
    j = np.minimum((v * m).astype(np.int64), m - 1) + 1
    return np.argmax(top & (np.cumsum(top, axis=1) == j[:, None]), axis=1)


def _kernel_py(kind, t0, u, v, mag, sbits, prob, drawn, cp_col, logt, gaps, n, s, nodes,
               tsum, lsum, pm, fidx, prm, table, regret, curve, actions,
               record):  # pragma: no cover - jitted
    runs, k = n.shape
    chunk = u.shape[1]
    init = k * int(prm[0]) if kind == INT else k
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
                    if kind == UCB:
                        val = s[r, a] / na + math.sqrt(prm[0] * lt / na)
                    elif kind == INT:
                        val = fidx[r, a] if prm[2] > 0 else pm[r, a] + bonus
                    else:
                        val = (s[r, a] + lsum[r, a] + tsum[r, a]) / na + bonus
                        if kind == BOUND:
                            lt4 = LN4 + 4.0 * lt
                            cnt = n[r, a]
                            if (cnt & (cnt - 1)) == 0:
                                nu = prm[2] * lt4
                            else:
                                nu = prm[2] * lt4 * (table[cnt] + 1.0)
                            val = val + nu / na
                        elif kind == PRIVATE:
                            val = val + prm[1] / na
                    idx[a] = val
                    if val > best:
                        best = val
                        m = 1
                    elif val == best:
                        m += 1
                j = min(int(v[r, c] * m), m - 1)
                arm = 0
                for a in range(k):
                    if idx[a] >= best:
                        if j == 0:
                            arm = a
                            break
                        j -= 1
            if drawn[c]:
                x = 1.0 if u[r, c] < prob[c, arm] else 0.0
            else:
                x = prob[c, arm]
            n[r, arm] += 1
            s[r, arm] += x
            pos = n[r, arm]
            if kind == BOUND or kind == PRIVATE:
                _inc(nodes[r, arm], tsum, lsum, r, arm, pos, _lap(mag, sbits, r, c, 0),
                     HYBRID if kind == BOUND else TREE, prm[0], prm[1])
            elif kind == DPUCB:  # every counter moves to position t: one schedule per step
                if (t & (t - 1)) == 0:
                    for a in range(k):
                        lsum[r, a] += _lap(mag, sbits, r, c, a) / prm[0]
                        tsum[r, a] = 0.0
                        for j in range(nodes.shape[2]):
                            nodes[r, a, j] = 0.0
                else:
                    kb = _bitlen(t) - 1
                    lvl = _bitlen((t - (1 << kb)) & -(t - (1 << kb))) - 1
                    for a in range(k):
                        ts = tsum[r, a]
                        for j in range(lvl):
                            ts = ts - nodes[r, a, j]
                            nodes[r, a, j] = 0.0
                        val = _lap(mag, sbits, r, c, a) * kb / prm[1]
                        nodes[r, a, lvl] = val
                        tsum[r, a] = ts + val
            elif kind == INT:
                if pos % int(prm[1]) == 0:
                    fresh = s[r, arm] / pos + _lap(mag, sbits, r, c, 0) * table[pos]
                    pm[r, arm] = fresh
                    fidx[r, arm] = fresh + math.sqrt(2.0 * lt / pos)
            regret[r] += gaps[arm]
            if cp_col[c] >= 0:
                curve[r, cp_col[c]] = regret[r]
            if record:
                actions[r, t - 1] = arm


def _inc_py(g, tsum, lsum, r, a, pos, z, kind, p1, p2):  # pragma: no cover - jitted
    if kind == HYBRID:
        if (pos & (pos - 1)) == 0:
            lsum[r, a] += z / p1
            for j in range(g.shape[0]):
                g[j] = 0.0
            tsum[r, a] = 0.0
            return
        k = _bitlen(pos) - 1
        m = pos - (1 << k)
        val = z * k / p2
    else:
        m = pos
        val = z * p1
    lvl = _bitlen(m & -m) - 1
    ts = tsum[r, a]
    for j in range(lvl):
        ts = ts - g[j]
        g[j] = 0.0
    g[lvl] = val
    tsum[r, a] = ts + val


def _lap_py(mag, sbits, r, c, a):  # pragma: no cover - jitted
    """Node ``a``'s signed draw (see :func:`._lockstep.laplace_parts`)."""
    if (sbits[r, c, a // 63] >> (a % 63)) & 1:
        return mag[r, c, a]
    return -mag[r, c, a]


def _bitlen_py(x):  # pragma: no cover - jitted
    """``floor(log2 x) + 1`` for ``1 <= x < 2^53`` (exact: frexp of an integer-valued float)."""
    return math.frexp(float(x))[1]


if HAVE_NUMBA:
    try:  # the count-leading-zeros instruction (numba's intrinsic), not a libm frexp call
        from numba.cpython.unsafe.numbers import leading_zeros as _clz

        def _bitlen_clz(x):  # pragma: no cover - jitted
            """``floor(log2 x) + 1`` for ``1 <= x < 2^63`` (exact, as :func:`_bitlen_py`)."""
            return 64 - _clz(np.int64(x))

        _bitlen = jit(_bitlen_clz)
    except ImportError:  # pragma: no cover - an older or newer numba without the intrinsic
        _bitlen = jit(_bitlen_py)
else:  # pragma: no cover
    _bitlen = _bitlen_py
_lap, _inc, _kernel = jit(_lap_py), jit(_inc_py), jit(_kernel_py)


def _kernel_ucb_py(t0, u, v, prob, drawn, cp_col, logt, gaps, n, s, c_explore, regret, curve,
                   actions, record):  # pragma: no cover - jitted
    """``UCB`` alone, with :func:`_kernel_py`'s decisions: see :func:`_kernel_counter_py`
    for the screened comparison (here ``mean = s/n``, ``bonus = sqrt(c ln t / n)``).

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
                        arm = _pick_tied(idx, best, m, vr[c])
            if drawn[c]:
                x = 1.0 if ur[c] < prob[c, arm] else 0.0
            else:
                x = prob[c, arm]
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
                        arm = _pick_tied(idx, idx[0], 2, vr[c])
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


def _kernel_counter_py(kind, t0, u, v, mag, sbits, prob, drawn, cp_col, logt, gaps, n, s,
                       nodes, tsum, lsum, prm, table, regret, curve, actions,
                       record):  # pragma: no cover - jitted
    """``BOUND`` and ``PRIVATE`` with :func:`_kernel_py`'s decisions, screened.

    The divider (division and square root share it) was the bottleneck: 3 to 5 of its
    operations per arm and step. Here each step first compares *screening* values made of
    multiplications of per-arm terms kept between steps (they change only when the arm is
    pulled): ``rs = 1/sqrt(n)``, ``inv = rs^2``, the noisy mean ``(s + L + T) inv``,
    BOUND's ``(ln n + 1) inv`` (``inv`` at a power of two) and PRIVATE's ``B inv``; and per
    step ``sqrt(2 ln t)`` (one root per step for all runs) and BOUND's
    ``c (ln 4 + 4 ln t)``. Each screening value is within a few ulps (relative ``< 1e-15``
    of the magnitudes ``|mean| + bonus + extra``) of the index that :func:`_kernel_py` and
    the numpy path compute; when the best screening value leads every other by more than
    ``SCREEN`` (``1e-12``) times the largest magnitude, the exact indices have the same
    unique argmax, so the decision is the same. Otherwise (a tie or near tie) the step
    computes the exact indices by the reference's expressions, in its order, and breaks ties
    with the same uniform. The counters are updated by the reference's expressions. So the
    decisions, the counters and every output are identical to the numpy path's (tested); no
    fastmath (it could reassociate the exact expressions)."""
    runs, k = n.shape
    chunk = u.shape[1]
    bound = kind == BOUND
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
                if bound:
                    extra[a] = inv if (cnt & (cnt - 1)) == 0 else (table[cnt] + 1.0) * inv
                else:
                    extra[a] = prm[1] * inv
        reg = regret[r]
        for c in range(chunk):
            t = t0 + c
            if t <= k:
                arm = (t - 1) % k
            else:
                lt = logt[c]
                sq = root2[c]
                pl = prm[2] * (LN4 + 4.0 * lt) if bound else 1.0
                best = -np.inf
                second = -np.inf
                size = 0.0
                arm = 0
                for a in range(k):
                    b = sq * rs[a]
                    e = pl * extra[a]
                    val = mean[a] + b + e
                    mg = abs(mean[a]) + b + abs(e)
                    if mg > size:
                        size = mg
                    if val > best:
                        second = best
                        best = val
                        arm = a
                    elif val > second:
                        second = val
                if not best - second > SCREEN * size:
                    two = 2.0 * lt
                    best = -np.inf
                    m = 0
                    for a in range(k):
                        na = float(n[r, a])
                        val = (s[r, a] + lsum[r, a] + tsum[r, a]) / na + math.sqrt(two / na)
                        if bound:
                            cnt = n[r, a]
                            if (cnt & (cnt - 1)) == 0:
                                nu = pl
                            else:
                                nu = pl * (table[cnt] + 1.0)
                            val = val + nu / na
                        else:
                            val = val + prm[1] / na
                        idx[a] = val
                        if val > best:
                            best = val
                            m = 1
                            arm = a
                        elif val == best:
                            m += 1
                    if m > 1:
                        arm = _pick_tied(idx, best, m, v[r, c])
            if drawn[c]:
                x = 1.0 if u[r, c] < prob[c, arm] else 0.0
            else:
                x = prob[c, arm]
            n[r, arm] += 1
            s[r, arm] += x
            pos = n[r, arm]
            z = mag[r, c, 0] if sbits[r, c, 0] & 1 else -mag[r, c, 0]
            # the pulled arm's counter takes its element (the steps of _inc)
            if bound and (pos & (pos - 1)) == 0:
                lsum[r, arm] += z / prm[0]
                for j in range(levels):
                    nodes[r, arm, j] = 0.0
                tsum[r, arm] = 0.0
            else:
                if bound:
                    kb = _bitlen(pos) - 1
                    mm = pos - (1 << kb)
                    val = z * kb / prm[1]
                else:
                    mm = pos
                    val = z * prm[0]
                lvl = _bitlen(mm & -mm) - 1
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
            if bound:
                extra[arm] = inv if (pos & (pos - 1)) == 0 else (table[pos] + 1.0) * inv
            else:
                extra[arm] = prm[1] * inv
            reg += gaps[arm]
            if cp_col[c] >= 0:
                curve[r, cp_col[c]] = reg
            if record:
                actions[r, t - 1] = arm
        regret[r] = reg


def _pick_tied_py(idx, best, m, v):  # pragma: no cover - jitted
    """Among the ``m > 1`` maxima of ``idx``, the ``min(floor(v m), m - 1)``-th."""
    j = min(int(v * m), m - 1)
    for a in range(idx.shape[0]):
        if idx[a] >= best:
            if j == 0:
                return a
            j -= 1
    return 0


_pick_tied = jit(_pick_tied_py)
_kernel_ucb, _kernel_counter = jit(_kernel_ucb_py, divide_checks=False), jit(_kernel_counter_py)
_kernel_ucb2 = jit(_kernel_ucb2_py, divide_checks=False)


#: counts below which the two-arm UCB kernel reads ``1/sqrt(n)`` and its square from a table
#: (two arrays of 512 KB, made once per process)
RECIP_COUNTS = 1 << 16
_RECIP: list[tuple[np.ndarray, np.ndarray]] = []


def reciprocal_roots() -> tuple[np.ndarray, np.ndarray]:
    """``(rs, inv)`` with ``rs[n] = 1.0 / sqrt(n)`` and ``inv[n] = rs[n] * rs[n]`` for ``1 <= n <
    RECIP_COUNTS`` (``n = 0`` unused): the doubles the kernels compute per step (IEEE
    square root, division and product are correctly rounded, so NumPy's equal numba's)."""
    if not _RECIP:
        counts = np.arange(RECIP_COUNTS, dtype=float)
        counts[0] = 1.0
        rs = 1.0 / np.sqrt(counts)
        _RECIP.append((rs, rs * rs))
    return _RECIP[0]


def step_numba(kind: int, st: State, ch, gaps: np.ndarray, prm: np.ndarray,
               table: np.ndarray, regret: np.ndarray, curve: np.ndarray,
               actions: np.ndarray | None) -> None:
    """The compiled path for one chunk (same state, same numbers as :func:`step_numpy`)."""
    rec = actions is not None
    act = actions if rec else np.zeros((1, 1), dtype=np.int8)
    if kind == UCB:
        args = (ch.t0, ch.u, ch.v, ch.prob, ch.drawn, ch.cp_col, ch.logt, gaps, st.n, st.s,
                float(prm[0]), regret, curve, act, rec)
        if st.n.shape[1] == 2:
            _kernel_ucb2(*args, *reciprocal_roots())
        else:
            _kernel_ucb(*args)
        return
    if kind in (BOUND, PRIVATE):
        _kernel_counter(kind, ch.t0, ch.u, ch.v, ch.mag, ch.sbits, ch.prob, ch.drawn,
                        ch.cp_col, ch.logt, gaps, st.n, st.s, st.nodes, st.tsum, st.lsum, prm,
                        table, regret, curve, act, rec)
        return
    _kernel(kind, ch.t0, ch.u, ch.v, ch.mag, ch.sbits, ch.prob, ch.drawn, ch.cp_col,
            ch.logt, gaps, st.n, st.s, st.nodes, st.tsum, st.lsum, st.pm, st.fidx, prm, table,
            regret, curve, act, rec)
