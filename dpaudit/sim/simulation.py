"""Regret simulation of any registered policy, streamed chunk by chunk (``simulate``).

Runs are cut into fixed chunks (:func:`chunk_runs`, a function of the number of runs only);
chunk ``i`` gets child ``i`` of the seed sequence ``(seed, "simulate:NAME")`` and returns
only sufficient statistics (run count, mean and centred sum of squares of the pseudo-regret,
summed regret curve and pull counts). They are merged in chunk order (Chan, Golub & LeVeque's
pairwise update), so the report is bit-identical for 1 worker, a local pool or a Dask cluster,
and memory does not grow with the number of runs.

Bounds: a :class:`~dpaudit.sim.bandits.PolicyEntry` may declare ``bound(policy, means, horizon)
-> (value, name)``; the policies ported before that field existed get theirs from
:data:`KNOWN_BOUNDS` (Azize & Basu 2022, Theorem 7; Wang & Zhu 2023, Theorems 16 and 18).
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

import numpy as np
from scipy import stats

from dpaudit.registry import all_policies
from dpaudit.sim.bandits import BernoulliRewards, PolicyEntry
from dpaudit.sim.parallel import chunk_runs, default_workers, map_chunks, resolve_scheduler
from dpaudit.stats.rng import DEFAULT_SEED
from dpaudit.validation import (
    InvalidParameterError,
    check_epsilon,
    check_int,
    check_means,
    check_real,
)

__all__ = ["KNOWN_BOUNDS", "Moments", "SimulationReport", "chunk_runs", "get_policy",
           "policy_overrides", "simulate_policy"]


def _adap_ucb(policy: Any, means: Sequence[float], horizon: int) -> tuple[float, str]:
    from dpaudit.algorithms.bounds import thm7_adap_ucb_upper
    return (thm7_adap_ucb_upper(means, horizon, policy.epsilon, policy.alpha),
            "Azize & Basu 2022, Theorem 7 (upper bound)")


def _ftpl_new(policy: Any, means: Sequence[float], horizon: int) -> tuple[float, str]:
    from dpaudit.algorithms.bounds import thm16_dp_ftpl_new_upper
    return (thm16_dp_ftpl_new_upper(means, horizon, policy.epsilon, policy.delta),
            "Wang & Zhu 2023, Theorem 16 (upper bound)")


def _gdp_elim(policy: Any, means: Sequence[float], horizon: int) -> tuple[float, str]:
    from dpaudit.algorithms.bounds import thm18_gdp_elim_upper
    return (thm18_gdp_elim_upper(means, horizon, policy.epsilon, policy.delta),
            "Wang & Zhu 2023, Theorem 18 (upper bound)")


# Theorem bounds of the policies registered before PolicyEntry.bound existed. AdaP-KLUCB has
# none: Azize & Basu 2022's Theorem 8 leaves its constants C1, C2 unspecified. Broken twins
# have none: no theorem covers them.
KNOWN_BOUNDS: Mapping[str, Callable[[Any, Sequence[float], int], tuple[float, str]]] = {
    "adap-ucb": _adap_ucb,
    "dp-ftpl-new": _ftpl_new,
    "gdp-elim-new": _gdp_elim,
}


@dataclass(frozen=True)
class Moments:
    """Count, mean and centred sum of squares ``m2`` of some numbers (mergeable)."""

    n: int
    mean: float
    m2: float

    @classmethod
    def of(cls, values: np.ndarray) -> Moments:
        values = np.asarray(values, dtype=float)
        if values.size == 0:
            return cls(0, 0.0, 0.0)
        mean = float(values.mean())
        return cls(int(values.size), mean, float(np.sum((values - mean) ** 2)))

    def merge(self, other: Moments) -> Moments:
        """Chan, Golub & LeVeque 1979's pairwise update (exact up to rounding)."""
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        d = other.mean - self.mean
        return Moments(n, self.mean + d * other.n / n,
                       self.m2 + other.m2 + d * d * self.n * other.n / n)

    @property
    def std(self) -> float:
        """Sample standard deviation; 0 when ``m2`` is within its own rounding error.

        Each centred term ``x - mean`` carries an error of a few ulps of ``|mean|`` (the mean
        is rounded, and every merge adds its own rounding), so ``m2`` of numbers that are all
        equal comes out near ``n (c eps |mean|)^2`` instead of 0: printed as a spread of
        ``4.666e-13`` it would be round-off shown as data. ``c = 16`` is a generous multiple of
        the few ulps per term; a genuine spread that small is below what float64 resolves.
        """
        if self.n < 2:
            return 0.0
        noise = self.n * (16.0 * np.finfo(float).eps * abs(self.mean)) ** 2
        return 0.0 if self.m2 <= noise else math.sqrt(self.m2 / (self.n - 1))


@dataclass(frozen=True)
class _Chunk:
    regret: Moments
    curve_sum: np.ndarray
    counts_sum: np.ndarray


@dataclass(frozen=True)
class SimulationReport:
    """What ``python -m dpaudit simulate`` reports (``to_dict`` is the JSON)."""

    policy: str
    paper: str
    instance: str
    means: tuple[float, ...]
    horizon: int
    runs: int
    parameters: Mapping[str, Any]
    seed: int
    mean: float
    ci_low: float
    ci_high: float
    confidence: float
    std: float
    bound: float | None
    bound_name: str | None
    within_bound: bool | None
    checkpoints: tuple[int, ...]
    mean_curve: tuple[float, ...]
    mean_pulls: tuple[float, ...]
    chunks: int
    seconds: float
    pulls_per_second: float
    workers: int | None
    scheduler: str | None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["parameters"] = dict(self.parameters)
        return out

    def numbers(self) -> dict[str, Any]:
        """The report without timing and placement (what must not depend on workers)."""
        out = self.to_dict()
        for k in ("seconds", "pulls_per_second", "workers", "scheduler"):
            out.pop(k)
        return out


