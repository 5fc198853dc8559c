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
  above and the event names the summary it reads;
* **non-finite atoms**: NaN, +inf and -inf are outcomes of the law. For a scalar output the
  categories finite / NaN / +inf / -inf seen are a likelihood-ratio subset family ("output is
  NaN"), for a vector output each coordinate's ("coordinate 2 is +inf") and "some coordinate is
  NaN". A NaN lies in no threshold event, +inf in every upper tail, -inf in every lower one;
  the atoms family keeps finite values, and the learned score reads non-finite coordinates as
  0 beside indicators of where they were (:class:`_Finite`);
* **variable-length outputs**: when the selection's outputs do not all have one shape (a
  :class:`~dpaudit.stats.outputs.Ragged` sample, or one shape per input), every summary of
  :func:`dpaudit.stats.outputs.row_features` is searched like a scalar output and the event
  names it ("output length in {2}", "number of NaN values in the output in {1}").

The choice among families, summaries and directions uses only the selection sample; the
engine (:mod:`dpaudit.stats.sampled`) measures the one chosen event on fresh samples, so no
Bonferroni factor is paid for the search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from dpaudit.stats.events import (
    DIRECTIONS,
    Candidate,
    InvalidThresholdSample,
    ScoreEvent,
    ThresholdEvent,
    best_category_subset,
    best_subset_event,
    best_threshold_event,
    default_feature_map,
    fit_logistic_score,
    projected_bound,
)
from dpaudit.stats.outputs import ROW_FEATURE_LABELS, ROW_FEATURES, Ragged, row_features
from dpaudit.validation import InvalidParameterError

#: a feature map of outputs (one row per draw) to a statistic or a feature matrix
Features = Callable[[np.ndarray], np.ndarray]

__all__ = [
    "Features",
    "MAX_ATOMS",
    "MAX_DISCRETE_OUTCOMES",
    "MAX_NONFINITE_COORDINATES",
    "NON_FINITE",
    "AnyNonFiniteEvent",
    "AtomEvent",
    "NonFiniteEvent",
    "RowFeatureEvent",
    "RowSetEvent",
    "SummaryEvent",
    "ThresholdView",
    "code_outcomes",
    "reading",
    "select_event",
    "threshold_view",
]

MAX_DISCRETE_OUTCOMES = 64
MAX_ATOMS = 4096  # most frequent repeated values kept as atoms (or rows kept as codes)
#: the categories of one number: finite, NaN, +inf, -inf (:func:`value_category`)
NON_FINITE = ("finite", "NaN", "+inf", "-inf")
#: coordinates of a vector output searched for non-finite atoms (those with the most
#: non-finite values in the selection sample)
MAX_NONFINITE_COORDINATES = 256


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


def value_category(values: np.ndarray) -> np.ndarray:
    """Index in :data:`NON_FINITE` of each number: 0 finite, 1 NaN, 2 +inf, 3 -inf."""
    v = np.asarray(values, dtype=float)
    return np.where(np.isnan(v), 1, np.where(v == np.inf, 2, np.where(v == -np.inf, 3, 0)))


@dataclass(frozen=True)
class NonFiniteEvent:
    """``{y is one of categories}`` for a scalar output (``coordinate`` None) or one
    coordinate of a vector output (index into the flattened row; ``label`` names it), the
    categories being finite, NaN, +inf, -inf (:data:`NON_FINITE`): "output is NaN",
    "coordinate 2 is +inf"."""

    categories: tuple[int, ...]
    coordinate: int | None = None
    label: str = "output"

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        y = np.asarray(outputs)
        y = y.reshape(len(y)) if self.coordinate is None else \
            y.reshape(len(y), int(np.prod(y.shape[1:])))[:, self.coordinate]
        return np.isin(value_category(y), self.categories)

    @property
    def description(self) -> str:
        names = " or ".join(NON_FINITE[c] for c in self.categories)
        return f"{self.label} is {names}"


@dataclass(frozen=True)
class AnyNonFiniteEvent:
    """``{some coordinate of y is category}`` (``present``) or its complement, for a vector
    output: "some coordinate is NaN", "no coordinate is +inf"."""

    category: int
    present: bool = True

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        y = np.asarray(outputs)
        hit = np.asarray(np.any(value_category(y.reshape(len(y), int(np.prod(y.shape[1:]))))
                                == self.category, axis=1), dtype=bool)
        return hit if self.present else ~hit

    @property
    def description(self) -> str:
        return f"{'some' if self.present else 'no'} coordinate is {NON_FINITE[self.category]}"


