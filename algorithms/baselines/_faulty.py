"""Deliberately broken twins of the baselines, kept beside the correct ones.

Each twin is a subclass of the correct algorithm that overrides exactly the part that is
wrong; its docstring says what is wrong and why the paper's proof no longer applies. Each is
registered in ``POLICIES`` with ``faulty=True`` (the conformance suite checks it like any
policy: a broken algorithm still has to be simulated faithfully) and audited under a
``-faulty`` name that must come out VIOLATED.
"""

from __future__ import annotations

from functools import partial

from dpaudit.algorithms.baselines.private_ucb import POLICIES as _PRIVATE_UCB_POLICIES
from dpaudit.algorithms.baselines.private_ucb import PrivateUCB

__all__ = ["POLICIES", "PrivateUCBOneLevelShort"]


class PrivateUCBOneLevelShort(PrivateUCB):
    """Private-UCB whose tree noise uses ``L = ceil(log2 T)`` levels. BROKEN.

    Everything else is Mishra & Thakurta 2015's Private-UCB. What is wrong: at ``T = 2^k``
    element 1 lies in ``k + 1`` released nodes (one per level ``0..k``) but each carries
    ``Lap(k/eps)``: the counter, hence the algorithm, is only ``(k + 1)/k eps``-DP.
    """

    name = "Private-UCB (ceil(log2 T) levels, faulty)"

    def __init__(self, epsilon: float, *, horizon: int, gamma: float = 0.1) -> None:
        super().__init__(epsilon, horizon=horizon, gamma=gamma, levels="ceil_log2")


_PRIVATE = _PRIVATE_UCB_POLICIES["private-ucb"]
POLICIES = {
    "private-ucb-faulty": _PRIVATE.twin(
        partial(PrivateUCBOneLevelShort, epsilon=1.0, horizon=1024),
        "Mishra & Thakurta 2015, Private-UCB with ceil(log2 T) tree levels (broken)",
        invalid=tuple(kw for kw in _PRIVATE.invalid if "levels" not in kw)),
}
