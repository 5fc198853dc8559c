"""Private-UCB: Mishra & Thakurta 2015, as the baseline of Tossou & Dimitrakakis 2016 (Fig. 6)
and Azize & Basu 2022 (Fig. 2, failure probability ``gamma = 0.1``).

One binary-tree continual counter (Chan, Shi & Song 2011, the Binary mechanism) per arm over
the horizon ``T``, node noise ``Lap(L/eps)`` with ``L = floor(log2 T) + 1`` levels (the number
of tree nodes one element lies in; :func:`dpaudit.mechanisms.counting.tree_levels`), and the
index::

    I_a = S~_a / n_a + sqrt(2 ln t / n_a) + K (ln T)^2 ln(K T ln T / gamma) / (eps n_a)

Reconstruction (REFERENCE 4.2, [code]): the widening is the tree's error bound with a union
bound over arms and steps as implemented by the public re-implementation that Azize & Basu's
experiments follow; Mishra & Thakurta's own constant is not in our sources. ``levels`` is a
named parameter: ``"exact"`` (the default, private) or ``"ceil_log2"``, the often printed
``ceil(log2 T)``, which is one level short when ``T`` is a power of two (the broken twin the
``private-ucb-faulty`` audit must reject).

Privacy: a changed reward enters the counter of one arm; the tree releases are post-processed
into actions; ``epsilon``-DP when every element lies in at most ``L`` used nodes.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms._policy import LockstepIndexPolicy
from dpaudit.algorithms.baselines.bounds import PRIVATE_UCB_NO_BOUND
from dpaudit.algorithms.baselines.instances import TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS
from dpaudit.mechanisms.counting import tree_levels
from dpaudit.sim.bandits import PolicyEntry
from dpaudit.validation import (
    InvalidParameterError,
    check_choice,
    check_epsilon,
    check_int,
    check_real,
)

__all__ = ["POLICIES", "PrivateUCB"]


class PrivateUCB(LockstepIndexPolicy):
    """Private-UCB (Mishra & Thakurta 2015) with a binary tree per arm.

    Parameters
    ----------
    epsilon:
        Privacy of the action sequence, > 0.
    horizon:
        The tree's horizon ``T`` (simulations may not exceed it).
    gamma:
        Failure probability of the confidence widening (0.1, as in Azize & Basu 2022).
    levels:
        ``"exact"`` (``floor(log2 T) + 1``) or ``"ceil_log2"`` (module docstring).
    """

    name = "Private-UCB"
    kind = kern.PRIVATE

    def __init__(self, epsilon: float, *, horizon: int, gamma: float = 0.1,
                 levels: str = "exact") -> None:
        self.epsilon = check_epsilon(epsilon)
        self.horizon = check_int("horizon", horizon, low=2)
        self.gamma = check_real("gamma", gamma, low=0.0, high=1.0, low_open=True,
                                high_open=True)
        self.levels = check_choice("levels", levels, ("exact", "ceil_log2"))
        self.n_levels = tree_levels(self.horizon, self.levels)
        self.node_scale = self.n_levels / self.epsilon  # proof: L nodes per element

    def widening(self, n_arms: int) -> float:
        """``K (ln T)^2 ln(K T ln T / gamma) / eps`` (module docstring)."""
        lt = math.log(self.horizon)
        return n_arms * lt**2 * math.log(n_arms * self.horizon * lt / self.gamma) / self.epsilon

    def constants(self, n_arms: int, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
        if horizon > self.horizon:
            raise InvalidParameterError(
                f"horizon={horizon} must be at most the tree's horizon {self.horizon}")
        # no table: the Private-UCB index reads none (memory stays flat in the horizon)
        return np.array([self.node_scale, self.widening(n_arms), 0.0]), np.zeros(1), 1


POLICIES = {"private-ucb": PolicyEntry(
    partial(PrivateUCB, epsilon=1.0, horizon=10**5, gamma=0.1),
    TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS,
    "Mishra & Thakurta 2015, Private-UCB (the baseline of Tossou & Dimitrakakis 2016, Fig. 6)",
    small_instance=(0.7, 0.3), small_horizon=60,
    invalid=({"epsilon": 0.0}, {"gamma": 1.0}, {"horizon": 1}, {"levels": "log"}),
    no_bound_reason=PRIVATE_UCB_NO_BOUND)}
