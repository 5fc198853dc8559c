"""Continual counters for lockstep runs: one fresh noisy node per increment.

The binary mechanism of Chan, Shi & Song 2011 releases, after ``n`` stream elements, the sum
of the noisy p-sum nodes on the 1-bits of ``n``: node ``(j, n >> j)`` for every set bit ``j``,
covering elements ``((n >> j) - 1) 2^j + 1 .. (n >> j) 2^j``. Going from ``n - 1`` to ``n``
clears the ``ctz(n)`` lowest bits (their nodes are never used again) and sets bit
``ctz(n)``, whose node ``(ctz(n), n >> ctz(n))`` is *new* and covers ``n - 2^ctz(n) + 1 .. n``.
So every increment needs exactly one fresh Laplace draw, and the noise of the current release
is the sum of at most ``log2 n + 1`` stored nodes. In a bandit the arm whose counter moves
depends on the past, but the draw consumed at step ``t`` is independent of everything before
``t``, so assigning the ``t``-th pre-drawn standard Laplace to the node created at step ``t``
gives every node an independent Laplace value: the same law as drawing each node up front.

The hybrid mechanism (Chan, Shi & Song 2011, Sec. 4; Tossou & Dimitrakakis 2016, Sec. 2.3)
adds ``Lap(1/eps_log)`` to the running total at every power of two ``n = 2^k`` (the
logarithmic mechanism; the total's noise is the sum of these) and between powers of two runs a
fresh binary mechanism over the block ``2^k < n < 2^(k+1)`` with node scale
``k / eps_bin``; ``eps_log = eps_bin = eps / 2`` (the split of the public re-implementations,
as in :class:`dpaudit.mechanisms.counting.HybridCounter`). Again one fresh draw per increment.

:func:`node_spans` lists every node one stream of length ``T`` creates (the elements it covers
and its ``1/scale``); the audits sum them per element (vector Laplace mechanism) to get the
exact privacy loss of everything a counter releases. :class:`ExplicitCounter` is the plain
reference: nodes indexed by ``(block, level, index)`` and drawn lazily, for the per-step
simulators.
"""

from __future__ import annotations

import numpy as np

__all__ = ["HYBRID", "LEVELS", "TREE", "ExplicitCounter", "increment_all", "increment_selected",
           "loss_per_element", "node_spans"]

HYBRID, TREE = 0, 1
#: node slots per counter (levels of a binary tree over up to 2^62 elements)
LEVELS = 64


def _bitlen(x: np.ndarray) -> np.ndarray:
    """``floor(log2 x) + 1`` for integers ``x >= 1`` (exact, via frexp)."""
    return np.frexp(np.asarray(x, dtype=float))[1].astype(np.int64)


def _ctz(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.int64)
    return _bitlen(x & -x) - 1


def increment_selected(nodes: np.ndarray, tsum: np.ndarray, lsum: np.ndarray, rows: np.ndarray,
                       arm: np.ndarray, pos: np.ndarray, z: np.ndarray, kind: int,
                       p1: float, p2: float) -> None:
    """Each run ``r`` appends one element to counter ``arm[r]``, which now holds ``pos[r]``.

    ``nodes`` ``(runs, K, LEVELS)``, ``tsum``/``lsum`` ``(runs, K)`` are updated in place;
    ``z`` is the fresh standard Laplace of each run. ``kind`` HYBRID (``p1 = eps_log``,
    ``p2 = eps_bin``) or TREE (``p1`` = node scale). Floating-point operations are done in the
    order of the compiled kernel, so both give identical numbers.
    """
    g = nodes[rows, arm]
    ts = tsum[rows, arm]
    if kind == HYBRID:
        pow2 = (pos & (pos - 1)) == 0
        lsum[rows, arm] = np.where(pow2, lsum[rows, arm] + z / p1, lsum[rows, arm])
        k = _bitlen(pos) - 1
        lvl = np.where(pow2, 0, _ctz(pos - (np.int64(1) << k)))
        val = z * k / p2
    else:
        pow2 = np.zeros(pos.shape, dtype=bool)
        lvl = _ctz(pos)
        val = z * p1
    for j in range(int(lvl.max(initial=0))):
        clear = j < lvl
        ts = ts - np.where(clear, g[:, j], 0.0)
        g[:, j] = np.where(clear, 0.0, g[:, j])
    g[np.arange(g.shape[0]), lvl] = val
    ts = ts + val
    g[pow2] = 0.0
    ts = np.where(pow2, 0.0, ts)
    nodes[rows, arm] = g
    tsum[rows, arm] = ts


