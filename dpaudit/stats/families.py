"""Event families of the sampled-bound engine, and the choice of one event per output kind.

Every family proposes candidate events on a *selection* sample; :func:`select_event` ranks all
of them by the bound they project at the measurement size
(:func:`dpaudit.stats.events.projected_bound`)
and returns the best, with its direction. Families:

* **thresholds** ``{y >= t}`` / ``{y <= t}`` on a scalar output or a user statistic;
* **likelihood-ratio subsets** of a small discrete output ``{0..63}`` (arms, bits);
* **atoms**: values that repeat exactly in an otherwise continuous output. A mechanism that
  returns its input ``x`` exactly with probability ``1e-3`` and noise otherwise has an atom at
  ``x`` under ``D`` and none under ``D'``: no threshold isolates it, the event ``{y = x}`` does
  (black-box auditors that only threshold are known to miss it);
* a **learned score** (logistic regression, fitted on half the selection sample, thresholded on
  the other half) for vector outputs;
* **whole-sequence codes**: each row of an integer vector output (an action sequence) is one
  category (:func:`code_outcomes`), and likelihood-ratio subsets of the rows seen are events;
* **named summaries**: a sampler may return a ``dict`` of arrays (e.g. the decisions of an
  episodic algorithm and each arm's pull count); every summary is searched with the families
  above and the event names the summary it reads.

The choice among families, summaries and directions uses only the selection sample; the
engine (:mod:`dpaudit.stats.sampled`) measures the one chosen event on fresh samples, so no
Bonferroni factor is paid for the search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.stats.events import (
    DIRECTIONS,
    Candidate,
    ScoreEvent,
    ThresholdEvent,
    best_category_subset,
    best_subset_event,
    best_threshold_event,
    fit_logistic_score,
    projected_bound,
)
from dpaudit.validation import InvalidParameterError

#: a feature map of outputs (one row per draw) to a statistic or a feature matrix
Features = Callable[[np.ndarray], np.ndarray]

__all__ = [
    "Features",
    "MAX_ATOMS",
    "MAX_DISCRETE_OUTCOMES",
    "AtomEvent",
    "RowSetEvent",
    "SummaryEvent",
    "ThresholdView",
    "code_outcomes",
    "select_event",
    "threshold_view",
]

MAX_DISCRETE_OUTCOMES = 64
MAX_ATOMS = 4096  # most frequent repeated values kept as atoms (or rows kept as codes)


def code_outcomes(*arrays: np.ndarray) -> tuple[list[np.ndarray], int]:
    """Code rows of several arrays into shared integer categories ``0..n-1``.

    Arrays of shape ``(n_i,)`` or ``(n_i, L)`` (rows compare as whole rows; shorter rows are
    padded with -1). Small integer rows are packed into one int64 key (base ``max - min + 1``)
    before ``np.unique``; otherwise rows are compared directly. Returns the code arrays (one
    per input) and the number of categories.
    """
    mats = [np.asarray(a).reshape(len(a), -1) for a in arrays]
    width = max(m.shape[1] for m in mats)
    mats = [np.pad(m, ((0, 0), (0, width - m.shape[1])), constant_values=-1)
            if m.shape[1] < width else m for m in mats]
    words = None
    if all(np.issubdtype(m.dtype, np.integer) for m in mats) and any(m.size for m in mats):
        lo = min(int(m.min()) for m in mats if m.size)
        hi = max(int(m.max()) for m in mats if m.size)
        digits = int(62 // np.log2(max(hi - lo + 1, 2)))  # base-(hi-lo+1) digits per int64
        if digits >= 1:  # each array packed on its own: no concatenated copy of the rows
            words = np.concatenate([np.stack([_pack(m[:, j:j + digits], lo, hi - lo + 1)
                                              for j in range(0, width, digits)], axis=1)
                                    for m in mats], axis=0)
    if words is None:
        _, inverse = np.unique(np.concatenate(mats, axis=0), axis=0, return_inverse=True)
    else:
        inverse = _lex_codes(words)
    inverse = inverse.reshape(-1)
    out, pos = [], 0
    for m in mats:
        out.append(inverse[pos:pos + len(m)])
        pos += len(m)
    return out, int(inverse.max()) + 1 if inverse.size else 0


def _pack(cols: np.ndarray, lo: int, base: int) -> np.ndarray:
    """Each row's digits ``cols - lo`` read as one base-``base`` int64, first column most
    significant (so the order of the keys is the rows' lexicographic order)."""
    powers = base ** np.arange(cols.shape[1] - 1, -1, -1, dtype=np.int64)
    return np.asarray((cols.astype(np.int64) - lo) @ powers, dtype=np.int64)


def _lex_codes(words: np.ndarray) -> np.ndarray:
    """Category of each row of ``words`` (distinct rows numbered in lexicographic order):
    what ``np.unique(words, axis=0, return_inverse=True)`` returns (for one column,
    ``np.unique(words[:, 0], return_inverse=True)``), by one lexsort of a few int64 columns
    instead of a sort of whole rows."""
    order = np.lexsort(words.T[::-1])
    ranked = words[order]
    new = np.concatenate([[False], np.any(ranked[1:] != ranked[:-1], axis=1)])
    inverse = np.empty(len(words), dtype=np.int64)
    inverse[order] = np.cumsum(new)
    return inverse


# -- events of the category families -------------------------------------------------------
@dataclass(frozen=True)
class AtomEvent:
    """``{y in values}`` for exact values of a scalar output (atoms)."""

    values: tuple[float, ...]

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        return np.isin(np.asarray(outputs).reshape(len(outputs)), self.values)

    @property
    def description(self) -> str:
        shown = ", ".join(f"{v:.10g}" for v in self.values[:6])
        more = f" and {len(self.values) - 6} more" if len(self.values) > 6 else ""
        return f"output exactly in {{{shown}{more}}} (atoms)"


@dataclass(frozen=True, eq=False)
class RowSetEvent:
    """``{row in rows}``: the whole output row (e.g. an action sequence) is one of ``rows``."""

    rows: np.ndarray

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        out = np.asarray(outputs).reshape(len(outputs), -1)
        (codes_set, codes_out), _ = code_outcomes(self.rows, out)
        return np.isin(codes_out, codes_set)

    @property
    def description(self) -> str:
        return f"whole sequence is one of {len(self.rows)} sequence(s) chosen on the selection " \
               "sample"


@dataclass(frozen=True)
class SummaryEvent:
    """An event on one named summary of a ``dict`` output."""

    name: str
    inner: Any

    def contains(self, outputs: dict[str, np.ndarray]) -> np.ndarray:
        return np.asarray(self.inner.contains(outputs[self.name]))

    @property
    def description(self) -> str:
        return f"{self.name}: {self.inner.description}"


def _with_event(cand: Candidate, event: Any) -> Candidate:
    return Candidate(event, cand.direction, cand.projected_bound, cand.p_hat, cand.q_hat)


# -- the families --------------------------------------------------------------------------
def _atoms(a: np.ndarray, b: np.ndarray, **kw: Any) -> Candidate | None:
    """Subsets of exactly repeated values (categories: the atoms, and "anything else")."""
    pooled = np.concatenate([a, b])
    values, counts = np.unique(pooled, return_counts=True)
    values = values[counts >= 2]
    if values.size == 0:
        return None
    if values.size > MAX_ATOMS:
        values = values[np.argsort(-counts[counts >= 2], kind="stable")[:MAX_ATOMS]]
        values.sort()
    other = values.size

    def cats(x: np.ndarray) -> np.ndarray:
        idx = np.searchsorted(values, x).clip(0, other - 1)
        return np.where(values[idx] == x, idx, other)

    ca = np.bincount(cats(a), minlength=other + 1)
    cb = np.bincount(cats(b), minlength=other + 1)
    chosen, direction, bound, p, q = best_category_subset(ca, cb, **kw)
    if chosen.size == 0 or other in chosen:  # events with "anything else" are thresholds' job
        return None
    return Candidate(AtomEvent(tuple(float(values[c]) for c in np.sort(chosen))), direction,
                     bound, p, q)


def _codes(a: np.ndarray, b: np.ndarray, **kw: Any) -> Candidate | None:
    """Likelihood-ratio subsets of whole rows (each distinct row is a category).

    The subset is chosen on the first half of the selection sample and its projected bound is
    computed on the second half, as for the learned score it competes with: with many sparse
    categories, a subset scored on the sample that chose it looks far better than it is
    (winner's curse) and would win the comparison unfairly. (The reported bound is valid
    either way, since it is measured on a fresh sample; this only keeps the choice honest.)
    """
    half = min(len(a), len(b)) // 2
    if half < 2:
        return None
    a1, b1, a2, b2 = a[:half], b[:half], a[half:], b[half:]
    (ca_codes, cb_codes), n_cat = code_outcomes(a1, b1)
    if n_cat < 2:
        return None
    ca = np.bincount(ca_codes, minlength=n_cat)
    cb = np.bincount(cb_codes, minlength=n_cat)
    chosen, direction, _, _, _ = best_category_subset(ca, cb, **kw)
    if chosen.size == 0:
        return None
    first = np.unique(np.concatenate([ca_codes, cb_codes]), return_index=True)[1][chosen]
    rows_a, rows_b = a1.reshape(len(a1), -1), b1.reshape(len(b1), -1)
    # the chosen categories' rows, read where they first occur (no copy of both samples)
    event = RowSetEvent(np.concatenate([rows_a[first[first < len(a1)]],
                                        rows_b[first[first >= len(a1)] - len(a1)]]))
    hit_a, hit_b = event.contains(a2).mean(), event.contains(b2).mean()
    p, q = (hit_a, hit_b) if direction == DIRECTIONS[0] else (hit_b, hit_a)
    bound = float(projected_bound(np.array([p]), np.array([q]), min(len(a2), len(b2)),
                                  kw["n_measure"], delta=kw["delta"], alpha=kw["alpha"])[0])
    return Candidate(event, direction, bound, float(p), float(q))


@dataclass(frozen=True)
class _Statistic:
    features: Callable[[np.ndarray], np.ndarray]

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        s = np.asarray(self.features(outputs), dtype=float)
        return s.reshape(s.shape[0])


def output_kind(a: np.ndarray, b: np.ndarray, features: Features | None = None) -> str:
    """``scalar``, ``discrete`` (integers in ``0..63``), ``statistic`` or ``vector``."""
    if features is not None:
        stat = np.asarray(features(np.concatenate([a[:2], b[:2]])))
        if stat.ndim == 0 or stat.shape[0] != min(len(a), 2) + min(len(b), 2) or (
                stat.ndim > 1 and int(np.prod(stat.shape[1:])) == 0):
            raise InvalidParameterError(
                f"features(outputs) returned shape {stat.shape} for {len(a[:2]) + len(b[:2])} "
                "outputs: it must give one number or a non-empty row of numbers per output "
                "(an empty statistic leaves no event to test)")
        return "statistic" if stat.ndim == 1 or stat.shape[1:] == (1,) else "vector"
    if a.reshape(a.shape[0], -1).shape[1] != 1:
        return "vector"
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        lo, hi = min(int(a.min()), int(b.min())), max(int(a.max()), int(b.max()))
        if lo >= 0 and hi < MAX_DISCRETE_OUTCOMES:
            return "discrete"
    return "scalar"


def _best(cands: Sequence[Candidate | None]) -> Candidate:
    return max((c for c in cands if c is not None), key=lambda c: c.projected_bound)


def _select_array(a: np.ndarray, b: np.ndarray, *, features: Features | None,
                  n_outcomes: int | None, kw: dict[str, Any]) -> tuple[Candidate, str]:
    kind = output_kind(a, b, features)
    top = kw.pop("top")
    if kind == "discrete":
        n_out = int(n_outcomes or max(int(a.max()), int(b.max())) + 1)
        return best_subset_event(a.ravel().astype(np.int64), b.ravel().astype(np.int64),
                                 max(n_out, 2), **kw), kind
    if kind == "scalar":
        x, y = a.ravel(), b.ravel()
        return _best([best_threshold_event(x, y, top=top, **kw), _atoms(x, y, **kw)]), kind
    if kind == "statistic":
        stat = _Statistic(features)  # type: ignore[arg-type]
        cand = best_threshold_event(stat(a), stat(b), top=top, **kw)
        return _with_event(cand, ScoreEvent(stat, cand.event, "statistic")), kind
    half = len(a) // 2  # vector: fit a score on one half, choose its threshold on the other
    score = fit_logistic_score(a[:half], b[:half], features=features)
    cand = best_threshold_event(score(a[half:]), score(b[half:]), top=top, **kw)
    cands: list[Candidate | None] = [_with_event(cand, ScoreEvent(score, cand.event,
                                                                  "learned score"))]
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        cands.append(_codes(a, b, **kw))
    return _best(cands), kind


def select_event(a: np.ndarray | dict[str, np.ndarray], b: np.ndarray | dict[str, np.ndarray],
                 *, n_measure: int, delta: float, alpha: float, top: int = 64,
                 features: Features | None = None, n_outcomes: int | None = None
                 ) -> tuple[Candidate, str]:
    """The best event (and direction) on selection outputs ``a`` (from ``D``), ``b`` (``D'``).

    Returns the candidate and the output kind (``scalar``, ``discrete``, ``statistic``,
    ``vector`` or ``summaries``). ``alpha`` is the level the measurement will use (it only
    shapes the ranking, never the validity of the bound).
    """
    kw = {"n_measure": n_measure, "delta": delta, "alpha": alpha, "top": top}
    if not isinstance(a, dict) and not isinstance(b, dict):
        return _select_array(a, b, features=features, n_outcomes=n_outcomes, kw=dict(kw))
    if not isinstance(a, dict) or not isinstance(b, dict):
        raise InvalidParameterError("both inputs must return the same kind of output (arrays, "
                                    "or dicts of the same summaries)")
    cands = []
    for name in a:
        cand, _ = _select_array(np.asarray(a[name]), np.asarray(b[name]), features=None,
                                n_outcomes=None, kw=dict(kw))
        cands.append(_with_event(cand, SummaryEvent(name, cand.event)))
    return _best(cands), "summaries"


# -- the statistic a threshold event reads (for histograms and multi-event counts) -----------
@dataclass(frozen=True)
class _Identity:
    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return np.asarray(outputs, dtype=float).reshape(len(outputs))


@dataclass(frozen=True)
class _ScoreOf:
    score: Callable[[np.ndarray], np.ndarray]

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return np.asarray(self.score(outputs), dtype=float).reshape(len(outputs))


@dataclass(frozen=True)
class _SummaryOf:
    name: str
    inner: Callable[[np.ndarray], np.ndarray]

    def __call__(self, outputs: dict[str, np.ndarray]) -> np.ndarray:
        return self.inner(np.asarray(outputs[self.name]))


@dataclass(frozen=True)
class ThresholdView:
    """What a threshold-type event reads: ``statistic(outputs)`` (one float per draw), and
    :meth:`event` that wraps another threshold on the same statistic as the same kind of
    event (a learned score's, a named summary's)."""

    statistic: Callable[[Any], np.ndarray]
    template: Any

    def event(self, threshold: ThresholdEvent) -> Any:
        return _rewrap(self.template, threshold)


def _rewrap(template: Any, threshold: ThresholdEvent) -> Any:
    if isinstance(template, ThresholdEvent):
        return threshold
    if isinstance(template, ScoreEvent):
        return ScoreEvent(template.score, threshold, template.name)
    return SummaryEvent(template.name, _rewrap(template.inner, threshold))


def threshold_view(event: Any) -> ThresholdView | None:
    """The :class:`ThresholdView` of a threshold event (on the output, a score or statistic,
    or a named summary of either); ``None`` for the other families (subsets, atoms, codes)."""
    if isinstance(event, ThresholdEvent):
        return ThresholdView(_Identity(), event)
    if isinstance(event, ScoreEvent):
        return ThresholdView(_ScoreOf(event.score), event)
    if isinstance(event, SummaryEvent):
        inner = threshold_view(event.inner)
        if inner is None:
            return None
        return ThresholdView(_SummaryOf(event.name, inner.statistic), event)
    return None
