"""DP-UCB-Bound and DP-UCB: Tossou & Dimitrakakis 2016, Algorithms 1 and 2.

Both keep one hybrid continual counter (Chan, Shi & Song 2011; the paper's Sec. 2.3) per arm
and play ``argmax_a`` of an index built on the private mean ``S~_a / n_a``; each arm is played
once first (Alg. 1, ``t <= K``). See :mod:`._counters` for the counter (``eps/2`` to the
logarithmic part, ``eps/2`` to the per-block binary trees, node scale ``k/(eps/2)`` in block
``k``); the numpy reference of each index and counter update is here, the compiled kernels in
:mod:`._dp_ucb_kernels`, both run by the generic driver (:mod:`.._policy`).

* **DP-UCB-Bound** (Alg. 1): the arm's counter receives its own rewards only, so its noise
  grows with ``n_a``; the index adds the counter's error bound (the paper's Eq. 2.2)::

      I_a = S~_a / n_a + sqrt(2 ln t / n_a) + nu(t, n_a) / n_a,
      nu(t, n) = (sqrt(8)/eps) ln(4 t^4) (ln n + 1)      (no (ln n + 1) when n is 2^k)

  Reconstruction: Eq. 2.2 is stripped in the extracted text; the form above is the one two
  independent public re-implementations (Python and MATLAB) agree on (REFERENCE 4.2): the
  error bound ``|S~_n - S_n| <= (sqrt(8)/eps) ln(4/gamma) (ln n + 1)`` with probability
  ``1 - gamma`` at ``gamma = t^-4`` (the proof of Thm 3.2 chooses the error probability
  ``t^-4``); at ``n = 2^k`` only the logarithmic mechanism's noise is present. The constant
  ``sqrt(8)`` is a parameter.
* **DP-UCB** (Alg. 2): every arm's counter receives an element at every step (the reward for
  the played arm, 0 for the others; ``n_b`` of the others is not incremented), so every
  arm's private sum carries the noise of a counter of length ``t`` and the plain UCB index is
  used: ``I_a = S~_a / n_a + sqrt(2 ln t / n_a)``.

Privacy (Thm 3.1): a changed reward enters one counter (the one of the arm played at that
step; the 0s inserted elsewhere do not depend on the reward), the hybrid counter is ``eps``-DP
for every stream length, and the actions are post-processing of the counters' outputs.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms._counters import HYBRID, ExplicitCounter, increment_all, increment_selected
from dpaudit.algorithms._policy import LockstepIndexPolicy, PlainState
from dpaudit.algorithms.tossou_dimitrakakis_2016._dp_ucb_kernels import (
    LN4,
    dp_ucb_bound_step,
    dp_ucb_step,
)
from dpaudit.algorithms.tossou_dimitrakakis_2016.bounds import (
    dp_ucb_bound_regret_bound,
    dp_ucb_regret_bound,
)
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import DPUCBInt
from dpaudit.algorithms.tossou_dimitrakakis_2016.instances import TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS
from dpaudit.sim.bandits import PolicyEntry
from dpaudit.validation import check_epsilon, check_int, check_real

__all__ = ["DPUCB", "DPUCBBound", "DPUCBInt", "POLICIES"]


class _Hybrid(LockstepIndexPolicy):
    counter_kind = HYBRID

    def __init__(self, epsilon: float, *, horizon: int | None = None,
                 split: float = 0.5) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.horizon = None if horizon is None else check_int("horizon", horizon, low=1)
        self.split = check_real("split", split, low=0.0, high=1.0, low_open=True,
                                high_open=True)
        self.eps_log = self.epsilon * self.split  # proof: Chan-Shi-Song hybrid, eps split
        self.eps_bin = self.epsilon * (1.0 - self.split)

    def plain_start(self, n_arms: int, prm: np.ndarray, rng: np.random.Generator
                    ) -> PlainState:
        ps = PlainState(n_arms)
        ps.counters = [ExplicitCounter(HYBRID, prm[0], prm[1], rng) for _ in range(n_arms)]
        return ps


class DPUCBBound(_Hybrid):
    """DP-UCB-Bound (Tossou & Dimitrakakis 2016, Alg. 1); ``epsilon``-DP by Thm 3.1.

    Parameters
    ----------
    epsilon:
        Privacy of the action sequence (Definition 2.1), > 0.
    horizon:
        Optional; the hybrid counter is anytime (the paper's point), so ``horizon`` is only
        recorded (audits read it). Any simulation horizon is accepted.
    split:
        Share of ``epsilon`` given to the logarithmic part of the hybrid counter (1/2).
    bound_constant:
        The constant of the counter error bound ``nu`` (``sqrt(8)``, module docstring).
    """

    name = "DP-UCB-Bound"

    def __init__(self, epsilon: float, *, horizon: int | None = None, split: float = 0.5,
                 bound_constant: float = math.sqrt(8.0)) -> None:
        super().__init__(epsilon, horizon=horizon, split=split)
        self.bound_constant = check_real("bound_constant", bound_constant, low=0.0)

    def constants(self, n_arms: int, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
        table = np.log(np.maximum(np.arange(horizon + 2, dtype=float), 1.0))  # ln n
        prm = np.array([self.eps_log, self.eps_bin, self.bound_constant / self.epsilon])
        return prm, table, 1

    def index_numpy(self, st: kern.State, logt: float, prm: np.ndarray,
                    table: np.ndarray) -> np.ndarray:
        """``(s + N)/n + sqrt(2 ln t / n) + nu(t, n)/n``, ``nu = c/eps (ln 4 + 4 ln t) (ln n +
        1)`` (no ``ln n + 1`` at a power of two; ``prm[2] = c/eps``, ``table[n] = ln n``)."""
        n = st.n.astype(float)
        bonus = np.sqrt(2.0 * logt / n)
        mean = (st.s + st.lsum + st.tsum) / n
        lt4 = LN4 + 4.0 * logt
        pow2 = (st.n & (st.n - 1)) == 0
        nu = np.where(pow2, prm[2] * lt4, prm[2] * lt4 * (table[st.n] + 1.0))
        return mean + bonus + nu / n

    def update_numpy(self, st: kern.State, rows: np.ndarray, arm: np.ndarray,
                     pos: np.ndarray, z: np.ndarray, t: int, logt: float, prm: np.ndarray,
                     table: np.ndarray, releases) -> None:
        """The pulled arm's hybrid counter takes its reward (release ``"counter"``)."""
        increment_selected(st.nodes, st.tsum, st.lsum, rows, arm, pos, z[:, 0], HYBRID,
                           prm[0], prm[1])
        if releases is not None:
            releases.record(st.s[rows, arm] + st.lsum[rows, arm] + st.tsum[rows, arm],
                            step=t, arm=arm, label="counter")

    def step_compiled(self, st: kern.State, ch, gaps: np.ndarray, prm: np.ndarray,
                      table: np.ndarray, regret: np.ndarray, curve: np.ndarray,
                      actions: np.ndarray, record: bool) -> None:
        dp_ucb_bound_step(st, ch, gaps, prm, table, regret, curve, actions, record)

    def plain_index(self, ps: PlainState, a: int, t: int, lt: float, prm: np.ndarray,
                    table: np.ndarray) -> float:
        n = ps.n[a]
        bonus = math.sqrt(2 * lt / n)
        value = (ps.s[a] + ps.counters[a].noise(n)) / n + bonus
        factor = 1.0 if n & (n - 1) == 0 else math.log(n) + 1.0
        return value + prm[2] * math.log(4.0 * t ** 4) * factor / n


class DPUCB(_Hybrid):
    """DP-UCB (Tossou & Dimitrakakis 2016, Alg. 2); ``epsilon``-DP by Thm 3.1.

    Parameters as :class:`DPUCBBound` (without ``bound_constant``: no widening).
    """

    name = "DP-UCB"

    def constants(self, n_arms: int, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
        # no table: the DP-UCB index reads none (a (T + 2) table grew memory with the horizon)
        return np.array([self.eps_log, self.eps_bin, 0.0]), np.zeros(1), n_arms

    def index_numpy(self, st: kern.State, logt: float, prm: np.ndarray,
                    table: np.ndarray) -> np.ndarray:
        """``(s + N)/n + sqrt(2 ln t / n)``: the plain UCB index on the private sums."""
        n = st.n.astype(float)
        bonus = np.sqrt(2.0 * logt / n)
        mean = (st.s + st.lsum + st.tsum) / n
        return mean + bonus

    def update_numpy(self, st: kern.State, rows: np.ndarray, arm: np.ndarray,
                     pos: np.ndarray, z: np.ndarray, t: int, logt: float, prm: np.ndarray,
                     table: np.ndarray, releases) -> None:
        """Every arm's counter takes element ``t`` (the reward for the pulled arm, 0 for the
        others; release ``"counters"``, ``arm`` the arm whose reward it was)."""
        increment_all(st.nodes, st.tsum, st.lsum, t, z, HYBRID, prm[0], prm[1])
        if releases is not None:
            releases.record(st.s + st.lsum + st.tsum, step=t, arm=arm, label="counters")

    def step_compiled(self, st: kern.State, ch, gaps: np.ndarray, prm: np.ndarray,
                      table: np.ndarray, regret: np.ndarray, curve: np.ndarray,
                      actions: np.ndarray, record: bool) -> None:
        dp_ucb_step(st, ch, gaps, prm, regret, curve, actions, record)

    def plain_index(self, ps: PlainState, a: int, t: int, lt: float, prm: np.ndarray,
                    table: np.ndarray) -> float:
        n = ps.n[a]
        bonus = math.sqrt(2 * lt / n)
        return (ps.s[a] + ps.counters[a].noise(t - 1)) / n + bonus


_INVALID = ({"epsilon": -1.0}, {"epsilon": float("nan")}, {"epsilon": True},
            {"split": 1.0}, {"horizon": 0})

POLICIES = {
    "dp-ucb-bound": PolicyEntry(
        partial(DPUCBBound, epsilon=1.0), TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS,
        "Tossou & Dimitrakakis 2016, Algorithm 1 (DP-UCB-Bound)", small_instance=(0.7, 0.3),
        small_horizon=60, invalid=(*_INVALID, {"bound_constant": -1.0}),
        bound=dp_ucb_bound_regret_bound),
    "dp-ucb": PolicyEntry(
        partial(DPUCB, epsilon=1.0), TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS,
        "Tossou & Dimitrakakis 2016, Algorithm 2 (DP-UCB)", small_instance=(0.7, 0.3),
        small_horizon=60, invalid=_INVALID, bound=dp_ucb_regret_bound),
}
