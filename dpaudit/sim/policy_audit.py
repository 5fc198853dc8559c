"""Auditing bandit code that dpaudit did not write: targets, throughput, one entry point.

:func:`audit_policy` takes a :class:`~dpaudit.sim.adapters.PolicyCode` (built by
:func:`dpaudit.sim.adapters.adapt`) and a claim, and runs the black-box auditor
(:func:`dpaudit.stats.blackbox.audit_mechanism`) on one of two targets:

* :class:`GlobalPolicyTarget` (global DP): data are reward inputs
  (:class:`~dpaudit.sim.neighbour_search.RewardInput`), the output of a run is its ``(T,)`` action
  sequence; neighbours come from :func:`~dpaudit.sim.neighbour_search.propose_pairs` on pilot runs,
  screened for influence on coupled runs.
* :class:`PerStepPolicyTarget` (per-step DP): data are histories, the output is the next arm.

Throughput. User code runs one step at a time in Python, so runs are spread over a process
pool with :func:`dpaudit.sim.parallel.map_chunks`: fixed chunks of ``chunk`` runs, chunk ``i``
seeded by child ``i`` of the call's ``SeedSequence``, so any number of workers gives the same
report. A progress line is printed on a terminal. A time budget (``seconds``) is turned into
sample sizes *before* sampling starts, from the throughput of timed pilot runs: every sample
size is then fixed before the samples it sizes exist, as the bound's validity requires
(stopping a measurement when the clock runs out would let run times, which may depend on the
outputs, choose its size). The report states the planned and the used sizes.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from dpaudit.reports.progress import RunsProgress
from dpaudit.sim.adapters import PolicyCode, is_reproducible, next_action, play, realise_rewards
from dpaudit.sim.neighbour_search import (
    first_pair,
    global_bases,
    per_step_pairs,
    propose_pairs,
    random_history_pairs,
)
from dpaudit.sim.parallel import chunk_sizes, map_chunks
from dpaudit.stats.blackbox import AuditBudget, BlackBoxResult, audit_mechanism
from dpaudit.validation import (
    InvalidParameterError,
    check_alpha,
    check_choice,
    check_epsilon_delta,
    check_int,
    check_real,
)

__all__ = ["ActionFeatures", "GlobalPolicyTarget", "PerStepPolicyTarget", "PolicyAudit",
           "Progress", "audit_policy"]

NOTIONS = ("global", "per-step")


Progress = RunsProgress  # a live tqdm bar of runs (dpaudit.reports.progress)


@dataclass(frozen=True)
class ActionFeatures:
    """Features of ``(n, T)`` action sequences for the learned-score event.

    Position-wise one-hot arms (when ``T K <= 4096``), pull counts per arm, switch indicators
    ``1{a_t != a_{t-1}}`` (where a run's episodes or phases begin) and the first-pull step of
    each arm (divided by ``T``). A fixed map: the same columns for every sample.
    """

    horizon: int
    n_arms: int

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        a = np.asarray(outputs).reshape(len(outputs), -1)
        onehot = a[:, :, None] == np.arange(self.n_arms)
        parts = [onehot.sum(axis=1), (a[:, 1:] != a[:, :-1])]
        if self.horizon * self.n_arms <= 4096:
            parts.insert(0, onehot.reshape(len(a), -1))
        pulled = onehot.any(axis=1)
        first = np.where(pulled, np.argmax(onehot, axis=1) + 1, self.horizon + 1)
        parts.append(first / self.horizon)
        return np.concatenate([p.astype(float) for p in parts], axis=1)


def _global_chunk(code: PolicyCode, source: Any, size: int, rng: np.random.Generator
                  ) -> np.ndarray:
    out = np.empty((size, code.horizon), dtype=np.int64)
    fixed = (realise_rewards(source, code.horizon, None).tolist()
             if getattr(source, "table", None) is not None else None)
    state, pystate = np.random.get_state(), random.getstate()
    try:
        for i, seq in enumerate(rng.bit_generator.seed_seq.spawn(size)):
            table = fixed if fixed is not None else realise_rewards(
                source, code.horizon, np.random.Generator(np.random.PCG64(seq)))
            out[i] = play(code, table, seq)
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    return out


def _per_step_chunk(code: PolicyCode, history: Any, history_method: str | None, size: int,
                    rng: np.random.Generator) -> np.ndarray:
    out = np.empty(size, dtype=np.int64)
    state, pystate = np.random.get_state(), random.getstate()
    try:
        for i, seq in enumerate(rng.bit_generator.seed_seq.spawn(size)):
            out[i] = next_action(code, history.arms, history.rewards, seq,
                                 history_method=history_method)
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    return out


class _Sampler:
    """Shared by both targets: ``size`` outputs in fixed chunks over ``workers`` processes."""

    def __init__(self, code: PolicyCode, *, epsilon: float, delta: float, workers: int,
                 chunk: int, progress: Progress | None) -> None:
        self.code = code
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
        self.workers = check_int("workers", workers, low=1)
        self.chunk = check_int("chunk", chunk, low=1)
        self.progress = progress
        self.runs = 0
        self._pool: ProcessPoolExecutor | None = None

    def close(self) -> None:
        """Shut the worker pool down (it is started at the first parallel sampling call)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _map(self, fn: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        seed = int(rng.integers(2**63 - 1))
        block = self.chunk * 8  # progress granularity; fixed, so seeds never depend on workers
        if self.workers > 1 and self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers)
        parts = []
        for i, n in enumerate(chunk_sizes(size, block)):
            parts += map_chunks(fn, n, seed=seed, key=f"block:{i}", chunk=self.chunk,
                                executor=self._pool)
            self.runs += n
            if self.progress is not None:
                self.progress.add(n)
        return np.concatenate(parts)


class GlobalPolicyTarget(_Sampler):
    """Global DP: the whole action sequence of a run on a reward input (see module docstring).

    ``rewards`` is ``"table"`` (Azize & Basu 2022, Definition 2) or ``"instance"`` (Wang &
    Zhu 2023, Definition 3, with ``means``); ``pilot_runs`` runs per base input reveal first
    pulls and episode boundaries to :func:`~dpaudit.sim.neighbour_search.propose_pairs`, and
    ``screen`` times the requested number of proposals are screened for influence on
    ``screen_runs`` coupled runs each (:meth:`search_domain`).
    """

    notion = "global"

    def __init__(self, code: PolicyCode, *, epsilon: float, delta: float,
                 rewards: str = "table", means: object | None = None, workers: int = 1,
                 chunk: int = 50, progress: Progress | None = None, pilot_runs: int = 16,
                 screen: int = 3, screen_runs: int = 16) -> None:
        super().__init__(code, epsilon=epsilon, delta=delta, workers=workers, chunk=chunk,
                         progress=progress)
        self.bases = global_bases(code.horizon, code.n_arms, rewards=rewards, means=means)
        self.pilot_runs = check_int("pilot_runs", pilot_runs, low=1)
        self.screen = check_int("screen", screen, low=1)
        self.screen_runs = check_int("screen_runs", screen_runs, low=1)
        self.neighbours = [first_pair(self.bases)]
        self.features = ActionFeatures(code.horizon, code.n_arms)

    def search_domain(self, rng: np.random.Generator, n: int) -> list[tuple[Any, Any]]:
        """``n`` pairs: ``screen * n`` proposals from pilot runs, the ``n`` most influential.

        Influence is screened with common random numbers: both inputs of a proposal are run
        with the same ``screen_runs`` seeds and the proposal scores the mean number of steps
        whose action differs. A leak needs the changed reward to move actions, so this puts
        the pairs worth the engine's ranking samples first; ties keep the proposal order.
        Everything here uses the search generator only.
        """
        pilots = [self.sample(b.input(), self.pilot_runs, rng) for b in self.bases]
        pairs = propose_pairs(self.bases, pilots, self.screen * n, n_arms=self.code.n_arms,
                              exclude=self.neighbours)
        if len(pairs) <= n:
            return pairs
        scores = []
        for d, d2 in pairs:
            seed = int(rng.integers(2**63 - 1))
            a, b = (self.sample(x, self.screen_runs, np.random.default_rng(seed))
                    for x in (d, d2))
            scores.append(float(np.mean(np.sum(a != b, axis=1))))
        order = sorted(range(len(pairs)), key=lambda i: (-scores[i], i))
        return [pairs[i] for i in sorted(order[:n])]

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``(size, T)`` action sequences, as floats.

        Floats, not integers: the engine then reads them through :class:`ActionFeatures`
        (learned score) only. Its whole-sequence codes family scores subsets of distinct
        sequences on the sample that chooses them; with a few hundred runs nearly every
        sequence of a randomised policy is distinct, a set of sequences seen on one side
        only looks like a large loss, wins the ranking and then measures nothing (seen on the
        examples: projected 2.8 on 153 runs per side, measured 0). Casting loses nothing:
        the arms are small integers, exactly representable.
        """
        source = getattr(data, "source", data)
        out = self._map(functools.partial(_global_chunk, self.code, source), size, rng)
        return out.astype(float)


class PerStepPolicyTarget(_Sampler):
    """Per-step DP (Mishra & Thakurta 2015; Wang & Zhu 2023, Definition 1): the next arm
    after a history that is set on a fresh instance (:func:`dpaudit.sim.adapters.next_action`).
    """

    notion = "per-step"

    def __init__(self, code: PolicyCode, *, epsilon: float, delta: float, workers: int = 1,
                 chunk: int = 200, progress: Progress | None = None,
                 history_method: str | None = None, max_pulls: int = 4) -> None:
        super().__init__(code, epsilon=epsilon, delta=delta, workers=workers, chunk=chunk,
                         progress=progress)
        if code.n_arms < 2:
            raise InvalidParameterError("n_arms=1 must be at least 2 for per-step DP")
        self.history_method = history_method
        self.max_pulls = check_int("max_pulls", max_pulls, low=1)
        self.n_outcomes = code.n_arms
        self.neighbours = per_step_pairs(code.n_arms)

    def search_domain(self, rng: np.random.Generator, n: int) -> list[tuple[Any, Any]]:
        """``n`` random histories of at most ``max_pulls`` pulls per arm, one reward flipped."""
        return random_history_pairs(self.code.n_arms, self.max_pulls, rng, n)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        fn = functools.partial(_per_step_chunk, self.code, data, self.history_method)
        return self._map(fn, size, rng)


@dataclass(frozen=True)
class PolicyAudit:
    """What :func:`audit_policy` found: the auditor's result and how the budget was spent."""

    result: BlackBoxResult
    notion: str
    samples: int
    rank_samples: int
    requested_samples: int
    pairs: int
    runs: int
    seconds: float
    runs_per_second: float
    reproducible: bool

    def details(self) -> tuple[str, ...]:
        lines = [f"{self.samples} samples per side (selection + measurement), "
                 f"{self.rank_samples} per side and pair to rank {self.pairs} candidate "
                 f"pair(s); {self.runs} runs of the code in {self.seconds:.1f} s "
                 f"({self.runs_per_second:,.0f} runs/s in the pilot)"]
        if self.samples < self.requested_samples:
            lines.append(f"time budget: {self.samples} of the {self.requested_samples} "
                         "requested samples per side fit; the bound is what they support")
        if not self.reproducible:
            lines.append("the code is not reproducible under the seeds dpaudit sets (it draws "
                         "from a generator seeded elsewhere): runs are independent, so the "
                         "bound is valid, but the same --seed will not give the same report")
        return tuple(lines)


def _plan(samples: int, pairs: int, rate: float, seconds: float | None, pilot: int
          ) -> tuple[int, int]:
    """``(samples, rank_samples)``: ranking takes about as many runs as the audit proper."""
    def rank(n: int) -> int:
        return max(100, n // max(pairs, 1)) if pairs > 1 else 100

    if seconds is not None:
        fit = rate * seconds - pilot
        while samples > 200 and 2 * (samples + (pairs > 1) * pairs * rank(samples)) > fit:
            samples = max(200, int(samples * 0.8))
    return samples, rank(samples)


def audit_policy(code: PolicyCode, *, epsilon: float, delta: float = 0.0,
                 notion: str = "global", rewards: str = "table", means: object | None = None,
                 samples: int = 20_000, alpha: float = 0.05, seed: int = 0,
                 workers: int = 1, seconds: float | None = None, search_budget: int = 16,
                 history_method: str | None = None, progress: bool | None = None,
                 stream: TextIO | None = None, selection_fraction: float = 0.2
                 ) -> PolicyAudit:
    """Audit user code against an ``(epsilon, delta)`` claim of ``notion``.

    ``samples`` per side for the audited pair (the auditor's selection + measurement);
    ``search_budget`` further candidate pairs from the neighbour search, each ranked on
    fresh samples; ``seconds`` shrinks the sample sizes, before any sampling, to what the
    pilot throughput says fits. ``progress``: a progress line (default: when ``stream`` is a
    terminal). ``selection_fraction`` of ``samples`` choose the event. The bound holds with
    probability ``>= 1 - alpha``.
    """
    eps, dlt = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
    notion = check_choice("notion", notion, NOTIONS)
    check_int("samples", samples, low=200)
    alpha = check_alpha(alpha)
    check_int("seed", seed, low=0)
    check_int("search_budget", search_budget, low=0)
    if seconds is not None:
        seconds = check_real("seconds", seconds, low=0.0, low_open=True)
    start = time.perf_counter()
    bar = Progress(1, stream=stream, enabled=progress)
    if notion == "global":
        target: Any = GlobalPolicyTarget(code, epsilon=eps, delta=dlt, rewards=rewards,
                                         means=means, workers=workers, progress=bar)
        probe = target.neighbours[0][0]
        reproducible = is_reproducible(code, realise_rewards(
            probe.source, code.horizon, np.random.default_rng(0)))
        pilot = (target.pilot_runs * len(target.bases)
                 + 2 * target.screen_runs * target.screen * search_budget)
    else:
        target = PerStepPolicyTarget(code, epsilon=eps, delta=dlt, workers=workers,
                                     progress=bar, history_method=history_method)
        probe = target.neighbours[0][0]
        reproducible = True
        pilot = 0
    try:
        t0 = time.perf_counter()
        n_timed = 20  # one chunk, run in this process: the rate per worker
        target.sample(probe, n_timed, np.random.default_rng(seed))
        rate = n_timed * workers / max(time.perf_counter() - t0, 1e-9)
        pairs = len(target.neighbours) + search_budget
        used, rank = _plan(samples, pairs, rate, seconds, pilot)
        bar.total = 2 * (used + (pairs > 1) * pairs * rank) + pilot + n_timed
        budget = AuditBudget(samples=used, rank_samples=rank, search_budget=search_budget,
                             selection_fraction=selection_fraction)
        result = audit_mechanism(target, epsilon=eps, delta=dlt, alpha=alpha, budget=budget,
                                 seed=seed, key=f"audit-policy:{notion}")
    finally:
        bar.close()
        target.close()
    return PolicyAudit(result=result, notion=notion, samples=used, rank_samples=rank,
                       requested_samples=samples, pairs=result.pairs_tried,
                       runs=target.runs, seconds=time.perf_counter() - start,
                       runs_per_second=rate, reproducible=reproducible)


def parse_means(text: str | None, n_arms: int) -> Sequence[float] | None:
    """``"0.9,0.6"`` -> ``[0.9, 0.6]`` (``None`` stays ``None``)."""
    if text is None:
        return None
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InvalidParameterError(f"means={text!r} must be comma-separated numbers") from None
    if len(values) != n_arms:
        raise InvalidParameterError(f"means={text!r} must have {n_arms} entries (--arms)")
    return values
