"""The generic driver of the compiled per-step kernels, and the helpers the kernels share.

A per-step kernel simulates ``runs`` runs one after another, one step at a time, with scalar
arithmetic, drawing its random numbers from the caller's :class:`numpy.random.Generator`
inside the compiled code (numba reproduces NumPy's scalar ``random``, ``standard_normal`` and
``beta`` draws bit for bit and advances the caller's generator). So a compiled kernel and its
own Python function (``kernel.py_func``, what runs without numba) give the same numbers for
the same seed (tested); the policies' numpy lockstep loops (``backend="numpy"``) consume the
generator in another order and have the same law (tested). Memory is ``O(runs K)`` plus the
recorded actions and fixed-size blocks of uniforms (at most 8 MB, :data:`LANE_NUMBERS`):
nothing grows with the horizon.

Each policy's kernel (its index, choice and update rules) lives in its paper's package, next
to the policy; this module names no algorithm. It holds :func:`run_kernel` (the public loop:
reward rows, state arrays, the call, the result), the compiled helpers every kernel calls
(:func:`observe`, :func:`book`, :func:`row_of`, :func:`pick`, :func:`pick_with`) and the
drivers of kernels fed with pre-drawn uniforms: :class:`BlockFed` (a fixed count per step),
:class:`StreamFed` (one per step and sometimes more) and :class:`LaneFed` (several runs
advanced together). A kernel is called as ``kernel(rng, rows, drawn, rev, horizon, gaps,
cps, *params, n, s, regret, curve, actions, record)``.

Rewards: every step draws one uniform ``U`` (also at a revised or fixed step, as
:class:`~dpaudit.sim.rewards.BernoulliRewards` does, so neighbouring sources stay coupled).
A row of Bernoulli means gives ``U < p``; a row of fixed rewards gives the reward ``p`` as it
is (``as_is``) or its Bernoulli observation ``U < p`` (Wang & Zhu 2023, Sec. 3.1), which is
``p`` itself for 0/1 rewards.

numba's disk cache keys a kernel on its own file: after editing a helper here, clear the
cached kernels of the paper packages (their ``__pycache__/*.nbi`` and ``*.nbc`` files).
"""

from __future__ import annotations

import numpy as np

from dpaudit.algorithms._kernels import jit
from dpaudit.algorithms._lockstep import probability_rows
from dpaudit.interfaces import RewardSource
from dpaudit.sim.bandits import SimulationResult
from dpaudit.validation import InvalidParameterError

__all__ = ["BLOCK", "LANES", "LANE_NUMBERS", "BlockFed", "LaneFed", "StreamFed", "book",
           "observe", "pick", "pick_with", "reward_rows", "row_of", "run_kernel"]


def run_kernel(kernel, source: RewardSource, horizon: int, runs: int, *, rng: np.random.Generator,
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


def reward_rows(source: RewardSource, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
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


#: how many runs a lanes kernel advances together (:class:`LaneFed`), and the most uniforms
#: it holds for them at once (8 MB): longer runs go one at a time in blocks
LANES = 4
LANE_NUMBERS = 1 << 20


class LaneFed(BlockFed):
    """A block-fed kernel with a lanes twin: runs in groups of :data:`LANES` whose uniforms
    (drawn in one call, the generator's next numbers in order) fit :data:`LANE_NUMBERS`,
    each group by ``lanes_kernel(buf, r0, lanes, rows, drawn, rev, horizon, gaps, cps,
    *params, n, s, regret, curve, actions, record)`` (run ``r0 + g`` reads its numbers at
    ``buf[g T per_step:]``, exactly those the one-run kernel would read); the remaining runs,
    or all of them when a run is too long, by the block-fed one-run kernel. The generator
    ends where the one-run kernel leaves it."""

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


class StreamFed(BlockFed):
    """A kernel drawing one uniform per step and sometimes more (a tie-break): the
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


#: the public names of the compiled helpers, for the kernels in the paper packages
row_of, observe, book, pick, pick_with = _row, _observe, _book, _pick, _pick_with
