"""Planted twins of DP-SE (Sajed & Sheffet 2019) and Private-UCB (Mishra & Thakurta 2015).

(:class:`PrivateUCBOneLevelShort`, ``private-ucb-ceil-log2``, was registered first as
``private-ucb-faulty``; that name stays, an alias of the same twin.)

Each twin overrides one inline computation of the code path; its docstring says what is
wrong and derives its true privacy loss exactly: the pure-DP loss of the release transcript
(everything the code releases) over reward tables differing at one step, at the default
eps = 1 (and, for Private-UCB, at the tree horizon its audit runs, ``T = 8``). The actions
are post-processing, so their loss is at most this. ``tests/test_twins_release.py``
recomputes each value from the code.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from dpaudit.algorithms.baselines.dp_se import DPSE
from dpaudit.algorithms.baselines.dp_se import POLICIES as _DPSE_POLICIES
from dpaudit.algorithms.baselines.private_ucb import POLICIES as _PRIVATE_UCB_POLICIES
from dpaudit.algorithms.baselines.private_ucb import PrivateUCB

__all__ = ["POLICIES", "DPSEArmsScale", "DPSESharedDraw", "DPSESqrt2Scale",
           "PrivateUCBNoLevelSplit", "PrivateUCBOneLevelShort", "PrivateUCBSqrt2Scale",
           "TRUE_EPSILON"]


class DPSESqrt2Scale(DPSE):
    """DP-SE whose epoch means get ``Lap(1/(sqrt(2) eps R_e))``. BROKEN.

    The code reads ``1/(eps R_e)`` as the noise's standard deviation and converts it to a
    Laplace scale (``std / sqrt 2``), inline. What is wrong: a mean of ``R_e`` rewards has
    sensitivity ``1/R_e`` and needs the scale ``1/(eps R_e)``. True loss: a changed reward
    enters one release (one arm, one epoch), of loss ``(1/R_e) / (1/(sqrt 2 eps R_e)) =
    sqrt(2) eps`` = 1.414 at eps = 1.
    """

    name = "DP-SE (sqrt 2 too little noise, twin)"

    def release_scale(self, r_e: np.ndarray) -> np.ndarray:
        return 1.0 / (self.epsilon * r_e) / math.sqrt(2.0)  # BROKEN: std -> scale


class DPSEArmsScale(DPSE):
    """DP-SE whose epoch means get ``Lap(1/(eps |S| R_e))`` (the epoch's pulls of all arms).
    BROKEN.

    The code divides by the number of pulls in the whole epoch (``|S| R_e``, every surviving
    arm's block) instead of one arm's ``R_e``, inline. What is wrong: one arm's mean has
    sensitivity ``1/R_e``. True loss with K = 2 arms alive (epoch 1 of the audit): ``(1/R_e)
    / (1/(2 eps R_e)) = 2 eps`` = 2 at eps = 1 (in general ``K eps``).
    """

    name = "DP-SE (noise for the whole epoch's pulls, twin)"
    alive_in_scale = 2

    def release_scale(self, r_e: np.ndarray) -> np.ndarray:
        return 1.0 / (self.epsilon * self.alive_in_scale * r_e)  # BROKEN: |S| R_e pulls


class DPSESharedDraw(DPSE):
    """DP-SE drawing one Laplace value per epoch and adding it to every arm's mean. BROKEN.

    The epoch's noise is drawn once, ``rng.laplace(size=runs)``, and broadcast over the arms,
    inline. What is wrong: each release needs its own draw; with one shared draw the
    difference of two arms' releases is the exact difference of their means. True loss:
    infinite. A reward of arm 0's epoch-1 block moves ``mu~_0 - mu~_1`` by exactly ``1/R_1``
    between the neighbouring tables: the event ``{mu~_0 - mu~_1 = 1/R_1}`` has probability 1
    on one and 0 on the other (no finite eps, any delta < 1).
    """

    name = "DP-SE (one noise draw shared by the arms, twin)"

    def epoch_noise(self, rng: np.random.Generator, runs: int, k: int) -> np.ndarray:
        return np.repeat(rng.laplace(0.0, 1.0, (runs, 1)), k, axis=1)  # BROKEN: one draw


class PrivateUCBSqrt2Scale(PrivateUCB):
    """Private-UCB whose tree nodes get ``Lap(L/(sqrt(2) eps))``. BROKEN.

    The node scale ``L/eps`` is read as a standard deviation and converted to a Laplace
    scale inline. What is wrong: the Binary mechanism needs the scale ``L/eps`` for an
    element in ``L`` nodes. True loss: element 1 of a tree over ``T = 2^k`` lies in ``L =
    k + 1`` released nodes, each of loss ``sqrt(2) eps / L``: ``sqrt(2) eps`` = 1.414.
    """

    name = "Private-UCB (sqrt 2 too little noise, twin)"

    def __init__(self, epsilon: float, *, horizon: int, gamma: float = 0.1) -> None:
        super().__init__(epsilon, horizon=horizon, gamma=gamma)
        self.node_scale = self.n_levels / self.epsilon / math.sqrt(2.0)  # BROKEN


class PrivateUCBNoLevelSplit(PrivateUCB):
    """Private-UCB whose tree nodes get ``Lap(1/eps)``: the budget is not split over the
    ``L`` levels. BROKEN.

    Every node is made eps-DP on its own, inline. What is wrong: an element lies in up to
    ``L`` nodes, so the Binary mechanism gives each ``eps/L``. True loss: element 1 of the
    tree over ``T = 8`` lies in ``L = 4`` released nodes (positions 1, 2, 4, 8): ``4 eps``
    = 4 at eps = 1 (``(floor(log2 T) + 1) eps`` in general).
    """

    name = "Private-UCB (no split over the tree levels, twin)"

    def __init__(self, epsilon: float, *, horizon: int, gamma: float = 0.1) -> None:
        super().__init__(epsilon, horizon=horizon, gamma=gamma)
        self.node_scale = 1.0 / self.epsilon  # BROKEN: eps per node, not eps / L


class PrivateUCBOneLevelShort(PrivateUCB):
    """Private-UCB whose tree noise uses ``L = ceil(log2 T)`` levels. BROKEN.

    Everything else is Mishra & Thakurta 2015's Private-UCB; the often printed level count
    ``ceil(log2 T)`` replaces ``floor(log2 T) + 1`` (the ``levels="ceil_log2"`` parameter).
    What is wrong: at ``T = 2^k`` element 1 lies in ``k + 1`` released nodes (one per level
    ``0..k``: ``[1, 1], [1, 2], .., [1, 2^k]``) but each carries ``Lap(k/eps)``. True loss at
    the tree horizon its audit runs, ``T = 1024 = 2^10`` (so ``L = 10``): element 1's 11
    nodes, each of sensitivity 1 and loss ``eps/10``, compose to ``11 eps/10`` = 1.1 at eps =
    1, and no element lies in more nodes; the actions are post-processing.
    """

    name = "Private-UCB (ceil(log2 T) levels, faulty)"

    def __init__(self, epsilon: float, *, horizon: int, gamma: float = 0.1) -> None:
        super().__init__(epsilon, horizon=horizon, gamma=gamma, levels="ceil_log2")


#: the tree horizon of :class:`PrivateUCBOneLevelShort`'s audit (``private-ucb-ceil-log2``)
CEIL_LOG2_HORIZON = 1024

#: exact true loss at eps = 1 (Private-UCB: tree horizon T = 8, L = 4; the ceil-log2 twin at
#: T = 1024, L = 10)
TRUE_EPSILON = {"dp-se-sqrt2-scale": math.sqrt(2.0), "dp-se-arms-scale": 2.0,
                "dp-se-shared-draw": math.inf,
                "private-ucb-sqrt2-scale": math.sqrt(2.0), "private-ucb-no-level-split": 4.0,
                "private-ucb-ceil-log2": 11.0 / 10.0}


_DPSE = _DPSE_POLICIES["dp-se"]
#: DP-SE's twins as registered policies: the dp-se check lives with Azize & Basu 2022 (it prints
#: their lower bounds) and takes DP-SE, and these twins, from the registry by name
POLICIES = {
    f"dp-se-{bug}": _DPSE.twin(partial(cls, epsilon=1.0),
                                f"Sajed & Sheffet 2019, DP-SE, planted bug {bug}",
                                true_epsilon=TRUE_EPSILON[f"dp-se-{bug}"])
    for bug, cls in (("sqrt2-scale", DPSESqrt2Scale), ("arms-scale", DPSEArmsScale),
                     ("shared-draw", DPSESharedDraw))
}

_PRIVATE = _PRIVATE_UCB_POLICIES["private-ucb"]
_CEIL_LOG2 = _PRIVATE.twin(
    partial(PrivateUCBOneLevelShort, epsilon=1.0, horizon=CEIL_LOG2_HORIZON),
    "Mishra & Thakurta 2015, Private-UCB with ceil(log2 T) tree levels (broken)",
    invalid=tuple(kw for kw in _PRIVATE.invalid if "levels" not in kw),
    true_epsilon=TRUE_EPSILON["private-ucb-ceil-log2"])
#: ``private-ucb-faulty``: the name the ceil-log2 twin was first registered under (README,
#: docs and benchmark results use it), kept as an alias: the same entry
POLICIES["private-ucb-ceil-log2"] = POLICIES["private-ucb-faulty"] = _CEIL_LOG2