def get_policy(name: str) -> PolicyEntry:
    """The registered policy ``name`` (close matches suggested otherwise)."""
    import difflib

    registry = all_policies()
    if name not in registry:
        close = difflib.get_close_matches(name, list(registry), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise InvalidParameterError(f"unknown policy name {name!r}{hint} (policies: "
                                    f"{', '.join(sorted(registry))})")
    return registry[name]


def policy_overrides(name: str, entry: PolicyEntry, *, horizon: int,
                     epsilon: float | None, delta: float | None) -> dict[str, Any]:
    """Keyword overrides for ``entry.factory``: ``epsilon``/``delta`` when given (a usage
    error for a policy without them) and ``horizon`` when the policy is tuned to it."""
    try:
        params = inspect.signature(entry.factory).parameters
    except (TypeError, ValueError):
        params = {}
    out: dict[str, Any] = {}
    for key, value in (("epsilon", epsilon), ("delta", delta)):
        if value is None:
            continue
        if key not in params:
            raise InvalidParameterError(
                f"{key}={value!r} does not apply: policy {name!r} has no {key} parameter")
        out[key] = value
    if "horizon" in params:
        out["horizon"] = horizon
    return out


def _checkpoints(horizon: int) -> tuple[int, ...]:
    decades = [10**k for k in range(1, 19) if 10**k < horizon]
    return (*decades, horizon)


def _run_chunk(name: str, overrides: Mapping[str, Any], means: tuple[float, ...],
               horizon: int, checkpoints: tuple[int, ...], size: int,
               rng: np.random.Generator) -> _Chunk:
    policy = get_policy(name).factory(**overrides)
    res = policy.simulate(BernoulliRewards(means), horizon, size, rng=rng,
                          checkpoints=checkpoints)
    return _Chunk(Moments.of(res.regret), res.curve.sum(axis=0),
                  res.counts.sum(axis=0).astype(np.int64))


def simulate_policy(name: str, *, horizon: int, runs: int, epsilon: float | None = None,
                    delta: float | None = None, means: Sequence[float] | None = None,
                    seed: int = DEFAULT_SEED, workers: int | None = 1,
                    scheduler: object = None, confidence: float = 0.95) -> SimulationReport:
    """Simulate ``runs`` runs of the registered policy ``name`` for ``horizon`` steps.

    ``means`` defaults to the policy's paper instance; the report has the mean pseudo-regret
    with its Student-t interval at ``confidence``, the theorem's bound where there is one,
    the wall time and arm-pulls per second. Chunks go through
    :func:`dpaudit.sim.parallel.map_chunks` (``workers``, ``scheduler``).
    """
    entry = get_policy(name)
    runs = check_int("runs", runs, low=1)
    seed = check_int("seed", seed, low=0)
    confidence = check_real("confidence", confidence, low=0.0, high=1.0, low_open=True,
                            high_open=True)
    mu = tuple(float(m) for m in check_means(entry.instance.means if means is None else means))
    instance = entry.instance.name if means is None else "user means"
    horizon = check_int("horizon", horizon, low=len(mu))
    if epsilon is not None:  # the commands' range (e^epsilon finite); 0 is the policy's call
        check_epsilon(epsilon, allow_zero=True, finite_exp=True)
    overrides = policy_overrides(name, entry, horizon=horizon, epsilon=epsilon, delta=delta)
    policy = entry.factory(**overrides)  # validates the parameters before any work
    address = resolve_scheduler(scheduler)
    workers = default_workers() if workers is None else check_int("workers", workers, low=1)
    cps = _checkpoints(horizon)
    start = time.perf_counter()
    parts = map_chunks(partial(_run_chunk, name, overrides, mu, horizon, cps), runs,
                       seed=seed, key=f"simulate:{name}", chunk=chunk_runs(runs),
                       workers=workers, scheduler=address)
    seconds = time.perf_counter() - start
    total = Moments(0, 0.0, 0.0)
    for part in parts:
        total = total.merge(part.regret)
    curve = np.sum([p.curve_sum for p in parts], axis=0) / runs
    pulls = np.sum([p.counts_sum for p in parts], axis=0) / runs
    half = (float(stats.t.ppf(0.5 + confidence / 2, runs - 1) * total.std / math.sqrt(runs))
            if runs > 1 else 0.0)
    bound_fn = getattr(entry, "bound", None) or (None if entry.faulty
                                                 else KNOWN_BOUNDS.get(name))
    bound, bound_name = bound_fn(policy, mu, horizon) if bound_fn is not None else (None, None)
    params = {k: getattr(policy, k) for k in ("epsilon", "delta") if hasattr(policy, k)}
    return SimulationReport(
        policy=name, paper=entry.paper, instance=instance, means=mu, horizon=horizon,
        runs=runs, parameters=params, seed=seed, mean=total.mean, ci_low=total.mean - half,
        ci_high=total.mean + half, confidence=confidence, std=total.std,
        bound=None if bound is None else float(bound), bound_name=bound_name,
        within_bound=None if bound is None else bool(total.mean <= bound),
        checkpoints=cps, mean_curve=tuple(float(v) for v in curve),
        mean_pulls=tuple(float(v) for v in pulls), chunks=len(parts), seconds=seconds,
        pulls_per_second=runs * horizon / max(seconds, 1e-9),
        workers=None if address is not None else workers,
        scheduler=None if address is None else str(address))
