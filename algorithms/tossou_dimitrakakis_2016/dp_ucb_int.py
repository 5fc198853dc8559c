"""DP-UCB-Int: Tossou & Dimitrakakis 2016, Algorithm 3 (interval release of the means).

With input privacy rate ``eps`` (not the target privacy), ``f = ceil(1/eps)``: the arms are
played round-robin for ``t <= K f``; afterwards ``argmax_a mu~_a + sqrt(2 ln t / n_a)`` is
played, where ``mu~_a = s_a / n_a + Lap(n_a^(v/2 - 1))`` is refreshed only when ``n_a`` is a
multiple of ``f`` (Lemma 3.1: each release is ``n_a^(-v/2)``-DP). The schedule, noise and the
privacy of the whole run (Theorem 3.4, Corollaries 3.1-3.2) are reconstructed in
:mod:`dpaudit.mechanisms.interval_release`.

Ambiguity exposed as a parameter: ``bonus="recompute"`` (default) recomputes the exploration
bonus at every step with the frozen private mean; ``bonus="frozen"`` freezes the whole index
between releases (one public re-implementation does this). Both are post-processing of the
same releases, so the privacy analysis is the same.

Regret (Thm 3.5): UCB's regret plus an additive constant that depends on ``f``.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms._policy import LockstepIndexPolicy, PlainState
from dpaudit.algorithms.tossou_dimitrakakis_2016._dp_ucb_int_kernel import dp_ucb_int_step
from dpaudit.algorithms.tossou_dimitrakakis_2016.bounds import DP_UCB_INT_NO_BOUND
from dpaudit.algorithms.tossou_dimitrakakis_2016.instances import TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS
from dpaudit.mechanisms.interval_release import (
    C_TIGHT,
    check_v,
    corollary_3_2,
    release_interval,
    release_scale,
)
from dpaudit.sim.bandits import PolicyEntry
from dpaudit.validation import check_choice, check_epsilon

__all__ = ["POLICIES", "DPUCBInt", "policy_factory"]


class DPUCBInt(LockstepIndexPolicy):
    """DP-UCB-Int (Tossou & Dimitrakakis 2016, Alg. 3).

    Parameters
    ----------
    input_epsilon:
        The algorithm's input privacy rate ``eps`` (interval ``f = ceil(1/eps)``); use
        :meth:`for_target` to obtain it from a target ``(epsilon, delta)``.
    v:
        Exponent of the release privacy ``n^(-v/2)``, ``1 < v < 2`` (the paper uses 1.1).
    bonus:
        ``"recompute"`` or ``"frozen"`` (module docstring).
    """

    name = "DP-UCB-Int"
    _every_pull = False  # True only in the deliberately broken variant

    def __init__(self, input_epsilon: float, *, v: float = 1.1,
                 bonus: str = "recompute") -> None:
        self.input_epsilon = check_epsilon(input_epsilon, name="input_epsilon")
        self.v = check_v(v)
        self.bonus = check_choice("bonus", bonus, ("recompute", "frozen"))
        self.interval = release_interval(self.input_epsilon)
        self.target: tuple[float, float] | None = None

    @property
    def release_every(self) -> int:
        """Pulls between two releases of an arm's mean (``f``; 1 in the broken variant)."""
        return 1 if self._every_pull else self.interval

    @classmethod
    def for_target(cls, epsilon: float, delta: float, *, v: float = 1.1,
                   c: float = C_TIGHT, **kwargs) -> DPUCBInt:
        """The instance whose Corollary 3.1 bound is exactly ``(epsilon, delta)`` (Cor. 3.2)."""
        alg = cls(corollary_3_2(epsilon, delta, v=v, c=c), v=v, **kwargs)
        alg.target = (float(epsilon), float(delta))
        return alg

    def constants(self, n_arms: int, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
        scales = release_scale(np.maximum(np.arange(horizon + 2), 1), self.v)
        prm = np.array([float(self.interval), float(self.release_every),
                        1.0 if self.bonus == "frozen" else 0.0])
        return prm, scales, 1

    def round_robin(self, n_arms: int, prm: np.ndarray) -> int:
        """``K f`` (``f = prm[0]``): each arm ``f`` times in turn."""
        return n_arms * int(prm[0])

    def index_numpy(self, st: kern.State, logt: float, prm: np.ndarray,
                    table: np.ndarray) -> np.ndarray:
        """``mu~ + sqrt(2 ln t / n)`` (``"recompute"``) or the index frozen at the last
        release (``"frozen"``, ``prm[2] > 0``)."""
        n = st.n.astype(float)
        bonus = np.sqrt(2.0 * logt / n)
        return st.fidx if prm[2] > 0 else st.pm + bonus

    def update_numpy(self, st: kern.State, rows: np.ndarray, arm: np.ndarray,
                     pos: np.ndarray, z: np.ndarray, t: int, logt: float, prm: np.ndarray,
                     table: np.ndarray, releases) -> None:
        """When the pulled arm's count is a multiple of ``prm[1]``: ``mu~ = s/n + Lap(
        table[n])`` is released (``"interval mean"``) and the frozen index set with it."""
        rel = pos % int(prm[1]) == 0
        if not rel.any():  # no run releases at this step (most steps): nothing changes
            return
        fresh = st.s[rows, arm] / pos + z[:, 0] * table[pos]
        st.pm[rows, arm] = np.where(rel, fresh, st.pm[rows, arm])
        frozen = fresh + np.sqrt(2.0 * logt / pos)
        st.fidx[rows, arm] = np.where(rel, frozen, st.fidx[rows, arm])
        if releases is not None:
            releases.record(fresh, step=t, arm=arm, active=rel, label="interval mean")

    def step_compiled(self, st: kern.State, ch, gaps: np.ndarray, prm: np.ndarray,
                      table: np.ndarray, regret: np.ndarray, curve: np.ndarray,
                      actions: np.ndarray, record: bool) -> None:
        dp_ucb_int_step(st, ch, gaps, prm, table, regret, curve, actions, record)

    def plain_start(self, n_arms: int, prm: np.ndarray, rng: np.random.Generator
                    ) -> PlainState:
        ps = PlainState(n_arms)
        ps.pm, ps.fidx = [0.0] * n_arms, [0.0] * n_arms
        return ps

    def plain_index(self, ps: PlainState, a: int, t: int, lt: float, prm: np.ndarray,
                    table: np.ndarray) -> float:
        bonus = math.sqrt(2 * lt / ps.n[a])
        return ps.fidx[a] if prm[2] > 0 else ps.pm[a] + bonus

    def plain_update(self, ps: PlainState, arm: int, t: int, prm: np.ndarray,
                     table: np.ndarray, rng: np.random.Generator) -> None:
        n = ps.n[arm]
        if n % int(prm[1]) == 0:
            ps.pm[arm] = ps.s[arm] / n + float(rng.laplace(0.0, table[n]))
            ps.fidx[arm] = ps.pm[arm] + math.sqrt(2 * math.log(t) / n)


def policy_factory(cls: type[DPUCBInt] = DPUCBInt):
    """``factory(**overrides)`` for the policy registry: by default the instance for the target
    ``(1, 1e-5)`` (Cor. 3.2; the paper's delta' is stripped, 1e-5 is our choice), or
    ``input_epsilon`` directly."""
    def make(*, epsilon: float = 1.0, delta: float = 1e-5, input_epsilon: float | None = None,
             v: float = 1.1, bonus: str = "recompute") -> DPUCBInt:
        if input_epsilon is not None:
            return cls(input_epsilon, v=v, bonus=bonus)
        return cls.for_target(epsilon, delta, v=v, bonus=bonus)
    return make


POLICIES = {"dp-ucb-int": PolicyEntry(
    policy_factory(), TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS,
    "Tossou & Dimitrakakis 2016, Algorithm 3 (DP-UCB-Int)",
    small_instance=(0.7, 0.3), small_horizon=60, small_overrides={"input_epsilon": 0.25},
    invalid=({"epsilon": -1.0}, {"delta": 0.0}, {"v": 2.5}, {"bonus": "never"},
             {"input_epsilon": 0.0}, {"v": True}),
    no_bound_reason=DP_UCB_INT_NO_BOUND)}
