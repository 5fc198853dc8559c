"""The one statistical rule for experiments: intervals valid under heavy tails, and stability.

Regret of a private bandit is heavy-tailed: a few runs in a thousand lock onto a bad arm for
a long time and carry regret of order ``T``. A Student-t interval on 20-50 such runs does not
cover at its nominal level, and a ratio of two such means is worse. What is measured in an
experiment is, however, bounded on a known instance: the pseudo-regret of one run lies in
``[0, T * max_i Delta_i]``. This module turns that range into intervals that are valid for
every law on it, at every number of runs:

* :func:`bounded_interval`: the intersection of Hoeffding's interval (Hoeffding 1963, Thm 2)
  and the empirical-Bernstein interval (Maurer & Pontil 2009, Thm 4), each at ``alpha / 2``.
  Hoeffding's width depends only on the range, Bernstein's on the observed spread; choosing
  the narrower after seeing the data would not be valid, their intersection is (both cover
  with probability ``>= 1 - alpha`` by the union bound). Method ``"hoeffding-bernstein"``.
* :func:`ratio_bounds`: the ratio of two positive means from their two valid intervals
  (``[lo_N / hi_D, hi_N / lo_D]``), valid at the sum of their levels.
* :func:`tail_of`: the tail reported beside every mean (the share of runs above 10x the median
  and the largest run), so a reader sees when a mean rests on a few runs.

Anytime-valid intervals. A cell that keeps its runs (:attr:`RunSummary.anytime`: up to
:data:`KEEP_RUNS` of them, in the order drawn) is decided on the betting confidence sequence of
Waudby-Smith & Ramdas 2023 (:mod:`dpaudit.stats.sequential`), which covers at every number of
runs at once. So runs may be added in batches and the interval looked at after each
(:mod:`dpaudit.runtime.batches`: until it decides, or a cap on runs or seconds stops it); the
interval where they stop is valid, whatever the stopping rule (the clock included). Such a cell
needs no confirmation: a decision on it is already valid at its share of alpha. Regret checks
inside ``check`` and ``simulate``'s verdict are decided the same way, on their runs.

Fixed-run intervals. Any other sampled cell (Clopper-Pearson counts, an interval the experiment
gives with its method, a bounded cell whose runs were not kept: :func:`bounded_interval`) is
valid for one look at a run count fixed in advance. It is decided on the first batch alone and
keeps its side only when the decision is unchanged on a confirmation run with a fresh seed at
:data:`CONFIRM_FACTOR` times the runs (:func:`stable_outcome`); otherwise it stays undecided
with the run count at which the confirmation's spread would settle it. The decision reported is
the first run's, and it is wrong only if the first run's interval failed to cover, so the
confirmation costs no share of alpha: it only withholds decisions. Looking at such an interval
after every batch would not keep its level, which is why it is not re-decided on more batches.

The rule is applied by :func:`dpaudit.stats.evidence.decide_experiment` and
:func:`dpaudit.stats.evidence.decide_regret`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from dpaudit.stats.intervals import MeanInterval, bernstein_interval
from dpaudit.stats.sequential import betting_interval, fewest_runs, runs_to_settle_sequential
from dpaudit.validation import InvalidParameterError, check_alpha

__all__ = [
    "CONFIRM_FACTOR",
    "KEEP_RUNS",
    "keeping_runs",
    "TAIL_MULTIPLE",
    "RunSummary",
    "bounded_interval",
    "hoeffding_half_width",
    "merge_summaries",
    "ratio_bounds",
    "runs_to_settle_bounded",
    "stable_outcome",
    "summarise_runs",
    "tail_of",
]

#: the confirmation run has this many times the runs of the first (the rule's "4x")
CONFIRM_FACTOR = 4
#: a run is in the tail when it exceeds this multiple of the median run
TAIL_MULTIPLE = 10.0
#: the method name of :func:`bounded_interval`
BOUNDED: Literal["hoeffding-bernstein"] = "hoeffding-bernstein"
#: a cell keeps the values of up to this many runs (for the betting confidence sequence); a
#: larger one keeps only its moments, so its stored evidence stays small, and is decided on
#: :func:`bounded_interval` with the confirmation run
KEEP_RUNS = 10_000
#: set by :func:`keeping_runs`: every summary keeps its values, whatever the number of runs
_KEEP_ALL: ContextVar[bool] = ContextVar("dpaudit_keep_all_runs", default=False)


@contextmanager
def keeping_runs() -> Iterator[None]:
    """Within the block, :func:`summarise_runs` keeps the values of any number of runs. A
    batch added to an anytime-valid cell (:mod:`dpaudit.runtime.batches`) runs in it: its
    runs are appended to the cell's, and a batch above :data:`KEEP_RUNS` that kept only its
    moments could not be, so the cell would silently stay at its first batch's runs."""
    token = _KEEP_ALL.set(True)
    try:
        yield
    finally:
        _KEEP_ALL.reset(token)


