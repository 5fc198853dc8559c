"""Continual counting: the binary-tree and hybrid mechanisms (Chan, Shi & Song 2011; Tossou &
Dimitrakakis 2016).

Tossou & Dimitrakakis 2016, Sec. 2.3, uses the *hybrid* mechanism of Chan, Shi &
Song (CSS) to release every prefix sum of an arm's reward stream; Azize & Basu 2022 describes the
*binary-tree* mechanism used by DP-UCB / Private-UCB ("a binary tree of depth log T, each node
holds Laplace noise of scale log(T)/eps"). Both are Laplace noise on dyadic partial sums
("p-sums"), so the privacy of everything released is that of the vector of noisy nodes that
some release uses: by the vector Laplace mechanism, changing one stream element by at most 1
costs exactly ``sum over touched nodes of 1/scale(node)``. That count is what we check.

Binary tree (CSS "Binary mechanism"): node ``(j, m)`` holds ``sum of x_t`` over
``t in ((m-1) 2^j, m 2^j]`` plus ``Lap(scale)``; the release at time ``t`` adds the nodes of
the 1-bits of ``t``. Node ``(j, m)`` is used iff ``m 2^j <= T``, so element ``t`` touches
``#{j : ceil(t/2^j) 2^j <= T}`` nodes, at most ``floor(log2 T) + 1`` (at ``t = 1``).
The calibration ``scale = L/eps`` is private iff ``L >= floor(log2 T) + 1``. The often printed
``L = ceil(log2 T)`` is one short exactly when ``T`` is a power of two (parameter ``levels``).

Hybrid (CSS Sec. 4; Tossou & Dimitrakakis 2016 Sec. 2.3): at ``t = 2^k`` the *logarithmic*
mechanism releases ``beta_k = beta_{k-1} + (sum of block k-1) + Lap(1/eps_log)`` (each element
sits in exactly one block); for ``2^k < t < 2^(k+1)`` the release is ``beta_k`` plus a binary
mechanism over the block's first ``t - 2^k`` elements with node scale
``ceil(log2 2^k)/eps_bin = k/eps_bin``. The block's binary mechanism only answers relative
times ``1 .. 2^k - 1``, so an element touches at most ``k`` of its nodes. The paper's split
(REFERENCE, from public code) is ``eps_log = eps_bin = eps/2``.
"""

from __future__ import annotations

import numpy as np

from dpaudit.validation import InvalidParameterError, check_choice, check_epsilon, check_int

__all__ = ["BinaryTreeCounter", "HybridCounter", "tree_levels", "tree_nodes_touched"]


def tree_levels(horizon: int, convention: str = "exact") -> int:
    """Levels ``L`` in the node scale ``L/eps``: ``floor(log2 T) + 1`` or ``ceil(log2 T)``."""
    t = check_int("horizon", horizon, low=1)
    check_choice("convention", convention, ("exact", "ceil_log2"))
    if convention == "exact":
        return t.bit_length()  # floor(log2 T) + 1
    return max(1, (t - 1).bit_length())  # ceil(log2 T)


def tree_nodes_touched(horizon: int, *, used_up_to: int | None = None) -> np.ndarray:
    """Number of used tree nodes containing each element ``t = 1..T`` (vectorised).

    ``used_up_to``: the last time at which the tree is queried (default ``T``); node
    ``(j, m)`` is used iff ``m 2^j <= used_up_to``.
    """
    t_max = check_int("horizon", horizon, low=1)
    last = t_max if used_up_to is None else check_int("used_up_to", used_up_to, low=0)
    t = np.arange(1, t_max + 1, dtype=np.int64)
    count = np.zeros(t_max, dtype=np.int64)
    j = 0
    while (1 << j) <= max(last, 1):
        end = ((t + (1 << j) - 1) >> j) << j  # ceil(t / 2^j) * 2^j
        count += end <= last
        j += 1
    return count


