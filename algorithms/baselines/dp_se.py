"""DP-SE: differentially private Successive Elimination (Sajed & Sheffet, ICML 2019).

T. Sajed and O. Sheffet, "An Optimal Private Stochastic-MAB Algorithm Based on an Optimal
Private Stopping Rule", ICML 2019 (PMLR 97:5579-5588), the private Successive Elimination
algorithm (DP-SE); the baseline of Azize & Basu 2022's Fig. 2 (with ``beta = 1/T``) and of
Wang & Zhu 2023's experiments. Formulas as two public re-implementations agree on them (the
papers that use DP-SE as a baseline only describe it in prose):

Epoch ``e = 1, 2, ...`` with ``Delta_e = 2^-e`` and surviving set ``S``:

* every arm of ``S`` is pulled ``R_e`` times, where
  ``R_e = max{32 ln(8|S|e^2/beta) / Delta_e^2, 8 ln(4|S|e^2/beta) / (eps Delta_e)} + 1``
  (rounded up);
* only this epoch's rewards are used: ``mu~_a = mu^_a(e) + Lap(1/(eps R_e))``;
* ``h_e = sqrt(ln(8|S|e^2/beta) / (2 R_e))``, ``c_e = ln(4|S|e^2/beta) / (eps R_e)``;
  arm ``a`` is eliminated if ``max_b mu~_b - mu~_a > 2 (h_e + c_e)``;
* once one arm survives it is played to the horizon.

Choices: arms of ``S`` are pulled in blocks in index order (the order does not affect the law
of the elimination decisions); the last epoch is truncated at ``T``; ``beta`` defaults to
``1/T`` as in Azize & Basu 2022 (DP-SE is not anytime).

Privacy: a changed reward is in one arm's block of one epoch, so it moves one released mean
by at most ``1/R_e``; ``Lap(1/(eps R_e))`` makes that release eps-DP and everything else is
post-processing (the same one-episode-touched argument as Azize & Basu 2022, Thm 6).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from dpaudit.algorithms.baselines.bounds import DP_SE_NO_BOUND
from dpaudit.algorithms.baselines.instances import AZIZE_BASU_FIG2
from dpaudit.interfaces import RewardSource
from dpaudit.sim.bandits import (
    PolicyEntry,
    RegretTracker,
    SimulationResult,
    check_simulation,
    result_from_actions,
)
from dpaudit.sim.releases import ReleaseRecorder
from dpaudit.validation import check_epsilon, check_real

__all__ = ["DPSE", "POLICIES"]


class DPSE:
    """DP-SE of Sajed & Sheffet (2019); see the module docstring.

    Parameters
    ----------
    epsilon:
        Privacy budget (epsilon-global DP), > 0.
    beta:
        Failure probability of the confidence bounds; ``None`` means ``1/T`` (Azize & Basu
        2022, Sec. 5).
    """

    name = "DP-SE"

    def __init__(self, epsilon: float, *, beta: float | None = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.beta = None if beta is None else check_real(
            "beta", beta, low=0.0, high=1.0, low_open=True, high_open=True)

    #: seconds one arm's epoch block costs per run and tracked checkpoint on one worker, a
    #: lower bound for ``simulate``'s estimate: a quarter of the least measured (0.038 us of
    #: CPU time, five arms, T = 64 to 10^7, 1000 to 20000 runs)
    BLOCK_SECONDS = 1e-8

    def lockstep_work(self, n_arms: int, horizon: int) -> tuple[int, float]:
        """A lower bound on the blocks of one run (the first epoch: one per arm) and
        :data:`BLOCK_SECONDS` (elimination may leave one arm after it, played to the end in
        one block)."""
        return n_arms, self.BLOCK_SECONDS

    def _beta(self, horizon: int) -> float:
        return 1.0 / horizon if self.beta is None else self.beta

    def epoch_length(self, e: int, n_alive: np.ndarray, beta: float) -> np.ndarray:
        """``R_e`` for epoch ``e`` with ``n_alive`` surviving arms (vectorised)."""
        d = 2.0 ** (-e)
        l8 = np.log(8.0 * n_alive * e * e / beta)
        l4 = np.log(4.0 * n_alive * e * e / beta)
        return np.ceil(np.maximum(32.0 * l8 / d**2, 8.0 * l4 / (self.epsilon * d)) + 1.0)

    def epoch_noise(self, rng: np.random.Generator, runs: int, k: int) -> np.ndarray:
        """Standard Laplace draws of one epoch's releases: one per run and arm."""
        return rng.laplace(0.0, 1.0, (runs, k))  # proof: an independent draw per release

    def release_scale(self, r_e: np.ndarray) -> np.ndarray:
        """Laplace scale of an epoch's private mean of ``R_e`` rewards: ``1/(eps R_e)``."""
        return 1.0 / (self.epsilon * r_e)  # proof: sensitivity 1/R_e of one epoch's mean

    def threshold(self, e: int, n_alive: np.ndarray, r_e: np.ndarray, beta: float) -> np.ndarray:
        """Elimination threshold ``2 (h_e + c_e)``."""
        h = np.sqrt(np.log(8.0 * n_alive * e * e / beta) / (2.0 * r_e))
        c = np.log(4.0 * n_alive * e * e / beta) / (self.epsilon * r_e)
        return 2.0 * (h + c)

    def simulate(self, source: RewardSource, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints: Sequence[int] = (),
                 record: bool = False, releases: ReleaseRecorder | None = None
                 ) -> SimulationResult:
        """All runs in lockstep; one reward-sum draw per arm, epoch and run.

        ``decisions[r, a]`` is the epoch after which arm ``a`` was eliminated (0: never); with
        the horizon it determines the whole action sequence. ``extra["epochs"]`` counts the
        completed epochs. ``releases`` (the recording hook, :mod:`dpaudit.sim.releases`)
        receives each completed epoch's private means of every arm (``(runs, K)``, label
        ``"epoch means"``; an epoch cut by the horizon releases nothing: its means are never
        used).
        """
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = source.n_arms
        beta = self._beta(horizon)
        track = RegretTracker(runs, source.gaps, cps, horizon=horizon, record=record)
        alive = np.ones((runs, k), dtype=bool)
        t = np.zeros(runs, dtype=np.int64)  # steps played so far
        eliminated = np.zeros((runs, k), dtype=np.int64)
        epochs = np.zeros(runs, dtype=np.int64)
        e = 0
        while (t < horizon).any():
            e += 1
            n_alive = alive.sum(axis=1)
            single = n_alive == 1
            last = np.argmax(alive, axis=1)
            rest = np.where(single, horizon - t, 0)  # one survivor: play it to the end
            track.add(last, t + 1, rest)
            t += rest
            r_e = self.epoch_length(e, np.maximum(n_alive, 1), beta)
            means = np.zeros((runs, k))
            complete = (t < horizon) & ~single
            for a in range(k):
                play = alive[:, a] & (t < horizon) & ~single
                length = np.where(play, np.minimum(r_e, horizon - t), 0).astype(np.int64)
                arm = np.full(runs, a)
                s = source.block_sums(arm, t + 1, length, rng)
                track.add(arm, t + 1, length)
                complete &= ~play | (length == r_e)
                means[:, a] = s / np.maximum(length, 1)
                t += length
            noisy = means + self.epoch_noise(rng, runs, k) * self.release_scale(r_e)[:, None]
            # proof: one epoch's rewards per release
            if releases is not None:
                releases.record(noisy, step=t, active=complete, label="epoch means")
            best = np.max(np.where(alive, noisy, -np.inf), axis=1, keepdims=True)
            gap = np.where(alive, best - np.where(alive, noisy, 0.0), -np.inf)
            thr = self.threshold(e, np.maximum(n_alive, 1), r_e, beta)
            drop = alive & (gap > thr[:, None]) & complete[:, None]
            alive &= ~drop
            eliminated[drop] = e
            epochs += complete
        return track.result(decisions=eliminated, extra={"epochs": epochs})

    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> SimulationResult:
        """One run at a time, one reward per step (the plain reference; same law)."""
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = source.n_arms
        beta = self._beta(horizon)
        all_actions, all_elim = [], []
        for _ in range(runs):
            alive = np.ones(k, dtype=bool)
            eliminated = np.zeros(k, dtype=np.int64)
            actions: list[int] = []
            e = 0
            while len(actions) < horizon:
                e += 1
                arms = np.flatnonzero(alive)
                if arms.size == 1:  # play the survivor step by step (its rewards are unused)
                    while len(actions) < horizon:
                        source.rewards(len(actions) + 1, arms, rng)
                        actions.append(int(arms[0]))
                    break
                r_e = int(self.epoch_length(e, np.array([arms.size]), beta)[0])
                means_e = np.zeros(k)
                for a in arms:
                    s, n = 0.0, 0
                    while n < r_e and len(actions) < horizon:
                        s += float(source.rewards(len(actions) + 1, np.array([a]), rng)[0])
                        actions.append(int(a))
                        n += 1
                    means_e[a] = s / max(n, 1)
                if len(actions) >= horizon and n < r_e:
                    break
                # the fast path's two hooks, so a twin that replaces either is simulated
                # faithfully here too: Lap(0, b) is b times a standard Laplace draw
                noisy = means_e + float(self.release_scale(np.array(r_e))) * self.epoch_noise(
                    rng, 1, k)[0]
                best = noisy[arms].max()
                thr = float(self.threshold(e, np.array([arms.size]), np.array([r_e]), beta)[0])
                for a in arms:
                    if best - noisy[a] > thr:
                        alive[a] = False
                        eliminated[a] = e
            all_actions.append(actions)
            all_elim.append(eliminated)
        return result_from_actions(np.array(all_actions), source.gaps, cps, record=record,
                                   decisions=np.array(all_elim))


POLICIES = {
    "dp-se": PolicyEntry(
        partial(DPSE, epsilon=1.0), AZIZE_BASU_FIG2,
        "Sajed & Sheffet 2019, DP-SE (baseline of Azize & Basu 2022, Fig. 2, beta = 1/T)",
        # beta = 1/2 makes epoch 1 (R_1 = 443 pulls per arm) fit in T = 1000, and the gap 0.1
        # sits near its threshold 2 (h_1 + c_1) = 0.14, so elimination is a real coin flip
        small_instance=(0.55, 0.45), small_horizon=1000, small_overrides={"beta": 0.5},
        invalid=({"epsilon": -1.0}, {"beta": 0.0}, {"beta": 1.0}, {"epsilon": float("inf")}),
        no_bound_reason=DP_SE_NO_BOUND),
}
