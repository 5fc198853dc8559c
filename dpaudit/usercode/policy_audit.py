"""Auditing bandit code that dpaudit did not write: targets, throughput, one entry point.

:func:`audit_policy` takes a :class:`~dpaudit.usercode.adapters.PolicyCode` (built by
:func:`dpaudit.usercode.adapters.adapt`) and a claim, and runs the black-box auditor
(:func:`dpaudit.stats.blackbox.audit_mechanism`) on one of two targets:

* :class:`GlobalPolicyTarget` (global DP): data are reward inputs
  (:class:`~dpaudit.usercode.neighbour_search.RewardInput`), the output of a run is its
  ``(T,)`` action sequence; neighbours come from
  :func:`~dpaudit.usercode.neighbour_search.propose_pairs` on pilot runs, screened for
  influence on coupled runs.
* :class:`PerStepPolicyTarget` (per-step DP): data are histories, the output is the next arm.

Throughput. User code runs one step at a time in Python, so runs are spread over a process
pool with :func:`dpaudit.runtime.parallel.map_chunks`: fixed chunks of ``chunk`` runs, chunk ``i``
seeded by child ``i`` of the call's ``SeedSequence``, so any number of workers gives the same
report. A progress bar is drawn on a terminal (a plain line every few seconds elsewhere).

Order of work: a timed probe of 20 runs, then the neighbour search (the candidate pairs,
found once: :func:`~dpaudit.stats.blackbox.candidate_pairs`), then the sampled audit on those
pairs. When no candidate moved any action on coupled runs the audit stops there, INCONCLUSIVE
with the reason and advice (a measurement could not find what the coupled runs did not show).
A time budget (``seconds``) is turned into sample sizes after the search and *before*
sampling starts, from the speed the probe and the search measured, with a margin
(:data:`PLAN_SHARE` of the time left, less :data:`PLAN_RESERVE`): every sample size is then
fixed before the samples it sizes exist, as the bound's validity requires (stopping a
measurement when the clock runs out would let run times, which may depend on the outputs,
choose its size). If not even the smallest sample fits what the search left, sampling does not
start and the report says so. The report states the planned and the used sizes. The stage in
progress is named for the deadline (:func:`dpaudit.runtime.stage.set_stage`), so a deadline
that passes anyway says truthfully which stage did not fit.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from dpaudit.runtime.limits import command_elapsed
from dpaudit.runtime.parallel import chunk_sizes, map_chunks
from dpaudit.runtime.progress import RunsProgress
from dpaudit.runtime.stage import set_stage
from dpaudit.stats.blackbox import AuditBudget, BlackBoxResult, audit_mechanism, candidate_pairs
from dpaudit.stats.evidence import ExactEvidence
from dpaudit.stats.results import Verdict
from dpaudit.stats.sampled import MAX_TAIL_SAMPLES, TAIL_DRAWS
from dpaudit.usercode.adapters import (
    PolicyCode,
    is_reproducible,
    next_action,
    play,
    realise_rewards,
    with_horizon,
)
from dpaudit.usercode.conventions import numba_seed
from dpaudit.usercode.decisions import (
    Boundary,
    depends_on_rewards,
    suggest_horizon,
)
from dpaudit.usercode.graybox import GrayBoxResult, Steer
from dpaudit.usercode.graybox_targets import STAGE_SECONDS, graybox_policy
from dpaudit.usercode.ldp_audit import LdpPolicyTarget, exact_release, find_release
from dpaudit.usercode.neighbour_search import (
    boundary_pairs,
    context_pairs,
    first_pair,
    global_bases,
    per_step_pairs,
    propose_pairs,
    random_history_pairs,
    table_source,
)
from dpaudit.usercode.pilot import (
    PLAN_RESERVE,
    PLAN_SHARE,
    Advice,
    RunSpeed,
    advise,
    sampling_runs,
)
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

NOTIONS = ("global", "per-step", "ldp")
#: seconds the longer horizons tried when the actions do not depend on the rewards may take
#: at the measured speed (a quarter of ``seconds`` when that is less)
SUGGEST_SECONDS = 30.0


Progress = RunsProgress  # a live tqdm bar of runs (dpaudit.runtime.progress)


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


def _children(rng: np.random.Generator, n: int) -> list[np.random.SeedSequence]:
    """``n`` child seed sequences of the sequence ``rng`` was built from."""
    seq = rng.bit_generator.seed_seq
    if not isinstance(seq, np.random.SeedSequence):
        raise InvalidParameterError("rng must be a numpy.random.Generator built from a "
                                    "numpy.random.SeedSequence")
    return seq.spawn(n)


def _seed_numba(code: PolicyCode, rng: np.random.Generator) -> None:
    """numba's generator takes a 32-bit seed, so it is seeded once per chunk (runs within a
    chunk continue its stream): chunk seeds collide with probability about
    ``chunks^2 / 2^33`` (5e-4 for 2000 chunks), run seeds would for 10^5 runs."""
    if code.numba:
        numba_seed(int(rng.bit_generator.seed_seq.generate_state(1)[0]))


def _global_chunk(code: PolicyCode, source: Any, size: int, rng: np.random.Generator,
                  contexts: np.ndarray | None = None) -> np.ndarray:
    out = np.empty((size, code.horizon), dtype=np.int64)
    _seed_numba(code, rng)
    fixed = (realise_rewards(source, code.horizon, None).tolist()
             if getattr(source, "table", None) is not None else None)
    state, pystate = np.random.get_state(), random.getstate()
    try:
        for i, seq in enumerate(_children(rng, size)):
            table = fixed if fixed is not None else realise_rewards(
                source, code.horizon, np.random.Generator(np.random.PCG64(seq)))
            out[i] = play(code, table, seq, contexts=contexts)
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    return out


def _per_step_chunk(code: PolicyCode, history: Any, history_method: str | None, size: int,
                    rng: np.random.Generator) -> np.ndarray:
    out = np.empty(size, dtype=np.int64)
    _seed_numba(code, rng)
    state, pystate = np.random.get_state(), random.getstate()
    try:
        for i, seq in enumerate(_children(rng, size)):
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
    pulls and episode boundaries to :func:`~dpaudit.usercode.neighbour_search.propose_pairs`, and
    ``screen`` times the requested number of proposals are screened for influence on
    ``screen_runs`` coupled runs each (:meth:`search_domain`).
    """

    notion = "global"

    def __init__(self, code: PolicyCode, *, epsilon: float, delta: float,
                 rewards: str = "table", means: object | None = None, workers: int = 1,
                 chunk: int = 50, progress: Progress | None = None, pilot_runs: int = 16,
                 screen: int = 3, screen_runs: int = 16,
                 contexts: np.ndarray | None = None) -> None:
        super().__init__(code, epsilon=epsilon, delta=delta, workers=workers, chunk=chunk,
                         progress=progress)
        self.bases = global_bases(code.horizon, code.n_arms, rewards=rewards, means=means)
        self.contexts = None if contexts is None else np.asarray(contexts, dtype=float)
        self.rewards = rewards
        self.pilot_runs = check_int("pilot_runs", pilot_runs, low=1)
        self.screen = check_int("screen", screen, low=1)
        self.screen_runs = check_int("screen_runs", screen_runs, low=1)
        self.neighbours = [first_pair(self.bases)]
        self.features = ActionFeatures(code.horizon, code.n_arms)
        self.influence: tuple[float, ...] | None = None
        self.decision_step: int | None = None
        self.suggested_horizon: int | None = None
        self.boundaries: list[Boundary] = []
        #: seconds one run takes at a horizon (measured: :class:`~dpaudit.usercode.pilot.
        #: RunSpeed`), and what the longer horizons tried when the actions do not depend on
        #: the rewards may cost (``None``: try up to 64 T whatever it costs)
        self.run_seconds: Any = None
        self.suggest_seconds = SUGGEST_SECONDS
        self.suggest_limit = 64 * code.horizon

    def _run(self, table: np.ndarray, n: int, seed: int) -> np.ndarray:
        """``n`` coupled runs on ``table``: the same ``seed`` gives run ``i`` the same seeds."""
        return self.sample(table_source(table), n, np.random.default_rng(seed))

    def _run_at(self, horizon: int) -> Any:
        code = with_horizon(self.code, horizon)

        def run(table: np.ndarray, n: int, seed: int) -> np.ndarray:
            self.runs += n
            if self.progress is not None:
                self.progress.add(n)
            ctx = None if self.contexts is None else np.resize(
                self.contexts, (horizon, self.contexts.shape[1]))  # the stream, repeated
            return _global_chunk(code, table_source(table), n, np.random.default_rng(seed),
                                 ctx)
        return run

    def _decision_pairs(self, seed: int) -> list[tuple[Any, Any]]:
        """Pairs at the gaps where the policy's decision turns (:mod:`dpaudit.usercode.decisions`):
        for the first and the last arm best, the gap tables just above and just below the
        boundary, each with one step before the decision changed to 0 and to 1. Only for
        ``rewards="table"`` (Definition 2); for an instance (Wang & Zhu 2023, Definition 3)
        the pilot only says whether the actions depend on the rewards."""
        t, k = self.code.horizon, self.code.n_arms
        self.decision_step = depends_on_rewards(self._run, t, k, seed=seed)
        if self.decision_step is None:
            factor = self._suggest_factor()
            self.suggest_limit = factor * t
            self.suggested_horizon = (suggest_horizon(self._run_at, t, k, seed=seed,
                                                      factor=factor) if factor >= 2 else None)
            return []
        if self.rewards != "table":  # fixed tables are not neighbours under Definition 3
            return []
        pairs, found = boundary_pairs(self._run, t, k, seed=seed)
        self.boundaries += found
        return pairs

    def _suggest_factor(self) -> int:
        """The largest ``2^j <= 64`` such that trying the horizons ``2T .. 2^j T`` (2 coupled
        runs on ``K + 1`` tables each, in this process) fits :attr:`suggest_seconds` at the
        measured speed (64 when the speed is not known)."""
        if self.run_seconds is None:
            return 64
        t, k = self.code.horizon, self.code.n_arms
        factor, cost = 1, 0.0
        while factor < 64:
            more = 2 * (k + 1) * float(self.run_seconds(2 * factor * t))
            if cost + more > self.suggest_seconds:
                break
            cost, factor = cost + more, 2 * factor
        return factor

    def search_domain(self, rng: np.random.Generator, n: int) -> list[tuple[Any, Any]]:
        """``n`` pairs: decision-point pairs and pilot proposals, the ``n`` most influential.

        First the pilot of :mod:`dpaudit.usercode.decisions` (do the actions depend on the rewards
        at all; at which gap and step does a decision turn), then ``screen * n`` proposals from
        pilot runs on the base inputs (:func:`~dpaudit.usercode.neighbour_search.propose_pairs`).
        Influence is screened with common random numbers: both inputs of a candidate (and
        the heuristic first pair) are run with the same ``screen_runs`` seeds and scored by
        the mean number of steps whose action differs; a leak needs the changed reward to
        move actions, so this puts the pairs worth the engine's ranking samples first (ties
        keep the proposal order). :attr:`influence` keeps the scores, so that a search in
        which no candidate moved any action is reported as such. Everything here uses the
        search generator only.
        """
        seed = int(rng.integers(2**63 - 1))
        decision = self._decision_pairs(seed)
        pilots = [self.sample(b.input(), self.pilot_runs, rng) for b in self.bases]
        pairs = decision + propose_pairs(self.bases, pilots, self.screen * n,
                                         n_arms=self.code.n_arms, exclude=self.neighbours)
        if self.contexts is not None:  # neighbours may change a context instead of a reward
            steps = [p[1].step for p in pairs if p[1].step is not None]
            pairs += context_pairs(self.bases, self.contexts, steps[: self.screen * n])
        scored = [*self.neighbours, *pairs]
        scores = []
        for d, d2 in scored:
            seed = int(rng.integers(2**63 - 1))
            a, b = (self.sample(x, self.screen_runs, np.random.default_rng(seed))
                    for x in (d, d2))
            scores.append(float(np.mean(np.sum(a != b, axis=1))))
        self.influence = tuple(scores)
        rest = scores[len(self.neighbours):]
        order = sorted(range(len(pairs)), key=lambda i: (-rest[i], i))
        return [pairs[i] for i in sorted(order[:n])]

    @property
    def inconclusive_reason(self) -> str | None:
        """Why the search is inconclusive whatever the measurement: no candidate pair moved
        an action on coupled runs (``None`` before the search, or when one did)."""
        if self.influence is None or any(self.influence):
            return None
        t = self.code.horizon
        if self.decision_step is None:
            if self.suggested_horizon:
                hint = f"try T >= {self.suggested_horizon}"
            elif self.suggest_limit <= t:
                hint = ("longer horizons were not tried: at the measured speed even T = "
                        f"{2 * t} would take more than {self.suggest_seconds:g} s")
            else:
                hint = (f"no horizon up to {self.suggest_limit} made them depend on the "
                        "rewards either; check that the code reads the rewards it is given")
                if self.suggest_limit < 64 * t:
                    hint += (f" (longer horizons were not tried: they would take more than "
                             f"{self.suggest_seconds:g} s at the measured speed)")
            return f"the actions did not depend on the rewards at this horizon; {hint}"
        return (f"every one of the {len(self.influence)} candidate neighbour pairs gave "
                f"identical actions on {self.screen_runs} coupled runs (the actions depend on "
                f"the rewards from step {self.decision_step}, but no single changed reward "
                "moved them): raise --search-budget or the horizon")

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
        ctx = getattr(data, "contexts", None)
        ctx = self.contexts if ctx is None else ctx
        out = self._map(functools.partial(_global_chunk, self.code, source, contexts=ctx),
                        size, rng)
        return out.astype(float)