@dataclass(frozen=True)
class RowFeatureEvent:
    """An event on one summary of :func:`dpaudit.stats.outputs.row_features` (a
    variable-length output's length, its numbers of NaN and infinite values, the sum and
    extremes of its finite values): "output length in {3}"."""

    name: str
    inner: Any

    def contains(self, outputs: np.ndarray | Ragged) -> np.ndarray:
        return np.asarray(self.inner.contains(row_features(outputs)[self.name]))

    @property
    def description(self) -> str:
        return str(self.inner.description).replace("output", ROW_FEATURE_LABELS[self.name], 1)


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
    if not np.all(np.isfinite(values)):  # NaN and +-inf: the non-finite family's atoms
        values, counts = values[np.isfinite(values)], counts[np.isfinite(values)]
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


def _category_candidate(cats_a: np.ndarray, cats_b: np.ndarray, event: Callable[
        [tuple[int, ...]], Any], kw: dict[str, Any]) -> Candidate | None:
    """The best likelihood-ratio subset of the categories seen (codes in ``0..3``), as the
    event ``event(categories)``."""
    seen = np.unique(np.concatenate([cats_a, cats_b]))
    if seen.size == 1:  # one category on both sides (all NaN): an event that tells nothing
        ones = np.ones(1)
        bound = projected_bound(ones, ones, min(len(cats_a), len(cats_b)), kw["n_measure"],
                                delta=kw["delta"], alpha=kw["alpha"])[0]
        return Candidate(event((int(seen[0]),)), DIRECTIONS[0], float(bound), 1.0, 1.0)
    if seen.size < 2:
        return None
    ca = np.bincount(np.searchsorted(seen, cats_a), minlength=seen.size)
    cb = np.bincount(np.searchsorted(seen, cats_b), minlength=seen.size)
    chosen, direction, bound, p, q = best_category_subset(ca, cb, **kw)
    if chosen.size == 0:
        return None
    cats = tuple(int(seen[c]) for c in np.sort(chosen))
    if 0 in cats:
        # the complement in the other direction, when it projects as well ("output is NaN"
        # rather than "output is finite"): the witness then names the atom
        rest = tuple(int(c) for c in seen if int(c) not in cats)
        other = float(projected_bound(np.array([1.0 - q]), np.array([1.0 - p]),
                                      int(min(len(cats_a), len(cats_b))), kw["n_measure"],
                                      delta=kw["delta"], alpha=kw["alpha"])[0])
        if other >= bound:
            flip = DIRECTIONS[1] if direction == DIRECTIONS[0] else DIRECTIONS[0]
            return Candidate(event(rest), flip, other, 1.0 - q, 1.0 - p)
    return Candidate(event(cats), direction, bound, p, q)


def _nonfinite(a: np.ndarray, b: np.ndarray, **kw: Any) -> Candidate | None:
    """NaN, +inf and -inf as atoms of a scalar output: the best subset of the categories
    finite / NaN / +inf / -inf seen ("output is NaN"); ``None`` when every value is finite."""
    if _all_finite(a) and _all_finite(b):
        return None
    return _category_candidate(value_category(a), value_category(b), NonFiniteEvent, kw)


def _all_finite(x: np.ndarray) -> bool:
    """Whether every value of ``x`` is finite (integers and booleans always are)."""
    return x.dtype.kind != "f" or bool(np.isfinite(x).all())


def _coordinate_label(index: int, shape: tuple[int, ...]) -> str:
    if len(shape) <= 1:
        return f"coordinate {index}"
    return f"coordinate {tuple(int(i) for i in np.unravel_index(index, shape))}"


