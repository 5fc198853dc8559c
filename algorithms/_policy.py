"""The shared ``Policy`` implementation of the lockstep index policies (the generic driver).

:class:`LockstepIndexPolicy` gives an index policy its ``simulate`` (runs in lockstep,
numbers pre-drawn per chunk, the numpy reference :func:`._kernels.step_numpy` or the
policy's compiled step) and its ``simulate_per_step`` (a plain loop over runs and steps that
draws every reward and every counter node when it is needed, from node definitions rather
than the incremental bookkeeping: an independent implementation with the same law, used by
the law tests and the benchmark). The loops are here; the math (index, choice and update
rules, on both paths) is the policy's, in its paper's package: this module names no
algorithm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms._counters import LEVELS
from dpaudit.algorithms._lockstep import CHUNK, result, run_chunks
from dpaudit.interfaces import RewardSource
from dpaudit.sim.bandits import SimulationResult, check_simulation, result_from_actions
from dpaudit.validation import InvalidParameterError

__all__ = ["LockstepIndexPolicy", "PlainState"]


class LockstepIndexPolicy:
    """Base of an index policy simulated in lockstep (a public loop with private hooks).

    A subclass sets ``name`` and implements its math, once per path:

    * :meth:`constants`: ``(prm, table, noise_per_step)``, its constants for an instance size;
    * :meth:`round_robin`: how many first steps play the arms in turn (``K``);
    * :meth:`index_numpy` and :meth:`update_numpy`: the numpy lockstep reference's index of
      every run and arm, and the update of its noisy statistics after a pull (with the
      releases it records);
    * :meth:`step_compiled`: one chunk by its compiled kernel, the same numbers;
    * :meth:`plain_start`, :meth:`plain_index`, :meth:`plain_update`: the plain per-step
      reference (one run, one step at a time, noise drawn when first used).
    """

    name = "index policy"

    def constants(self, n_arms: int, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
        """``(prm, table, noise_per_step)`` of the kernel for this instance size."""
        raise NotImplementedError

    #: arrays of the table's size alive at once while :meth:`constants` builds it (a table
    #: made from a temporary of its own size: ``np.log(np.maximum(np.arange(T), 1))``)
    TABLE_PEAK = 3

    def table_bytes(self, n_arms: int, horizon: int) -> int:
        """Bytes the kernel's table takes at most while it is built for ``horizon`` (a table
        of one number per step, as DP-UCB-Bound's ``ln n`` and DP-UCB-Int's release scales,
        is 8 bytes per step; one process builds it once per chunk). Measured on two small
        horizons, so nothing of the real size is allocated."""
        if horizon <= 4096:
            return int(self.TABLE_PEAK * self.constants(n_arms, horizon)[1].nbytes)
        small = self.constants(n_arms, 1024)[1].nbytes
        per_step = (self.constants(n_arms, 2048)[1].nbytes - small) / 1024.0
        return int(self.TABLE_PEAK * (small + max(per_step, 0.0) * (horizon - 1024)))

    def run_bytes(self, n_arms: int, horizon: int) -> int:
        """Bytes one run holds at most in the lockstep simulation: its counters
        (:class:`._kernels.State`: counts, sums and ``LEVELS`` tree nodes per arm) and its
        share of a chunk's pre-drawn numbers (two uniforms and ``noise_per_step`` Laplace
        draws per step of a :data:`._lockstep.CHUNK`, each with a temporary of its size
        while drawn)."""
        nz = int(self.constants(n_arms, min(horizon, 1024))[2])
        return 8 * n_arms * (6 + LEVELS) + 2 * 8 * min(CHUNK, horizon) * (2 + nz)

    def round_robin(self, n_arms: int, prm: np.ndarray) -> int:
        """The steps ``t <= round_robin`` play arm ``(t - 1) mod K`` (each arm once: ``K``)."""
        return n_arms

    def index_numpy(self, st: kern.State, logt: float, prm: np.ndarray,
                    table: np.ndarray) -> np.ndarray:
        """Every run's index of every arm at a step with ``ln t = logt`` (shape ``(runs,
        K)``); the argmax is played, ties broken uniformly."""
        raise NotImplementedError

    def update_numpy(self, st: kern.State, rows: np.ndarray, arm: np.ndarray,
                     pos: np.ndarray, z: np.ndarray, t: int, logt: float, prm: np.ndarray,
                     table: np.ndarray, releases) -> None:
        """After the pulls ``arm`` (``st.n``, ``st.s`` already updated; ``pos`` the arms' new
        counts, ``z`` the step's standard Laplace draws): the policy's noisy statistics,
        and every release to ``releases`` (the recording hook) when it is not ``None``."""

    def step_compiled(self, st: kern.State, ch, gaps: np.ndarray, prm: np.ndarray,
                      table: np.ndarray, regret: np.ndarray, curve: np.ndarray,
                      actions: np.ndarray, record: bool) -> None:
        """One chunk by the policy's compiled kernel (same numbers as
        :func:`._kernels.step_numpy` with its hooks)."""
        raise NotImplementedError

    def plain_start(self, n_arms: int, prm: np.ndarray, rng: np.random.Generator
                    ) -> PlainState:
        """The plain reference's state of one run (counts and sums; counters, releases)."""
        return PlainState(n_arms)

    def plain_index(self, ps: PlainState, a: int, t: int, lt: float, prm: np.ndarray,
                    table: np.ndarray) -> float:
        """Arm ``a``'s index at step ``t`` (``lt = ln t``) in the plain reference."""
        raise NotImplementedError

    def plain_update(self, ps: PlainState, arm: int, t: int, prm: np.ndarray,
                     table: np.ndarray, rng: np.random.Generator) -> None:
        """After the pull of ``arm`` (``ps.n``, ``ps.s`` already updated)."""

    def simulate(self, source: RewardSource, horizon: int, runs: int, *, rng: np.random.Generator,
                 checkpoints: Sequence[int] = (), record: bool = False,
                 backend: str = "auto", releases=None) -> SimulationResult:
        """``runs`` runs in lockstep (``backend``: ``"numpy"`` reference, ``"numba"`` compiled,
        ``"auto"`` compiled when numba is installed); see :mod:`._lockstep`. ``releases``: the
        recording hook (:mod:`dpaudit.sim.releases`), served by the numpy path (same
        numbers as the compiled one), which ``auto`` then uses."""
        if releases is not None and backend == "numba":
            raise InvalidParameterError("releases=... is recorded by the numpy path: use "
                                        "backend='auto' or 'numpy'")
        use_numba = kern.use_compiled(backend) and releases is None
        horizon, runs, _ = check_simulation(source, horizon, runs, rng, checkpoints)
        k = int(source.n_arms)
        prm, table, nz = self.constants(k, horizon)
        st = kern.State(runs, k, LEVELS)
        gaps = np.asarray(source.gaps, dtype=float)

        def step(ch, regret, curve, actions):
            if use_numba:
                rec = actions is not None
                act = actions if rec else np.zeros((1, 1), dtype=np.int8)
                self.step_compiled(st, ch, gaps, prm, table, regret, curve, act, rec)
            else:
                kern.step_numpy(self, st, ch, gaps, prm, table, regret, curve, actions,
                                releases)

        regret, curve, cps, actions = run_chunks(
            source, horizon, runs, rng=rng, checkpoints=checkpoints, record=record,
            noise_per_step=nz, step=step)
        return result(regret, st.n.copy(), cps, curve, actions)

    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> SimulationResult:
        """The plain reference: one run after another, one step at a time, same law; rewards
        through ``source.rewards`` and counter nodes drawn when first used."""
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = int(source.n_arms)
        prm, table, _ = self.constants(k, horizon)
        actions = np.stack([self._run_one(k, horizon, prm, table, source, rng)
                            for _ in range(runs)])
        return result_from_actions(actions, np.asarray(source.gaps, dtype=float), cps,
                                   record=record)


    def _run_one(self, k: int, horizon: int, prm: np.ndarray, table: np.ndarray, source,
                 rng: np.random.Generator) -> np.ndarray:
        ps = self.plain_start(k, prm, rng)
        init = self.round_robin(k, prm)
        arms = np.zeros(horizon, dtype=np.int64)
        for t in range(1, horizon + 1):
            if t <= init:
                arm = (t - 1) % k
            else:
                lt = math.log(t)
                idx = [self.plain_index(ps, a, t, lt, prm, table) for a in range(k)]
                best = max(idx)
                tied = [a for a in range(k) if idx[a] == best]
                arm = tied[int(rng.integers(len(tied)))]
            x = float(source.rewards(t, np.array([arm]), rng)[0])
            ps.n[arm] += 1
            ps.s[arm] += x
            self.plain_update(ps, arm, t, prm, table, rng)
            arms[t - 1] = arm
        return arms


class PlainState:
    """One run of the plain reference: counts ``n`` and sums ``s`` (lists over the arms);
    a policy adds what it keeps (its counters, its released means)."""

    def __init__(self, n_arms: int) -> None:
        self.n = [0] * n_arms
        self.s = [0.0] * n_arms
