"""Planted twins ``private-ucb-<bug>`` (DP-SE's, ``dp-se-<bug>``, sit beside the dp-se check in
:mod:`dpaudit.audits.azize_basu_2022.twins`).

Each is its correct algorithm's audit restricted to the release-level claim (DP-SE: epoch
1's private means, canary arm 0's first reward; Private-UCB: the tree over T = 8, canary
element 1) on a broken variant from :mod:`dpaudit.algorithms.baselines._twins`, with its
exact true loss. The symbolic and exact-schedule claims read the declared parameters, not
what the code does, so they are left out (they cannot see these bugs).
"""

from __future__ import annotations

from dpaudit.algorithms.baselines import _twins as tw
from dpaudit.audits.baselines.private_ucb import _SPEC as _PRIVATE_UCB
from dpaudit.audits.baselines.private_ucb import release_level_claim

AUDITS = [
    _PRIVATE_UCB.twin(tw.PrivateUCBSqrt2Scale,
                      claims=[release_level_claim(tw.PrivateUCBSqrt2Scale)], bug="sqrt2-scale",
                      true_epsilon=tw.TRUE_EPSILON["private-ucb-sqrt2-scale"]),
    _PRIVATE_UCB.twin(tw.PrivateUCBNoLevelSplit,
                      claims=[release_level_claim(tw.PrivateUCBNoLevelSplit)],
                      bug="no-level-split",
                      true_epsilon=tw.TRUE_EPSILON["private-ucb-no-level-split"]),
]