def _nonfinite_coordinates(a: np.ndarray, b: np.ndarray, **kw: Any) -> list[Candidate | None]:
    """Non-finite atoms of a vector output: for each coordinate holding a non-finite value in
    the selection (at most :data:`MAX_NONFINITE_COORDINATES`, those with the most), the best
    subset of its categories ("coordinate 2 is +inf"), and for each non-finite category seen,
    whether some coordinate holds it ("some coordinate is NaN")."""
    if _all_finite(a) and _all_finite(b):
        return []
    shape = tuple(a.shape[1:])
    ca = value_category(a.reshape(len(a), -1))
    cb = value_category(b.reshape(len(b), -1))
    counts = (ca > 0).sum(axis=0) + (cb > 0).sum(axis=0)
    if not counts.any():
        return []
    coords = np.flatnonzero(counts)
    if coords.size > MAX_NONFINITE_COORDINATES:
        coords = np.sort(coords[np.argsort(-counts[coords], kind="stable")
                                [:MAX_NONFINITE_COORDINATES]])
    out: list[Candidate | None] = []
    for j in coords:
        label = _coordinate_label(int(j), shape)
        out.append(_category_candidate(ca[:, j], cb[:, j],
                                       partial(_coordinate_event, int(j), label), kw))
    for k in range(1, len(NON_FINITE)):
        ha, hb = (ca == k).any(axis=1), (cb == k).any(axis=1)
        if ha.any() or hb.any():
            out.append(_category_candidate(ha.astype(np.int64), hb.astype(np.int64),
                                           partial(_any_event, k), kw))
    return out


def _coordinate_event(j: int, label: str, categories: tuple[int, ...]) -> NonFiniteEvent:
    return NonFiniteEvent(categories, j, label)


def _any_event(k: int, categories: tuple[int, ...]) -> AnyNonFiniteEvent:
    """Category 1 of the indicator "some coordinate is ``k``" is its presence."""
    return AnyNonFiniteEvent(k, present=categories == (1,))


@dataclass(frozen=True)
class _Finite:
    """Features of outputs with non-finite values, for the learned score: ``inner``'s
    features with NaN and +-inf replaced by 0, beside indicators of where each of them was (a
    fixed map, chosen when the selection sample holds non-finite values)."""

    inner: Callable[[np.ndarray], np.ndarray]

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        x = np.asarray(self.inner(outputs), dtype=float)
        x = x.reshape(len(x), -1)
        return np.concatenate([np.where(np.isfinite(x), x, 0.0), np.isnan(x),
                               x == np.inf, x == -np.inf], axis=1).astype(float)


def _thresholds(x: np.ndarray, y: np.ndarray, **kw: Any) -> Candidate | None:
    """:func:`~dpaudit.stats.events.best_threshold_event`; ``None`` without a finite value."""
    try:
        return best_threshold_event(x, y, **kw)
    except InvalidThresholdSample:
        return None


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
        # the non-finite atoms first: on a tie ("output is NaN" on one side against a
        # threshold holding every finite value on the other) the witness names the atom
        return _best([_nonfinite(x, y, **kw), _thresholds(x, y, top=top, **kw),
                      _atoms(x, y, **kw)]), kind
    if kind == "statistic":
        stat = _Statistic(features)  # type: ignore[arg-type]
        sa, sb = stat(a), stat(b)
        return _best([None if c is None else _with_event(c, ScoreEvent(stat, c.event,
                                                                       "statistic"))
                      for c in (_nonfinite(sa, sb, **kw),
                                _thresholds(sa, sb, top=top, **kw))]), kind
    half = len(a) // 2  # vector: fit a score on one half, choose its threshold on the other
    nonfinite = _nonfinite_coordinates(a, b, **kw)
    if nonfinite:
        features = _Finite(features if features is not None else
                           default_feature_map(np.concatenate([a[:half], b[:half]])))
    score = fit_logistic_score(a[:half], b[:half], features=features)
    cand = best_threshold_event(score(a[half:]), score(b[half:]), top=top, **kw)
    cands: list[Candidate | None] = [_with_event(cand, ScoreEvent(score, cand.event,
                                                                  "learned score"))]
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        cands.append(_codes(a, b, **kw))
    return _best(nonfinite + cands), kind


def _select_rows(a: np.ndarray | Ragged, b: np.ndarray | Ragged, *, kw: dict[str, Any]
                 ) -> tuple[Candidate, str]:
    """Outputs of several shapes (variable-length): every summary of
    :func:`~dpaudit.stats.outputs.row_features` (length, numbers of NaN and infinite values,
    sum and extremes of the finite values) is searched like a scalar output, and the event
    names the summary it reads."""
    fa, fb = row_features(a), row_features(b)
    cands = []
    for name in ROW_FEATURES:
        cand, _ = _select_array(fa[name], fb[name], features=None, n_outcomes=None,
                                kw=dict(kw))
        cands.append(_with_event(cand, RowFeatureEvent(name, cand.event)))
    return _best(cands), "variable-length"


