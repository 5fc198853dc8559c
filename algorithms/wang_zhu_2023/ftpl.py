"""DP-FTPL-New (Wang & Zhu 2023, Algorithm 3, Lemma 15, Theorem 16).

Algorithm 3: pull every arm once; then at each step draw, for every arm ``i``, a sample
``theta_i`` from the Lemma-15 perturbation ``D(N_i, R_i)`` centred at::

    x0_i = R_i / N_i + sqrt(log T / N_i) + (1 / (N_i eps)) log( (T(e^eps - 1) + 2 T delta)
                                                              / (2(e^eps - 1) + 2 T delta) )

and pull ``argmax_i theta_i``. ``R_i`` is the sum of arm ``i``'s observations (Bernoulli; for a
reward in ``[0, 1]`` the algorithm observes a Bernoulli draw of it, the trick of Agrawal & Goyal
the paper cites in Section 3.1), ``N_i`` its count, ``T`` the horizon.

Reconstruction of ``x0`` (the OCR of Algorithm 3's line 7 is damaged): the readable fragments are
``mu_hat_i(t) +``, ``1/(N_i(t) eps) log``, ``T(e^eps - 1) + 2T delta`` over ``2(e^eps - 1) + 2T
delta``; the ``sqrt(log T / N_i)`` term is the one Fact 3 bounds the empirical mean by, and Fact 4
states that at this log term the Lemma-15 CDF equals exactly ``1/T`` (checked in the tests). The
proof of Theorem 16 uses ``theta_i - mu_i = (theta_i - x0) + (x0 - mu_hat_i) + (mu_hat_i - mu_i)
> 0`` which needs exactly these two terms in ``x0``.

Limits of the log term ``L = (1/eps) log(...)`` (Remark 17): ``delta = 0`` gives ``log(T/2)/eps``;
``eps -> 0`` gives ``(T - 2)/(2 T delta)``.

Only ``R_i/N_i`` depends on the observations, and one changed observation moves it by at most
``1/N_i``: the shift Lemma 15 allows (``# proof: shift`` below).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms import _step_kernels as sk
from dpaudit.algorithms.wang_zhu_2023._ftpl_kernels import ftpl_new_kernel
from dpaudit.algorithms.wang_zhu_2023.bounds import dp_ftpl_new_regret_bound, ftpl_new_log_term
from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_INSTANCE_1
from dpaudit.exact.loss import piecewise_quadrature
from dpaudit.interfaces import RewardSource
from dpaudit.mechanisms.lemma15 import Lemma15Perturbation
from dpaudit.sim.bandits import (
    PolicyEntry,
    RegretTracker,
    SimulationResult,
    bernoulli_observation,
    check_simulation,
    result_from_actions,
)
from dpaudit.validation import (
    InvalidParameterError,
    check_epsilon_delta,
    check_history,
    check_int,
)

__all__ = ["POLICIES", "DPFTPLNew", "ftpl_new_log_term"]


class DPFTPLNew:
    """DP-FTPL-New for ``horizon`` steps with privacy parameters ``(epsilon, delta)``.

    Parameters
    ----------
    epsilon, delta:
        ``epsilon >= 0``, ``0 <= delta < 1``, not both zero (Remark 17 allows either to be 0).
    horizon:
        ``T``, used in the centre ``x0`` (the algorithm is not anytime).

    The noise law is :meth:`make_perturbation` (Lemma 15 with the algorithm's ``epsilon``
    and ``delta``); the deliberately broken twin ``DPFTPLNewFaultyPerturbation`` in
    ``algorithms/wang_zhu_2023/_twins.py`` overrides it.
    """

    name = "DP-FTPL-New"

    def __init__(self, epsilon: float, delta: float, horizon: int) -> None:
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
        self.horizon = check_int("horizon", horizon, low=2)
        self.perturbation = self.make_perturbation()
        self.log_term = ftpl_new_log_term(self.epsilon, self.delta, self.horizon)

    def make_perturbation(self) -> Lemma15Perturbation:
        """The Lemma-15 law ``D(N, x0)`` with this algorithm's ``(epsilon, delta)``."""
        return Lemma15Perturbation(self.epsilon, self.delta)

    # -- the index ---------------------------------------------------------------------
    def centre(self, sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """``x0`` of Algorithm 3 for arrays of reward sums and counts (counts >= 1)."""
        counts = np.asarray(counts, dtype=float)
        mean = np.asarray(sums, dtype=float) / counts  # proof: shift (only data-dependent term)
        return mean + np.sqrt(math.log(self.horizon) / counts) + self.log_term / counts

    # -- the law of the next action given a history (per-step DP, Definition 1) ----------
    def next_action_law(self, sums: Sequence[float], counts: Sequence[int], *,
                        nodes: int = 48) -> tuple[np.ndarray, float]:
        """Exact ``P(argmax_i theta_i = i)`` for one history, and a quadrature error bound.

        ``P(i) = int f_i(x) prod_{j != i} F_j(x) dx``, integrated by composite Gauss-Legendre
        between every support edge and centre (the integrand is smooth in between). For
        ``delta = 0`` the Laplace tails are cut where their mass is below ``1e-16``.
        """
        s, n = self._history(sums, counts)
        x0 = self.centre(s, n)
        pert = self.perturbation
        half = pert.half_width(n)
        finite_half = np.where(np.isfinite(half), half,
                               40.0 / (n * pert.rate_multiplier * max(self.epsilon, 1e-300)))
        pts = np.concatenate([x0 - finite_half, x0, x0 + finite_half])
        k = n.size
        probs = np.empty(k)
        err = 0.0
        for i in range(k):
            others = [j for j in range(k) if j != i]

            def integrand(x: np.ndarray, i: int = i, others: list[int] = others) -> np.ndarray:
                val = pert.pdf(x, x0[i], n[i])
                for j in others:
                    val = val * pert.cdf(x, x0[j], n[j])
                return val

            lo, hi = x0[i] - finite_half[i], x0[i] + finite_half[i]
            inside = pts[(pts >= lo) & (pts <= hi)]
            probs[i], e = piecewise_quadrature(integrand, np.concatenate([[lo, hi], inside]),
                                               nodes=nodes)
            err += e
        err += abs(probs.sum() - 1.0)
        return probs, err

    def sample_next_actions(self, sums: Sequence[float], counts: Sequence[int], size: int,
                            rng: np.random.Generator) -> np.ndarray:
        """``size`` independent draws of the next action for one history."""
        s, n = self._history(sums, counts)
        x0 = self.centre(s, n)
        theta = self.perturbation.sample(x0[None, :], n[None, :], rng=rng, size=(size, n.size))
        return np.argmax(theta, axis=1)

    def _history(self, sums: Sequence[float], counts: Sequence[int]) -> tuple[np.ndarray,
                                                                               np.ndarray]:
        return check_history(sums, counts, min_count=1)

    # -- simulation --------------------------------------------------------------------
    def simulate(self, source: RewardSource, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints: Sequence[int] = (),
                 record: bool = False, backend: str = "auto", releases=None
                 ) -> SimulationResult:
        """``runs`` independent runs: compiled, one run and step at a time (``backend``
        ``"auto"``/``"numba"``, :func:`._ftpl_kernels.ftpl_new_kernel`), or in lockstep, one
        vectorised step at a time (``"numpy"``); the same law.

        Steps ``1..K`` pull arm ``t - 1`` once; then every step draws all runs' ``theta`` in
        one call. The observed reward is a Bernoulli draw of the source's reward (the identity
        on 0/1 rewards; Sec. 3.1). ``horizon`` may be at most the algorithm's ``T`` (the
        constructor's ``horizon``, which enters the centre ``x0``). ``releases`` (the
        recording hook, :mod:`dpaudit.sim.releases`) receives every perturbed score ``theta``
        (``(runs, K)``, label ``"theta"``), the value Lemma 15 is about.
        """
        kernel = self.kernel()
        compiled = kernel is not None and kern.use_compiled(backend) and releases is None
        horizon, runs, cps = self._check(source, horizon, runs, rng, checkpoints)
        if compiled and kernel is not None:
            return sk.run_kernel(kernel[0], source, horizon, runs, rng=rng, cps=cps,
                                 record=record, params=kernel[1])[0]
        k = source.n_arms
        track = RegretTracker(runs, source.gaps, cps, horizon=horizon, record=record)
        sums = np.zeros((runs, k))
        counts = np.zeros((runs, k))
        rows = np.arange(runs)
        for t in range(1, horizon + 1):
            if t <= k:
                arm = np.full(runs, t - 1)
            else:
                theta = self._perturbed(sums, counts, t, rng)
                if releases is not None:
                    releases.record(theta, step=t, label="theta")
                arm = np.argmax(theta, axis=1)
            obs = bernoulli_observation(source.rewards(t, arm, rng), rng)
            sums[rows, arm] += obs
            counts[rows, arm] += 1.0
            track.step(arm, t)
        return track.result()

    def kernel(self) -> tuple | None:
        """``(ftpl_new_kernel, parameters)``, or ``None`` when a subclass changes the law in a
        way the kernel does not read (another ``centre`` or perturbation class than Lemma
        15's, whose ``rate_multiplier`` the kernel does read)."""
        pert = self.perturbation
        if (type(self).centre is not DPFTPLNew.centre
                or type(self)._perturbed is not DPFTPLNew._perturbed
                or type(pert).ppf is not Lemma15Perturbation.ppf
                or type(pert).sample is not Lemma15Perturbation.sample):
            return None
        return ftpl_new_kernel, (float(pert.epsilon), float(pert.delta),
                                    float(pert.rate_multiplier), math.log(self.horizon),
                                    float(self.log_term))

    def _perturbed(self, sums: np.ndarray, counts: np.ndarray, t: int,
                   rng: np.random.Generator) -> np.ndarray:
        """The perturbed scores ``theta`` of every run and arm at step ``t`` (``simulate``)."""
        return self.perturbation.sample(self.centre(sums, counts), counts, rng=rng)

    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> SimulationResult:
        """One run at a time, one step at a time (the plain reference; same law)."""
        horizon, runs, cps = self._check(source, horizon, runs, rng, checkpoints)
        k = source.n_arms
        all_actions = []
        for _ in range(runs):
            sums, counts = np.zeros(k), np.zeros(k)
            actions = []
            for t in range(1, horizon + 1):
                if t <= k:
                    arm = t - 1
                else:
                    theta = self.perturbation.sample(self.centre(sums, counts), counts, rng=rng)
                    arm = int(np.argmax(theta))
                r = float(source.rewards(t, np.array([arm]), rng)[0])
                sums[arm] += float(bernoulli_observation(np.array([r]), rng)[0])
                counts[arm] += 1.0
                actions.append(arm)
            all_actions.append(actions)
        return result_from_actions(np.array(all_actions), source.gaps, cps, record=record)

    def _check(self, source: object, horizon: object, runs: object, rng: object,
               checkpoints: object) -> tuple[int, int, np.ndarray]:
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        if horizon > self.horizon:
            raise InvalidParameterError(
                f"horizon={horizon!r} must be at most the algorithm's T = {self.horizon}")
        return horizon, runs, cps


POLICIES = {
    "dp-ftpl-new": PolicyEntry(
        partial(DPFTPLNew, epsilon=1.0, delta=0.01, horizon=WANG_ZHU_INSTANCE_1.horizon),
        WANG_ZHU_INSTANCE_1, "Wang & Zhu 2023, Algorithm 3 (Lemma 15, Theorem 16)",
        small_instance=(0.7, 0.5, 0.4), small_horizon=40,
        invalid=({"epsilon": -1.0}, {"delta": 1.0}, {"epsilon": 0.0, "delta": 0.0},
                 {"horizon": 1}, {"horizon": 10.5}),
        bound=dp_ftpl_new_regret_bound),
}