class SteeredTarget:
    """The sampled audit on the pair the gray-box stage's pointer named
    (:class:`~dpaudit.usercode.graybox.Steer`): the wrapped target's outputs and, for action
    sequences, named summaries where the recorded runs first differed (the action at each
    such step, each arm's pull count) beside the whole sequence's features. The summaries are
    fixed by the stage, which ran on seeds of its own, before any sample of this audit
    exists, so choosing among them on the selection sample keeps the bound valid."""

    def __init__(self, target: Any, steer: Steer) -> None:
        self.target = target
        self.epsilon, self.delta = target.epsilon, target.delta
        self.notion = target.notion
        self.neighbours = list(steer.pairs)
        self.positions = tuple(p for p in steer.positions if p is not None)
        if hasattr(target, "n_outcomes"):
            self.n_outcomes = target.n_outcomes

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        out = self.target.sample(data, size, rng)
        if self.notion != "global":
            return out
        acts = np.asarray(out).astype(np.int64)
        code = self.target.code
        summaries: dict[str, np.ndarray] = {
            "action sequence": ActionFeatures(code.horizon, code.n_arms)(acts),
            "pulls of each arm": np.stack([(acts == a).sum(axis=1)
                                           for a in range(code.n_arms)], axis=1)}
        for p in self.positions:
            if 0 <= p < acts.shape[1]:
                summaries[f"action at step {p + 1}"] = acts[:, p]
        return summaries