@dataclass(frozen=True)
class RunSummary:
    """What the rule needs of ``runs`` independent runs whose values lie in ``[low, high]``.

    ``mean``, ``std`` (``ddof=1``; 0 for one run), ``median``, ``largest``; ``tail_share``:
    the share of runs above :data:`TAIL_MULTIPLE` times the median (of runs above 0 when the
    median is 0). ``low``/``high``: the range every run is known to lie in (the instance's
    ``[0, T * max gap]`` for regret), which makes the intervals distribution-free.
    """

    runs: int
    mean: float
    std: float
    median: float
    largest: float
    tail_share: float
    low: float
    high: float
    #: the runs' values in the order drawn (``None``: not kept, e.g. more than
    #: :data:`KEEP_RUNS` runs, or stored before they were kept) and the run counts at which
    #: the cell was looked at (the ends of the batches; empty: the end)
    values: tuple[float, ...] | None = None
    looks: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.values is not None and not isinstance(self.values, tuple):
            object.__setattr__(self, "values", tuple(float(v) for v in self.values))
        if not isinstance(self.looks, tuple):
            object.__setattr__(self, "looks", tuple(int(k) for k in self.looks))

    @property
    def anytime(self) -> bool:
        """The interval is the betting confidence sequence of the kept runs: valid at any
        stopping time, so it needs no confirmation run."""
        return self.values is not None and len(self.values) == self.runs

    def interval(self, alpha: float) -> MeanInterval:
        """The valid interval of the mean at level ``1 - alpha``: the betting confidence
        sequence of the runs when they are kept (:func:`~dpaudit.stats.sequential.
        betting_interval`, at the looks), else :func:`bounded_interval` (one look at a run
        count fixed in advance)."""
        if self.anytime:
            return betting_interval(np.asarray(self.values, dtype=float), low=self.low,
                                    high=self.high, alpha=alpha, looks=self.looks or None)
        return bounded_interval(mean=self.mean, std=self.std, runs=self.runs, low=self.low,
                                high=self.high, alpha=alpha)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "runs": self.runs, "mean": self.mean, "std": self.std, "median": self.median,
            "largest": self.largest, "tail_share": self.tail_share, "low": self.low,
            "high": self.high}
        if self.values is not None:
            out["values"] = list(self.values)
            out["looks"] = list(self.looks)
        return out


def _check_range(low: float, high: float) -> None:
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not math.isfinite(float(v)):
            raise InvalidParameterError(f"{name}={v!r} must be a finite number")
    if not high > low:
        raise InvalidParameterError(f"high={high!r} must be a finite number in "
                                    f"({low!r}, inf) (above low)")


def tail_of(values: ArrayLike) -> tuple[float, float]:
    """``(tail_share, largest)``: the share of values above :data:`TAIL_MULTIPLE` times the
    median (above 0 when the median is 0 or negative) and the largest value."""
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0:
        raise InvalidParameterError("values must hold at least one run")
    med = float(np.median(v))
    cut = TAIL_MULTIPLE * med if med > 0 else 0.0
    return float(np.mean(v > cut)), float(v.max())


