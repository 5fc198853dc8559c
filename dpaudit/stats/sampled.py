"""The one sampled-bound engine: every sampled claim and finding ends in :func:`sampled_audit`.

A mechanism's output, an LDP report, the next action of a per-step policy, the whole action
sequence of a global-DP policy and a trajectory finding all reduce to the same question: given
candidate pairs of samplers (one per neighbouring input), how large is the privacy loss
witnessed by an event? A sampler is ``sample(n, rng)`` returning ``n`` outputs (an array whose
first axis has length ``n``, or a ``dict`` of such arrays: named summaries).

The rule, and why the bound is valid at ``1 - alpha``
------------------------------------------------------
1. **Rank** (only with several candidate pairs): each pair gets ``budget.n_rank`` fresh draws
   per side; the event search of step 2 runs on them and the pair with the best projected
   bound wins. Several summaries are not several tests: they are families searched in step 2.
2. **Select**: ``budget.n_select`` fresh draws per side of the winning pair choose *one* event
   and its direction among all families (thresholds, likelihood-ratio subsets, atoms, a learned
   score, whole-sequence codes) and all summaries (:func:`dpaudit.stats.families.select_event`).
   With ``budget.select_chunk`` the ranking and selection samples are drawn in fixed chunks
   with their own seeds, by the workers or a Dask cluster like the measurement; the event is
   then chosen here from the merged sample (the same draws whatever the workers).
3. **Measure**: ``budget.n_measure`` fresh draws per side count that one event under both
   inputs. The result is a :class:`~dpaudit.stats.evidence.SampledEvidence`; the engine
   (:func:`dpaudit.stats.evidence.decide`) turns the counts into Clopper-Pearson limits at the
   claim's share of the check's ``alpha``.

Under a deadline (:func:`dpaudit.runtime.limits.deadline_scope`: ``--seconds``), a deadline
reached before the event is fixed makes the claim INCONCLUSIVE
(:class:`~dpaudit.runtime.limits.DeadlineReached`); during step 3 each side stops drawing at a
chunk boundary chosen by the clock alone (side ``D`` until half the time left, side ``D'``
until the deadline) and the counts of the measured prefix are the evidence, with
``deadline_hit`` and the samples used in its data. Chunk sizes are fixed before any draw, so a
run that meets no deadline gives the same counts as one without.

Steps 1-2 see only samples independent of step 3, so exactly one hypothesis is tested on the
measurement sample and the search costs no Bonferroni factor.

Non-finite and variable-length outputs
--------------------------------------
Every sampler call's return value is read by one map fixed in :mod:`dpaudit.stats.outputs`
before any draw (:func:`draw`): each output on its own, as the numbers it holds -- NaN, +inf
and -inf included, and a variable-length output as its values. It is the identity on finite
fixed-shape outputs (``numpy.asarray`` of what the sampler returned), so their reports are what
they were. Only outputs that hold no numbers (strings, ``None``, objects) are refused (usage
error, exit 2). The families treat NaN and +-inf as atoms ("output is NaN", "coordinate 2 is
+inf") and read outputs of several shapes through fixed summaries (length, numbers of NaN and
infinite values, sum and extremes of the finite values: "output length in {2}").

Why the bound stays valid: step 2 chooses, on the selection sample alone, one event *and* how
it reads an output (:func:`dpaudit.stats.families.reading`: where the selection's outputs had
one shape, an output of another shape lies outside the event). Once chosen, the event is a
fixed function of one output, applied to each measured output by itself (:func:`_fit`,
:class:`_Counter`), so its hits on the fresh measurement draws are independent Bernoulli
trials with the event's probability under each input, which is all the Clopper-Pearson limits
need. The map depends on no sample, and neither the map nor the event depends on the
measurement sample. Counts are sums over draws of that function: a chunk of draws may come as a
plain array or as a :class:`~dpaudit.stats.outputs.Ragged` (when its rows differ in shape), but
each row is read the same way in either (:func:`dpaudit.stats.outputs.row_features` computes
every summary by the same arithmetic; chunks merge by :func:`dpaudit.stats.outputs.merge` into
the container of their rows), so the counts, the streamed histograms (a NaN statistic lies in
no bin, and the draws are counted in the totals) and the merged selection samples are the same
whatever the chunk boundaries and the number of workers. The budget option is
``AuditBudget``: total draws per side of the audited pair, the share that selects, and the
ranking draws per candidate pair.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Literal, TypeVar

import numpy as np

from dpaudit.runtime import limits
from dpaudit.runtime.parallel import (
    SharedPool,
    chunk_sizes,
    in_piece,
    map_chunks,
    resolve_scheduler,
)
from dpaudit.stats.events import (
    DIRECTIONS,
    SELECTION_ALPHA,
    Candidate,
    ThresholdEvent,
    ThresholdFamily,
    histogram_counts,
    histogram_edges,
)
from dpaudit.stats.evidence import SampledEvidence
from dpaudit.stats.families import (
    Features,
    ThresholdView,
    reading,
    select_event,
    threshold_view,
)
from dpaudit.stats.outputs import Ragged, fit_rows, merge, read
from dpaudit.stats.profile import PROFILE_DELTAS
from dpaudit.stats.rng import child_seed
from dpaudit.validation import (
    InvalidParameterError,
    check_alpha,
    check_delta,
    check_int,
    check_real,
)

__all__ = ["MAX_TAIL_SAMPLES", "TAIL_DRAWS", "AuditBudget", "SamplerPair", "draw",
           "sampled_audit"]

T = TypeVar("T")

#: a claim with ``delta > 0`` draws at least ``TAIL_DRAWS / delta`` per side (up to
#: :data:`MAX_TAIL_SAMPLES`): the events that can show a delta have probabilities of order
#: delta, and the measurement must see each of them many times. For a unit Gaussian shift by
#: ``mu`` at ``delta = 1e-5`` the best threshold's expected Clopper-Pearson bound, as a
#: fraction of the exact loss, is (``alpha = 0.05``; measured draws per side): ``mu = 0.268``
#: (analytic calibration at eps = 1) 0.73 at 8e5, 0.83 at 4e6, 0.90 at 1.6e7, 0.93 at 4e7;
#: ``mu = 0.206`` (the classical calibration) 0.92 at 2.4e7, 0.945 at 5.7e7, 0.956 at 9.5e7;
#: ``mu = 0.106`` 0.90 at 2.9e7, 0.94 at 9.5e7; ``mu = 0.065`` 0.87 at 2.4e7, 0.91 at 5.7e7,
#: 0.93 at 9.5e7. A threshold chosen on a selection histogram of 6e6 draws loses about 0.02
#: of that on average (0.06 at worst over 8 seeds, ``mu = 0.206``), so 1000/delta (1e8, 90%
#: measured) is what reaches 0.9 for the smallest of these shifts
TAIL_DRAWS = 1000.0
#: one-sided level of the pessimistic selection limits (``selection_alpha`` of
#: :func:`~dpaudit.stats.events.projected_bound`) when the threshold is chosen on a streamed
#: histogram of at least :data:`LARGE_SELECTION` draws per side. Neighbouring thresholds of a
#: histogram share most of their counts, so the winner's curse that the default 0.01 guards
#: against is mild there, while 0.01 pushes the choice away from the far tail. Expected bound
#: (fraction of exact) of the chosen threshold over 8 seeds (100-107), selection 1e7 and
#: measurement 9e7 draws per side, ``alpha = 0.025``: Gaussian shift ``mu = 0.206``: mean 0.945
#: (0.5), 0.941 (0.16), 0.939 (0.05), 0.924 (0.01), worst seed 0.93, 0.915, 0.915, 0.898;
#: ``mu = 0.065``: mean 0.892, 0.891, 0.890, 0.880, worst 0.850, 0.857, 0.857, 0.809. With 3e6
#: selection draws 0.5 and 0.16 were worse than 0.01 (``mu = 0.268``: 0.834, 0.876 against
#: 0.906), hence the size condition
STREAMED_SELECTION_ALPHA = 0.16
#: the streamed selection size from which :data:`STREAMED_SELECTION_ALPHA` applies
LARGE_SELECTION = 5_000_000
#: the largest budget :data:`TAIL_DRAWS` asks for (about 4 s of CPU per side for a scalar
#: Gaussian drawn and counted in numpy)
MAX_TAIL_SAMPLES = 100_000_000

Outputs = np.ndarray | Ragged | dict[str, np.ndarray | Ragged]
Sampler = Callable[[int, np.random.Generator], Any]


@dataclass(frozen=True)
class AuditBudget:
    """Sample budget of one sampled audit.

    ``samples``: draws per side for the audited pair (selection + measurement);
    ``selection_fraction`` of them choose the event. ``rank_samples``: draws per side and
    candidate pair for ranking (only with several pairs; default ``min(samples // 10,
    50_000)``). ``search_budget``: how many pairs to request from a callable search domain.
    ``top``: candidates whose exact Clopper-Pearson projection is computed. ``chunk_bytes``:
    memory per sampling call of the measurement. ``max_select``: at most this many selection
    draws per side (``None``: no cap). The event search holds its sample in memory while the
    measurement streams, so with the cap an audit of 10^8 draws needs no more memory than one
    of 10^6 (the draws above the cap go to the measurement; validity does not depend on the
    selection's size, only power does). The default keeps every budget up to 10^6 as it was.
    ``select_chunk``: an integer cuts the ranking and selection samples into chunks of that
    many draws per side, each with its own seed (``(seed, key, "select")`` spawned per chunk
    and side), drawn by the workers or Dask scheduler that measure: a sampled audit then runs
    in parallel end to end. ``"auto"`` (default) is ``max(1000, ceil(n / 16))`` for a sample
    of ``n`` draws per side (:meth:`chunk_for`): a function of the budget alone, 16 chunks
    that two workers share evenly, none smaller than the cost of shipping it. ``None`` draws
    each sample in this process from one stream (the engine's behaviour before 2026-11-26;
    reports stored from then reproduce with it). The result depends on ``select_chunk``
    (another stream), never on the workers.

    Claims with ``delta > 0`` (:meth:`for_delta`, :meth:`n_stream`): ``tail_draws`` (default
    :data:`TAIL_DRAWS`; ``None``: off, for samplers that simulate a policy step by step) sizes
    the budget to at least ``tail_draws / delta`` draws per side, at most
    ``max_tail_samples``; the selection is then ``tail_selection_fraction`` of it, the draws
    above ``max_select`` streamed into histograms of the chosen statistic
    (``tail_select``).
    """

    samples: int = 1_000_000
    selection_fraction: float = 0.2
    rank_samples: int | None = None
    search_budget: int = 16
    top: int = 64
    chunk_bytes: int = 1 << 26
    max_select: int | None = 200_000
    select_chunk: int | Literal["auto"] | None = "auto"
    tail_draws: float | None = TAIL_DRAWS
    max_tail_samples: int = MAX_TAIL_SAMPLES
    tail_select: bool = True
    tail_selection_fraction: float = 0.1

    def __post_init__(self) -> None:
        check_int("samples", self.samples, low=200)
        check_real("selection_fraction", self.selection_fraction, low=0.0, high=1.0,
                   low_open=True, high_open=True)
        if self.rank_samples is not None:
            check_int("rank_samples", self.rank_samples, low=100)
        check_int("search_budget", self.search_budget, low=0)
        check_int("top", self.top, low=1)
        check_int("chunk_bytes", self.chunk_bytes, low=1 << 12)
        if self.max_select is not None:
            check_int("max_select", self.max_select, low=100)
        if self.select_chunk is not None and self.select_chunk != "auto":
            check_int("select_chunk", self.select_chunk, low=100)
        if self.tail_draws is not None:
            check_real("tail_draws", self.tail_draws, low=0.0, low_open=True)
        check_int("max_tail_samples", self.max_tail_samples, low=200)
        check_real("tail_selection_fraction", self.tail_selection_fraction, low=0.0,
                   high=1.0, low_open=True, high_open=True)

    def for_delta(self, delta: float) -> AuditBudget:
        """This budget sized for a claim with ``delta``: with ``delta > 0`` and ``tail_draws``
        set, at least ``min(ceil(tail_draws / delta), max_tail_samples)`` draws per side (a
        larger ``samples`` is kept). ``delta = 0`` leaves it unchanged."""
        if delta <= 0 or self.tail_draws is None:
            return self
        want = min(int(math.ceil(self.tail_draws / delta)), self.max_tail_samples)
        return self if want <= self.samples else replace(self, samples=want)

    def n_stream(self, delta: float) -> int:
        """Selection draws per side above the held sample (``max_select``), streamed into
        histograms of the chosen statistic (only with ``delta > 0``, ``tail_select`` and
        ``tail_draws``: a budget sized by the claim; others keep their split): the
        threshold can then lie in the far tail, where a delta of order 1e-5 lives. The whole
        selection is ``tail_selection_fraction`` of ``samples`` (a histogram needs fewer draws
        than a held sample's search to place one threshold; the rest measure)."""
        if delta <= 0 or not self.tail_select or self.max_select is None or \
                self.tail_draws is None:
            return 0
        wanted = max(100, int(round(self.samples * self.tail_selection_fraction)))
        return max(0, wanted - self.n_select)

    def chunk_for(self, n: int) -> int | None:
        """Draws per side in one chunk of a ranking or selection sample of ``n`` draws per
        side (``None``: one stream in the caller)."""
        return _chunk_for(self.select_chunk, n)

    @property
    def n_select(self) -> int:
        wanted = max(100, int(round(self.samples * self.selection_fraction)))
        return wanted if self.max_select is None else min(wanted, self.max_select)

    @property
    def n_measure(self) -> int:
        return self.samples - self.n_select

    @property
    def n_rank(self) -> int:
        return self.rank_samples if self.rank_samples is not None else max(
            100, min(self.samples // 10, 50_000))


def _chunk_for(select_chunk: int | Literal["auto"] | None, n: int) -> int | None:
    """:meth:`AuditBudget.chunk_for` of the setting ``select_chunk``."""
    if select_chunk == "auto":
        return max(1000, -(-n // 16))
    return select_chunk


@dataclass(frozen=True)
class SamplerPair:
    """Two neighbouring inputs, seen through their samplers. ``data``/``data_prime`` are
    kept for reports only."""

    description: str
    sample_p: Sampler
    sample_q: Sampler
    data: Any = None
    data_prime: Any = None


def draw(sampler: Sampler, size: int, rng: np.random.Generator, who: str) -> Outputs:
    """``size`` outputs of ``sampler``, read by the fixed map of :mod:`dpaudit.stats.outputs`
    (:func:`~dpaudit.stats.outputs.read`: numbers as they are, NaN and infinities included;
    variable-length outputs as their rows; a usage error for anything else)."""
    out = sampler(size, rng)
    if isinstance(out, dict):
        if not out:
            raise InvalidParameterError(f"{who} returned an empty dict of summaries")
        return {str(k): read(v, size, f"{who} (summary {k!r})") for k, v in out.items()}
    return read(out, size, who)


def _row_bytes(out: Outputs) -> int:
    arrays = out.values() if isinstance(out, dict) else [out]
    return max(1, sum(-(-a.nbytes // max(len(a), 1)) if isinstance(a, Ragged)
                      else int(np.asarray(a)[0].nbytes) for a in arrays))


def _take(x: np.ndarray | Ragged, mask: np.ndarray) -> np.ndarray | Ragged:
    return x.take(mask) if isinstance(x, Ragged) else np.asarray(x)[mask]


def _n_rows(outputs: Outputs) -> int:
    return len(next(iter(outputs.values()))) if isinstance(outputs, dict) else len(outputs)


def _fit(outputs: Outputs, template: Any) -> Outputs:
    """The draws of ``outputs`` an event chosen on a selection sample read by ``template``
    (:func:`dpaudit.stats.families.reading`) can hold: where the selection's rows had one
    shape, the rows of that shape (:func:`dpaudit.stats.outputs.fit_rows`); every other draw
    lies outside the event and is dropped (it counts in no event and no histogram bin, and
    still counts as a draw). A function of each draw alone, so counts add up over chunks."""
    if template is None:
        return outputs
    if isinstance(template, dict):
        if not isinstance(outputs, dict):
            raise InvalidParameterError("the sampler returned a dict of summaries in one call "
                                        "and an array in another")
        mask = None
        for name, shape in template.items():
            if shape is not None:
                _, m = fit_rows(outputs[name], shape)
                if m is not None:
                    mask = m if mask is None else mask & m
        if mask is None:
            return outputs
        return {name: (_take(outputs[name], mask) if shape is None
                       else fit_rows(_take(outputs[name], mask), shape)[0])
                for name, shape in template.items()}
    if isinstance(outputs, dict):
        raise InvalidParameterError("the sampler returned a dict of summaries in one call and "
                                    "an array in another")
    return fit_rows(outputs, template)[0]


@dataclass(frozen=True)
class _Counter:
    """Hits of several events fixed before the measurement: thresholds ``(t, upper)`` on one
    ``statistic`` (computed once per draw), or whole ``events`` (each tested on its own)."""

    statistic: Callable[[Any], np.ndarray] | None = None
    thresholds: tuple[tuple[float, bool], ...] = ()
    events: tuple[Any, ...] = ()
    template: Any = None  # how the events read outputs (:func:`_fit`); None: as they come

    def hits(self, outputs: Outputs) -> tuple[int, ...]:
        outputs = _fit(outputs, self.template)
        if _n_rows(outputs) == 0:  # no draw of this chunk can be in the events
            return (0,) * max(len(self.thresholds), len(self.events))
        if self.statistic is not None:
            s = np.asarray(self.statistic(outputs), dtype=float)
            return tuple(int(np.count_nonzero(s >= t if up else s <= t))
                         for t, up in self.thresholds)
        return tuple(int(np.count_nonzero(e.contains(outputs))) for e in self.events)


def _count_chunk(sampler: Sampler, counter: _Counter, who: str, size: int,
                 rng: np.random.Generator) -> tuple[int, ...]:
    return counter.hits(draw(sampler, size, rng, who))


def _chunk_of(sampler: Sampler, n: int, seed: np.random.SeedSequence, side: str,
              chunk_bytes: int, who: str) -> int:
    """Draws per chunk of a streamed sample of ``n``: at most ``chunk_bytes`` of outputs and
    at most an eighth of ``n`` (so workers share them); a function of ``n`` and the
    sampler's row size, never of the workers."""
    probe = draw(sampler, min(n, 64), np.random.Generator(np.random.PCG64(
        child_seed(seed, "probe", side))), who)
    return max(1, min(chunk_bytes // _row_bytes(probe), max(10_000, -(-n // 8))))


def _count(sampler: Sampler, counter: _Counter, n: int, seed: np.random.SeedSequence,
           side: str, chunk_bytes: int, who: str, workers: int, scheduler: object,
           pool: SharedPool | None = None, deadline: float | None = None
           ) -> tuple[tuple[int, ...], int]:
    """``(hits, draws)``: hits of each of ``counter``'s events in ``n`` fresh draws, streamed:
    fixed chunks (:func:`_chunk_of`), each with its own spawned seed
    (:func:`dpaudit.runtime.parallel.map_chunks`); only counts come back. ``deadline``: no chunk
    starts after it, so ``draws`` may be a prefix of ``n``."""
    chunk = _chunk_of(sampler, n, seed, side, chunk_bytes, who)
    counts = map_chunks(partial(_count_chunk, sampler, counter, who), n, seed=seed, key=side,
                        chunk=chunk, workers=workers, scheduler=scheduler, pool=pool,
                        deadline=deadline)
    total = tuple(int(sum(c[i] for c in counts)) for i in range(len(counts[0]))) if counts \
        else (0,) * max(len(counter.thresholds), len(counter.events))
    return total, int(sum(chunk_sizes(n, chunk)[:len(counts)]))


def _histogram_chunk(sampler: Sampler, statistic: Callable[[Any], np.ndarray],
                     edges: np.ndarray, template: Any, who: str, size: int,
                     rng: np.random.Generator) -> np.ndarray:
    got = _fit(draw(sampler, size, rng, who), template)
    if _n_rows(got) == 0:
        return np.zeros(len(edges) + 1, np.int64)
    return histogram_counts(statistic(got), edges)


def _stream_histograms(pair: SamplerPair, view: ThresholdView, edges: np.ndarray, n: int,
                       seq: np.random.SeedSequence, chunk_bytes: int, who: str, workers: int,
                       scheduler: object, pool: SharedPool | None, template: Any = None
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Histograms (on ``edges``) of the chosen statistic over ``n`` more selection draws per
    side, streamed in fixed chunks with their own seeds: memory stays that of one chunk, and
    the summed histograms are the same for any number of workers. A draw the statistic does
    not read (a NaN statistic; a row of another shape than the selection's, :func:`_fit`) is
    in no bin."""
    def side_of(sampler: Sampler, side: str) -> np.ndarray:
        chunk = _chunk_of(sampler, n, seq, side, chunk_bytes, who)
        parts = map_chunks(partial(_histogram_chunk, sampler, view.statistic, edges, template,
                                   who), n,
                           seed=seq, key=side, chunk=chunk, workers=workers,
                           scheduler=scheduler, pool=pool, resumable=False)
        return np.sum(parts, axis=0) if parts else np.zeros(len(edges) + 1, np.int64)

    out = _on_both_sides([partial(side_of, pair.sample_p, "p"),
                          partial(side_of, pair.sample_q, "q")], pool)
    return out[0], out[1]


def _on_both_sides(calls: Sequence[Callable[[], T]], pool: SharedPool | None) -> list[T]:
    """``[call() for call in calls]``; with a local shared pool, the calls run at once from
    threads of this process (each in a copy of this context, so saved chunks and deadlines
    apply), their chunks queued on the one pool: with two workers and 11 chunks a side, one
    side alone leaves a worker idle for its last chunk, both together do not. Every chunk
    keeps its seed, so the results are the same as one after the other."""
    if pool is None or len(calls) < 2:
        return [call() for call in calls]
    pool.executor()  # started here, in the calling thread, not in a worker thread
    with ThreadPoolExecutor(len(calls)) as threads:
        futures = [threads.submit(contextvars.copy_context().run, call) for call in calls]
        return [f.result() for f in futures]


def _inner_threshold(event: Any) -> ThresholdEvent:
    while not isinstance(event, ThresholdEvent):
        event = event.threshold if hasattr(event, "threshold") else event.inner
    return event


def _profile_candidates(family: ThresholdFamily, n_measure: int, alpha: float, top: int,
                        threads: int = 1) -> list[tuple[str, Candidate]]:
    """The profile's events on a selection histogram: the best threshold at each delta of
    :data:`~dpaudit.stats.profile.PROFILE_DELTAS` and the best for Gaussian DP (each ranked at
    its share of ``alpha``; any choice keeps the profile valid, it only shapes its power).
    ``threads``: for the Gaussian DP event's search (the same choice for any number)."""
    k = len(PROFILE_DELTAS) + 2
    out = [(f"delta={d:g}", family.best(n_measure=n_measure, delta=d, alpha=alpha / k,
                                        top=top)) for d in PROFILE_DELTAS]
    out.append(("gdp", family.best_mu(n_measure=n_measure, alpha=alpha / k, threads=threads)))
    return out


@dataclass(frozen=True)
class _Packed:
    """An integer array shipped in the narrowest integer type that holds its values, and
    the type it had: a worker's chunk of action sequences (int64, values below K) crosses
    the process boundary in an eighth of the bytes and is restored exactly on merging."""

    values: np.ndarray
    dtype: str  # the original type, as ``np.dtype(...).str``

    @staticmethod
    def of(out: np.ndarray | Ragged) -> np.ndarray | Ragged | _Packed:
        if isinstance(out, Ragged) or out.dtype.kind not in "iu" or out.dtype.itemsize == 1 \
                or not out.size:
            return out
        lo, hi = int(out.min()), int(out.max())
        small = np.result_type(np.min_scalar_type(lo), np.min_scalar_type(hi))
        return _Packed(out.astype(small), out.dtype.str) \
            if small.itemsize < out.dtype.itemsize else out


def _draw_chunk(sampler: Sampler, who: str, size: int, rng: np.random.Generator
                ) -> dict[str, np.ndarray | Ragged | _Packed] | np.ndarray | Ragged | _Packed:
    out = draw(sampler, size, rng, who)
    if isinstance(out, dict):
        return {k: _Packed.of(v) for k, v in out.items()}
    return _Packed.of(out)


def _concat(parts: list[Any]) -> np.ndarray | Ragged:
    """The chunks (packed or not) merged, in the type ``np.concatenate`` of the unpacked
    chunks would have: each :class:`_Packed` chunk's ``dtype`` is its own type. Chunks with
    rows of several shapes merge into one :class:`~dpaudit.stats.outputs.Ragged`
    (:func:`dpaudit.stats.outputs.merge`: the same sample for any chunk boundaries)."""
    plain = [p.values.astype(p.dtype) if isinstance(p, _Packed) else p for p in parts]
    if any(isinstance(p, Ragged) for p in plain) or len({p.shape[1:] for p in plain}) > 1:
        return merge(plain)
    merged = np.concatenate([p.values if isinstance(p, _Packed) else p for p in parts])
    return merged.astype(np.result_type(*[np.dtype(p.dtype) for p in parts]), copy=False)


def _merge(parts: list[Any], who: str) -> Outputs:
    """The chunks of one side's sample, in chunk order, as one sample (types restored)."""
    if isinstance(parts[0], dict):
        keys = list(parts[0])
        if any(not isinstance(p, dict) or list(p) != keys for p in parts):
            raise InvalidParameterError(f"{who} returned different summaries in different "
                                        "calls")
        return {k: _concat([p[k] for p in parts]) for k in keys}
    return _concat(parts)


@dataclass(frozen=True)
class _Source:
    """Where a ranking or selection sample comes from: one generator in this process
    (``chunk`` None), or fixed chunks with seeds spawned from ``seq`` (``chunk`` an
    :class:`AuditBudget` ``select_chunk`` setting: a size, or ``"auto"`` sized from the
    sample), placed on ``workers`` / ``scheduler`` / ``pool``."""

    seq: np.random.SeedSequence
    chunk: int | Literal["auto"] | None
    workers: int = 1
    scheduler: object = None
    pool: SharedPool | None = None

    def sample(self, pair: SamplerPair, n: int, who: str) -> tuple[Outputs, Outputs]:
        chunk = _chunk_for(self.chunk, n)
        if chunk is None:
            rng = np.random.Generator(np.random.PCG64(self.seq))
            return draw(pair.sample_p, n, rng, who), draw(pair.sample_q, n, rng, who)
        return tuple(_merge(map_chunks(  # type: ignore[return-value]
            partial(_draw_chunk, sampler, who), n, seed=self.seq, key=side, chunk=chunk,
            workers=self.workers, scheduler=self.scheduler, pool=self.pool, resumable=False), who)
            for sampler, side in ((pair.sample_p, "p"), (pair.sample_q, "q")))


def _select(pair: SamplerPair, n: int, n_measure: int, source: _Source, *,
            delta: float, alpha: float, top: int, features: Features | None,
            n_outcomes: int | None, who: str) -> tuple[Candidate, str, Any, Any]:
    """The event chosen on ``n`` selection draws per side, its output kind, for a threshold
    event its :class:`~dpaudit.stats.families.ThresholdView` with the selection histograms
    of its statistic (``None`` otherwise), and how the event reads later draws
    (:func:`dpaudit.stats.families.reading`)."""
    a, b = source.sample(pair, n, who)
    if isinstance(a, dict) != isinstance(b, dict) or (
            isinstance(a, dict) and isinstance(b, dict) and set(a) != set(b)):
        raise InvalidParameterError(f"{who}: both inputs must return the same kind of output "
                                    "(the same summaries)")
    cand, kind = select_event(a, b, n_measure=n_measure, delta=delta, alpha=alpha, top=top,
                              features=features, n_outcomes=n_outcomes)
    template = reading(a, b)
    view = threshold_view(cand.event)
    if view is None:
        return cand, kind, None, template
    sa, sb = view.statistic(a), view.statistic(b)
    edges = histogram_edges(sa, sb)
    return cand, kind, (view, edges, histogram_counts(sa, edges), histogram_counts(sb, edges)
                        ), template


def sampled_audit(pairs: Sequence[SamplerPair], *, delta: float, alpha: float,
                  budget: AuditBudget, seed: int | np.random.SeedSequence, key: str,
                  features: Features | None = None, n_outcomes: int | None = None,
                  details: Sequence[str] = (), who: str = "sample", workers: int = 1,
                  scheduler: object = None, analysis_mu: float | None = None
                  ) -> SampledEvidence:
    """Rank the pairs, choose one event on a selection sample, measure it on a fresh one.

    ``alpha`` is the level the measurement is expected to be judged at; it only shapes the
    event search (the verdict's level is set by :func:`dpaudit.stats.evidence.decide`). Random
    streams: ``(seed, key, "rank", i)``, ``(seed, key, "select")``, ``(seed, key,
    "select-stream")``, ``(seed, key, "measure")``. The measurement streams in fixed chunks
    (counts only), sent to ``workers`` local processes or a Dask ``scheduler`` by
    :func:`dpaudit.runtime.parallel.map_chunks`; the evidence does not depend on either. See the
    module docstring for the rule and validity.

    With ``delta > 0`` the budget is sized by the claim (:meth:`AuditBudget.for_delta`) and
    the selection draws above the held sample are streamed into histograms of the chosen
    statistic, from which the threshold is chosen (:meth:`AuditBudget.n_stream`). Beside the
    verdict's event, the profile's events (:func:`_profile_candidates`) are measured on the
    same fresh draws (``data["profile_events"]``; :mod:`dpaudit.stats.profile`).
    ``analysis_mu``: the Gaussian DP parameter the release's analysis implies (sensitivity /
    sigma), for the calibration finding.
    """
    check_delta(delta)
    check_alpha(alpha)
    if not pairs:
        raise InvalidParameterError("pairs=() must contain at least one pair of inputs")
    budget = budget.for_delta(delta)
    n_stream = budget.n_stream(delta)
    n_sel, n_meas = budget.n_select, budget.n_measure - n_stream
    select = partial(_select, delta=delta, alpha=alpha, top=budget.top, features=features,
                     n_outcomes=n_outcomes, who=who)
    # one local pool for every stage (ranking, selection, both sides of the measurement),
    # started by the first stage worth it; none with a scheduler or one worker
    # (inside a scheduled piece the chunks share the scheduler's workers instead)
    shared = SharedPool(workers) if workers > 1 and resolve_scheduler(scheduler) is None \
        and not in_piece() else None
    try:
        def source(*keys: str | int) -> _Source:
            return _Source(child_seed(seed, key, *keys), budget.select_chunk, workers,
                           scheduler, shared)

        ranking: list[tuple[int, float]] = []
        best = 0
        if len(pairs) > 1:
            for i, pair in enumerate(pairs):
                if limits.deadline_passed():
                    raise limits.deadline_reached("ranking of the neighbouring pairs")
                cand, _, _, _ = select(pair, budget.n_rank, n_meas, source("rank", i))
                ranking.append((i, float(cand.projected_bound)))
            ranking.sort(key=lambda r: -r[1])
            best = ranking[0][0]
        if limits.deadline_passed():
            raise limits.deadline_reached("ranking of the neighbouring pairs")
        pair = pairs[best]
        cand, kind, hist, template = select(pair, n_sel, n_meas, source("select"))
        roles: list[tuple[str, Candidate]] = [("verdict", cand)]
        streamed = 0
        if hist is not None:
            view, edges, ca, cb = hist
            if n_stream > 0:
                xa, xb = _stream_histograms(pair, view, edges, n_stream,
                                            child_seed(seed, key, "select-stream"),
                                            budget.chunk_bytes, who, workers, scheduler,
                                            shared, template)
                ca, cb, streamed = ca + xa, cb + xb, n_stream
            # totals: draws whose statistic is NaN (or that the event does not read) are in no
            # bin, yet are draws
            family = ThresholdFamily.of(edges, ca, cb, n_sel + streamed, n_sel + streamed)
            if streamed:
                sel_alpha = STREAMED_SELECTION_ALPHA if n_sel + streamed >= LARGE_SELECTION \
                    else SELECTION_ALPHA
                t = family.best(n_measure=n_meas, delta=delta, alpha=alpha, top=budget.top,
                                selection_alpha=sel_alpha)
                cand = Candidate(view.event(t.event), t.direction, t.projected_bound, t.p_hat,
                                 t.q_hat)
                roles = [("verdict", cand)]
            roles += [(r, replace(c, event=view.event(c.event)))
                      for r, c in _profile_candidates(family, n_meas, alpha, budget.top,
                                                      threads=2 if shared is not None else 1)]
            counter = _Counter(view.statistic, tuple(
                (e.threshold, e.upper) for e in (_inner_threshold(c.event) for _, c in roles)),
                template=template)
        else:
            counter = _Counter(events=(cand.event,), template=template)
        if limits.deadline_passed():
            raise limits.deadline_reached("event selection")
        meas = child_seed(seed, key, "measure")
        end = limits.current_deadline()
        # one side after the other, the first gets half the time left; on a shared pool the
        # two sides run at once (:func:`_on_both_sides`) and share the whole of it
        ends: tuple[float | None, float | None] = (end, end) if end is None or \
            shared is not None else (time.monotonic() + (end - time.monotonic()) / 2, end)
        got = _on_both_sides(
            [partial(_count, s, counter, n_meas, meas, side, budget.chunk_bytes, who, workers,
                     scheduler, shared, until)
             for (s, side), until in zip(((pair.sample_p, "p"), (pair.sample_q, "q")), ends,
                                         strict=True)], shared)
    finally:
        if shared is not None:
            shared.close()
    if min(n for _, n in got) == 0:
        raise limits.deadline_reached("measurement (no chunk of one side finished)")
    (hits_p, np_), (hits_q, nq) = got

    def oriented(j: int, direction: str) -> tuple[int, int, int, int]:
        return ((hits_p[j], hits_q[j], np_, nq) if direction == DIRECTIONS[0]
                else (hits_q[j], hits_p[j], nq, np_))

    cp, cq, n_p, n_q = oriented(0, cand.direction)
    profile_events = []
    for j, (role, c) in enumerate(roles):
        kp, kq, mp, mq = oriented(j, c.direction)
        profile_events.append({"role": role, "event": c.event.description,
                               "direction": c.direction, "count_p": kp, "n_p": mp,
                               "count_q": kq, "n_q": mq})
    extra: dict[str, Any] = {}
    n_select_total = n_sel + streamed
    if end is not None:
        hit = n_p < n_meas or n_q < n_meas
        extra = {"deadline_hit": hit, "samples_used": {
            "select": n_select_total, "measure_p": n_p, "measure_q": n_q,
            "measure_planned": n_meas}}
        if hit:
            lines_deadline = (f"deadline reached during the measurement: decided on the "
                              f"{n_p} and {n_q} draws measured (of {n_meas} planned per side), "
                              "cut at chunk boundaries chosen by the clock alone",)
            details = (*details, *lines_deadline)
    lines = [f"neighbours: {pair.description} (best of {len(pairs)} pair(s))"]
    if ranking:
        top = ", ".join(f"#{i}: {b:.3g}" for i, b in ranking[:5])
        lines.append(f"pair ranking (projected bounds on {budget.n_rank} fresh draws per side "
                     f"and pair): {top}")
    if streamed:
        lines.append(f"threshold chosen on a histogram of {n_select_total} selection draws per "
                     f"side ({n_sel} held, {streamed} streamed); budget sized by delta: "
                     f"{budget.samples} draws per side")
        extra["selection_streamed"] = streamed
        extra["samples_per_side"] = budget.samples
    if analysis_mu is not None:
        extra["analysis_mu"] = float(analysis_mu)
    return SampledEvidence(
        count_p=cp, n_p=n_p, count_q=cq, n_q=n_q, event=cand.event.description,
        direction=cand.direction, p_select=float(cand.p_hat), n_select=n_select_total,
        details=(*details, *lines),
        data={"output_kind": kind, "pair": best, "pair_description": pair.description,
              "pairs_tried": len(pairs), "ranking": ranking,
              "projected_bound": float(cand.projected_bound),
              "profile_events": profile_events, **extra})
