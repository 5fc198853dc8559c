"""DP-KLUCB and DP-IMED: Azize, Wu, Honda, Orabona, Ito & Basu 2025 (NeurIPS), the two algorithms
of their blueprint: (a) arm-dependent phases whose lengths grow geometrically with ratio
``alpha > 1``, (b) Laplace noise on each phase's reward sum.

The algorithm (both policies), from a summary of the paper's algorithm boxes and Proposition 2:
the text read here is the abstract (arXiv 2505.05613v1 and the NeurIPS 2025 page, which the
ledger quotes), not the boxes' own text; details marked [recon] are reconstructed where the
summary does not give them:

* Every arm is pulled once (its first phase, ``n_1 = 1``).
* Arm ``i``'s private statistic after ``m_i`` phases is the sum of its noisy phase sums,
  ``S~_i = sum_{l <= m_i} (S_{i,l} + Lap(1/eps))``, where ``S_{i,l}`` is the sum of the rewards of
  phase ``l`` only; past rewards are not forgotten, fresh noise is added to each new phase's sum
  and accumulated. The private mean is ``mu~_i = S~_i / n_{m_i}``, clipped to [0, 1] in the
  indexes (``[.]_0^1``).
* When no phase is running, at step ``t`` (the step about to be played) the policy picks
  DP-KLUCB: ``argmax_i max{mu : d_eps([mu~_i]_0^1, mu) <= log t / n_{m_i}}``;
  DP-IMED: ``argmin_i n_{m_i} d_eps([mu~_i]_0^1, [mu~*]_0^1) + log n_{m_i}``, ``mu~* = max_j
  mu~_j``; and plays the chosen arm until its count reaches the next phase's count (truncated at
  ``T``), then releases that phase's noisy sum. ``d_eps`` is in :mod:`.bounds`.

Choices made explicit (named parameters):

* [recon] Phase counts ``n_{m+1} = max(n_m + 1, ceil(alpha n_m))``: the abstract and the summary say
  the phases grow geometrically with ratio ``alpha`` without printing the rounding; ``+ 1`` keeps a
  phase non-empty when ``alpha`` is close to 1.
* [recon] ``alpha`` defaults to 2 (doubling, Azize & Basu 2022's episodes): the experiments'
  value is not in what was read; Theorem 2 holds for every ``alpha > 1``.
* [recon] Exploration term ``log t`` with ``t`` the step about to be played (as printed in the
  index, no ``log log`` term).
* Ties (indexes clipped at 1, equal IMED indexes) are broken uniformly at random.

Privacy (Proposition 2): a changed reward lies in exactly one phase of one arm, so it changes
one phase sum (sensitivity 1: rewards in [0, 1]), released with ``Lap(1/eps)``: eps-DP by the
Laplace mechanism; phases are disjoint, so the releases compose in parallel, and the cumulative
sums, indexes and actions are post-processing.

Simulation: each phase's reward sum is one ``Binomial(L, mu_a)`` draw per run (or a prefix-sum
lookup on a fixed reward table), all runs in lockstep: cost grows with the phases, not the steps.
``simulate_per_step`` is the plain one-reward-per-step reference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from dpaudit.algorithms.azize_et_al_2025.bounds import THM2_NO_BOUND, d_eps, dp_klucb_index
from dpaudit.algorithms.azize_et_al_2025.instances import AZIZE_ET_AL_2025_MU2
from dpaudit.interfaces import RewardSource
from dpaudit.sim.bandits import (
    PolicyEntry,
    RegretTracker,
    SimulationResult,
    argmax_random_ties,
    check_simulation,
    pad_rows,
    result_from_actions,
)
from dpaudit.sim.releases import ReleaseRecorder
from dpaudit.validation import check_epsilon, check_real

__all__ = ["POLICIES", "DPIMED", "DPKLUCB"]


class _Phased:
    """The blueprint of Azize, Wu, Honda, Orabona, Ito & Basu 2025 with the index of a subclass.

    Parameters
    ----------
    epsilon:
        Privacy budget of eps-global DP (> 0).
    alpha:
        Phase ratio ``alpha > 1`` (Theorem 2: regret ``alpha`` times the lower bound's
        constant); default 2 [recon] (see the module docstring).
    """

    name = "DP-phased"

    def __init__(self, epsilon: float, *, alpha: float = 2.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.alpha = check_real("alpha", alpha, low=1.0, low_open=True)

    # -- the pieces a broken twin overrides ------------------------------------------------
    def noise_scale(self, length: np.ndarray) -> np.ndarray:
        """Laplace scale of a phase of ``length`` rewards: ``1/eps`` (sensitivity 1 of a sum of
        rewards in [0, 1]; Proposition 2)."""
        return np.full(np.shape(length), 1.0 / self.epsilon)

    def next_count(self, n: np.ndarray) -> np.ndarray:
        """The count at the end of the next phase: ``max(n + 1, ceil(alpha n))`` [recon]."""
        n = np.asarray(n, dtype=np.int64)
        return np.maximum(n + 1, np.ceil(self.alpha * n - 1e-9).astype(np.int64))

    def choose(self, private_mean: np.ndarray, n: np.ndarray, t: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    #: seconds one phase block costs per run and tracked checkpoint on one worker, a lower
    #: bound for ``simulate``'s estimate: a third of the least measured (0.5 us of CPU time,
    #: DP-IMED on five arms at T = 64; DP-KL-UCB costs more)
    BLOCK_SECONDS = 1e-7

    def lockstep_work(self, n_arms: int, horizon: int) -> tuple[int, float]:
        """A lower bound on the phases of one run and :data:`BLOCK_SECONDS`.

        A phase takes its arm's count from ``n`` to ``max(n + 1, ceil(alpha n)) <=
        (alpha + 1) n`` and every arm starts at 1, so ``E`` phases reach at most
        ``(alpha + 1)^E + K - 1`` steps: ``E >= log(T - K + 1) / log(alpha + 1)``.
        """
        span = max(horizon - n_arms + 1, 1)
        return math.ceil(math.log(span) / math.log(self.alpha + 1.0) - 1e-9), self.BLOCK_SECONDS

    def max_phases(self, n_arms: int, horizon: int) -> int:
        """An upper bound on the number of phases after the initial pulls."""
        slow = math.ceil(1.0 / (self.alpha - 1.0)) + 1  # phases of length 1 while alpha n < n + 1
        return n_arms * (slow + math.ceil(math.log(max(horizon, 2)) / math.log(self.alpha)) + 2)

    # -- episodic simulator -----------------------------------------------------------------
    def simulate(self, source: RewardSource, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints: Sequence[int] = (),
                 record: bool = False, releases: ReleaseRecorder | None = None
                 ) -> SimulationResult:
        """Simulate ``runs`` runs in lockstep, one reward-sum draw per phase and run.

        ``decisions[r]`` lists run ``r``'s phase arms after the initial pulls (padded with -1):
        with the horizon it determines the action sequence. ``extra["phases"]`` counts them.
        ``releases`` (:mod:`dpaudit.sim.releases`) receives every noisy phase sum as it is
        released: the ``K`` initial ones (label ``"initial sum"``), then one per phase
        (``"phase sum"``, at the phase's last step, for its arm).
        """
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = source.n_arms
        track = RegretTracker(runs, source.gaps, cps, horizon=horizon, record=record)
        rows = np.arange(runs)
        n = np.ones((runs, k), dtype=np.int64)
        noisy_sum = np.zeros((runs, k))
        one = np.ones(runs, np.int64)
        for a in range(k):  # every arm once: its first phase, step a + 1
            arm = np.full(runs, a)
            s = source.block_sums(arm, one * (a + 1), one, rng)
            track.add(arm, a + 1, one)
            noisy = s + rng.laplace(0.0, 1.0, runs) * self.noise_scale(one)
            if releases is not None:
                releases.record(noisy, step=a + 1, arm=a, label="initial sum")
            noisy_sum[:, a] = noisy
        t = np.full(runs, k, dtype=np.int64)  # steps played so far
        width = self.max_phases(k, horizon)
        decisions = np.full((runs, width), -1, dtype=np.int8 if k < 128 else np.int16)
        ph = np.zeros(runs, dtype=np.int64)
        while True:
            active = t < horizon
            if not active.any():
                break
            pmean = np.clip(noisy_sum / n, 0.0, 1.0)
            arm = self.choose(pmean, n, (t + 1).astype(float), rng)
            n_arm = n[rows, arm]
            length = np.where(active, np.minimum(self.next_count(n_arm) - n_arm, horizon - t), 0)
            s = source.block_sums(arm, t + 1, length, rng)
            track.add(arm, t + 1, length)
            noisy = s + rng.laplace(0.0, 1.0, runs) * self.noise_scale(np.maximum(length, 1))
            if releases is not None:
                releases.record(noisy, step=t + length, arm=arm, active=active,
                                label="phase sum")
            noisy_sum[rows, arm] += np.where(active, noisy, 0.0)
            n[rows, arm] = n_arm + length
            decisions[rows[active], ph[active]] = arm[active]
            ph += active
            t += length
        return track.result(decisions=decisions, extra={"phases": ph})

    # -- plain per-step reference -----------------------------------------------------------
    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> SimulationResult:
        """One run at a time, one reward per step (the plain reference; same law)."""
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = source.n_arms
        all_actions, all_arms = [], []
        for _ in range(runs):
            n = np.ones(k, dtype=np.int64)
            noisy_sum = np.zeros(k)
            actions: list[int] = []
            arms: list[int] = []
            arm, left, phase_sum, phase_len = -1, 0, 0.0, 0
            for t in range(1, horizon + 1):
                if t <= k:
                    r = float(source.rewards(t, np.array([t - 1]), rng)[0])
                    scale = float(self.noise_scale(np.array([1]))[0])
                    noisy_sum[t - 1] = r + rng.laplace(0.0, 1.0) * scale
                    actions.append(t - 1)
                    continue
                if left == 0:
                    pmean = np.clip(noisy_sum / n, 0.0, 1.0)
                    arm = int(self.choose(pmean[None, :], n[None, :], np.array([float(t)]),
                                          rng)[0])
                    arms.append(arm)
                    left = int(self.next_count(np.array([n[arm]]))[0] - n[arm])
                    phase_sum, phase_len = 0.0, 0
                phase_sum += float(source.rewards(t, np.array([arm]), rng)[0])
                phase_len += 1
                left -= 1
                actions.append(arm)
                if left == 0 or t == horizon:
                    scale = float(self.noise_scale(np.array([phase_len]))[0])
                    noisy_sum[arm] += phase_sum + rng.laplace(0.0, 1.0) * scale
                    n[arm] += phase_len
                    left = 0
            all_actions.append(actions)
            all_arms.append(arms)
        decisions = pad_rows(all_arms, self.max_phases(k, horizon))
        return result_from_actions(
            np.array(all_actions), source.gaps, cps, record=record, decisions=decisions,
            extra={"phases": np.array([len(a) for a in all_arms])})


class DPKLUCB(_Phased):
    """DP-KLUCB (Azize, Wu, Honda, Orabona, Ito & Basu 2025): the blueprint with the index
    ``max{mu : d_eps([mu~_i]_0^1, mu) <= log t / n_{m_i}}``; eps-global DP (Proposition 2).

    Parameters
    ----------
    epsilon, alpha:
        As for :class:`_Phased`.
    """

    name = "DP-KLUCB"

    def choose(self, private_mean: np.ndarray, n: np.ndarray, t: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
        c = np.log(t)[:, None] / n
        return argmax_random_ties(dp_klucb_index(private_mean, c, self.epsilon), rng)


class DPIMED(_Phased):
    """DP-IMED (Azize, Wu, Honda, Orabona, Ito & Basu 2025): the blueprint with the index
    ``n_{m_i} d_eps([mu~_i]_0^1, [mu~*]_0^1) + log n_{m_i}``, minimised; eps-global DP
    (Proposition 2).

    Parameters
    ----------
    epsilon, alpha:
        As for :class:`_Phased`.
    """

    name = "DP-IMED"

    def choose(self, private_mean: np.ndarray, n: np.ndarray, t: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
        best = private_mean.max(axis=1, keepdims=True)
        index = n * d_eps(private_mean, best, self.epsilon) + np.log(n)
        return argmax_random_ties(-index, rng)


POLICIES = {
    "dp-klucb": PolicyEntry(
        partial(DPKLUCB, epsilon=1.0), AZIZE_ET_AL_2025_MU2,
        "Azize, Wu, Honda, Orabona, Ito & Basu 2025, DP-KLUCB (arm-dependent phases, "
        "Laplace noise on each phase's sum)",
        small_instance=(0.7, 0.4, 0.3), small_horizon=80,
        invalid=({"epsilon": -1.0}, {"epsilon": True}, {"alpha": 1.0},
                 {"alpha": float("nan")}),
        no_bound_reason=THM2_NO_BOUND),
    "dp-imed": PolicyEntry(
        partial(DPIMED, epsilon=1.0), AZIZE_ET_AL_2025_MU2,
        "Azize, Wu, Honda, Orabona, Ito & Basu 2025, DP-IMED (arm-dependent phases, "
        "Laplace noise on each phase's sum)",
        small_instance=(0.7, 0.4, 0.3), small_horizon=80,
        invalid=({"epsilon": 0.0}, {"alpha": 0.5}, {"alpha": "2"}),
        no_bound_reason=THM2_NO_BOUND),
}
