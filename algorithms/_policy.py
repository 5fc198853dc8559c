"""The shared ``Policy`` implementation of the UCB-family index policies.

:class:`LockstepIndexPolicy` gives a policy of :mod:`._kernels` its ``simulate`` (runs in
lockstep, numbers pre-drawn per chunk, numpy or compiled step) and its ``simulate_per_step``
(a plain loop over runs and steps that draws every reward and every counter node when it is
needed, from node definitions rather than the incremental bookkeeping: an independent
implementation with the same law, used by the law tests and the benchmark).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms._counters import HYBRID, LEVELS, TREE, ExplicitCounter
from dpaudit.algorithms._lockstep import result, run_chunks
from dpaudit.sim.bandits import SimulationResult, check_simulation, result_from_actions

__all__ = ["LockstepIndexPolicy"]


class LockstepIndexPolicy:
    """Base of UCB, DP-UCB-Bound, DP-UCB, Private-UCB and DP-UCB-Int (see :mod:`._kernels`).

    Subclasses set ``name`` and ``kind`` and implement :meth:`constants`.
    """

    name = "index policy"
    kind = kern.UCB

    def constants(self, n_arms: int, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
        """``(prm, table, noise_per_step)`` of the kernel for this instance size."""
        return np.zeros(3), np.zeros(horizon + 2), 0

    def simulate(self, source: object, horizon: int, runs: int, *, rng: np.random.Generator,
                 checkpoints: Sequence[int] = (), record: bool = False,
                 backend: str = "auto", releases=None) -> SimulationResult:
        """``runs`` runs in lockstep (``backend``: ``"numpy"`` reference, ``"numba"`` compiled,
        ``"auto"`` compiled when numba is installed); see :mod:`._lockstep`. ``releases``: the
        recording hook (:mod:`dpaudit.sim.releases`), served by the numpy path (same
        numbers as the compiled one), which ``auto`` then uses."""
        if releases is not None and backend == "numba":
            from dpaudit.validation import InvalidParameterError
            raise InvalidParameterError("releases=... is recorded by the numpy path: use "
                                        "backend='auto' or 'numpy'")
        use_numba = kern.use_compiled(backend) and releases is None
        horizon, runs, _ = check_simulation(source, horizon, runs, rng, checkpoints)
        k = int(source.n_arms)
        prm, table, nz = self.constants(k, horizon)
        st = kern.State(runs, k, LEVELS)
        gaps = np.asarray(source.gaps, dtype=float)
        stepper = kern.step_numba if use_numba else kern.step_numpy

        def step(ch, regret, curve, actions):
            if releases is None:
                stepper(self.kind, st, ch, gaps, prm, table, regret, curve, actions)
            else:
                kern.step_numpy(self.kind, st, ch, gaps, prm, table, regret, curve, actions,
                                releases)

        regret, curve, cps, actions = run_chunks(
            source, horizon, runs, rng=rng, checkpoints=checkpoints, record=record,
            noise_per_step=nz, step=step)
        return result(regret, st.n.copy(), cps, curve, actions)

    def simulate_per_step(self, source: object, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> SimulationResult:
        """The plain reference: one run after another, one step at a time, same law; rewards
        through ``source.rewards`` and counter nodes drawn when first used."""
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = int(source.n_arms)
        prm, table, _ = self.constants(k, horizon)
        actions = np.stack([_run_one(self.kind, k, horizon, prm, table, source, rng)
                            for _ in range(runs)])
        return result_from_actions(actions, np.asarray(source.gaps, dtype=float), cps,
                                   record=record)


def _run_one(kind: int, k: int, horizon: int, prm: np.ndarray, table: np.ndarray,
             source, rng: np.random.Generator) -> np.ndarray:
    n = [0] * k
    s = [0.0] * k
    pm = [0.0] * k
    fidx = [0.0] * k
    counters = []
    if kind in (kern.BOUND, kern.DPUCB):
        counters = [ExplicitCounter(HYBRID, prm[0], prm[1], rng) for _ in range(k)]
    elif kind == kern.PRIVATE:
        counters = [ExplicitCounter(TREE, prm[0], 0.0, rng) for _ in range(k)]
    init = k * int(prm[0]) if kind == kern.INT else k
    arms = np.zeros(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        if t <= init:
            arm = (t - 1) % k
        else:
            lt = math.log(t)
            idx = []
            for a in range(k):
                bonus = math.sqrt(2 * lt / n[a])
                if kind == kern.UCB:
                    idx.append(s[a] / n[a] + math.sqrt(prm[0] * lt / n[a]))
                elif kind == kern.INT:
                    idx.append(fidx[a] if prm[2] > 0 else pm[a] + bonus)
                else:
                    held = t - 1 if kind == kern.DPUCB else n[a]
                    value = (s[a] + counters[a].noise(held)) / n[a] + bonus
                    if kind == kern.BOUND:
                        factor = 1.0 if n[a] & (n[a] - 1) == 0 else math.log(n[a]) + 1.0
                        value += prm[2] * math.log(4.0 * t ** 4) * factor / n[a]
                    elif kind == kern.PRIVATE:
                        value += prm[1] / n[a]
                    idx.append(value)
            best = max(idx)
            tied = [a for a in range(k) if idx[a] == best]
            arm = tied[int(rng.integers(len(tied)))]
        x = float(source.rewards(t, np.array([arm]), rng)[0])
        n[arm] += 1
        s[arm] += x
        if kind == kern.INT and n[arm] % int(prm[1]) == 0:
            pm[arm] = s[arm] / n[arm] + float(rng.laplace(0.0, table[n[arm]]))
            fidx[arm] = pm[arm] + math.sqrt(2 * math.log(t) / n[arm])
        arms[t - 1] = arm
    return arms
