"""GDP-Elim-New: Wang & Zhu 2023, Algorithm 4 and Theorem 18.

Algorithm 4 (Wang & Zhu 2023, Sec. 7; the OCR of lines 4 and 6 is damaged, reconstruction below):

* phase ``k = 1, 2, ...`` with ``Delta(k) = 2^-k``;
* every arm is pulled ``N(k)`` times, with (line 4)
  ``N(k) = max{32 ln T / Delta(k)^2, (4 / (Delta(k) eps)) ln X}``,
  ``X = (T^2 (e^eps - 1) + T^2 delta) / (2 (e^eps - 1) + T^2 delta)``, rounded up;
* ``theta_i(k)`` is drawn from the Lemma-15 law with centre ``x0 = mu^_i(k)`` (this phase's
  rewards only) and ``N = N(k)`` (line 6);
* if some ``theta_i(k) > max_{j != i} theta_j(k) + Delta(k)``, arm ``i`` is exploited to the
  horizon (lines 7-8).

Reconstruction of line 6 ("... Lemma 15 with €,/2, ..."): the OCR reads ``eps, delta/2`` with
the delta glyph dropped, not ``eps/2``. The proof of Theorem 18 confirms it: its event
``B(k) = {|theta_i(k) - mu^_i(k)| <= ln(X) / (N(k) eps)}`` has ``Pr[not B] <= 1/T^2``, and
the Lemma-15 tail at distance ``ln(X)/(N eps)`` is *exactly* ``1/T^2`` with parameters
``(eps, delta/2)`` (with ``c = (e^eps - 1)/delta + 1``, ``k = delta/(2(e^eps - 1))``:
``k (c/X - 1) = 1/T^2``; checked in ``tests/test_gdp_elim.py``), whereas ``eps/2`` would
halve the exponent and break that equality. The factors are named parameters
(``lemma15_epsilon_factor = 1``, ``lemma15_delta_factor = 1/2``), the paper's values by
default. Line 4 is confirmed by the proof's two
conditions ``sqrt(2 ln T / N(k)) <= Delta(k)/4`` and ``ln(X)/(N(k) eps) <= Delta(k)/4``.

Other choices: arms are pulled in blocks in index order inside a phase; the last phase is
truncated at ``T`` (no draw without a complete phase); ties in ``theta`` have probability 0.

Privacy (Theorem 18 via Lemmas 9 and 15): a changed reward lies in one arm's block of one
phase, so it shifts one centre ``x0`` by at most ``1/N(k)``; the Lemma-15 law is
``(eps, delta/2)``-indistinguishable under such a shift and the rest is post-processing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from dpaudit.algorithms.wang_zhu_2023.bounds import gdp_elim_new_regret_bound, log_x
from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_INSTANCE_1
from dpaudit.interfaces import RewardSource
from dpaudit.mechanisms import Lemma15Perturbation
from dpaudit.sim.bandits import (
    PolicyEntry,
    RegretTracker,
    SimulationResult,
    check_simulation,
    result_from_actions,
)
from dpaudit.validation import check_epsilon_delta, check_real

__all__ = ["POLICIES", "GDPElimNew", "log_x"]


class GDPElimNew:
    """GDP-Elim-New (Wang & Zhu 2023, Algorithm 4); see the module docstring.

    Parameters
    ----------
    epsilon, delta:
        The (epsilon, delta)-global DP claim (Definition 3); ``epsilon > 0``.
    lemma15_epsilon_factor, lemma15_delta_factor:
        The Lemma-15 draw uses ``(epsilon * f_eps, delta * f_delta)``; the paper's values are
        1 and 1/2 (see the reconstruction above).
    """

    name = "GDP-Elim-New"

    def __init__(self, epsilon: float, delta: float, *, lemma15_epsilon_factor: float = 1.0,
                 lemma15_delta_factor: float = 0.5) -> None:
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta)
        self.lemma15_epsilon_factor = check_real(
            "lemma15_epsilon_factor", lemma15_epsilon_factor, low=0.0, low_open=True)
        self.lemma15_delta_factor = check_real(
            "lemma15_delta_factor", lemma15_delta_factor, low=0.0, high=1.0)
        self.perturbation = Lemma15Perturbation(
            self.epsilon * self.lemma15_epsilon_factor, self.delta * self.lemma15_delta_factor)

    #: seconds one arm's phase block costs per run and tracked checkpoint on one worker, a
    #: lower bound for ``simulate``'s estimate: about a quarter of the least measured (0.034 us
    #: of CPU time, Wang & Zhu's nine arms, T = 64 to 10^7, 1000 to 20000 runs)
    BLOCK_SECONDS = 1e-8

    def lockstep_work(self, n_arms: int, horizon: int) -> tuple[int, float]:
        """A lower bound on the blocks of one run (the first phase: one per arm) and
        :data:`BLOCK_SECONDS`."""
        return n_arms, self.BLOCK_SECONDS

    def phase_length(self, k: int, horizon: int) -> int:
        """``N(k)`` of Algorithm 4, line 4 (rounded up)."""
        d = 2.0 ** (-k)
        first = 32.0 * math.log(horizon) / d**2
        second = 4.0 / (d * self.epsilon) * log_x(self.epsilon, self.delta, horizon)
        return int(math.ceil(max(first, second, 1.0)))

    def simulate(self, source: RewardSource, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints: Sequence[int] = (),
                 record: bool = False, releases=None) -> SimulationResult:
        """All runs in lockstep; one reward-sum draw per arm, phase and run.

        ``releases`` (the recording hook, :mod:`dpaudit.sim.releases`) receives each phase's
        perturbed scores ``theta(k)`` (``(runs, K)``, label ``"theta"``, step = the phase's last
        step, active = the runs still exploring), the release Lemmas 9 and 15 are about.

        ``decisions[r]`` is ``(phase at which exploitation started or 0, exploited arm or
        -1)``: together with the horizon they determine the whole action sequence.
        ``extra["phases"]`` counts the completed phases.
        """
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        kk = source.n_arms
        track = RegretTracker(runs, source.gaps, cps, horizon=horizon, record=record)
        t = np.zeros(runs, dtype=np.int64)  # steps played so far
        exploit = np.full(runs, -1, dtype=np.int64)
        phase_of = np.zeros(runs, dtype=np.int64)
        phases = np.zeros(runs, dtype=np.int64)
        k = 0
        while (t < horizon).any():
            k += 1
            n_k = self.phase_length(k, horizon)
            d_k = 2.0 ** (-k)
            exploiting = exploit >= 0
            rest = np.where(exploiting & (t < horizon), horizon - t, 0)
            track.add(np.maximum(exploit, 0), t + 1, rest)
            t += rest
            explore = t < horizon
            complete = explore & (t + kk * n_k <= horizon)
            means = np.zeros((runs, kk))
            for a in range(kk):
                length = np.where(explore, np.minimum(n_k, horizon - t), 0).astype(np.int64)
                arm = np.full(runs, a)
                s = source.block_sums(arm, t + 1, length, rng)
                track.add(arm, t + 1, length)
                means[:, a] = s / max(n_k, 1)
                t += length
            theta = self._perturbed(means, n_k, k, rng)  # proof: Lemma 15, x0 = mu^(k)
            if releases is not None:
                releases.record(theta, step=t, active=explore, label="theta")
            order = np.sort(theta, axis=1)
            best = np.argmax(theta, axis=1)
            lead = order[:, -1] - (order[:, -2] if kk > 1 else -np.inf)
            start = complete & (lead > d_k)
            exploit = np.where(start, best, exploit)
            phase_of = np.where(start, k, phase_of)
            phases += complete
        decisions = np.stack([phase_of, exploit], axis=1)
        return track.result(decisions=decisions, extra={"phases": phases})

    def _perturbed(self, means: np.ndarray, n_k: int, k: int,
                   rng: np.random.Generator) -> np.ndarray:
        """Phase ``k``'s scores ``theta(k)``: Lemma 15 around each arm's phase mean (line 6)."""
        return self.perturbation.sample(means, n_k, rng=rng)

    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> SimulationResult:
        """One run at a time, one reward per step (the plain reference; same law)."""
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        kk = source.n_arms
        all_actions, all_dec = [], []
        for _ in range(runs):
            actions: list[int] = []
            decision = (0, -1)
            k = 0
            while len(actions) < horizon:
                k += 1
                n_k = self.phase_length(k, horizon)
                sums = np.zeros(kk)
                for a in range(kk):
                    n = 0
                    while n < n_k and len(actions) < horizon:
                        sums[a] += float(source.rewards(len(actions) + 1, np.array([a]), rng)[0])
                        actions.append(a)
                        n += 1
                if len(actions) >= horizon and n < n_k:
                    break
                theta = self.perturbation.sample(sums / n_k, float(n_k), rng=rng, size=kk)
                order = np.sort(theta)
                if order[-1] - order[-2] > 2.0 ** (-k):
                    best = int(np.argmax(theta))
                    while len(actions) < horizon:  # exploit step by step (rewards unused)
                        source.rewards(len(actions) + 1, np.array([best]), rng)
                        actions.append(best)
                    decision = (k, best)
            all_actions.append(actions)
            all_dec.append(decision)
        return result_from_actions(np.array(all_actions), source.gaps, cps, record=record,
                                   decisions=np.array(all_dec, dtype=np.int64))


POLICIES = {
    "gdp-elim-new": PolicyEntry(
        partial(GDPElimNew, epsilon=1.0, delta=0.01), WANG_ZHU_INSTANCE_1,
        "Wang & Zhu 2023, Algorithm 4",
        # N(1) = 973 pulls per arm at T = 2000; the lead theta_0 - theta_1 has mean 0.51
        # and sd ~0.02 against the exploitation threshold Delta(1) = 0.5: exploitation after
        # phase 1 in ~70% of runs, a probability every part of the phase moves
        small_instance=(0.76, 0.25), small_horizon=2000,
        invalid=({"epsilon": 0.0}, {"delta": 1.0}, {"delta": -0.1},
                 {"lemma15_epsilon_factor": 0.0}, {"lemma15_delta_factor": 2.0}),
        bound=gdp_elim_new_regret_bound),
}