class PerStepPolicyTarget(_Sampler):
    """Per-step DP (Mishra & Thakurta 2015; Wang & Zhu 2023, Definition 1): the next arm
    after a history that is set on a fresh instance (:func:`dpaudit.usercode.adapters.next_action`).
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

    result: BlackBoxResult | None
    notion: str
    samples: int
    rank_samples: int
    requested_samples: int
    pairs: int
    runs: int
    seconds: float
    runs_per_second: float
    reproducible: bool
    inconclusive_reason: str | None = None
    moved: int | None = None
    screened: int | None = None
    decision_step: int | None = None
    exact: ExactEvidence | None = None
    release: str | None = None
    horizon: int | None = None
    seconds_given: float | None = None
    #: local DP with delta > 0: the claim-sized budget (``TAIL_DRAWS / delta`` draws per side,
    #: at most ``MAX_TAIL_SAMPLES``), of which ``samples`` fit the time (None: not sized)
    claim_samples: int | None = None
    #: what the gray-box stage found (``None``: not run) and the alpha each sampled audit was
    #: measured at (the steered audit and the search share ``alpha`` when both run)
    graybox: GrayBoxResult | None = None
    steered: bool = False
    alpha_used: float | None = None
    #: the measured speed of the code (:func:`~dpaudit.usercode.pilot.measure_speed`)
    speed: RunSpeed | None = None
    #: what the neighbour search took (seconds, runs); ``None``: not run
    search_seconds: float | None = None
    search_runs: int | None = None
    #: why the sampled audit did not start (``"search"``: no candidate moved any action;
    #: ``"time"``: not even the smallest sample fitted the time the search left)
    not_started: str | None = None
    #: the settings that reach a verdict at the suggested horizon, within their deadline
    advice: Advice | None = None

    def horizon_advice(self) -> str | None:
        """What to run at the suggested horizon (``try T >= N``): with a measured speed, the
        settings of :attr:`advice` (horizon, samples, search budget and the ``--seconds``
        they fit, from :func:`~dpaudit.usercode.pilot.advise`); without one, this audit's
        runs, each ``N / T`` times longer, at the probe's runs per second."""
        import re

        if self.advice is not None:
            return self.advice.text(self.seconds_given)
        found = re.search(r"try T >= (\d+)", self.inconclusive_reason or "")
        if found is None or not self.horizon or self.runs_per_second <= 0 or not self.runs:
            return None
        longer = int(found.group(1))
        need = self.runs * longer / self.horizon / self.runs_per_second
        given = ("" if self.seconds_given is None else
                 f" (--seconds {self.seconds_given:g} was given: it "
                 f"{'fits' if need <= self.seconds_given else 'does not fit'})")
        return (f"at T = {longer} this audit's {self.runs} runs would take about "
                f"{math.ceil(need)} s at the pilot's speed{given}: run it with --horizon "
                f"{longer} --seconds {math.ceil(1.5 * need) + 10} (a --search-budget of "
                f"{max(4, self.pairs // 2)} or fewer --samples shortens it)")

    def details(self) -> tuple[str, ...]:
        return self._details() + (() if self.graybox is None else self.graybox.details())

    def _details(self) -> tuple[str, ...]:
        if self.exact is not None:
            return (f"local DP: the reports of {self.release}; the release law is a known "
                    "family, so the divergence is computed, not sampled",)
        # one line for the wall-clock figures (a resumed run's report differs only there)
        speed = ("" if self.speed is None or not self.horizon else
                 f"; measured speed {self.speed.text(self.horizon)}")
        if self.not_started is None:
            lines = [f"{self.samples} samples per side (selection + measurement), "
                     f"{self.rank_samples} per side and pair to rank {self.pairs} candidate "
                     f"pair(s); {self.runs} runs of the code in {self.seconds:.1f} s "
                     f"({self.runs_per_second:,.0f} runs/s in the pilot){speed}"]
        else:
            lines = [f"no sample was drawn: {self.runs} runs of the code in "
                     f"{self.seconds:.1f} s (the probe and the neighbour search; "
                     f"{self.runs_per_second:,.0f} runs/s in the pilot){speed}"]
        if self.claim_samples is not None:
            need = 2 * self.claim_samples / max(self.runs_per_second, 1e-9)
            limit = ("--seconds" if self.seconds_given is not None
                     else f"the default {LDP_CLAIM_SECONDS:g} s per claim")
            cut = ("all of them were drawn" if self.samples >= self.claim_samples else
                   f"{self.samples} fit the time ({limit}); the whole budget would take about "
                   f"{need:,.0f} s at the pilot's speed (--samples {self.claim_samples} "
                   f"--seconds {math.ceil(1.3 * need) + 10})")
            lines.append(f"budget sized by the claim: {self.claim_samples:.3g} draws per side "
                         f"({TAIL_DRAWS:g}/delta, at most {MAX_TAIL_SAMPLES:.0e}); {cut}")
        elif self.samples < self.requested_samples and self.not_started is None:
            lines.append(f"time budget: {self.samples} of the {self.requested_samples} "
                         "requested samples per side fit; the bound is what they support")
        if self.release is not None:
            lines.append(f"local DP: the reports of {self.release}, for rewards in [0, 1]")
        if self.screened:
            lines.append(f"neighbour search: {self.moved} of {self.screened} candidate pairs "
                         "changed the actions on coupled runs"
                         + (f"; the actions first depend on the rewards at step "
                            f"{self.decision_step}" if self.decision_step else ""))
        if self.inconclusive_reason is not None:
            lines.append(self.inconclusive_reason)
            advice = self.horizon_advice()
            if advice is not None:
                lines.append(advice)
        if self.steered:
            lines.append(f"steered by the gray-box stage: the sampled audit measured the pair "
                         f"its pointer named, at alpha {self.alpha_used:.3g}"
                         + ("" if self.result is None or self.result.verdict.value == "VIOLATED"
                            else " (the neighbour search ran at the other half of alpha)"))
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