class BinaryTreeCounter:
    """Binary-tree continual counter with node noise ``Lap(L/eps)``, ``L = tree_levels(T)``."""

    def __init__(self, epsilon: float, horizon: int, *, levels: str = "exact") -> None:
        self.epsilon = check_epsilon(epsilon)
        self.horizon = check_int("horizon", horizon, low=1)
        self.levels = tree_levels(self.horizon, levels)
        self.node_scale = self.levels / self.epsilon

    def epsilon_exact(self) -> tuple[float, int]:
        """``max_t (nodes touched by t)/scale`` and the worst element ``t``."""
        touched = tree_nodes_touched(self.horizon)
        i = int(np.argmax(touched))
        return float(touched[i] / self.node_scale), i + 1

    def release(self, streams: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
        """Noisy prefix sums of ``streams`` (shape ``(runs, T)``) at every ``t = 1..T``."""
        x = np.atleast_2d(np.asarray(streams, dtype=float))
        if x.shape[1] != self.horizon:
            raise InvalidParameterError(f"streams must have {self.horizon} columns")
        return np.cumsum(x, axis=1) + _tree_noise(x.shape[0], self.horizon, self.node_scale,
                                                  rng)


def _tree_noise(runs: int, horizon: int, scale: float, rng: np.random.Generator) -> np.ndarray:
    """Sum of the node noises on the 1-bits of each ``t`` (one draw per node, shared)."""
    t = np.arange(1, horizon + 1, dtype=np.int64)
    total = np.zeros((runs, horizon))
    j = 0
    while (1 << j) <= horizon:
        nodes = rng.laplace(0.0, scale, size=(runs, horizon >> j))
        bit = ((t >> j) & 1).astype(bool)
        idx = (t >> j) - 1  # node m = t >> j (1-based)
        total[:, bit] += nodes[:, idx[bit]]
        j += 1
    return total


class HybridCounter:
    """CSS hybrid counter: logarithmic mechanism at powers of two + per-block binary trees.

    ``split`` is the share of ``eps`` given to the logarithmic part (paper: 1/2);
    ``faulty_no_split`` gives both parts the full ``eps`` (a deliberate bug for audits).
    """

    def __init__(self, epsilon: float, horizon: int, *, split: float = 0.5,
                 faulty_no_split: bool = False) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.horizon = check_int("horizon", horizon, low=1)
        if not (isinstance(split, float | int) and 0 < split < 1):
            raise InvalidParameterError(f"split={split!r} must be a number in (0, 1)")
        self.eps_log = self.epsilon * (1.0 if faulty_no_split else split)
        self.eps_bin = self.epsilon * (1.0 if faulty_no_split else 1.0 - split)

    def blocks(self) -> list[tuple[int, int, int]]:
        """``(k, first, last)``: block ``k`` holds elements ``2^k + 1 .. min(2^(k+1), T)``;
        block ``-1`` is element 1."""
        out = [(-1, 1, 1)]
        k = 0
        while (1 << k) + 1 <= self.horizon:
            out.append((k, (1 << k) + 1, min(1 << (k + 1), self.horizon)))
            k += 1
        return out

    def node_scale(self, k: int) -> float:
        """Binary-tree node scale in block ``k``: ``ceil(log2 2^k)/eps_bin = k/eps_bin``."""
        return max(k, 1) / self.eps_bin

    def epsilon_exact(self) -> tuple[float, int]:
        """``max_t sum_{nodes touched by t} 1/scale`` over log and binary parts."""
        worst, arg = self.eps_log, 1  # element 1: only the log mechanism
        for k, first, last in self.blocks()[1:]:
            length = last - first + 1
            # the block's tree answers relative times 1 .. min(2^k - 1, T - 2^k)
            answered = min((1 << k) - 1, self.horizon - (1 << k))
            touched = tree_nodes_touched(length, used_up_to=answered)
            i = int(np.argmax(touched))
            eps_t = self.eps_log + touched[i] / self.node_scale(k)
            if eps_t > worst:
                worst, arg = float(eps_t), first + i
        return worst, arg

    def release(self, streams: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
        """Noisy prefix sums at every ``t = 1..T`` for ``streams`` of shape ``(runs, T)``."""
        x = np.atleast_2d(np.asarray(streams, dtype=float))
        runs, horizon = x.shape
        if horizon != self.horizon:
            raise InvalidParameterError(f"streams must have {self.horizon} columns")
        out = np.empty((runs, horizon))
        beta = x[:, 0] + rng.laplace(0.0, 1.0 / self.eps_log, runs)  # t = 1 = 2^0
        out[:, 0] = beta
        for k, first, last in self.blocks()[1:]:
            block = x[:, first - 1:last]
            closes = last == 1 << (k + 1)  # the block ends at a power of two
            answered = block.shape[1] - 1 if closes else block.shape[1]
            if answered > 0:  # relative times answered by this block's binary tree
                inner = np.cumsum(block[:, :answered], axis=1) + _tree_noise(
                    runs, answered, self.node_scale(k), rng)
                out[:, first - 1:first - 1 + answered] = beta[:, None] + inner
            if closes:  # the logarithmic release at t = 2^(k+1)
                beta = beta + block.sum(axis=1) + rng.laplace(0.0, 1.0 / self.eps_log, runs)
                out[:, last - 1] = beta
        return out
