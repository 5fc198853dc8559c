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
``private-ucb-ceil-log2`` audit, alias ``private-ucb-faulty``, must reject).

Privacy: a changed reward enters the counter of one arm; the tree releases are post-processed
into actions; ``epsilon``-DP when every element lies in at most ``L`` used nodes.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms._counters import TREE, ExplicitCounter, increment_selected
from dpaudit.algorithms._policy import LockstepIndexPolicy, PlainState
from dpaudit.algorithms.baselines._private_ucb_kernel import private_ucb_step
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

    def index_numpy(self, st: kern.State, logt: float, prm: np.ndarray,
                    table: np.ndarray) -> np.ndarray:
        """``(s + N)/n + sqrt(2 ln t / n) + B/n`` (``B = prm[1]``, :meth:`widening`)."""
        n = st.n.astype(float)
        bonus = np.sqrt(2.0 * logt / n)
        mean = (st.s + st.lsum + st.tsum) / n
        return mean + bonus + prm[1] / n

    def update_numpy(self, st: kern.State, rows: np.ndarray, arm: np.ndarray,
                     pos: np.ndarray, z: np.ndarray, t: int, logt: float, prm: np.ndarray,
                     table: np.ndarray, releases) -> None:
        """The pulled arm's tree takes its reward (node scale ``prm[0]``; release
        ``"counter"``)."""
        increment_selected(st.nodes, st.tsum, st.lsum, rows, arm, pos, z[:, 0], TREE, prm[0],
                           0.0)
        if releases is not None:
            releases.record(st.s[rows, arm] + st.lsum[rows, arm] + st.tsum[rows, arm],
                            step=t, arm=arm, label="counter")

    def step_compiled(self, st: kern.State, ch, gaps: np.ndarray, prm: np.ndarray,
                      table: np.ndarray, regret: np.ndarray, curve: np.ndarray,
                      actions: np.ndarray, record: bool) -> None:
        private_ucb_step(st, ch, gaps, prm, table, regret, curve, actions, record)

    def plain_start(self, n_arms: int, prm: np.ndarray, rng: np.random.Generator
                    ) -> PlainState:
        ps = PlainState(n_arms)
        ps.counters = [ExplicitCounter(TREE, prm[0], 0.0, rng) for _ in range(n_arms)]
        return ps

    def plain_index(self, ps: PlainState, a: int, t: int, lt: float, prm: np.ndarray,
                    table: np.ndarray) -> float:
        n = ps.n[a]
        bonus = math.sqrt(2 * lt / n)
        return (ps.s[a] + ps.counters[a].noise(n)) / n + bonus + prm[1] / n


POLICIES = {"private-ucb": PolicyEntry(
    partial(PrivateUCB, epsilon=1.0, horizon=10**5, gamma=0.1),
    TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS,
    "Mishra & Thakurta 2015, Private-UCB (the baseline of Tossou & Dimitrakakis 2016, Fig. 6)",
    small_instance=(0.7, 0.3), small_horizon=60,
    invalid=({"epsilon": 0.0}, {"gamma": 1.0}, {"horizon": 1}, {"levels": "log"}),
    no_bound_reason=PRIVATE_UCB_NO_BOUND)}