#: samples per side of the steered audit (the gray-box stage's pairs) when the pointer is a
#: defect of the code path (a shared draw, a branch on raw rewards): such a leak is usually a
#: difference of probability one, which 2000 draws per side bound above epsilon 6 at
#: alpha / 2; a release-level loss leaks by degrees and gets the full budget
STEERED_SAMPLES = 2000

#: local DP with delta > 0 and no ``--samples``: the seconds the claim-sized budget may take
#: when no ``--seconds`` is given (the per-claim target of the sampled audits)
LDP_CLAIM_SECONDS = 60.0


def _usable(left: float) -> float:
    """Of ``left`` seconds, what the sampling is planned to take (the margin of
    :data:`~dpaudit.usercode.pilot.PLAN_SHARE` and :data:`~dpaudit.usercode.pilot.
    PLAN_RESERVE`)."""
    return max(PLAN_SHARE * left - PLAN_RESERVE, 0.0)


def _not_sampled(code: PolicyCode, target: Any, notion: str, reason: str, why: str, *,
                 samples: int, pairs: int, rate: float, start: float, reproducible: bool,
                 seconds_given: float | None, searched: tuple[float, int],
                 speed: RunSpeed | None, search_budget: int, workers: int, startup: float,
                 claim_samples: int | None, rewards: str, contexts: bool,
                 graybox: GrayBoxResult | None = None, steered: bool = False,
                 alpha_used: float | None = None) -> PolicyAudit:
    """The :class:`PolicyAudit` of an audit stopped after its neighbour search (``why``:
    ``"search"``, no candidate moved any action; ``"time"``, no sample fits), with the
    advice at a suggested horizon sized from the measured speed."""
    import re

    advice = None
    found = re.search(r"try T >= (\d+)", reason)
    if found is not None and speed is not None:
        longer = int(found.group(1))
        # the gray-box stage runs again at the longer horizon: its runs as much longer, up to
        # its own cap
        stage = 0.0 if graybox is None else min(
            STAGE_SECONDS, graybox.seconds * longer / max(code.horizon, 1))
        advice = advise(longer, n_arms=code.n_arms, samples=samples,
                        search_budget=search_budget, workers=workers,
                        run_seconds=speed.run_seconds(longer),
                        seconds_given=seconds_given, rewards=rewards, contexts=contexts,
                        startup=max(startup, 2.0) + speed.pilot_seconds + stage)
    influence = getattr(target, "influence", None)
    return PolicyAudit(result=None, notion=notion, samples=0, rank_samples=0,
                       requested_samples=samples, pairs=pairs, runs=target.runs,
                       seconds=time.perf_counter() - start, runs_per_second=rate,
                       reproducible=reproducible, inconclusive_reason=reason,
                       moved=None if influence is None else sum(x > 0 for x in influence),
                       screened=None if influence is None else len(influence),
                       decision_step=getattr(target, "decision_step", None),
                       release=getattr(getattr(target, "rel", None), "where", None),
                       horizon=code.horizon, seconds_given=seconds_given,
                       claim_samples=claim_samples, speed=speed, search_seconds=searched[0],
                       search_runs=searched[1], not_started=why, advice=advice,
                       graybox=graybox, steered=steered, alpha_used=alpha_used)


