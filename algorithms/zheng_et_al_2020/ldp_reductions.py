"""Zheng et al. 2020: the one-point and two-point LDP reductions (Algorithms 1 and 2).

**Algorithm 1 (one-point reduction).** User ``t`` suffers a loss ``f_t(x_t) in [-B, B]`` and
sends ``f_t(x_t) + Z_t``, ``Z_t ~ N(0, sigma^2)``, ``sigma = 2 B sqrt(2 ln(1.25/delta))/eps``
(the classical Gaussian calibration, Dwork & Roth 2014 Thm A.1, for the range ``2B``); the
server's non-private algorithm only ever sees the noisy value. ``range_factor`` (default 2,
the printed ``2B``) is a named parameter; ``range_factor=1`` is the broken calibration the
``ldp-one-point-faulty`` check must reject. Two instantiations:

* :class:`OnePointUCB`: multi-armed bandits (the paper's Appendix B, which is not in our
  copy; the issue asks for UCB as the black box). Loss ``1/2 - r`` for a Bernoulli reward
  ``r`` (so ``B = 1/2``), index ``mean + R sqrt(8 ln t / n)`` with ``R^2 = 1/4 + sigma^2``
  (UCB1 of Auer et al. 2002 rescaled to ``R``-sub-Gaussian observations: Bernoulli plus
  Gaussian noise). Written to the bandit ``Policy`` protocol.
* :class:`OnePointFKM`: bandit convex optimisation on the unit ball with the one-point
  sphere-sampling gradient ``(d/rho) (f_t(x_t) + Z_t) u_t`` of Flaxman, Kalai & McMahan 2005,
  ``x_t = y_t + rho u_t``, ``y_{t+1} = Pi_{(1 - rho) ball}(y_t - eta_t g_t)``. Two schedules:
  ``"smooth"`` (``eta = T^(-2/3)/d``, ``rho = T^(-1/6)``; ``O(T^(2/3))`` for smooth convex
  losses) and ``"strongly-convex"`` (``eta_t = 1/(mu t)``, ``rho = T^(-1/4)``;
  ``O(sqrt(T) log T)`` for smooth strongly convex losses with an interior minimiser). These
  are the orders Corollary 4 states for its black boxes (Saha & Tewari 2011; Hazan & Levy
  2014); we use sphere sampling, which reaches the same orders on the ball when the
  minimiser is interior (our derivation, stated as such: bias ``beta rho^2 T``, variance
  ``d^2 (B + sigma)^2 sum_t eta_t / rho^2``, distance ``1/eta``).

**Algorithm 2 (two-point BCO).** Agarwal, Dekel & Xiao 2010's two-point method:
``x_{t,1,2} = y_t +- rho u_t``; the user sends ``f_t(x_{t,1}) - f_t(x_{t,2}) + n_t^T
(x_{t,1} - x_{t,2})``, ``n_t ~ N(0, sigma^2 I_d)``, ``sigma = 2 G sqrt(2 ln(1.25/delta))/eps``;
the server steps ``y_{t+1} = Pi_{(1 - xi) ball}(y_t - eta (d / (2 rho)) report u_t)`` with
``eta = 1/sqrt(T)``, ``rho = log T / T``, ``xi = rho`` (``r = 1``). Since ``x_{t,1} - x_{t,2}
= 2 rho u_t`` with ``|u_t| = 1``, the noise is ``N(0, 4 rho^2 sigma^2)`` on a difference of
range ``[-2 rho G, 2 rho G]``: the classical calibration for sensitivity ``4 rho G``.

Convention for the convex sources (:class:`QuadraticLosses`): ``f_t(x) = a |x - theta|^2 +
q_t`` on the unit ball of ``R^d``, ``q_t ~ U[-b, b]`` i.i.d. (stochastic BCO, Agarwal et al.
2011), ``theta`` interior. ``simulate(source, horizon, runs, *, rng, checkpoints=())``
returns the one result type, :class:`~dpaudit.sim.bandits.SimulationResult`, with the
pseudo-regret ``sum_t E f(x_t) - min_x E f(x)`` of each run (two-point: the mean of the two
queried points, Eq. (2)) and its curve at the checkpoints; ``counts`` is empty (continuous
actions) and ``extra["last"]`` is the last iterate. :class:`OnePointUCB` is a bandit
``Policy`` on :mod:`dpaudit.sim.bandits` reward sources (registered in ``POLICIES``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms import _step_kernels as sk
from dpaudit.algorithms.zheng_et_al_2020._one_point_kernel import one_point_ucb_kernel
from dpaudit.interfaces import RewardSource
from dpaudit.sim.bandits import (
    Instance,
    PolicyEntry,
    RegretTracker,
    SimulationResult,
    bernoulli_observation,
    check_simulation,
    result_from_actions,
)
from dpaudit.validation import (
    InvalidParameterError,
    check_choice,
    check_epsilon,
    check_int,
    check_real,
)

__all__ = [
    "POLICIES",
    "check_continuous",
    "continuous_result",
    "GaussianRelease",
    "OnePointFKM",
    "OnePointUCB",
    "QuadraticLosses",
    "TwoPointBCO",
    "ZHENG_2020_MAB",
    "classical_factor",
]


def classical_factor(delta: float) -> float:
    """``sqrt(2 ln(1.25/delta))`` (Dwork & Roth 2014, Theorem A.1)."""
    return math.sqrt(2.0 * math.log(1.25 / delta))


def _check_flag(private: object) -> bool:
    """``private=False`` is the non-private black box (sigma = 0), the regret baseline."""
    if not isinstance(private, bool):
        raise InvalidParameterError(f"private={private!r} must be True or False")
    return private


def _check_delta(delta: float) -> float:
    return check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)


@dataclass(frozen=True)
class GaussianRelease:
    """What one user sends, declared: blocks of one Gaussian vector.

    ``blocks``: ``(label, l2_sensitivity, sigma)`` per block (the noise of a block is
    ``N(0, sigma^2 I)``). ``mu_sup``: the supremum over pairs of data of the Mahalanobis
    distance between the two report means (``None``: the blocks' worst cases are taken
    together, ``sqrt(sum (sensitivity/sigma)^2)``, an upper bound); ``mu_witness``: the
    distance at a concrete pair of data (equal to ``mu_sup`` when the supremum is attained).
    """

    blocks: tuple[tuple[str, float, float], ...]
    mu_witness: float
    mu_sup: float | None = None

    @property
    def mu_upper(self) -> float:
        if self.mu_sup is not None:
            return self.mu_sup
        return math.sqrt(sum((s / sg) ** 2 for _, s, sg in self.blocks))


# -- Algorithm 1 on a multi-armed bandit ---------------------------------------------------
class OnePointUCB:
    """Algorithm 1 with UCB as the black box, on Bernoulli arms (see the module docstring).

    Parameters
    ----------
    epsilon, delta:
        The LDP claim; ``0 < delta < 1``.
    range_factor:
        ``sigma = range_factor * B * sqrt(2 ln(1.25/delta)) / eps`` (printed: 2).
    """

    name = "ldp-one-point-ucb"
    loss_bound = 0.5  # B: losses 1/2 - r lie in [-1/2, 1/2]

    def __init__(self, epsilon: float, delta: float, *, range_factor: float = 2.0,
                 private: bool = True) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = _check_delta(delta)
        self.range_factor = check_real("range_factor", range_factor, low=0.0, low_open=True)
        self.private = _check_flag(private)
        self.sigma = self.range_factor * self.loss_bound * classical_factor(self.delta) \
            / self.epsilon if self.private else 0.0
        self.r = math.sqrt(0.25 + self.sigma ** 2)

    def __repr__(self) -> str:
        return (f"OnePointUCB(epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"range_factor={self.range_factor!r})")

    def report(self, losses: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """What each user sends: its loss plus ``N(0, sigma^2)`` (the only data path). The
        user clips its loss to ``[-B, B]`` first, so the sensitivity holds for any input."""
        losses = np.clip(np.asarray(losses, float), -self.loss_bound, self.loss_bound)
        return losses + self.sigma * rng.standard_normal(losses.shape)

    def release(self) -> GaussianRelease:
        """Losses range over ``[-B, B]``: the extreme pair ``(B, -B)`` is at distance
        ``2B / sigma``."""
        mu = 2.0 * self.loss_bound / self.sigma
        return GaussianRelease((("loss", 2.0 * self.loss_bound, self.sigma),), mu, mu)

    def _index(self, sums: np.ndarray, counts: np.ndarray, t: int) -> np.ndarray:
        return sums / counts + self.r * np.sqrt(8.0 * math.log(t) / counts)

    def _send(self, losses: np.ndarray, t: int, rng: np.random.Generator,
              state: dict) -> np.ndarray:
        """The reports of the users of step ``t`` as ``simulate`` builds them:
        :meth:`report` of each loss (``state``: a dict private to one ``simulate`` call,
        ``state["shape"] = (runs, K)``)."""
        return self.report(losses, rng)

    def simulate(self, source: RewardSource, horizon: int, runs: int, *, rng: np.random.Generator,
                 checkpoints=(), record: bool = False, backend: str = "auto",
                 releases=None) -> SimulationResult:
        """``runs`` runs; the server sees only ``report(1/2 - r)``. Compiled, one run at a
        time (``backend`` ``"auto"``/``"numba"``, :func:`._one_point_kernel.one_point_ucb_kernel`),
        or in lockstep with numpy (``"numpy"``); the same law. ``releases`` (the recording
        hook, :mod:`dpaudit.sim.releases`) receives every report as it leaves the user (label
        ``"report"``, with its step and arm); it is served by the numpy path, as is a subclass
        that replaces the report code (a planted twin)."""
        compiled = (kern.use_compiled(backend) and releases is None
                    and not kern.overrides(self, OnePointUCB, ("report", "_send")))
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        if compiled:
            kernel, params = self.kernel()
            return sk.run_kernel(kernel, source, horizon, runs, rng=rng, cps=cps,
                                 record=record, params=params)[0]
        k = source.n_arms
        tracker = RegretTracker(runs, source.gaps, cps, horizon=horizon, record=record)
        sums, counts = np.zeros((runs, k)), np.zeros((runs, k))
        rows = np.arange(runs)
        state: dict = {"shape": (runs, k)}
        for t in range(1, horizon + 1):
            arm = np.full(runs, t - 1) if t <= k else np.argmax(
                self._index(-sums, counts, t), axis=1)
            r = bernoulli_observation(source.rewards(t, arm, rng), rng)
            sent = self._send(0.5 - r, t, rng, state)
            if releases is not None:
                releases.record(sent, step=t, arm=arm, label="report")
            sums[rows, arm] += sent
            counts[rows, arm] += 1
            tracker.step(arm, t)
        return tracker.result()

    def kernel(self) -> tuple:
        """``(one_point_ucb_kernel, (sigma, R))`` (:mod:`._step_kernels`)."""
        return one_point_ucb_kernel, (float(self.sigma), float(self.r))

    def simulate_per_step(self, source: RewardSource, horizon: int, runs: int, *,
                          rng: np.random.Generator, checkpoints=(), record: bool = False
                          ) -> SimulationResult:
        """Plain reference: one run at a time, one step at a time."""
        horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
        k = source.n_arms
        actions = np.zeros((runs, horizon), dtype=np.int64)
        for i in range(runs):
            s, n = np.zeros(k), np.zeros(k)
            for t in range(1, horizon + 1):
                arm = t - 1 if t <= k else int(np.argmax(self._index(-s, n, t)))
                r = bernoulli_observation(source.rewards(t, np.array([arm]), rng), rng)
                s[arm] += float(self.report(0.5 - r, rng)[0])
                n[arm] += 1
                actions[i, t - 1] = arm
        return result_from_actions(actions, source.gaps, cps, record=record)


# -- convex sources and results ------------------------------------------------------------
class QuadraticLosses:
    """``f_t(x) = a |x - theta|^2 + q_t``, ``q_t ~ U[-b, b]``, on the unit ball of ``R^d``.

    ``|f_t| <= 4a + b =: B`` on the ball, ``G = 4a`` (Lipschitz), ``mu = beta = 2a``.
    """

    def __init__(self, theta: object, *, a: float = 0.125, b: float = 0.5) -> None:
        th = np.asarray(theta, dtype=float)
        if th.ndim != 1 or th.size < 1 or not np.all(np.isfinite(th)) or \
                np.linalg.norm(th) >= 1.0:
            raise InvalidParameterError(f"theta={theta!r} must be a finite vector in the open "
                                        "unit ball")
        self.theta = th
        self.dim = int(th.size)
        self.a = check_real("a", a, low=0.0, low_open=True)
        self.b = check_real("b", b, low=0.0)
        self.loss_bound = 4.0 * self.a + self.b
        self.lipschitz = 4.0 * self.a

    def offsets(self, runs: int, rng: np.random.Generator) -> np.ndarray:
        """``q_t`` of every run (one loss function per user and step)."""
        return rng.uniform(-self.b, self.b, size=runs)

    def value(self, x: np.ndarray, q: np.ndarray) -> np.ndarray:
        return self.a * np.sum((x - self.theta) ** 2, axis=-1) + q

    def mean_excess(self, x: np.ndarray) -> np.ndarray:
        """``E f(x) - min E f``."""
        return self.a * np.sum((x - self.theta) ** 2, axis=-1)


def check_continuous(source: object, kind: type, horizon: object, runs: object,
                      rng: object, checkpoints: object) -> tuple[int, int, np.ndarray]:
    """Validate the arguments of a continuous-action ``simulate``."""
    if not isinstance(source, kind):
        raise InvalidParameterError(f"source={source!r} must be a {kind.__name__}")
    h = check_int("horizon", horizon, low=2)
    n = check_int("runs", runs, low=1)
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(f"rng={rng!r} must be a numpy.random.Generator")
    cps = [check_int("checkpoint", c, low=1, high=h) for c in np.asarray(
        checkpoints, dtype=object).ravel().tolist()]
    return h, n, np.unique(np.asarray(cps, dtype=np.int64))


def continuous_result(regret: np.ndarray, cps: np.ndarray, curve: np.ndarray,
                      last: np.ndarray) -> SimulationResult:
    """The one result type for continuous actions: ``counts`` is empty ``(runs, 0)``;
    ``extra["last"]`` holds the last iterate (or ``None``) of every run."""
    return SimulationResult(regret=regret, counts=np.zeros((regret.size, 0), dtype=np.int64),
                            checkpoints=cps, curve=curve, extra={"last": last})


def _sphere(runs: int, d: int, rng: np.random.Generator) -> np.ndarray:
    u = rng.standard_normal((runs, d))
    return u / np.linalg.norm(u, axis=1, keepdims=True)


def _project(y: np.ndarray, radius: float) -> np.ndarray:
    norm = np.linalg.norm(y, axis=1, keepdims=True)
    return np.where(norm > radius, y * (radius / np.maximum(norm, 1e-300)), y)


class OnePointFKM:
    """Algorithm 1 with Flaxman et al. 2005's one-point gradient as the black box."""

    name = "ldp-one-point-fkm"
    SCHEDULES = ("smooth", "strongly-convex")

    def __init__(self, epsilon: float, delta: float, *, loss_bound: float,
                 schedule: str = "strongly-convex", strong_convexity: float = 0.25,
                 range_factor: float = 2.0, private: bool = True) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = _check_delta(delta)
        self.loss_bound = check_real("loss_bound", loss_bound, low=0.0, low_open=True)
        self.schedule = check_choice("schedule", schedule, self.SCHEDULES)
        self.mu = check_real("strong_convexity", strong_convexity, low=0.0, low_open=True)
        self.range_factor = check_real("range_factor", range_factor, low=0.0, low_open=True)
        self.private = _check_flag(private)
        self.sigma = self.range_factor * self.loss_bound * classical_factor(self.delta) \
            / self.epsilon if self.private else 0.0

    def report(self, losses: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The user's loss, clipped to ``[-B, B]``, plus ``N(0, sigma^2)``."""
        losses = np.clip(np.asarray(losses, float), -self.loss_bound, self.loss_bound)
        return losses + self.sigma * rng.standard_normal(losses.shape)

    def release(self) -> GaussianRelease:
        mu = 2.0 * self.loss_bound / self.sigma
        return GaussianRelease((("loss", 2.0 * self.loss_bound, self.sigma),), mu, mu)

    def simulate(self, source: QuadraticLosses, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints=(), releases=None) -> SimulationResult:
        """``releases`` (the recording hook) receives every user's report (label
        ``"report"``)."""
        horizon, runs, cps = check_continuous(source, QuadraticLosses, horizon, runs, rng,
                                               checkpoints)
        src, d = source, source.dim
        rho = horizon ** (-1 / 6) if self.schedule == "smooth" else horizon ** (-1 / 4)
        y = np.zeros((runs, d))
        regret, curve = np.zeros(runs), np.zeros((runs, cps.size))
        for t in range(1, horizon + 1):
            eta = horizon ** (-2 / 3) / d if self.schedule == "smooth" else 1.0 / (self.mu * t)
            u = _sphere(runs, d, rng)
            x = y + rho * u
            seen = self.report(src.value(x, src.offsets(runs, rng)), rng)
            if releases is not None:
                releases.record(seen, step=t, label="report")
            regret += src.mean_excess(x)
            curve[:, cps == t] = regret[:, None]
            y = _project(y - eta * (d / rho) * seen[:, None] * u, 1.0 - rho)
        return continuous_result(regret, cps, curve, y)


class TwoPointBCO:
    """Algorithm 2: private two-point bandit convex optimisation (module docstring)."""

    name = "ldp-two-point-bco"

    def __init__(self, epsilon: float, delta: float, *, lipschitz: float,
                 range_factor: float = 2.0, private: bool = True) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = _check_delta(delta)
        self.lipschitz = check_real("lipschitz", lipschitz, low=0.0, low_open=True)
        self.range_factor = check_real("range_factor", range_factor, low=0.0, low_open=True)
        self.private = _check_flag(private)
        self.sigma = self.range_factor * self.lipschitz * classical_factor(self.delta) \
            / self.epsilon if self.private else 0.0

    def report(self, f1: np.ndarray, f2: np.ndarray, x1: np.ndarray, x2: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
        """``f(x1) - f(x2) + n^T (x1 - x2)``, ``n ~ N(0, sigma^2 I_d)`` (Algorithm 2, line 5).

        The user clips the difference to ``G |x1 - x2|`` (what ``G``-Lipschitz losses
        guarantee), so the sensitivity holds for any input."""
        x1, x2 = np.asarray(x1, float), np.asarray(x2, float)
        span = self.lipschitz * np.linalg.norm(x1 - x2, axis=-1)
        diff = np.clip(np.asarray(f1, float) - np.asarray(f2, float), -span, span)
        n = self.sigma * rng.standard_normal(x1.shape)
        return diff + np.sum(n * (x1 - x2), axis=-1)

    def release(self, rho: float) -> GaussianRelease:
        """The report is scalar: difference range ``[-2 rho G, 2 rho G]``, noise std
        ``2 rho sigma``; the pair of linear losses ``+-G u^T x`` attains the extremes."""
        mu = 4.0 * rho * self.lipschitz / (2.0 * rho * self.sigma)
        return GaussianRelease((("difference", 4.0 * rho * self.lipschitz,
                                 2.0 * rho * self.sigma),), mu, mu)

    def simulate(self, source: QuadraticLosses, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints=(), releases=None) -> SimulationResult:
        """``releases`` (the recording hook) receives every user's report (label
        ``"report"``)."""
        horizon, runs, cps = check_continuous(source, QuadraticLosses, horizon, runs, rng,
                                               checkpoints)
        src, d = source, source.dim
        eta, rho = 1.0 / math.sqrt(horizon), math.log(horizon) / horizon
        y = np.zeros((runs, d))
        regret, curve = np.zeros(runs), np.zeros((runs, cps.size))
        for t in range(1, horizon + 1):
            u = _sphere(runs, d, rng)
            x1, x2 = y + rho * u, y - rho * u
            q = src.offsets(runs, rng)
            seen = self.report(src.value(x1, q), src.value(x2, q), x1, x2, rng)
            if releases is not None:
                releases.record(seen, step=t, label="report")
            regret += 0.5 * (src.mean_excess(x1) + src.mean_excess(x2))
            curve[:, cps == t] = regret[:, None]
            y = _project(y - eta * (d / (2.0 * rho)) * seen[:, None] * u, 1.0 - rho)
        return continuous_result(regret, cps, curve, y)


ZHENG_2020_MAB = Instance(
    "Zheng et al. 2020, MAB", (0.9, 0.1),
    "Zheng et al. 2020 report no experiments; two Bernoulli arms 0.9 and 0.1 are dpaudit's "
    "own instance for the one-point reduction with UCB (ldp-one-point)")

POLICIES = {
    "ldp-one-point-ucb": PolicyEntry(
        partial(OnePointUCB, epsilon=1.0, delta=1e-5), ZHENG_2020_MAB,
        "Zheng et al. 2020, Algorithm 1 with UCB as the black box (Appendix B)",
        small_instance=(0.8, 0.3), small_horizon=60, small_overrides={"epsilon": 4.0,
                                                                     "delta": 0.01},
        invalid=({"epsilon": 0.0}, {"delta": 1.0}, {"range_factor": -1.0},
                 {"private": "yes"}),
        no_bound_reason="Zheng et al. 2020 state regret orders only (no constants printed)"),
}
