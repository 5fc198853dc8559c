"""AdaP-UCB and AdaP-KLUCB: Azize & Basu 2022 (NeurIPS), Algorithm 1, Eq. (7)-(8).

Algorithm 1 (Azize & Basu 2022, Sec. 4): pull every arm once (``t = K``); then in episode ``l``
starting at ``t_l = t + 1`` choose ``A_l = argmax_a I_a(t_l - 1, alpha)`` and pull it until
its count doubles, ``N_A(t) = 2 N_A(t_l - 1)``. The index of an arm uses only the private
mean of the rewards of the arm's *last active episode* (``N_a / 2`` rewards once an arm has
had an episode)::

    mu~_a = mu^_a(last episode) + Lap(2 / (eps N_a))                      (Sec. 4, Lemma 1)
    AdaP-UCB:   I_a = mu~_a + sqrt(alpha ln t_l / (2 * N_a/2) + alpha ln t_l / (eps * N_a/2))  (7)
    bonus="outside": I_a = mu~_a + sqrt(alpha ln t_l / N_a) + alpha ln t_l / (eps * N_a/2)
    AdaP-KLUCB: I_a = max{q in [0, 1] : kl(mu~^alpha_a, q) <= alpha ln t_l / (N_a/2)}         (8)
                mu~^alpha_a = clip_[0,1](mu~_a + alpha ln t_l / (eps * N_a/2))

(the printed Eq. 8 writes ``d(mu~, q)``; the "where" clause right after it defines the
clipped, shifted ``mu~^alpha`` that the inequality uses).

Choices made explicit (paper's values as defaults):

* The private mean of an episode is drawn *once*, when the episode ends (Lemma 1 releases
  one private mean per episode); later indexes reuse it with the current ``ln t_l``.
* AdaP-UCB's index (Eq. 7) is ambiguous between two readings, a named parameter ``bonus``:
  ``"printed"`` (default) puts the privacy term ``alpha ln t / (eps N/2)`` inside the square
  root, as the published text prints it; ``"outside"`` adds it outside the root, as an earlier
  version of the paper prints it and as the proof of Theorem 7 needs (the Laplace tail
  ``P(|Lap(2/(eps N))| > x) = exp(-eps N x / 2)`` is ``t^-alpha`` at ``x = alpha ln t /
  (eps N/2)``, a deviation linear in the term, not its square root). When the term exceeds 1
  the printed reading's bonus is smaller than the Laplace deviation it must cover, so the index
  is not an upper confidence bound; see ``docs/findings.md`` (finding F1).
* After the initial pull ``N_a = 1``. Algorithm 1 pulls every arm once but the paper does not
  say how that one-sample mean is released. By default the episode rule is extrapolated to
  ``N_a = 1`` (``initial_noise="episode-rule"``: ``N_a / 2 = 1/2`` in the index and noise
  ``Lap(2/(eps N_a)) = Lap(2/eps)``, twice what a one-sample mean needs; conservative, never
  less private). This is our extrapolation, not a value the paper prints. ``"lemma1"`` uses
  Lemma 1's scale ``1/(eps * samples) = 1/eps`` for that release instead. AdaP-UCB's heavy
  regret tail on Figure 2's instance (a few runs per thousand at ``T = 10^7`` paying 10^4 to
  10^5) is caused by Eq. (7) as printed and enlarged by this extrapolated release: an initial
  release of the best arm far below its mean (``Lap(2)`` at eps = 1) is refreshed only when
  that arm wins again, which the printed index's ``N = 1`` bonus can delay until ``t`` is
  large. The 2x2 factorial ``azize-basu-initial-release-cause`` (eps = 1, 100000 runs per
  variant, confirmed at 400000) separates the two: with the privacy term outside the root no
  run enters the tail under either release; under Eq. (7) as printed, Lemma 1's ``Lap(1/eps)``
  leaves about a tenth of the extrapolated release's tail (as many tail runs as a release
  without noise). The printed index is the cause; the extrapolated release enlarges it.
* Ties (KL-UCB indexes clipped at 1) are broken uniformly at random.
* The last episode is truncated at the horizon ``T``.

Privacy (Theorem 6): a changed reward lies in exactly one episode of one arm, so it changes
one private mean, which is ``eps``-DP by the Laplace mechanism (sensitivity ``1/(N_a/2)``
of a mean of ``N_a/2`` rewards in [0, 1], noise scale ``2/(eps N_a)``); the actions are
post-processing of the private means. :func:`adap_privacy_obligations` states this.

Simulation: each episode's reward sum is one ``Binomial(N_a, mu_a)`` draw per run (or a
prefix-sum lookup on a fixed reward table), all runs in lockstep; ``simulate_per_step`` is
the plain one-reward-per-step reference used by the benchmark and the law-equivalence test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from dpaudit.algorithms._kl import bernoulli_kl, kl_ucb_index
from dpaudit.algorithms.azize_basu_2022.bounds import ADAP_KLUCB_NO_BOUND, adap_ucb_regret_bound
from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_FIG2
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
from dpaudit.validation import check_choice, check_epsilon, check_real

__all__ = ["POLICIES", "AdaPKLUCB", "AdaPUCB", "bernoulli_kl", "kl_ucb_index"]


class _AdaP:
    """Algorithm 1 of Azize & Basu 2022 with the index of a subclass (see the module docstring).

    Parameters
    ----------
    epsilon:
        Privacy budget of epsilon-global DP (> 0).
    alpha:
        Confidence exponent, ``alpha > 3`` for Theorems 7-8; the experiments use 3.1.
    initial_noise:
        ``"episode-rule"`` (default; ``Lap(2/eps)``, the episode rule extrapolated to the
        unspecified initial release) or ``"lemma1"`` (``Lap(1/eps)``). ``"as printed"`` is
        accepted as an older spelling of ``"episode-rule"`` (the paper prints no initial
        noise; the value means what it always meant).
    """

    name = "AdaP"
    #: which rewards a release averages (Theorem 6's premise); broken twins override it
    mean_window = "last episode"

    def __init__(self, epsilon: float, *, alpha: float = 3.1,
                 initial_noise: str = "episode-rule") -> None:
        self.epsilon = check_epsilon(epsilon)
        self.alpha = check_real("alpha", alpha, low=0.0, low_open=True)
        if isinstance(initial_noise, str) and initial_noise == "as printed":
            initial_noise = "episode-rule"  # older spelling, same law
        self.initial_noise = check_choice("initial_noise", initial_noise,
                                          ("episode-rule", "lemma1"))

    def release_mean(self, total: np.ndarray | float, episode_sum: np.ndarray | float,
                     episode_length: np.ndarray | float, count: np.ndarray | float
                     ) -> np.ndarray | float:
        """The statistic an episode releases (before noise): the mean of that episode's
        rewards only (Sec. 4, Lemma 1). ``total`` is the sum of all the arm's rewards so far
        and ``count`` its pull count (both unused here; a broken twin reads them)."""
        return episode_sum / np.maximum(episode_length, 1)  # proof: Thm 6, last episode only

    def index(self, private_mean: np.ndarray, n: np.ndarray, t_l: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _bonus_terms(self, n: np.ndarray, t_l: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        half = 0.5 * n  # proof: Sec. 4, the last episode holds N_a / 2 rewards
        log_t = np.log(t_l)[..., None] if np.ndim(t_l) else math.log(t_l)
        return self.alpha * log_t / half, self.alpha * log_t / (self.epsilon * half)

    def _noise_scale(self, n: np.ndarray) -> np.ndarray:
        return 2.0 / (self.epsilon * n)  # proof: Lemma 1, Lap(2 / (eps N_a))

    def _initial_scale(self) -> float:
        """Noise of the initial one-sample release (see the module docstring)."""
        return 1.0 / self.epsilon if self.initial_noise == "lemma1" else 2.0 / self.epsilon

    # -- episodic simulator ----------------------------------------------------------
    #: seconds one episode block costs per run and tracked checkpoint on one worker, a lower
    #: bound for ``simulate``'s estimate: a third of the least measured (0.29 us of CPU time,
    #: AdaP-UCB on Figure 2's five arms, T = 64 to 10^7, 1000 to 20000 runs; AdaP-KL-UCB
    #: costs twice that)
    BLOCK_SECONDS = 1e-7

    def lockstep_work(self, n_arms: int, horizon: int) -> tuple[int, float]:
        """A lower bound on the episodes of one run and :data:`BLOCK_SECONDS`.

        An episode at most doubles its arm's count (``N_a -> 2 N_a``) and every arm starts at
        1, so ``E`` episodes reach at most ``2^E + K - 1`` steps (all on one arm, the most):
        ``E >= log2(T - K + 1)``.
        """
        return math.ceil(math.log2(max(horizon - n_arms + 1, 1))), self.BLOCK_SECONDS

    def max_episodes(self, n_arms: int, horizon: int) -> int:
        """An upper bound on the number of episodes (the width of ``decisions``)."""
        return n_arms * (int(math.log2(horizon)) + 2) + 1

    def simulate(self, source: RewardSource, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints: Sequence[int] = (),
                 record: bool = False, record_releases: bool = False,
                 releases: ReleaseRecorder | None = None) -> SimulationResult:
        """Simulate ``runs`` runs in lockstep, one reward-sum draw per episode and run.

        ``decisions[r]`` lists run ``r``'s episode arms (padded with -1): with the horizon
        it determines the whole action sequence. ``extra["episodes"]`` counts the episodes.
        ``record_releases`` keeps the pre-noise statistic of every release in
        ``extra["releases"]`` (the initial pulls, then one per episode, NaN-padded) so an
        audit can count which releases one changed reward touches on coupled runs (same
        generator state, same decisions). ``releases`` (the recording hook of
        :mod:`dpaudit.sim.releases`) receives every private mean as it is released: the ``K``
        initial ones (label ``"initial mean"``), then one per episode (``"episode mean"``, at
        the episode's last step, for its arm).
        """
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = source.n_arms
        track = RegretTracker(runs, source.gaps, cps, horizon=horizon, record=record)
        rows = np.arange(runs)
        n = np.ones((runs, k))
        total = np.zeros((runs, k))
        pmean = np.zeros((runs, k))
        one = np.ones(runs, np.int64)
        for a in range(k):  # initialisation: every arm once (Alg. 1, line 3), step a + 1
            arm = np.full(runs, a)
            s = source.block_sums(arm, one * (a + 1), one, rng)
            track.add(arm, a + 1, one)
            total[:, a] = s
            pmean[:, a] = s + rng.laplace(0.0, self._initial_scale(), runs)
            if releases is not None:
                releases.record(pmean[:, a], step=a + 1, arm=a, label="initial mean")
        t = np.full(runs, k, dtype=np.int64)  # steps played so far
        max_eps = self.max_episodes(k, horizon)
        decisions = np.full((runs, max_eps), -1, dtype=np.int8 if k < 128 else np.int16)
        pre_noise = np.full((runs, k + max_eps), np.nan) if record_releases else None
        if pre_noise is not None:
            pre_noise[:, :k] = total
        ep = np.zeros(runs, dtype=np.int64)
        while True:
            active = t < horizon
            if not active.any():
                break
            idx = self.index(pmean, n, (t + 1).astype(float))  # t_l = t + 1
            arm = argmax_random_ties(idx, rng)
            n_arm = n[rows, arm]
            length = np.where(active, np.minimum(n_arm.astype(np.int64), horizon - t), 0)
            s = source.block_sums(arm, t + 1, length, rng)
            track.add(arm, t + 1, length)
            new_n = n_arm + length
            total[rows, arm] += s
            mean = np.asarray(self.release_mean(total[rows, arm], s, length, new_n))
            noisy = mean + rng.laplace(0.0, 1.0, runs) * self._noise_scale(new_n)
            if releases is not None:
                releases.record(noisy, step=t + length, arm=arm, active=active,
                                label="episode mean")
            if pre_noise is not None:
                pre_noise[rows[active], k + ep[active]] = mean[active]
            pmean[rows, arm] = np.where(active, noisy, pmean[rows, arm])
            n[rows, arm] = new_n
            decisions[rows[active], ep[active]] = arm[active]
            ep += active
            t += length
        extra: dict[str, np.ndarray] = {"episodes": ep}
        if pre_noise is not None:
            extra["releases"] = pre_noise
        return track.result(decisions=decisions, extra=extra)

    # -- plain per-step reference ----------------------------------------------------
    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> SimulationResult:
        """One run at a time, one reward per step (the plain reference; same law)."""
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = source.n_arms
        all_actions, all_arms = [], []
        for _ in range(runs):
            n = np.ones(k)
            total = np.zeros(k)
            pmean = np.zeros(k)
            actions: list[int] = []
            arms: list[int] = []
            arm, left, ep_sum, ep_len = -1, 0, 0.0, 0
            for t in range(1, horizon + 1):
                if t <= k:
                    r = float(source.rewards(t, np.array([t - 1]), rng)[0])
                    total[t - 1] = r
                    pmean[t - 1] = r + rng.laplace(0.0, self._initial_scale())
                    actions.append(t - 1)
                    continue
                if left == 0:
                    idx = self.index(pmean[None, :], n[None, :], np.array([float(t)]))
                    arm = int(argmax_random_ties(idx, rng)[0])
                    arms.append(arm)
                    left, ep_sum, ep_len = int(n[arm]), 0.0, 0
                ep_sum += float(source.rewards(t, np.array([arm]), rng)[0])
                ep_len += 1
                left -= 1
                actions.append(arm)
                if left == 0 or t == horizon:
                    new_n = n[arm] + ep_len
                    total[arm] += ep_sum
                    mean = float(self.release_mean(total[arm], ep_sum, ep_len, new_n))
                    pmean[arm] = mean + rng.laplace(0.0, 1.0) * self._noise_scale(new_n)
                    n[arm] = new_n
            all_actions.append(actions)
            all_arms.append(arms)
        decisions = pad_rows(all_arms, self.max_episodes(k, horizon))
        return result_from_actions(
            np.array(all_actions), source.gaps, cps, record=record, decisions=decisions,
            extra={"episodes": np.array([len(a) for a in all_arms])})


class AdaPUCB(_AdaP):
    """AdaP-UCB (Azize & Basu 2022, Alg. 1 with Eq. 7); epsilon-global DP by Theorem 6/7.

    Parameters
    ----------
    epsilon, alpha, initial_noise:
        As for every AdaP policy (see :class:`_AdaP`).
    bonus:
        Reading of Eq. (7): ``"printed"`` (default, the published text: the privacy term
        inside the square root) or ``"outside"`` (the privacy term added outside the root,
        as an earlier version prints it and the proof of Theorem 7 needs). Privacy does not
        depend on it (the index is post-processing of the private means).
    """

    name = "AdaP-UCB"

    def __init__(self, epsilon: float, *, alpha: float = 3.1,
                 initial_noise: str = "episode-rule", bonus: str = "printed") -> None:
        super().__init__(epsilon, alpha=alpha, initial_noise=initial_noise)
        self.bonus = check_choice("bonus", bonus, ("printed", "outside"))

    def index(self, private_mean: np.ndarray, n: np.ndarray, t_l: np.ndarray) -> np.ndarray:
        conf, priv = self._bonus_terms(n, t_l)
        if self.bonus == "outside":
            return private_mean + np.sqrt(0.5 * conf) + priv  # Eq. (7), earlier version
        return private_mean + np.sqrt(0.5 * conf + priv)  # Eq. (7): alpha ln t / (2 N/2)


class AdaPKLUCB(_AdaP):
    """AdaP-KLUCB (Azize & Basu 2022, Alg. 1 with Eq. 8); epsilon-global DP by Theorem 6/8."""

    name = "AdaP-KLUCB"

    def index(self, private_mean: np.ndarray, n: np.ndarray, t_l: np.ndarray) -> np.ndarray:
        conf, priv = self._bonus_terms(n, t_l)
        shifted = np.clip(private_mean + priv, 0.0, 1.0)  # mu~^alpha of Eq. (8)
        return kl_ucb_index(shifted, conf)


POLICIES = {
    "adap-ucb": PolicyEntry(
        partial(AdaPUCB, epsilon=1.0), AZIZE_BASU_FIG2,
        "Azize & Basu 2022, Algorithm 1 with Eq. (7)",
        small_instance=(0.7, 0.4, 0.3), small_horizon=80,
        invalid=({"epsilon": -1.0}, {"epsilon": True}, {"alpha": 0.0},
                 {"initial_noise": "none"}, {"bonus": "inside"}),
        bound=adap_ucb_regret_bound),
    "adap-klucb": PolicyEntry(
        partial(AdaPKLUCB, epsilon=1.0), AZIZE_BASU_FIG2,
        "Azize & Basu 2022, Algorithm 1 with Eq. (8)",
        small_instance=(0.7, 0.4, 0.3), small_horizon=80,
        invalid=({"epsilon": 0.0}, {"alpha": float("nan")}, {"initial_noise": 1}),
        no_bound_reason=ADAP_KLUCB_NO_BOUND),
}