def audit_policy(code: PolicyCode, *, epsilon: float, delta: float = 0.0,
                 notion: str = "global", rewards: str = "table", means: object | None = None,
                 samples: int = 20_000, alpha: float = 0.05, seed: int = 0,
                 workers: int = 1, seconds: float | None = None, search_budget: int = 16,
                 history_method: str | None = None, progress: bool | None = None,
                 stream: TextIO | None = None, selection_fraction: float = 0.2,
                 ldp_hook: str | None = None, ldp_sink: str | None = None,
                 contexts: np.ndarray | None = None,
                 claim_sized: bool = False, graybox: bool = True,
                 graybox_seconds: float | None = None,
                 speed: RunSpeed | None = None) -> PolicyAudit:
    """Audit user code against an ``(epsilon, delta)`` claim of ``notion``.

    ``samples`` per side for the audited pair (the auditor's selection + measurement);
    ``search_budget`` further candidate pairs from the neighbour search, each ranked on
    fresh samples; ``seconds`` shrinks the sample sizes, after the search and before any
    sampling, to what the measured speed says fits with a margin (module docstring).
    ``claim_sized`` (local DP with ``delta > 0``): the budget is
    sized by the claim like ``audit``'s (``TAIL_DRAWS / delta`` draws per side, the selection
    streamed into histograms of the tail), cut to what fits ``seconds`` (default
    :data:`LDP_CLAIM_SECONDS`) at the pilot's speed; the details say what the whole budget
    would take. ``progress``: a progress bar on a terminal, plain lines elsewhere (default;
    ``False``: none). ``selection_fraction`` of ``samples`` choose the event. The bound holds
    with probability ``>= 1 - alpha``. ``speed``: the code's measured speed
    (:func:`~dpaudit.usercode.pilot.measure_speed`): it caps the longer horizons tried when
    the actions do not depend on the rewards, and sizes the advice then given.

    ``graybox`` runs the gray-box stage first (:func:`~dpaudit.usercode.graybox_targets.
    graybox_policy`, at most ``graybox_seconds``, default :data:`~dpaudit.usercode.
    graybox_targets.STAGE_SECONDS` or a quarter of ``seconds``): its findings go into the
    report, and when it names a pair (a pointer) the sampled audit first measures that pair
    at ``alpha / 2``; if that is not VIOLATED the neighbour search runs at the other
    ``alpha / 2`` (Bonferroni: the verdict is wrong with probability at most ``alpha``).
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
    before = command_elapsed()  # the command's own start-up (0 outside the CLI)
    stage_seconds = graybox_seconds if graybox_seconds is not None else (
        STAGE_SECONDS if seconds is None else min(STAGE_SECONDS, 0.25 * seconds))
    gb: GrayBoxResult | None = None
    rel = None
    if notion == "ldp":
        rel = find_release(code, hook=ldp_hook, sink=ldp_sink)
    if graybox:
        gb = graybox_policy(code, epsilon=eps, delta=dlt, notion=notion, rewards=rewards,
                            means=means, contexts=contexts, history_method=history_method,
                            release=rel, per_step_pairs=per_step_pairs(code.n_arms)
                            if notion == "per-step" else (), seconds=stage_seconds)
    bar = Progress(1, stream=stream, enabled=progress)
    if notion == "global":
        target: Any = GlobalPolicyTarget(code, epsilon=eps, delta=dlt, rewards=rewards,
                                         means=means, workers=workers, progress=bar,
                                         contexts=contexts)
        if speed is not None:
            target.run_seconds = speed.run_seconds
            if seconds is not None:  # the longer horizons tried may take a quarter of it
                target.suggest_seconds = min(SUGGEST_SECONDS, seconds / 4)
        probe = target.neighbours[0][0]
        reproducible = is_reproducible(code, realise_rewards(
            probe.source, code.horizon, np.random.default_rng(0)), contexts=target.contexts)
        k = code.n_arms
        decision = 4 * (k + 1) + 2 * 26 + 2 * target.screen_runs * 33 * (k > 1)
        pilot = (target.pilot_runs * len(target.bases) + decision
                 + 2 * target.screen_runs * (target.screen * search_budget + 1))
    elif notion == "ldp":
        assert rel is not None
        exact = exact_release(rel, epsilon=eps, delta=dlt)
        if exact is not None and gb is not None and gb.other_draws:
            # the report also draws from laws the exact readings do not serve: a branch on
            # them may have been too rare to show in their few calls, so they are not taken
            exact = None
        if exact is not None:
            return PolicyAudit(result=None, notion=notion, samples=0, rank_samples=0,
                               requested_samples=samples, pairs=1, runs=30,
                               seconds=time.perf_counter() - start, runs_per_second=0.0,
                               reproducible=True, exact=exact, release=rel.where,
                               graybox=gb)
        target = LdpPolicyTarget(rel, _Sampler(code, epsilon=eps, delta=dlt, workers=workers,
                                               chunk=200, progress=bar))
        probe, reproducible, pilot = 0.0, True, 0
    else:
        target = PerStepPolicyTarget(code, epsilon=eps, delta=dlt, workers=workers,
                                     progress=bar, history_method=history_method)
        probe = target.neighbours[0][0]
        reproducible = True
        pilot = 0
    key = f"audit-policy:{notion}"
    searched: tuple[float, int] = (0.0, 0)
    try:
        set_stage("timed probe of the code (20 runs)")
        t0 = time.perf_counter()
        n_timed = 20  # one chunk, run in this process: the rate per worker
        target.sample(probe, n_timed, np.random.default_rng(seed))
        rate = n_timed * workers / max(time.perf_counter() - t0, 1e-9)
        pairs = len(target.neighbours) + search_budget
        sized = claim_sized and notion == "ldp" and dlt > 0
        claim_samples = min(math.ceil(TAIL_DRAWS / dlt), MAX_TAIL_SAMPLES) if sized else None
        if claim_samples is not None:
            samples = max(samples, claim_samples)
            used, rank = _plan(samples, pairs, rate,
                               LDP_CLAIM_SECONDS if seconds is None else seconds, pilot)
        else:
            used, rank = _plan(samples, pairs, rate, seconds, pilot)
        bar.total = 2 * (used + (pairs > 1) * pairs * rank) + pilot + n_timed
        budget = AuditBudget(samples=used, tail_draws=TAIL_DRAWS if sized else None,
                             max_tail_samples=max(used, 200), rank_samples=rank,
                             search_budget=search_budget,
                             selection_fraction=selection_fraction)
        steer = None if gb is None or notion == "ldp" else gb.steer
        level, result = alpha, None
        if steer is not None:  # the stage's pair first, at half of alpha
            set_stage("sampling the pairs the gray-box stage points at")
            level = alpha / 2
            # a defect of the code path shows with probability one on its pair: few draws;
            # a release costing more than the claim leaks by degrees: the full budget
            few = used if steer.kind == "release-loss" else min(used, STEERED_SAMPLES)
            n_pairs = len(steer.pairs)
            if seconds is not None:  # half of what is left, with the planning margin
                left = seconds - (time.perf_counter() - start)
                few, _ = _plan(few, n_pairs, rate, _usable(left) / 2, 0)
            few_rank = max(100, few // (2 * n_pairs))  # ranking the stage's pairs: cheap
            bar.total += 2 * (few + (n_pairs > 1) * n_pairs * few_rank)
            steered = audit_mechanism(
                SteeredTarget(target, steer), epsilon=eps, delta=dlt, alpha=level,
                budget=dataclasses.replace(budget, samples=few, search_budget=0,
                                           rank_samples=few_rank,
                                           max_tail_samples=max(few, 200)), seed=seed,
                key=f"audit-policy:{notion}:steered")
            if steered.verdict is Verdict.VIOLATED:
                result = steered
        if result is None:
            # the neighbour search, once: its pairs go to the sampled audit as they are
            set_stage("neighbour search")
            bar.stage("neighbour search")
            s0, runs0 = time.perf_counter(), target.runs
            found = candidate_pairs(target, budget, seed, key)
            searched = (time.perf_counter() - s0, target.runs - runs0)
            # no candidate moved any action: nothing a measurement could find (unless the
            # gray-box stage's pair was measured already; its verdict then needs this one)
            stop = None if steer is not None else getattr(target, "inconclusive_reason", None)
            why = None if stop is None else "search"
            if stop is None and seconds is not None:  # plan again, with a margin
                plan_rate = rate  # the search's own speed too, when it ran long enough
                if searched[1] >= 100:
                    plan_rate = min(rate, searched[1] / max(searched[0], 1e-9))
                left = seconds - (time.perf_counter() - start)
                used, rank = _plan(samples, pairs, plan_rate, _usable(left), 0)
                if sampling_runs(used, pairs) / plan_rate > _usable(left):
                    smallest = sampling_runs(200, pairs)
                    why, stop = "time", (
                        f"the sampled audit did not start: the neighbour search took "
                        f"{searched[0]:.1f} s, and the smallest sample (200 per side, "
                        f"{smallest} runs) needs about {math.ceil(smallest / plan_rate)} s at "
                        f"the measured speed of {plan_rate:,.0f} runs/s: more than the "
                        f"{max(left, 0.0):.1f} s left of --seconds {seconds:g} allow (planned "
                        f"with a margin: {PLAN_SHARE:.0%} of them, less {PLAN_RESERVE:g} s)")
                budget = dataclasses.replace(budget, samples=used, rank_samples=rank,
                                             max_tail_samples=max(used, 200))
            if stop is not None:  # nothing a measurement could find, or no time to find it
                return _not_sampled(
                    code, target, notion, stop, str(why), samples=samples, pairs=len(found),
                    rate=rate, start=start, reproducible=reproducible, seconds_given=seconds,
                    searched=searched, speed=speed, search_budget=search_budget,
                    workers=workers, startup=before, claim_samples=claim_samples,
                    rewards=rewards, contexts=contexts is not None, graybox=gb,
                    steered=steer is not None, alpha_used=level)
            bar.total = target.runs + sampling_runs(used, pairs)
            set_stage(f"sampling ({sampling_runs(used, pairs)} runs planned after the "
                      f"neighbour search, which finished in {searched[0]:.1f} s: ranking "
                      "the candidate pairs, choosing the event and measuring it)")
            bar.stage("sampling")
            result = audit_mechanism(target, epsilon=eps, delta=dlt, alpha=level,
                                     budget=dataclasses.replace(budget, search_budget=0),
                                     seed=seed, key=key, neighbours=found)
    finally:
        bar.close()
        target.close()
    influence = getattr(target, "influence", None)
    return PolicyAudit(result=result, notion=notion, samples=used, rank_samples=rank,
                       requested_samples=samples, pairs=result.pairs_tried,
                       runs=target.runs, seconds=time.perf_counter() - start,
                       runs_per_second=rate, reproducible=reproducible,
                       inconclusive_reason=getattr(target, "inconclusive_reason", None),
                       moved=None if influence is None else sum(x > 0 for x in influence),
                       screened=None if influence is None else len(influence),
                       decision_step=getattr(target, "decision_step", None),
                       release=getattr(getattr(target, "rel", None), "where", None),
                       horizon=code.horizon, seconds_given=seconds,
                       claim_samples=claim_samples, graybox=gb, steered=steer is not None,
                       alpha_used=level, speed=speed, search_seconds=searched[0],
                       search_runs=searched[1])