def summarise_runs(values: ArrayLike, *, low: float, high: float,
                   looks: tuple[int, ...] = ()) -> RunSummary:
    """The :class:`RunSummary` of ``values`` (one per run, in the order drawn), each checked
    to lie in ``[low, high]`` (a value outside means the declared range is wrong: an error,
    since every interval would then be invalid). Up to :data:`KEEP_RUNS` runs the values are
    kept, so the cell is decided on the betting confidence sequence (``looks``: the run
    counts at which it was looked at); within :func:`keeping_runs`, at any number of runs."""
    _check_range(low, high)
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0:
        raise InvalidParameterError("values must hold at least one run")
    if not np.all(np.isfinite(v)):
        raise InvalidParameterError("values must be finite numbers")
    # a float accumulation can overshoot an exact bound by a few ulps: allow 1e-9 relative
    slack = 1e-9 * max(abs(low), abs(high), 1.0)
    if float(v.min()) < low - slack or float(v.max()) > high + slack:
        raise InvalidParameterError(
            f"values lie in [{float(v.min()):.6g}, {float(v.max()):.6g}], outside the declared "
            f"range [{low:.6g}, {high:.6g}] of one run")
    share, largest = tail_of(v)
    std = float(v.std(ddof=1)) if v.size > 1 else 0.0
    kept = tuple(float(x) for x in v) if v.size <= KEEP_RUNS or _KEEP_ALL.get() else None
    return RunSummary(int(v.size), float(v.mean()), std, float(np.median(v)), largest, share,
                      float(low), float(high), kept, tuple(looks) if kept is not None else ())


def merge_summaries(parts: Sequence[RunSummary]) -> RunSummary:
    """One summary of the runs of ``parts`` (batches of the same cell, independent runs with
    their own seeds), in order, looked at the end of each batch. Every part must keep its
    values (:attr:`RunSummary.anytime`) and share the range; more than :data:`KEEP_RUNS` runs
    in all are still kept (the batches chose to look)."""
    first = parts[0]
    if not all(p.anytime for p in parts) or any((p.low, p.high) != (first.low, first.high)
                                                 for p in parts):
        raise InvalidParameterError("batches of a cell must keep their runs and share a range")
    v = np.concatenate([np.asarray(p.values, dtype=float) for p in parts])
    share, largest = tail_of(v)
    std = float(v.std(ddof=1)) if v.size > 1 else 0.0
    looks = tuple(int(k) for k in np.cumsum([p.runs for p in parts]))
    return RunSummary(int(v.size), float(v.mean()), std, float(np.median(v)), largest, share,
                      first.low, first.high, tuple(float(x) for x in v), looks)


def hoeffding_half_width(*, runs: float, width: float, alpha: float) -> float:
    """Half-width ``h = width sqrt(ln(2 / alpha) / (2 runs))`` of Hoeffding's two-sided
    interval for the mean of ``runs`` values in a range of ``width``: ``P(|mean - E| >= h)
    <= 2 exp(-2 runs h^2 / width^2) = alpha`` (Hoeffding 1963, Thm 2)."""
    return width * math.sqrt(math.log(2.0 / alpha) / (2.0 * runs))


def bounded_interval(*, mean: float, std: float, runs: int, low: float, high: float,
                     alpha: float) -> MeanInterval:
    """A distribution-free interval of the mean of ``runs`` values in ``[low, high]``.

    The intersection of Hoeffding's and the empirical-Bernstein interval, each two-sided at
    ``alpha / 2`` (valid at ``1 - alpha`` for every law on the range, at every ``runs >= 1``;
    see the module docstring), clipped to the range.
    """
    check_alpha(alpha)
    _check_range(low, high)
    width = high - low
    h = hoeffding_half_width(runs=runs, width=width, alpha=alpha / 2.0)
    lo, hi = max(low, mean - h), min(high, mean + h)
    if runs >= 2:
        b = bernstein_interval(mean=mean - low, std=std, runs=runs, scale=width,
                               alpha=alpha / 2.0)
        lo, hi = max(lo, b.low + low), min(hi, b.high + low)
    lo, hi = min(lo, mean), max(hi, mean)  # clipping never moves a limit past the mean
    return MeanInterval(mean, lo, hi, alpha, runs, BOUNDED)


