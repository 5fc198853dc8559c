"""Non-private baselines every private-bandit figure compares with: UCB, KL-UCB, Thompson.

* :class:`UCB`: UCB1 of Auer, Cesa-Bianchi & Fischer 2002, with the index
  ``mu^_a + sqrt(2 ln t / n_a)`` exactly as Tossou & Dimitrakakis 2016 (Sec. 3) write it
  (``t`` the current 1-based step); each arm once first; ties uniformly at random.
* :class:`KLUCB`: Garivier & Cappe 2011, ``max{q : n_a kl(mu^_a, q) <= ln t + c ln ln t}``
  with ``c = 0`` by default (their experiments; ``c = 3`` in their theorem).
* :class:`Thompson`: Beta-Bernoulli Thompson sampling with a uniform ``Beta(1, 1)`` prior
  (Thompson 1933; Agrawal & Goyal 2012): sample ``theta_a ~ Beta(1 + s_a, 1 + n_a - s_a)``
  and pull the argmax.

UCB runs through the generic lockstep driver (:mod:`.._policy`) with its index here and its
compiled kernel in :mod:`._ucb_kernel`; KL-UCB and Thompson sampling run compiled kernels
(:mod:`._kl_ucb_kernel`, :mod:`._thompson_kernel`: the root find or the Beta draws per arm in
scalar compiled code, driven by :mod:`.._step_kernels`), keep their numpy lockstep loops as
``backend="numpy"`` (the same law) and have plain per-step references.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms import _step_kernels as sk
from dpaudit.algorithms._kl import kl_ucb_index
from dpaudit.algorithms._lockstep import result, run_chunks, tie_break
from dpaudit.algorithms._policy import LockstepIndexPolicy, PlainState
from dpaudit.algorithms.baselines._kl_ucb_kernel import kl_ucb_kernel
from dpaudit.algorithms.baselines._thompson_kernel import thompson_kernel
from dpaudit.algorithms.baselines._ucb_kernel import ucb_step
from dpaudit.algorithms.baselines.bounds import (
    KL_UCB_NO_BOUND,
    THOMPSON_NO_BOUND,
    ucb1_regret_bound,
)
from dpaudit.algorithms.baselines.instances import TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS
from dpaudit.interfaces import RewardSource
from dpaudit.sim.bandits import PolicyEntry, SimulationResult, check_simulation, result_from_actions
from dpaudit.validation import check_real

__all__ = ["KLUCB", "UCB", "Thompson"]


class UCB(LockstepIndexPolicy):
    """UCB1 (Auer et al. 2002) as in Tossou & Dimitrakakis 2016, Sec. 3: no privacy.

    Parameters
    ----------
    exploration:
        ``c`` in the bonus ``sqrt(c ln t / n_a)`` (2, UCB1's value).
    """

    name = "UCB"

    def __init__(self, *, exploration: float = 2.0) -> None:
        self.exploration = check_real("exploration", exploration, low=0.0, low_open=True)

    def constants(self, n_arms: int, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
        return np.array([self.exploration, 0.0, 0.0]), np.zeros(1), 0

    def index_numpy(self, st: kern.State, logt: float, prm: np.ndarray,
                    table: np.ndarray) -> np.ndarray:
        """``s/n + sqrt(c ln t / n)`` (``c = prm[0]``) for every run and arm."""
        n = st.n.astype(float)
        return st.s / n + np.sqrt(prm[0] * logt / n)

    def step_compiled(self, st: kern.State, ch, gaps: np.ndarray, prm: np.ndarray,
                      table: np.ndarray, regret: np.ndarray, curve: np.ndarray,
                      actions: np.ndarray, record: bool) -> None:
        """:func:`._ucb_kernel.ucb_step` (screened, the reference's decisions)."""
        ucb_step(st, ch, gaps, prm, regret, curve, actions, record)

    def plain_index(self, ps: PlainState, a: int, t: int, lt: float, prm: np.ndarray,
                    table: np.ndarray) -> float:
        return ps.s[a] / ps.n[a] + math.sqrt(prm[0] * lt / ps.n[a])


class _SimplePolicy:
    """Lockstep and per-step simulation for policies whose step is ``choose(n, s, t, rng)``."""

    name = "policy"

    def _choose(self, n: np.ndarray, s: np.ndarray, t: int, v: np.ndarray,
                rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def kernel(self) -> tuple:
        """``(compiled kernel, its parameters)`` (see :mod:`._step_kernels`)."""
        raise NotImplementedError

    def simulate(self, source: RewardSource, horizon: int, runs: int, *, rng: np.random.Generator,
                 checkpoints: Sequence[int] = (), record: bool = False,
                 backend: str = "auto") -> SimulationResult:
        """``runs`` runs: the compiled kernel (``backend`` ``"auto"``/``"numba"``) or the numpy
        lockstep loop, each step vectorised over runs (``"numpy"``); the same law."""
        compiled = kern.use_compiled(backend)
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        if compiled:
            kernel, params = self.kernel()
            return sk.run_kernel(kernel, source, horizon, runs, rng=rng, cps=cps,
                                 record=record, params=params)[0]
        k = int(source.n_arms)
        gaps = np.asarray(source.gaps, dtype=float)
        n = np.zeros((runs, k))
        s = np.zeros_like(n)
        rows = np.arange(n.shape[0])

        def step(ch, regret, curve, actions):
            for c in range(ch.u.shape[1]):
                t = ch.t0 + c
                arm = np.full(n.shape[0], t - 1) if t <= k else \
                    self._choose(n, s, t, ch.v[:, c], rng)
                p = ch.prob[c, arm]
                x = (ch.u[:, c] < p).astype(float) if ch.drawn[c] else p
                n[rows, arm] += 1
                s[rows, arm] += x
                regret += gaps[arm]
                if ch.cp_col[c] >= 0:
                    curve[:, ch.cp_col[c]] = regret
                if actions is not None:
                    actions[:, t - 1] = arm

        regret, curve, cps, actions = run_chunks(
            source, horizon, runs, rng=rng, checkpoints=checkpoints, record=record,
            noise_per_step=0, step=step)
        return result(regret, n.astype(np.int64), cps, curve, actions)

    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> SimulationResult:
        """Plain reference: one run at a time, one step at a time (same law)."""
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = int(source.n_arms)
        actions = np.zeros((runs, horizon), dtype=np.int64)
        for r in range(runs):
            n, s = np.zeros((1, k)), np.zeros((1, k))
            for t in range(1, horizon + 1):
                arm = t - 1 if t <= k else int(self._choose(n, s, t, rng.random(1), rng)[0])
                n[0, arm] += 1
                s[0, arm] += float(source.rewards(t, np.array([arm]), rng)[0])
                actions[r, t - 1] = arm
        return result_from_actions(actions, np.asarray(source.gaps, dtype=float), cps,
                                   record=record)


class KLUCB(_SimplePolicy):
    """KL-UCB for Bernoulli rewards (Garivier & Cappe 2011); no privacy.

    Parameters
    ----------
    c:
        Exploration constant of the ``c ln ln t`` term (default 0, as in their experiments).
    """

    name = "KL-UCB"

    def __init__(self, *, c: float = 0.0) -> None:
        self.c = check_real("c", c, low=0.0)

    def kernel(self) -> tuple:
        return kl_ucb_kernel, (float(self.c),)

    def _choose(self, n, s, t, v, rng):
        lt = math.log(t)
        level = lt + (self.c * math.log(lt) if lt > 1.0 else 0.0)
        return tie_break(kl_ucb_index(s / n, level / n), v)


class Thompson(_SimplePolicy):
    """Beta-Bernoulli Thompson sampling with a ``Beta(prior_a, prior_b)`` prior; no privacy.

    Rewards outside ``{0, 1}`` never occur here (Bernoulli draws), so the conjugate update is
    exact.
    """

    name = "Thompson"

    def __init__(self, *, prior_a: float = 1.0, prior_b: float = 1.0) -> None:
        self.prior_a = check_real("prior_a", prior_a, low=0.0, low_open=True)
        self.prior_b = check_real("prior_b", prior_b, low=0.0, low_open=True)

    def kernel(self) -> tuple:
        return thompson_kernel, (float(self.prior_a), float(self.prior_b))

    def _choose(self, n, s, t, v, rng):
        theta = rng.beta(self.prior_a + s, self.prior_b + n - s)
        return np.argmax(theta, axis=1)


def _entry(factory, paper: str, invalid: tuple, **bound) -> PolicyEntry:
    return PolicyEntry(factory, TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS, paper,
                       small_instance=(0.7, 0.3), small_horizon=60, invalid=invalid, **bound)


POLICIES = {
    "ucb": _entry(UCB, "Auer, Cesa-Bianchi & Fischer 2002, UCB1",
                  ({"exploration": 0.0}, {"exploration": float("inf")}),
                  bound=ucb1_regret_bound),
    "kl-ucb": _entry(KLUCB, "Garivier & Cappe 2011, KL-UCB", ({"c": -1.0}, {"c": "3"}),
                     no_bound_reason=KL_UCB_NO_BOUND),
    "thompson": _entry(Thompson, "Thompson 1933; Agrawal & Goyal 2012, Beta-Bernoulli",
                       ({"prior_a": 0.0}, {"prior_b": -1.0}),
                       no_bound_reason=THOMPSON_NO_BOUND),
}