def _ragged(a: np.ndarray | Ragged, b: np.ndarray | Ragged) -> bool:
    """Whether the selection outputs have several shapes (read through their summaries)."""
    return isinstance(a, Ragged) or isinstance(b, Ragged) or a.shape[1:] != b.shape[1:]


def reading(a: Any, b: Any) -> Any:
    """What a chosen event expects of later outputs: for each plain sample whose rows share
    one shape on both sides, that shape (rows of another shape lie outside the event:
    :func:`dpaudit.stats.outputs.fit_rows`); ``None`` where the outputs are read through
    their summaries (any row is read); a dict of these for named summaries."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {name: reading(a[name], b[name]) for name in a}
    return None if _ragged(a, b) else tuple(a.shape[1:])


def _select_one(a: np.ndarray | Ragged, b: np.ndarray | Ragged, *,
                features: Features | None, n_outcomes: int | None, kw: dict[str, Any]
                ) -> tuple[Candidate, str]:
    if _ragged(a, b):
        return _select_rows(a, b, kw=kw)
    return _select_array(a, b, features=features,  # type: ignore[arg-type]
                         n_outcomes=n_outcomes, kw=kw)


def select_event(a: np.ndarray | Ragged | dict[str, Any],
                 b: np.ndarray | Ragged | dict[str, Any], *, n_measure: int, delta: float,
                 alpha: float, top: int = 64, features: Features | None = None,
                 n_outcomes: int | None = None) -> tuple[Candidate, str]:
    """The best event (and direction) on selection outputs ``a`` (from ``D``), ``b`` (``D'``).

    Returns the candidate and the output kind (``scalar``, ``discrete``, ``statistic``,
    ``vector``, ``variable-length`` or ``summaries``). Outputs of several shapes (a
    :class:`~dpaudit.stats.outputs.Ragged` sample, or plain samples whose rows differ in
    shape between the two inputs) are read through their summaries (:func:`_select_rows`);
    NaN and +-inf values are atoms (:func:`_nonfinite`, :func:`_nonfinite_coordinates`).
    ``alpha`` is the level the measurement will use (it only shapes the ranking, never the
    validity of the bound).
    """
    kw = {"n_measure": n_measure, "delta": delta, "alpha": alpha, "top": top}
    if not isinstance(a, dict) and not isinstance(b, dict):
        return _select_one(a, b, features=features, n_outcomes=n_outcomes, kw=dict(kw))
    if not isinstance(a, dict) or not isinstance(b, dict):
        raise InvalidParameterError("both inputs must return the same kind of output (arrays, "
                                    "or dicts of the same summaries)")
    cands = []
    for name in a:
        ya, yb = a[name], b[name]
        cand, _ = _select_one(ya if isinstance(ya, Ragged) else np.asarray(ya),
                              yb if isinstance(yb, Ragged) else np.asarray(yb), features=None,
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
    inner: Callable[[Any], np.ndarray]

    def __call__(self, outputs: dict[str, Any]) -> np.ndarray:
        x = outputs[self.name]
        return self.inner(x if isinstance(x, Ragged) else np.asarray(x))


@dataclass(frozen=True)
class _RowFeatureOf:
    name: str
    inner: Callable[[np.ndarray], np.ndarray]

    def __call__(self, outputs: np.ndarray | Ragged) -> np.ndarray:
        return self.inner(row_features(outputs)[self.name])


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
    if isinstance(template, RowFeatureEvent):
        return RowFeatureEvent(template.name, _rewrap(template.inner, threshold))
    return SummaryEvent(template.name, _rewrap(template.inner, threshold))


def threshold_view(event: Any) -> ThresholdView | None:
    """The :class:`ThresholdView` of a threshold event (on the output, a score or statistic,
    or a named summary of either); ``None`` for the other families (subsets, atoms, codes)."""
    if isinstance(event, ThresholdEvent):
        return ThresholdView(_Identity(), event)
    if isinstance(event, ScoreEvent) and isinstance(event.threshold, ThresholdEvent):
        return ThresholdView(_ScoreOf(event.score), event)
    if isinstance(event, SummaryEvent | RowFeatureEvent):
        inner = threshold_view(event.inner)
        if inner is None:
            return None
        of = _SummaryOf if isinstance(event, SummaryEvent) else _RowFeatureOf
        return ThresholdView(of(event.name, inner.statistic), event)
    return None