def increment_all(nodes: np.ndarray, tsum: np.ndarray, lsum: np.ndarray, pos: int,
                  z: np.ndarray, kind: int, p1: float, p2: float) -> None:
    """Every counter of every run appends one element and now holds ``pos`` (DP-UCB)."""
    if kind == HYBRID and pos & (pos - 1) == 0:
        lsum += z / p1
        nodes[...] = 0.0
        tsum[...] = 0.0
        return
    if kind == HYBRID:
        k = pos.bit_length() - 1
        lvl = int(_ctz(np.array([pos - (1 << k)]))[0])
        val = z * k / p2
    else:
        lvl = int(_ctz(np.array([pos]))[0])
        val = z * p1
    for j in range(lvl):
        tsum -= nodes[:, :, j]
        nodes[:, :, j] = 0.0
    nodes[:, :, lvl] = val
    tsum += val


def node_spans(kind: int, horizon: int, p1: float, p2: float = 1.0
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, last, inv_scale)`` of every node one stream of ``horizon`` elements creates.

    Node created at position ``n`` covers elements ``first..last`` (1-based) and costs
    ``1/scale`` when one of them changes by 1.
    """
    pos = np.arange(1, horizon + 1, dtype=np.int64)
    if kind == TREE:
        width = np.int64(1) << _ctz(pos)
        return pos - width + 1, pos, np.full(pos.shape, 1.0 / p1)
    pow2 = (pos & (pos - 1)) == 0
    k = _bitlen(pos) - 1
    block = np.int64(1) << k
    m = pos - block
    width = np.where(pow2, 0, np.int64(1) << _ctz(np.where(pow2, 1, m)))
    first = np.where(pow2, np.maximum(pos // 2 + 1, 1), pos - width + 1)
    first = np.where(pos == 1, 1, first)
    inv = np.where(pow2, p1, p2 / np.maximum(k, 1))
    return first, pos, inv


def loss_per_element(kind: int, horizon: int, p1: float, p2: float = 1.0) -> np.ndarray:
    """``sum of 1/scale`` over the nodes containing each element ``1..horizon``.

    By the vector Laplace mechanism this is the exact pure-DP loss of releasing every prefix
    sum when that element changes by at most 1 (the releases are post-processing of the
    nodes); its maximum is the counter's epsilon.
    """
    first, last, inv = node_spans(kind, horizon, p1, p2)
    diff = np.zeros(horizon + 2)
    np.add.at(diff, first, inv)
    np.add.at(diff, last + 1, -inv)
    return np.cumsum(diff)[1:horizon + 1]


class ExplicitCounter:
    """Plain reference counter: nodes keyed by ``(block, level, index)``, drawn lazily.

    ``noise(n)`` is the noise of the release after ``n`` elements, computed from the node
    definitions directly (no incremental bookkeeping).
    """

    def __init__(self, kind: int, p1: float, p2: float, rng: np.random.Generator) -> None:
        self.kind, self.p1, self.p2, self.rng = kind, p1, p2, rng
        self.nodes: dict[tuple[int, int, int], float] = {}

    def _node(self, key: tuple[int, int, int], scale: float) -> float:
        if key not in self.nodes:
            self.nodes[key] = float(self.rng.laplace(0.0, scale))
        return self.nodes[key]

    def noise(self, n: int) -> float:
        if self.kind == TREE:
            return sum(self._node((0, j, n >> j), self.p1)
                       for j in range(n.bit_length()) if (n >> j) & 1)
        k = n.bit_length() - 1
        total = sum(self._node((-1, i, 0), 1.0 / self.p1) for i in range(k + 1))
        m = n - (1 << k)
        return total + sum(self._node((k, j, m >> j), k / self.p2)
                           for j in range(m.bit_length()) if (m >> j) & 1)
