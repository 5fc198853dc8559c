"""Black-box auditor: a valid epsilon lower bound for any sampler on neighbouring inputs.

Protocol (:class:`dpaudit.interfaces.AuditableMechanism`): an object with a vectorised
``sample(data, size, rng)`` (an array whose first axis has length ``size``), the claim
``epsilon`` and ``delta``, and ``neighbours`` (pairs ``(data, data_prime)`` to try).
Optional: ``search_domain`` (a sequence of further pairs, or a callable ``(rng, n) -> pairs``
proposing ``n`` of them), ``features`` (``outputs -> statistic`` of shape ``(size,)`` or
``(size, d)``), ``n_outcomes`` (for small discrete outputs) and ``notion``.

The audit, and why its bound is valid at ``1 - alpha``
--------------------------------------------------------
1. **Rank** (only when there are several candidate pairs): every pair gets a small ranking
   sample (``rank_samples`` per side); the event selection of step 2 is run on it and the
   pair with the best projected bound wins.
2. **Select**: a fresh selection sample (``selection_fraction * samples`` per side) of the
   winning pair chooses the output event *and* the direction (``D`` vs ``D'`` or the reverse;
   see :mod:`dpaudit.events`): threshold events for scalar outputs, Neyman-Pearson subsets for
   small discrete outputs, a logistic score (fitted on half the selection sample and
   thresholded on the other half) for rich outputs.
3. **Measure**: a fresh measurement sample (the remaining samples per side) counts that single
   event under both inputs; one-sided Clopper-Pearson limits at ``alpha / 2`` each give
   ``p_lo``, ``q_hi`` holding together with probability ``>= 1 - alpha``, and the bound is
   ``log((p_lo - delta) / q_hi)`` (``dpaudit.empirical.epsilon_from_counts``).

Steps 1-2 see only samples independent of step 3, so the event and the direction are fixed
before the measurement sample exists: exactly one hypothesis is tested on it and no Bonferroni
factor is needed (both directions *were* tried, on the selection sample). This is the honest
alternative to measuring four events on one sample at ``alpha / 4``; the selection split
costs ``sqrt(1 / (1 - selection_fraction))`` in the width of the intervals (about 12% at the
default 0.2), which is cheaper than the Bonferroni factor and the split of half the samples.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .empirical import detectable_epsilon, epsilon_from_counts
from .events import (
    DIRECTIONS,
    Candidate,
    ScoreEvent,
    best_subset_event,
    best_threshold_event,
    fit_logistic_score,
)
from .results import ClaimResult, Method, Notion, Verdict
from .rng import DEFAULT_SEED, generator
from .validation import (
    InvalidParameterError,
    check_alpha,
    check_epsilon_delta,
    check_int,
    check_real,
)

__all__ = [
    "AuditBudget",
    "BlackBoxResult",
    "audit_mechanism",
    "blackbox_evaluator",
    "candidate_pairs",
    "to_claim_result",
]

MAX_DISCRETE_OUTCOMES = 64


@dataclass(frozen=True)
class AuditBudget:
    """Sample budget of one black-box audit.

    ``samples``: per side for the audited pair (selection + measurement); ``selection_fraction``
    of them choose the event. ``rank_samples``: per side and candidate pair for ranking (only
    used with several pairs; default ``min(samples // 10, 50_000)``). ``search_budget``: how
    many pairs to request from a callable ``search_domain``. ``top``: candidates whose exact
    Clopper-Pearson projection is computed. ``chunk_bytes``: memory per sampling call.
    """

    samples: int = 1_000_000
    selection_fraction: float = 0.2
    rank_samples: int | None = None
    search_budget: int = 16
    top: int = 64
    chunk_bytes: int = 1 << 26

    def __post_init__(self) -> None:
        check_int("samples", self.samples, low=200)
        check_real("selection_fraction", self.selection_fraction, low=0.0, high=1.0,
                   low_open=True, high_open=True)
        if self.rank_samples is not None:
            check_int("rank_samples", self.rank_samples, low=100)
        check_int("search_budget", self.search_budget, low=0)
        check_int("top", self.top, low=1)
        check_int("chunk_bytes", self.chunk_bytes, low=1 << 12)

    @property
    def n_select(self) -> int:
        return max(100, int(round(self.samples * self.selection_fraction)))

    @property
    def n_measure(self) -> int:
        return self.samples - self.n_select

    @property
    def n_rank(self) -> int:
        return self.rank_samples if self.rank_samples is not None else max(
            100, min(self.samples // 10, 50_000))


@dataclass(frozen=True)
class BlackBoxResult:
    """What one black-box audit found (frozen; formatting lives in reports)."""

    epsilon: float
    delta: float
    alpha: float
    data: Any
    data_prime: Any
    output_kind: str
    event: str
    direction: str
    count_p: int
    count_q: int
    n_measure: int
    n_select: int
    p_lo: float
    q_hi: float
    epsilon_lower_bound: float
    projected_bound: float
    detectable_epsilon: float
    pairs_tried: int
    ranking: tuple[tuple[int, float], ...] = ()
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> Verdict:
        """VIOLATED above the claim; INCONCLUSIVE when no violation was detectable at all."""
        if self.epsilon_lower_bound > self.epsilon:
            return Verdict.VIOLATED
        if math.isinf(self.detectable_epsilon):
            return Verdict.INCONCLUSIVE
        return Verdict.CONSISTENT

    def details(self) -> tuple[str, ...]:
        p_side, q_side = ("D", "D'") if self.direction == DIRECTIONS[0] else ("D'", "D")
        lines = [
            f"neighbours: {_pair_text(self.data, self.data_prime)} "
            f"(best of {self.pairs_tried} pair(s))",
            f"event ({self.output_kind} output, chosen on {self.n_select} fresh samples per "
            f"side): {self.event}; direction {self.direction}",
            f"measured on {self.n_measure} fresh samples per side: P[M({p_side}) in E] >= "
            f"{self.p_lo:.6g} ({self.count_p} hits), P[M({q_side}) in E] <= {self.q_hi:.6g} "
            f"({self.count_q} hits); Clopper-Pearson, alpha/2 each",
        ]
        if self.ranking:
            top = ", ".join(f"#{i}: {b:.3g}" for i, b in self.ranking[:5])
            lines.append(f"pair ranking (projected bounds on ranking samples): {top}")
        if self.verdict is Verdict.INCONCLUSIVE:
            lines.append("no violation of any size is detectable with this event and sample "
                         "size (its probability is too small against delta): add samples")
        return tuple(lines)


def _pair_text(data: Any, data_prime: Any) -> str:
    """``D = .., D' = ..``; for equal-shape arrays, where they differ."""
    try:
        a, b = np.asarray(data, dtype=float), np.asarray(data_prime, dtype=float)
    except (TypeError, ValueError):
        a = b = None
    if a is not None and b is not None and a.shape == b.shape and a.size > 4:
        diff = np.argwhere(a != b)
        where = ", ".join(str(tuple(int(i) for i in d)) for d in diff[:4])
        more = f" and {len(diff) - 4} more" if len(diff) > 4 else ""
        vals = ", ".join(f"{a[tuple(d)]:g}->{b[tuple(d)]:g}" for d in diff[:4])
        return (f"D and D' of shape {a.shape} differing at {where}{more} ({vals})"
                if len(diff) else f"D = D' (shape {a.shape})")
    return f"D = {_short(data)}, D' = {_short(data_prime)}"


def _short(value: Any) -> str:
    text = np.array2string(np.asarray(value), threshold=12, precision=4) if isinstance(
        value, np.ndarray) else repr(value)
    return text if len(text) < 80 else text[:77] + "..."


# -- sampling through the protocol ---------------------------------------------------------
def _draw(mech: Any, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    out = np.asarray(mech.sample(data, size, rng))
    if out.ndim == 0 or out.shape[0] != size:
        raise InvalidParameterError(
            f"{type(mech).__name__}.sample(data, size={size}, rng) must return an array whose "
            f"first axis has length size; got shape {out.shape}")
    if out.dtype.kind == "f" and not np.all(np.isfinite(out)):
        raise InvalidParameterError(
            f"{type(mech).__name__}.sample returned NaN or infinite outputs for data="
            f"{_short(data)}")
    if out.dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{type(mech).__name__}.sample must return numbers or booleans; got dtype "
            f"{out.dtype}")
    return out


def _row_bytes(mech: Any, data: Any, rng: np.random.Generator) -> int:
    probe = _draw(mech, data, 2, rng)
    return max(1, probe[0].nbytes)


def _count(mech: Any, data: Any, event: Any, n: int, rng: np.random.Generator,
           chunk_bytes: int) -> int:
    """Hits of ``event`` in ``n`` fresh samples, drawn in memory-bounded chunks."""
    chunk = max(1, min(n, chunk_bytes // _row_bytes(mech, data, rng)))
    hits, done = 0, 0
    while done < n:
        m = min(chunk, n - done)
        hits += int(np.count_nonzero(event.contains(_draw(mech, data, m, rng))))
        done += m
    return hits


# -- event selection for one pair ----------------------------------------------------------
def _output_kind(a: np.ndarray, b: np.ndarray, features: Callable | None) -> str:
    """``scalar``, ``discrete`` (non-negative integers below 64), ``statistic`` or ``vector``."""
    if features is not None:
        stat = np.asarray(features(np.concatenate([a[:2], b[:2]])))
        return "statistic" if stat.ndim == 1 or stat.shape[1:] == (1,) else "vector"
    if a.reshape(a.shape[0], -1).shape[1] != 1:
        return "vector"
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        lo, hi = min(int(a.min()), int(b.min())), max(int(a.max()), int(b.max()))
        if lo >= 0 and hi < MAX_DISCRETE_OUTCOMES:
            return "discrete"
    return "scalar"


def _select(mech: Any, pair: tuple[Any, Any], n: int, n_measure: int, *, delta: float,
            alpha: float, rng: np.random.Generator, top: int) -> tuple[Candidate, str]:
    """Choose an event (and direction) for ``pair`` on ``n`` fresh samples per side."""
    a, b = _draw(mech, pair[0], n, rng), _draw(mech, pair[1], n, rng)
    features = getattr(mech, "features", None)
    kind = _output_kind(a, b, features)
    if kind == "scalar":
        return best_threshold_event(a, b, n_measure=n_measure, delta=delta, alpha=alpha,
                                    top=top), kind
    if kind == "statistic":
        assert features is not None
        stat = _Statistic(features)
        cand = best_threshold_event(stat(a), stat(b), n_measure=n_measure, delta=delta,
                                    alpha=alpha, top=top)
        return _wrap(cand, stat, "statistic"), kind
    if kind == "discrete":
        n_out = int(getattr(mech, "n_outcomes", 0) or max(int(a.max()), int(b.max())) + 1)
        if n_out < 2:
            n_out = 2
        return best_subset_event(a.ravel().astype(np.int64), b.ravel().astype(np.int64), n_out,
                                 n_measure=n_measure,
                                 delta=delta, alpha=alpha), kind
    half = n // 2  # vector: fit a score on one half, choose its threshold on the other
    score = fit_logistic_score(a[:half], b[:half], features=features)
    cand = best_threshold_event(score(a[half:]), score(b[half:]), n_measure=n_measure,
                                delta=delta, alpha=alpha, top=top)
    return _wrap(cand, score, "learned score"), "vector"


@dataclass(frozen=True)
class _Statistic:
    features: Callable[[np.ndarray], np.ndarray]

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        s = np.asarray(self.features(outputs), dtype=float)
        return s.reshape(s.shape[0])


def _wrap(cand: Candidate, score: Callable, name: str) -> Candidate:
    assert not isinstance(cand.event, ScoreEvent)
    event = ScoreEvent(score, cand.event, name)  # type: ignore[arg-type]
    return Candidate(event, cand.direction, cand.projected_bound, cand.p_hat, cand.q_hat)


# -- neighbour candidates ------------------------------------------------------------------
def candidate_pairs(mech: Any, budget: AuditBudget, seed: int | np.random.SeedSequence,
                    key: str, neighbours: Sequence[tuple[Any, Any]] | None = None
                    ) -> list[tuple[Any, Any]]:
    """Heuristic pairs (``neighbours``) followed by pairs from ``search_domain``."""
    pairs = list(mech.neighbours if neighbours is None else neighbours)
    domain = getattr(mech, "search_domain", None)
    if callable(domain) and budget.search_budget > 0:
        pairs += list(domain(generator(seed, key, "search"), budget.search_budget))
    elif domain is not None and not callable(domain):
        pairs += list(domain)
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, tuple | list) and len(pair) == 2):
            raise InvalidParameterError(
                f"neighbours[{i}]={_short(pair)} must be a pair (data, data_prime)")
    if not pairs:
        raise InvalidParameterError(
            f"{type(mech).__name__}.neighbours must contain at least one (data, data_prime) "
            "pair")
    return [tuple(p) for p in pairs]  # type: ignore[misc]


# -- the audit -----------------------------------------------------------------------------
def audit_mechanism(
    mech: Any,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    alpha: float = 0.05,
    budget: AuditBudget | None = None,
    seed: int | np.random.SeedSequence = DEFAULT_SEED,
    key: str = "blackbox",
    neighbours: Sequence[tuple[Any, Any]] | None = None,
) -> BlackBoxResult:
    """Audit ``mech`` against its claim (or the given ``epsilon``/``delta``).

    See the module docstring for the three stages and why the bound holds at ``1 - alpha``.
    """
    start = time.perf_counter()
    for attr in ("sample", "epsilon", "delta"):
        if not hasattr(mech, attr):
            raise InvalidParameterError(
                f"{type(mech).__name__} has no attribute {attr!r}: an audited object needs "
                "sample(data, size, rng), epsilon, delta and neighbours")
    if not callable(mech.sample):
        raise InvalidParameterError(f"{type(mech).__name__}.sample must be callable")
    eps, dlt = check_epsilon_delta(mech.epsilon if epsilon is None else epsilon,
                                   mech.delta if delta is None else delta,
                                   allow_zero_epsilon=True)
    alpha = check_alpha(alpha)
    budget = AuditBudget() if budget is None else budget
    if not hasattr(mech, "neighbours") and neighbours is None:
        raise InvalidParameterError(
            f"{type(mech).__name__} has no attribute 'neighbours' (a sequence of "
            "(data, data_prime) pairs to try)")
    pairs = candidate_pairs(mech, budget, seed, key, neighbours)
    n_sel, n_meas = budget.n_select, budget.n_measure

    ranking: list[tuple[int, float]] = []
    best = 0
    if len(pairs) > 1:
        for i, pair in enumerate(pairs):
            cand, _ = _select(mech, pair, budget.n_rank, n_meas, delta=dlt, alpha=alpha,
                              rng=generator(seed, key, "rank", i), top=budget.top)
            ranking.append((i, cand.projected_bound))
        ranking.sort(key=lambda r: -r[1])
        best = ranking[0][0]
    pair = pairs[best]
    cand, kind = _select(mech, pair, n_sel, n_meas, delta=dlt, alpha=alpha,
                         rng=generator(seed, key, "select"), top=budget.top)
    meas = generator(seed, key, "measure")
    hits = [_count(mech, d, cand.event, n_meas, meas, budget.chunk_bytes) for d in pair]
    cp, cq = (hits[0], hits[1]) if cand.direction == DIRECTIONS[0] else (hits[1], hits[0])
    bound, p_lo, q_hi = epsilon_from_counts(cp, n_meas, cq, n_meas, delta=dlt, alpha=alpha)
    detect = detectable_epsilon(max(cp, 1) / n_meas, n_meas, epsilon=eps, delta=dlt,
                                alpha=alpha, tests=1)
    return BlackBoxResult(
        epsilon=eps, delta=dlt, alpha=alpha, data=pair[0], data_prime=pair[1],
        output_kind=kind, event=cand.event.description, direction=cand.direction,
        count_p=cp, count_q=cq, n_measure=n_meas, n_select=n_sel, p_lo=p_lo, q_hi=q_hi,
        epsilon_lower_bound=bound, projected_bound=cand.projected_bound,
        detectable_epsilon=detect, pairs_tried=len(pairs), ranking=tuple(ranking),
        seconds=time.perf_counter() - start,
    )


def to_claim_result(result: BlackBoxResult, *, id: str, statement: str, reference: str,
                    notion: Notion = Notion.LDP) -> ClaimResult:
    """A sampled :class:`~dpaudit.results.ClaimResult` for reports and exit codes."""
    detect = result.detectable_epsilon
    return ClaimResult(
        id=id, notion=notion, epsilon=result.epsilon, delta=result.delta,
        verdict=result.verdict, method=Method.SAMPLED, statement=statement,
        reference=reference, epsilon_lower_bound=result.epsilon_lower_bound,
        detectable_epsilon=None if result.verdict is Verdict.VIOLATED or math.isinf(detect)
        else detect,
        alpha=result.alpha, details=result.details(),
        data={"event": result.event, "direction": result.direction,
              "output_kind": result.output_kind, "count_p": result.count_p,
              "count_q": result.count_q, "n_measure": result.n_measure,
              "n_select": result.n_select, "p_lo": result.p_lo, "q_hi": result.q_hi,
              "pairs_tried": result.pairs_tried, "seconds": round(result.seconds, 3)},
    )


def blackbox_evaluator(build: Callable[[float, float], Any], *, samples: int = 1_000_000,
                       quick_samples: int = 100_000, selection_fraction: float = 0.2
                       ) -> Callable[[Any, Any], ClaimResult]:
    """An ``evaluate(ctx, spec)`` for a :class:`~dpaudit.engine.ClaimSpec` of an audit file.

    ``build(epsilon, delta)`` makes the mechanism for the claim under test; the audit uses
    ``ctx.alpha``, ``ctx.seed`` (keyed by the claim id) and ``quick_samples`` under
    ``--quick``.
    """
    check_int("samples", samples, low=200)
    check_int("quick_samples", quick_samples, low=200)

    def evaluate(ctx: Any, spec: Any) -> ClaimResult:
        mech = build(ctx.epsilon, ctx.delta)
        budget = AuditBudget(samples=quick_samples if ctx.quick else samples,
                             selection_fraction=selection_fraction)
        result = audit_mechanism(mech, epsilon=ctx.epsilon, delta=ctx.delta, alpha=ctx.alpha,
                                 budget=budget, seed=ctx.seed, key=f"claim:{spec.id}")
        return to_claim_result(result, id=spec.id, statement=spec.statement,
                               reference=spec.reference, notion=spec.notion)

    return evaluate