def ratio_bounds(num: MeanInterval, den: MeanInterval) -> tuple[float, float]:
    """Limits of ``E[N] / E[D]`` from valid intervals of two positive means: ``[lo_N / hi_D,
    hi_N / lo_D]`` (``inf`` when ``den`` reaches 0). When both intervals cover, so does this
    one, so it is valid at ``num.alpha + den.alpha`` (union bound)."""
    lo_n = max(num.low, 0.0)
    if den.high <= 0:
        return 0.0, math.inf
    low = lo_n / den.high
    high = math.inf if den.low <= 0 else num.high / den.low
    return low, high


def runs_to_settle_bounded(summary: RunSummary, value: float, *, alpha: float,
                           ratio_to: RunSummary | None = None) -> int | None:
    """Runs at which the valid interval, with the observed mean and spread, would lie entirely
    on one side of ``value`` (the side the mean is on); ``ratio_to``: the cell is the ratio of
    ``summary``'s mean to ``ratio_to``'s, both run that many times, each at ``alpha / 2``.
    ``None`` when no count up to 10^12 would. An estimate at the observed spread, not a
    promise."""
    check_alpha(alpha)
    if summary.anytime and (ratio_to is None or ratio_to.anytime):
        w = summary.high - summary.low
        mean, std = (summary.mean - summary.low) / w, summary.std / w
        if ratio_to is None:
            return runs_to_settle_sequential(mean=mean, std=std, value=(value - summary.low) / w,
                                             alpha=alpha)
        wd = ratio_to.high - ratio_to.low
        if summary.low != 0.0 or ratio_to.low != 0.0:
            return None  # the projection is for ranges that start at 0 (regret)
        return runs_to_settle_sequential(mean=mean, std=std, value=value * wd / w, alpha=alpha,
                                         ratio_to=(ratio_to.mean / wd, ratio_to.std / wd))

    def settles(n: int) -> bool:
        if ratio_to is None:
            iv = bounded_interval(mean=summary.mean, std=summary.std, runs=n, low=summary.low,
                                  high=summary.high, alpha=alpha)
            return iv.low > value or iv.high < value
        a = bounded_interval(mean=summary.mean, std=summary.std, runs=n, low=summary.low,
                             high=summary.high, alpha=alpha / 2.0)
        b = bounded_interval(mean=ratio_to.mean, std=ratio_to.std, runs=n, low=ratio_to.low,
                             high=ratio_to.high, alpha=alpha / 2.0)
        lo, hi = ratio_bounds(a, b)
        return lo > value or hi < value

    centre = summary.mean if ratio_to is None else (
        summary.mean / ratio_to.mean if ratio_to.mean > 0 else math.inf)
    if not math.isfinite(centre) or centre == value:
        return None
    return fewest_runs(settles)


def stable_outcome(first: str, confirm: str | None) -> tuple[str, bool]:
    """The cell outcome the rule reports and whether it is stable.

    ``first``/``confirm``: a cell's outcome (``"right side"``, ``"wrong side"``,
    ``"straddles"``, ...) on the first run and on the confirmation at :data:`CONFIRM_FACTOR`
    times the runs (``None``: not run). A side is kept only when both runs give it; any other
    pair, and a missing confirmation, leave the cell ``"straddles"`` (undecided).
    """
    sides = ("right side", "wrong side")
    if first not in sides:
        return first, confirm is None or confirm == first
    if confirm is None:
        return "straddles", False
    if confirm == first:
        return first, True
    return "straddles", False
