"""Regret simulation of any registered policy, streamed chunk by chunk (``simulate``).

Runs are cut into fixed chunks (:func:`simulation_chunk`, a function of the number of runs,
arms and horizon only, at most :data:`CHUNK_BYTES` of runs each);
chunk ``i`` gets child ``i`` of the seed sequence ``(seed, "simulate:NAME")`` and returns
only sufficient statistics (run count, mean and centred sum of squares of the pseudo-regret,
summed regret curve and pull counts). They are merged in chunk order (Chan, Golub & LeVeque's
pairwise update), so the report is bit-identical for 1 worker, a local pool or a Dask cluster,
and memory does not grow with the number of runs.

Bounds: each :class:`~dpaudit.sim.bandits.PolicyEntry` declares its paper's regret bound,
``bound(means, horizon, epsilon, delta) -> (value, name)``, or ``no_bound_reason``; this module
knows no algorithm. ``epsilon`` and ``delta`` are the policy's (``inf`` and 0 for a non-private
policy, 0 for ``delta`` of a pure-DP one).
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import partial
from typing import Any

import numpy as np
from scipy import stats

from dpaudit.runtime.batches import STOP_DECIDED, STOP_TIME_CAP, BatchPlan, run_batches
from dpaudit.runtime.limits import FAST_PULLS_PER_SECOND, DeadlineReached, Estimate
from dpaudit.runtime.parallel import (
    chunk_runs,
    chunk_sizes,
    default_workers,
    map_chunks,
    resolve_scheduler,
)
from dpaudit.sim.bandits import BernoulliRewards, PolicyEntry
from dpaudit.sim.policies import get_policy
from dpaudit.sim.regret import Moments, max_regret_per_run
from dpaudit.stats.evidence import RegretEvidence, decide_regret
from dpaudit.stats.results import RegretDecision, Verdict
from dpaudit.stats.rng import DEFAULT_SEED
from dpaudit.validation import (
    InvalidParameterError,
    check_epsilon,
    check_int,
    check_means,
    check_real,
)

__all__ = ["Moments", "SimulationReport", "chunk_runs", "get_policy",
           "policy_bound", "policy_overrides", "simulate_policy", "simulation_chunk",
           "simulation_estimate"]

#: bytes one chunk of runs may hold (:func:`simulation_chunk`)
CHUNK_BYTES = 256 << 20
#: steps of pre-drawn numbers a lockstep simulator holds per run and arm (its 2048-step blocks,
#: twice over for the index and the noise), and bytes of bookkeeping per chunk (its seed, its
#: future and its merged statistics)
_BLOCK_STEPS = 2 * 2048
_PER_CHUNK = 2048
#: bytes a worker process allocates for a chunk whatever its runs (a compiled kernel's
#: dispatch and the result's bookkeeping: measured with tracemalloc up to 1.6 MB, for
#: LDP-APT's kernel at T = 20000; tests/test_simulate_accounting.py)
_PER_PROCESS = 2 << 20


def _run_bytes(n_arms: int, horizon: int) -> int:
    """Bytes one simulated run holds at most: its blocks of pre-drawn numbers, pull counts,
    indices and checkpoint curve (measured: 34 KB for UCB's two arms, under 1 KB for the
    others; the bound is the larger)."""
    return 8 * n_arms * _BLOCK_STEPS + 128 * n_arms + 16 * len(_checkpoints(horizon)) + 512


def simulation_chunk(runs: int, n_arms: int, horizon: int) -> int:
    """Runs per chunk of ``simulate``: :func:`chunk_runs`, at most :data:`CHUNK_BYTES` of runs
    (a function of the runs, arms and horizon only, so the chunks and their seeds do not
    depend on the workers)."""
    return chunk_runs(runs, most=max(10, CHUNK_BYTES // _run_bytes(n_arms, horizon)))


def simulation_estimate(name: str, *, horizon: int, runs: int,
                        means: Sequence[float] | None = None, workers: int | None = 1):
    """The :class:`~dpaudit.runtime.limits.Estimate` of ``simulate`` from its arguments alone:
    one chunk of runs per worker plus the bookkeeping of every chunk, and the arm-pulls at
    :data:`~dpaudit.runtime.limits.FAST_PULLS_PER_SECOND` per worker. An episodic simulator
    (one reward-sum draw per episode, not per step) costs per episode: a policy that declares
    ``lockstep_work(n_arms, horizon) -> (blocks, seconds)`` (a lower bound on its episode
    blocks per run and the seconds one block costs per tracked checkpoint and run on one
    worker) is estimated from that instead, so a long horizon is not refused for steps it
    never takes. Validates the arguments (exit 2) on the way; nothing of the runs' size is
    allocated."""
    entry = get_policy(name)
    runs = check_int("runs", runs, low=1)
    k = len(check_means(entry.instance.means if means is None else means))
    horizon = check_int("horizon", horizon, low=k)
    workers = default_workers() if workers is None else check_int("workers", workers, low=1)
    size = simulation_chunk(runs, k, horizon)
    chunks = -(-runs // size)
    busy = min(workers, chunks)
    policy = entry.factory(**policy_overrides(name, entry, horizon=horizon, epsilon=None,
                                              delta=None))
    # a table the policy builds per process (one number per step: DP-UCB-Bound's ln n,
    # DP-UCB-Int's release scales), once per worker at a time
    table = getattr(policy, "table_bytes", None)
    tables = 0 if table is None else busy * int(table(k, horizon))
    own = getattr(policy, "run_bytes", None)  # a lockstep policy's counters and buffers
    per_run = max(_run_bytes(k, horizon), 0 if own is None else int(own(k, horizon)))
    memory = busy * (size * per_run + _PER_PROCESS) + chunks * (_PER_CHUNK + 16 * k) + tables
    what = f"simulate {name} at T={horizon}, {runs} runs ({chunks} chunk(s) of {size})"
    work = getattr(policy, "lockstep_work", None)
    if work is not None:
        # an episodic simulator adds one reward-sum block per episode and run to the regret
        # tracker, which compares it with every checkpoint (RegretTracker.add): its cost is
        # blocks x (1 + checkpoints), not T; the policy declares a lower bound on its blocks
        # and the seconds of one block-checkpoint (measured, with a margin)
        blocks, unit = work(k, horizon)
        units = runs * blocks * (1 + len(_checkpoints(horizon)))
        seconds = units * unit / busy
        return Estimate(what, memory, seconds,
                        f"{units:.3g} block-checkpoints (at least {blocks} episode block(s) "
                        f"per run) at {busy / unit:.3g} per second, faster than this policy "
                        "runs")
    rate = FAST_PULLS_PER_SECOND * busy
    seconds = runs * horizon / rate
    return Estimate(what, memory, seconds,
                    f"{runs * horizon:.3g} arm-pulls at {rate:.3g} per second, faster than "
                    "any policy here runs")


@dataclass(frozen=True)
class _Chunk:
    regret: Moments
    curve_sum: np.ndarray
    counts_sum: np.ndarray
    #: the chunk's runs' regrets, in run order (the betting confidence sequence needs them)
    values: np.ndarray | None = None
    #: an episodic policy's blocks of the chunk's runs (episodes, phases or epochs: one
    #: reward-sum draw per arm each) and what they are called; ``None`` for a step-wise one
    blocks: int | None = None
    block_unit: str | None = None


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
    placement: str | None = None
    #: why the policy's entry declares no bound (``PolicyEntry.no_bound_reason``), else None
    no_bound_reason: str | None = None
    #: the runs asked for (``runs`` is fewer when the deadline cut the chunks: ``deadline_hit``)
    runs_planned: int | None = None
    deadline_hit: bool = False
    #: the run counts at which the verdict's interval was looked at (the ends of the batches)
    looks: tuple[int, ...] = ()
    #: how the runs were gathered (:func:`dpaudit.runtime.batches.Batched.to_dict`: first
    #: batch, batches, runs, why adding stopped, the caps); ``None``: one batch, no caps
    batching: Mapping[str, Any] | None = None
    #: the worker processes the runs used: 1 when the work stayed in this process
    #: (``placement`` says why), at most one per chunk; ``None`` on a Dask cluster
    workers_used: int | None = None
    #: an episodic policy (one reward-sum draw per episode, not per step): its blocks per
    #: second (``block_unit``: episodes, phases or epochs, counted in the runs); it never
    #: draws pulls one at a time, so ``pulls_per_second`` is only the equivalent rate
    blocks_per_second: float | None = None
    block_unit: str | None = None
    #: every run's regret in the order drawn (not in the JSON: the interval is made from it)
    values: Any = field(default=None, compare=False, repr=False)

    @property
    def decision(self) -> RegretDecision:
        """The regret verdict, decided by :func:`dpaudit.stats.evidence.decide_regret` at
        ``1 - confidence`` on the betting confidence sequence of the runs, looked at the end
        of each batch (``within_bound`` is only the point comparison ``mean <= bound``)."""
        ev = RegretEvidence(self.mean, self.std, self.runs, self.bound,
                            max_regret_per_run(self.means, self.horizon), values=self.values,
                            looks=self.looks)
        return decide_regret(ev, alpha=1.0 - self.confidence)

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "values"}
        out["looks"] = list(self.looks)
        out["batching"] = None if self.batching is None else dict(self.batching)
        out["parameters"] = dict(self.parameters)
        d = self.decision
        out.update(verdict=d.verdict.value, verdict_alpha=d.alpha,
                   verdict_ci_low=_finite(d.ci_low), verdict_ci_high=_finite(d.ci_high),
                   verdict_lower_limit=_finite(d.lower_limit),
                   verdict_lower_method=d.lower_method, runs_to_settle=d.runs_to_settle,
                   verdict_reason=d.reason)
        return out

    def numbers(self) -> dict[str, Any]:
        """The report without timing and placement (what must not depend on workers)."""
        out = self.to_dict()
        for k in ("seconds", "pulls_per_second", "workers", "scheduler", "placement",
                  "workers_used", "blocks_per_second"):
            out.pop(k)
        return out


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def policy_overrides(name: str, entry: PolicyEntry, *, horizon: int,
                     epsilon: float | None, delta: float | None) -> dict[str, Any]:
    """Keyword overrides for ``entry.factory``: ``epsilon``/``delta`` when given (a usage
    error for a policy without them) and ``horizon`` when the policy is tuned to it."""
    params: Mapping[str, inspect.Parameter]
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


def policy_bound(entry: PolicyEntry, policy: Any, means: Sequence[float],
                 horizon: int) -> tuple[float | None, str | None]:
    """``entry.bound`` at the policy's own ``epsilon`` and ``delta`` (``(None, None)`` when
    the entry declares none)."""
    if entry.bound is None:
        return None, None
    epsilon = float(getattr(policy, "epsilon", math.inf))
    delta = float(getattr(policy, "delta", 0.0))
    value, name = entry.bound(tuple(means), horizon, epsilon, delta)
    return float(value), name


def _checkpoints(horizon: int) -> tuple[int, ...]:
    decades = [10**k for k in range(1, 19) if 10**k < horizon]
    return (*decades, horizon)


def _run_chunk(name: str, overrides: Mapping[str, Any], means: tuple[float, ...],
               horizon: int, checkpoints: tuple[int, ...], size: int,
               rng: np.random.Generator) -> _Chunk:
    policy = get_policy(name).factory(**overrides)
    res = policy.simulate(BernoulliRewards(means), horizon, size, rng=rng,
                          checkpoints=checkpoints)
    blocks, unit = None, None
    for unit_name in BLOCK_UNITS:
        if unit_name in res.extra:
            blocks, unit = int(np.sum(res.extra[unit_name])), unit_name
            break
    return _Chunk(Moments.of(res.regret), res.curve.sum(axis=0),
                  res.counts.sum(axis=0).astype(np.int64),
                  np.asarray(res.regret, dtype=float).copy(), blocks, unit)


#: the names episodic policies give their per-run block counts in ``SimulationResult.extra``
BLOCK_UNITS = ("episodes", "phases", "epochs", "blocks")


def simulate_policy(name: str, *, horizon: int, runs: int, epsilon: float | None = None,
                    delta: float | None = None, means: Sequence[float] | None = None,
                    seed: int = DEFAULT_SEED, workers: int | None = 1,
                    scheduler: object = None, confidence: float = 0.95,
                    deadline: float | None = None, max_runs: int | None = None,
                    max_seconds: float | None = None) -> SimulationReport:
    """Simulate ``runs`` runs of the registered policy ``name`` for ``horizon`` steps.

    ``means`` defaults to the policy's paper instance; the report has the mean pseudo-regret
    with its Student-t interval at ``confidence``, the theorem's bound where there is one,
    the wall time and arm-pulls per second. Chunks go through
    :func:`dpaudit.runtime.parallel.map_chunks` (``workers``, ``scheduler``). ``deadline`` (a
    ``time.monotonic()`` time, ``simulate --seconds``): no chunk of runs starts after it and a
    local pool's unfinished chunks are dropped; the report is then on the runs of the chunks
    done (a prefix fixed by the clock alone, so still independent runs; ``deadline_hit``,
    ``runs_planned``), and :class:`~dpaudit.runtime.limits.DeadlineReached` when none finished.

    ``max_runs`` (``simulate --max-runs``; ``None``: the ``runs`` alone): while the verdict
    on the bound is undecided, more runs are added in doubling batches with their own seeds
    (:mod:`dpaudit.runtime.batches`; batch 0 is ``runs`` runs at ``seed``, the single run of
    before), up to ``max_runs`` in all or ``max_seconds``; the verdict's interval is the
    betting confidence sequence of all runs, looked at the end of each batch, valid wherever
    that stops.
    """
    entry = get_policy(name)
    runs = check_int("runs", runs, low=1)
    seed = check_int("seed", seed, low=0)
    confidence = check_real("confidence", confidence, low=0.0, high=1.0, low_open=True,
                            high_open=True)
    if max_runs is not None:
        max_runs = check_int("max_runs", max_runs, low=1)
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
    bound, bound_name = policy_bound(entry, policy, mu, horizon)
    scale = max_regret_per_run(mu, horizon)
    start = time.perf_counter()
    notes: list[str] = []
    key = f"simulate:{name}"
    cut: list[bool] = []

    def batch(index: int, size: int, batch_seed: int) -> list[_Chunk]:
        chunk = simulation_chunk(size, len(mu), horizon)
        parts = map_chunks(partial(_run_chunk, name, overrides, mu, horizon, cps), size,
                           seed=batch_seed, key=key, chunk=chunk, workers=workers,
                           scheduler=address, placement=notes.append, deadline=deadline)
        done = sum(chunk_sizes(size, chunk)[:len(parts)])
        if done < size:
            cut.append(index == 0)
        return parts

    def runs_of(batches: Sequence[list[_Chunk]]) -> np.ndarray:
        return np.concatenate([p.values for b in batches for p in b if p.values is not None])

    def decided(batches: Sequence[list[_Chunk]], looks: tuple[int, ...]) -> bool | None:
        if bound is None:
            return None
        if cut:  # the deadline cut a batch: add no other
            return True
        v = runs_of(batches)
        looks = _looks(batches)
        ev = RegretEvidence(float(v.mean()), Moments.of(v).std if v.size > 1 else 0.0,
                            int(v.size), bound, scale, values=v, looks=looks)
        return decide_regret(ev, alpha=1.0 - confidence).verdict is not Verdict.INCONCLUSIVE

    plan = None if max_runs is None else BatchPlan(runs, max(max_runs, runs), max_seconds)
    if plan is None:
        batches: Sequence[list[_Chunk]] = [batch(0, runs, seed)]
        stopped = None
    else:
        done = run_batches(batch, plan=plan, seed=seed, key=key, decided=decided)
        batches, stopped = done.results, done
    seconds = time.perf_counter() - start
    parts = [p for b in batches for p in b]
    looks = _looks(batches)
    total_runs = looks[-1] if looks else 0
    if total_runs == 0:
        raise DeadlineReached(0.0, seconds, "simulation (no chunk of runs finished)")
    total = Moments(0, 0.0, 0.0)
    for part in parts:
        total = total.merge(part.regret)
    curve = np.sum([p.curve_sum for p in parts], axis=0) / total_runs
    pulls = np.sum([p.counts_sum for p in parts], axis=0) / total_runs
    half = (float(stats.t.ppf(0.5 + confidence / 2, total_runs - 1) * total.std
                  / math.sqrt(total_runs)) if total_runs > 1 else 0.0)
    params = {k: getattr(policy, k) for k in ("epsilon", "delta") if hasattr(policy, k)}
    batching = None
    if stopped is not None:
        sizes = [int(n) for n in np.diff((0, *looks))]
        batching = {**stopped.to_dict(), "batch_runs": sizes, "runs": total_runs,
                    "batches": len(sizes)}
        if cut and stopped.stopped == STOP_DECIDED and bound is not None:
            batching["stopped"] = STOP_TIME_CAP  # the deadline, not the interval, stopped it
    first_runs = looks[0]
    per_batch = [len(b) for b in batches]
    used = None if address is not None else (
        1 if notes or workers <= 1 else min(workers, max(per_batch, default=1)))
    counted = [p.blocks for p in parts if p.blocks is not None]
    blocks = sum(counted) if counted and len(counted) == len(parts) else None
    unit = next((p.block_unit for p in parts if p.block_unit), None)
    return SimulationReport(
        policy=name, paper=entry.paper, instance=instance, means=mu, horizon=horizon,
        runs=total_runs, parameters=params, seed=seed, mean=total.mean,
        ci_low=total.mean - half, ci_high=total.mean + half, confidence=confidence,
        std=total.std, bound=None if bound is None else float(bound), bound_name=bound_name,
        within_bound=None if bound is None else bool(total.mean <= bound),
        checkpoints=cps, mean_curve=tuple(float(v) for v in curve),
        mean_pulls=tuple(float(v) for v in pulls), chunks=len(parts), seconds=seconds,
        pulls_per_second=total_runs * horizon / max(seconds, 1e-9),
        workers=None if address is not None else workers,
        scheduler=None if address is None else str(address),
        no_bound_reason=None if bound is not None else entry.no_bound_reason,
        placement=notes[0] if notes else None,
        runs_planned=runs, deadline_hit=first_runs < runs, looks=looks, batching=batching,
        workers_used=used,
        blocks_per_second=None if blocks is None else blocks / max(seconds, 1e-9),
        block_unit=None if blocks is None else unit, values=runs_of(batches))


def _looks(batches: Sequence[list[_Chunk]]) -> tuple[int, ...]:
    """The running totals of runs at the end of each batch (of the chunks that finished)."""
    out: list[int] = []
    total = 0
    for b in batches:
        total += sum(p.regret.n for p in b)
        if not out or total > out[-1]:
            out.append(total)
    return tuple(out)
