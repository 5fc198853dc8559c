"""Locally private thresholding bandits: Barbara, Lazzaro & Pike-Burke 2025, Algorithms 1-2.

Every reward ``r in [0, 1]`` a user generates is released through PrivBern(eps) (Definition
2.1, after Ren et al. 2020, Lemma 5; :class:`dpaudit.mechanisms.PrivBern`): the learner sees
one bit ``Y ~ Bernoulli((r (e^eps - 1) + 1)/(e^eps + 1))`` and nothing else (Definition 2.2),
so both algorithms are eps-LDP by Lemma 2.1 and post-processing.

Reconstruction (the extraction lost the displays of Section 2.4 and both algorithms; derived
from Appendices A, B and D, from Locatelli, Gutzeit & Carpentier 2016 (APT) and from Chen et
al. 2014 (CLUCB); the checks of ``ldp-tbp-*`` test each step):

* Lemma 2.1 / Eq. (4)-(8): ``E[Y] = mu^eps = kappa mu + 1/(e^eps + 1)`` with
  ``kappa = (e^eps - 1)/(e^eps + 1)``; the threshold and tolerance are mapped by the same
  affine map, ``tau^eps = kappa tau + 1/(e^eps + 1)`` and ``gamma^eps = kappa gamma``
  (Appendix B's step "``mu >= tau + gamma`` implies ``mu^eps >= tau^eps + gamma^eps``" needs
  exactly this), so ``Delta^eps_i = kappa Delta_i`` and ``H^eps = H / kappa^2``
  (:func:`map_threshold`; tested against the mechanism's own law).
* Algorithm 1 (private APT, fixed budget): pull every arm once, then at ``t > K`` pull
  ``argmin_i sqrt(T_i(t)) (|mu_hat^eps_i(t) - tau^eps| + gamma^eps)`` (Locatelli et al.
  2016, Algorithm 1, on the private bits); after ``T`` pulls return
  ``{i : mu_hat^eps_i >= tau^eps}``. Ties go to the lowest arm index (APT leaves them open).
* Algorithm 2 (fixed confidence, Chen et al. 2014 specialised to a threshold): pull every arm
  once; at ``t`` the radius is ``rad_i = sqrt(log(4 K t^3 / delta) / (2 T_i(t)))`` (Appendix
  D's union bound over arms and times sums to ``delta pi^2 / 12 < delta``), the undecided
  arms are ``U_t = {i : |mu_hat^eps_i - tau^eps| <= rad_i}``; pull the one with the largest
  radius (the least pulled of ``U_t``; ties to the lowest index), stop when ``U_t`` is empty
  and return ``{i : mu_hat^eps_i >= tau^eps}``. ``radius_constant`` (default 4, the ``4`` of
  ``4 K t^3``) and ``radius_power`` (default 3) are named parameters.

Simulation convention: ``source`` is a :mod:`dpaudit.sim.bandits` reward source (each reward in
``[0, 1]`` goes through PrivBern; a Bernoulli instance or a fixed table). Steps are 1-based,
runs on axis 0. ``simulate`` runs all runs in lockstep (one vectorised step for every run);
``simulate_per_step`` is the plain one-run-at-a-time reference with the same law.
:class:`PrivateAPT` is a bandit ``Policy`` (registered in ``POLICIES``): it returns a
:class:`~dpaudit.sim.bandits.SimulationResult` whose ``extra`` holds the returned sets and, on a
source with means, the loss of Eq. (2). :class:`PrivateThresholdLUCB` is a stopping rule, not
a fixed-horizon policy (its runs end at different times, so counts do not sum to a horizon):
``horizon`` is only a safety cap and it returns its own :class:`FixedConfidenceResult`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
from scipy.special import expit

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms import _step_kernels as sk
from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025._apt_kernel import apt_kernel
from dpaudit.interfaces import RewardSource
from dpaudit.mechanisms import PrivBern
from dpaudit.sim.bandits import (
    Instance,
    PolicyEntry,
    RegretTracker,
    SimulationResult,
    check_simulation,
    result_from_actions,
)
from dpaudit.validation import (
    InvalidParameterError,
    check_epsilon,
    check_means,
    check_real,
)

__all__ = [
    "BLP_2025_INSTANCE",
    "POLICIES",
    "FixedConfidenceResult",
    "PrivateAPT",
    "PrivateThresholdLUCB",
    "correct_set",
    "map_threshold",
    "thresholding_loss",
]


def map_threshold(value: float, epsilon: float) -> float:
    """PrivBern's affine map ``v -> kappa v + 1/(e^eps + 1)`` (Lemma 2.1, Eq. (4)-(5)),
    evaluated as ``tanh(eps/2) v + expit(-eps)`` (no overflow for large eps)."""
    return _kappa(epsilon) * value + float(expit(-epsilon))


def _kappa(epsilon: float) -> float:
    return math.tanh(epsilon / 2.0)  # (e^eps - 1)/(e^eps + 1), accurate for small eps


def correct_set(means: np.ndarray, tau: float, gamma: float = 0.0) -> np.ndarray:
    """Arms that must be accepted (``mu >= tau + gamma``), as a boolean mask (Eq. (1), (3))."""
    return np.asarray(means, float) >= tau + gamma


def thresholding_loss(accepted: np.ndarray, means: np.ndarray, tau: float,
                      gamma: float = 0.0) -> np.ndarray:
    """Eq. (2): 1 when an arm with ``mu >= tau + gamma`` is rejected or one with
    ``mu <= tau - gamma`` accepted (arms strictly inside the band never count)."""
    mu = np.asarray(means, float)
    high, low = mu >= tau + gamma, mu <= tau - gamma
    if gamma == 0.0:
        low = mu < tau  # fixed confidence: every arm has one correct side (Eq. (3))
    wrong = (high & ~accepted) | (low & accepted)
    return wrong.any(axis=-1)


@dataclass(frozen=True)
class FixedConfidenceResult:
    """``runs`` runs of Algorithm 2: ``stopping_time`` (runs,), ``accepted`` (runs, K),
    ``correct`` (runs,), ``counts`` (runs, K); ``stopped`` False where ``max_steps`` ran out
    first (then ``accepted`` is the empirical classification at that time)."""

    accepted: np.ndarray
    correct: np.ndarray
    stopping_time: np.ndarray
    counts: np.ndarray
    stopped: np.ndarray


def _means_of(source: RewardSource) -> np.ndarray | None:
    """The arm means of a Bernoulli source (``None`` for a fixed table without means)."""
    means = getattr(source, "means", None)
    return None if means is None else check_means(means)


class _PrivBernPolicy:
    """What both algorithms share: parameters, the report mechanism and its map."""

    def __init__(self, epsilon: float, tau: float) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.tau = check_real("tau", tau, low=0.0, high=1.0, low_open=True, high_open=True)
        self.mechanism = PrivBern(self.epsilon)
        self.tau_eps = map_threshold(self.tau, self.epsilon)

    def report(self, rewards: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """What each user sends: one PrivBern bit per reward (the only data path)."""
        p1 = self.mechanism.prob_one(rewards)
        return (rng.random(p1.shape) < p1).astype(np.int64)

    def _send(self, rewards: np.ndarray, arm: np.ndarray, t: int, rng: np.random.Generator,
              state: dict) -> np.ndarray:
        """The reports of the users pulled at step ``t`` (one per live run), as ``simulate``
        builds them: :meth:`report` of each reward. ``state`` is a dict private to one
        ``simulate`` call (``state["shape"]`` is ``(runs, K)``)."""
        return self.report(rewards, rng)


class PrivateAPT(_PrivBernPolicy):
    """Algorithm 1 (fixed budget): APT of Locatelli et al. 2016 on PrivBern bits.

    Parameters
    ----------
    epsilon:
        LDP level of the PrivBern reports, ``> 0``.
    tau:
        Threshold in ``(0, 1)``.
    gamma:
        Tolerance, ``>= 0``; mapped to ``gamma^eps = kappa gamma``.
    """

    name = "ldp-apt"

    def __init__(self, epsilon: float, *, tau: float, gamma: float = 0.0) -> None:
        super().__init__(epsilon, tau)
        self.gamma = check_real("gamma", gamma, low=0.0, high=1.0)
        self.gamma_eps = _kappa(self.epsilon) * self.gamma

    def __repr__(self) -> str:
        return f"PrivateAPT(epsilon={self.epsilon!r}, tau={self.tau!r}, gamma={self.gamma!r})"

    def simulate(self, source: RewardSource, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints=(), record: bool = False,
                 backend: str = "auto", releases=None) -> SimulationResult:
        """``runs`` runs of ``horizon`` pulls: compiled, one run at a time (``backend``
        ``"auto"``/``"numba"``, :data:`._apt_kernel.apt_kernel`), or in lockstep with numpy
        (``"numpy"``); the same law. ``extra``: ``accepted`` (runs, K), ``private_means``
        (runs, K) and, on a source with means, ``loss`` (runs,) of Eq. (2). Regret is the
        pseudo-regret of the pulls (not the objective of pure exploration). ``releases`` (the
        recording hook, :mod:`dpaudit.sim.releases`) receives every user's report as it leaves
        the user (label ``"report"``, with its step and arm); it is served by the numpy path,
        as is a subclass that replaces the report code (a planted twin)."""
        compiled = (kern.use_compiled(backend) and releases is None
                    and not kern.overrides(self, PrivateAPT, ("report", "_send")))
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        if compiled:
            kernel, params = self.kernel()
            res, n, s = sk.run_kernel(kernel, source, horizon, runs, rng=rng, cps=cps,
                                      record=record, params=params)
            return replace(res, extra=self._extra(s, n.astype(np.int64), source))
        k = source.n_arms
        tracker = RegretTracker(runs, source.gaps, cps, horizon=horizon, record=record)
        rows = np.arange(runs)
        sums = np.zeros((runs, k))
        counts = np.zeros((runs, k), dtype=np.int64)
        state: dict = {"shape": (runs, k)}
        for t in range(1, horizon + 1):
            if t <= k:
                arm = np.full(runs, t - 1)
            else:
                index = np.sqrt(counts) * (np.abs(sums / counts - self.tau_eps) + self.gamma_eps)
                arm = np.argmin(index, axis=1)
            y = self._send(source.rewards(t, arm, rng), arm, t, rng, state)
            if releases is not None:
                releases.record(y, step=t, arm=arm, label="report")
            sums[rows, arm] += y
            counts[rows, arm] += 1
            tracker.step(arm, t)
        return tracker.result(extra=self._extra(sums, counts, source))

    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints=(), record: bool = False
                          ) -> SimulationResult:
        """Plain reference: one run at a time, one pull at a time, scalar arithmetic."""
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = source.n_arms
        sums = np.zeros((runs, k))
        counts = np.zeros((runs, k), dtype=np.int64)
        actions = np.zeros((runs, horizon), dtype=np.int64)
        for r in range(runs):
            s, n = [0.0] * k, [0] * k
            for t in range(1, horizon + 1):
                if t <= k:
                    arm = t - 1
                else:
                    scores = [math.sqrt(n[i]) * (abs(s[i] / n[i] - self.tau_eps)
                                                 + self.gamma_eps) for i in range(k)]
                    arm = min(range(k), key=scores.__getitem__)
                reward = float(source.rewards(t, np.array([arm]), rng)[0])
                s[arm] += float(rng.random() < self.mechanism.prob_one(reward))
                n[arm] += 1
                actions[r, t - 1] = arm
            sums[r], counts[r] = s, n
        return result_from_actions(actions, source.gaps, cps, record=record,
                                   extra=self._extra(sums, counts, source))

    def kernel(self) -> tuple:
        """``(apt_kernel, (tau^eps, gamma^eps, P[Y=1 | r=1], P[Y=1 | r=0]))``."""
        p_hi, p_lo = (float(self.mechanism.prob_one(x)) for x in (1.0, 0.0))
        return apt_kernel, (float(self.tau_eps), float(self.gamma_eps), p_hi, p_lo)

    def _extra(self, sums, counts, source) -> dict:
        mu_hat = sums / counts
        accepted = mu_hat >= self.tau_eps
        extra = {"accepted": accepted, "private_means": mu_hat}
        means = _means_of(source)
        if means is not None:
            extra["loss"] = thresholding_loss(accepted, means, self.tau, self.gamma)
        return extra


class PrivateThresholdLUCB(_PrivBernPolicy):
    """Algorithm 2 (fixed confidence): Chen et al. 2014's LUCB rule on PrivBern bits.

    Parameters
    ----------
    epsilon:
        LDP level, ``> 0``.
    tau:
        Threshold in ``(0, 1)``.
    delta:
        Confidence: the returned set is wrong with probability ``<= delta`` (Theorem 4.1).
    radius_constant, radius_power:
        ``rad_i(t) = sqrt(log(radius_constant K t^radius_power / delta) / (2 T_i(t)))``;
        defaults 4 and 3 (reconstructed from Appendix D's union bound).
    """

    name = "ldp-threshold-lucb"

    def __init__(self, epsilon: float, *, tau: float, delta: float,
                 radius_constant: float = 4.0, radius_power: float = 3.0) -> None:
        super().__init__(epsilon, tau)
        self.delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True,
                                high_open=True)
        self.radius_constant = check_real("radius_constant", radius_constant, low=1.0)
        self.radius_power = check_real("radius_power", radius_power, low=2.0)

    def __repr__(self) -> str:
        return (f"PrivateThresholdLUCB(epsilon={self.epsilon!r}, tau={self.tau!r}, "
                f"delta={self.delta!r})")

    def log_term(self, t: np.ndarray | float, k: int) -> np.ndarray:
        """``log(radius_constant K t^radius_power / delta)``."""
        return (math.log(self.radius_constant * k / self.delta)
                + self.radius_power * np.log(t))

    def simulate(self, source: RewardSource, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints=(), record: bool = False,
                 releases=None) -> FixedConfidenceResult:
        """Lockstep runs until every run stops or ``horizon`` pulls (a safety cap) pass.
        ``releases`` (the recording hook) receives every report (label ``"report"``; runs
        that have stopped are inactive)."""
        horizon, runs, _ = check_simulation(source, horizon, runs, rng)
        k, means = source.n_arms, _means_of(source)
        state: dict = {"shape": (runs, k), "live": np.arange(runs)}
        sums = np.zeros((runs, k))
        counts = np.zeros((runs, k), dtype=np.int64)
        stop = np.full(runs, horizon, dtype=np.int64)
        stopped = np.zeros(runs, dtype=bool)
        live = np.arange(runs)
        for t in range(1, horizon + 1):
            if t <= k:
                arm = np.full(live.size, t - 1)
            else:
                s, n = sums[live], counts[live]
                rad = np.sqrt(self.log_term(t, k) / (2.0 * n))
                undecided = np.abs(s / n - self.tau_eps) <= rad
                done = ~undecided.any(axis=1)
                if done.any():
                    stop[live[done]] = t - 1
                    stopped[live[done]] = True
                    live, undecided, n = live[~done], undecided[~done], n[~done]
                    if live.size == 0:
                        break
                # largest radius among U_t = fewest pulls; ties to the lowest index
                arm = np.argmin(np.where(undecided, n, np.iinfo(np.int64).max), axis=1)
            state["live"] = live
            y = self._send(source.rewards(t, arm, rng), arm, t, rng, state)
            if releases is not None:
                full, arms = np.zeros(runs), np.zeros(runs, dtype=np.int64)
                full[live], arms[live] = y, arm
                releases.record(full, step=t, arm=arms, active=np.isin(np.arange(runs), live),
                                label="report")
            sums[live, arm] += y
            counts[live, arm] += 1
        return self._result(sums, counts, means, stop, stopped)

    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints=(), record: bool = False
                          ) -> FixedConfidenceResult:
        """Plain reference: one run at a time, scalar arithmetic."""
        horizon, runs, _ = check_simulation(source, horizon, runs, rng)
        k, means = source.n_arms, _means_of(source)
        sums = np.zeros((runs, k))
        counts = np.zeros((runs, k), dtype=np.int64)
        stop = np.full(runs, horizon, dtype=np.int64)
        stopped = np.zeros(runs, dtype=bool)
        for r in range(runs):
            s, n = [0.0] * k, [0] * k
            for t in range(1, horizon + 1):
                if t <= k:
                    arm = t - 1
                else:
                    log_t = float(self.log_term(t, k))
                    open_arms = [i for i in range(k) if abs(s[i] / n[i] - self.tau_eps)
                                 <= math.sqrt(log_t / (2.0 * n[i]))]
                    if not open_arms:
                        stop[r], stopped[r] = t - 1, True
                        break
                    arm = min(open_arms, key=lambda i: (n[i], i))
                reward = float(source.rewards(t, np.array([arm]), rng)[0])
                s[arm] += float(rng.random() < self.mechanism.prob_one(reward))
                n[arm] += 1
            sums[r], counts[r] = s, n
        return self._result(sums, counts, means, stop, stopped)

    def _result(self, sums, counts, means, stop, stopped) -> FixedConfidenceResult:
        accepted = sums / counts >= self.tau_eps
        if means is None:
            raise InvalidParameterError("the fixed-confidence rule needs a source with arm "
                                        "means (correctness is defined against them)")
        correct = ~thresholding_loss(accepted, means, self.tau, 0.0)
        return FixedConfidenceResult(accepted, correct, stop, counts, stopped)


BLP_2025_INSTANCE = Instance(
    "Barbara, Lazzaro & Pike-Burke 2025, fixed budget", (0.3, 0.4, 0.6, 0.7),
    "Barbara, Lazzaro & Pike-Burke 2025 report no experiments; this instance (tau = 0.5, "
    "gamma = 0.05) is dpaudit's own, used by the ldp-tbp-fixed-budget check",
    settings={"tau": 0.5, "gamma": 0.05})

POLICIES = {
    "ldp-apt": PolicyEntry(
        partial(PrivateAPT, epsilon=1.0, tau=0.5, gamma=0.05), BLP_2025_INSTANCE,
        "Barbara, Lazzaro & Pike-Burke 2025, Algorithm 1 (APT of Locatelli et al. 2016 on "
        "PrivBern bits)",
        small_instance=(0.35, 0.55, 0.7), small_horizon=40,
        invalid=({"epsilon": -1.0}, {"tau": 1.5}, {"gamma": -0.1}, {"tau": 0.0}),
        no_bound_reason="a thresholding bandit: Barbara, Lazzaro & Pike-Burke 2025 bound its "
                        "loss (Theorem 3.1, check ldp-tbp-fixed-budget), not its regret"),
}
