"""The generic lockstep driver of the index policies and the compiled helpers they share.

A policy of :class:`~._policy.LockstepIndexPolicy` brings its own math (its package holds
it): its index and update on arrays of runs (the numpy lockstep reference, hooks called by
:func:`step_numpy` here) and its compiled kernel of one chunk, which advances the same
state with the same pre-drawn numbers (:mod:`._lockstep`) and does the same floating-point
operations in the same order, so that both return identical numbers (tested). This module
names no algorithm: it holds the driver, the per-run state arrays, the compiled helpers the
kernels call (tie-break, bit length, signed Laplace draw, the continual counters' node
update, the table of reciprocal roots) and :func:`use_compiled`, which chooses the path for
every policy and says once (a :class:`SlowPathWarning`) when numba cannot be imported.

A policy's hooks (see :class:`~._policy.LockstepIndexPolicy`): ``round_robin(k, prm)`` (the
steps played in turn first), ``index_numpy(st, logt, prm, table)`` (every run's indices at
a step), ``update_numpy(st, rows, arm, pos, z, t, logt, prm, table, releases)`` (its
noisy statistics after a pull; ``releases`` the recording hook) and ``step_compiled(st, ch,
gaps, prm, table, regret, curve, actions, record)`` (one chunk in compiled code).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms._counters import HYBRID
from dpaudit.validation import InvalidParameterError, check_choice

__all__ = ["HAVE_NUMBA", "SCREEN", "SlowPathWarning", "State", "bitlen", "counter_inc", "jit",
           "lap", "pick_tied", "reciprocal_roots", "reward_at", "screen_max", "step_numpy",
           "use_compiled"]

#: relative lead of a screened decision: a kernel that first compares cheap *screening*
#: values (within a few ulps of the exact indices) decides on them only when the best leads
#: every other by more than ``SCREEN`` times the largest magnitude (1000x the screening
#: values' worst error), so that a screened argmax is the exact one; otherwise it computes
#: the exact indices by the reference's expressions
SCREEN = 1e-12

try:
    import numba
    HAVE_NUMBA = True
    NUMBA_ERROR = ""
except ImportError as exc:  # pragma: no cover - numba is a dependency; a broken install
    numba = None  # type: ignore[assignment]  # the module's name is None without numba
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
    """Per-run, per-arm state of one simulation (arrays shared by both paths): counts
    ``n``, reward sums ``s``, the continual counters' nodes and sums (:mod:`._counters`)
    and two arrays a policy may keep per arm (``pm``, ``fidx``: a released mean and an
    index frozen with it)."""

    def __init__(self, runs: int, k: int, counter_levels: int) -> None:
        self.n = np.zeros((runs, k), dtype=np.int64)
        self.s = np.zeros((runs, k))
        self.nodes = np.zeros((runs, k, counter_levels))
        self.tsum = np.zeros((runs, k))
        self.lsum = np.zeros((runs, k))
        self.pm = np.zeros((runs, k))
        self.fidx = np.zeros((runs, k))


def step_numpy(policy, st: State, ch, gaps: np.ndarray, prm: np.ndarray,
               table: np.ndarray, regret: np.ndarray, curve: np.ndarray,
               actions: np.ndarray | None, releases=None) -> None:
    """The lockstep numpy reference for one chunk (all runs advance one step at a time):
    the policy's ``index_numpy`` picks the arms (ties broken on ``ch.v``), the rewards are
    added to the counts and sums, and its ``update_numpy`` updates its noisy statistics
    (and hands each release to ``releases``, the recording hook of
    :mod:`dpaudit.sim.releases`, when given)."""
    runs, k = st.n.shape
    rows = np.arange(runs)
    init = policy.round_robin(k, prm)
    for c in range(ch.u.shape[1]):
        t = ch.t0 + c
        z = ch.noise(c)
        if t <= init:
            arm = np.full(runs, (t - 1) % k)
        else:
            arm = _argmax_ties(policy.index_numpy(st, ch.logt[c], prm, table), ch.v[:, c])
        p = ch.prob[c, arm]
        x = (ch.u[:, c] < p).astype(float) if ch.drawn[c] else p
        st.n[rows, arm] += 1
        st.s[rows, arm] += x
        pos = st.n[rows, arm]
        policy.update_numpy(st, rows, arm, pos, z, t, ch.logt[c], prm, table, releases)
        regret += gaps[arm]
        if ch.cp_col[c] >= 0:
            curve[:, ch.cp_col[c]] = regret
        if actions is not None:
            actions[:, t - 1] = arm


def _argmax_ties(index: np.ndarray, v: np.ndarray) -> np.ndarray:
    top = index >= index.max(axis=1, keepdims=True)
    m = top.sum(axis=1)
    j = np.minimum((v * m).astype(np.int64), m - 1) + 1
    return np.argmax(top & (np.cumsum(top, axis=1) == j[:, None]), axis=1)


def _inc_py(g, tsum, lsum, r, a, pos, z, scheme, p1, p2):  # pragma: no cover - jitted
    """Element ``pos`` of counter ``(r, a)`` (nodes ``g``): the incremental node update of
    :func:`._counters.increment_selected` for one counter, ``scheme`` ``HYBRID`` or ``TREE``
    (:mod:`._counters`), standard Laplace ``z``."""
    if scheme == HYBRID:
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
            # an intrinsic's typing context is numba's to pass: its stub lists it
            return 64 - _clz(np.int64(x))  # type: ignore[call-arg]

        _bitlen = jit(_bitlen_clz)
    except ImportError:  # pragma: no cover - an older or newer numba without the intrinsic
        _bitlen = jit(_bitlen_py)
else:  # pragma: no cover
    _bitlen = _bitlen_py
_lap, _inc = jit(_lap_py), jit(_inc_py)
#: the public names of the compiled helpers, for the kernels in the paper packages
lap, counter_inc, bitlen = _lap, _inc, _bitlen


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
pick_tied = _pick_tied


@jit
def reward_at(uc, prob, drawn, c, arm):  # pragma: no cover - compiled
    """The reward of ``arm`` at chunk column ``c`` for a run whose uniform there is ``uc``: the
    Bernoulli draw ``1{uc < prob[c, arm]}`` when the column is drawn, else the mean itself."""
    if drawn[c]:
        return 1.0 if uc < prob[c, arm] else 0.0
    return prob[c, arm]


@jit
def screen_max(mean, rs, extra, sq, pl):  # pragma: no cover - compiled
    """The screened argmax of an index ``mean[a] + sq * rs[a] + pl * extra[a]`` (first maximum):
    ``(arm, best, second, size)`` with ``size`` the largest ``|mean| + sq rs + |pl extra|``, the
    scale of the index's rounding error. A kernel trusts ``arm`` when ``best - second > SCREEN *
    size`` and otherwise recomputes its index exactly (and breaks ties) itself."""
    best = -np.inf
    second = -np.inf
    size = 0.0
    arm = 0
    for a in range(mean.shape[0]):
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
    return arm, best, second, size


#: counts below which a kernel may read ``1/sqrt(n)`` and its square from a table (two arrays
#: of 512 KB, made once per process)
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
