"""Regret harness: summarise per-run pseudo-regret into a :class:`RegretResult`.

Pseudo-regret of a run is ``sum_t (mu* - mu_{a_t})``; the mean over runs gets a Student-t
confidence interval for display (it assumes a near-normal mean, see
:mod:`dpaudit.stats.intervals`), and the tail beside it (share of runs above 10x the median,
the largest run); the verdict's interval is distribution-free on ``[0, T * max gap]``. The
bound is whatever the paper's theorem gives at the same horizon, computed by the audit file. The
verdict is not decided here but by
:func:`dpaudit.stats.evidence.decide_regret` (at ``1 - confidence`` here; the check engine
decides again at the regret experiment's share of the check's alpha).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from dpaudit.stats.evidence import decided_regret
from dpaudit.stats.intervals import student_t_interval
from dpaudit.stats.results import RegretResult
from dpaudit.stats.rule import tail_of

__all__ = ["Moments", "max_regret_per_run", "merge_regret", "summarise_regret"]


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


def max_regret_per_run(means: Sequence[float], horizon: int) -> float:
    """``T * max_i (mu* - mu_i)``: no run's pseudo-regret exceeds it (the range that makes a
    distribution-free interval of the mean regret valid)."""
    mu = [float(m) for m in means]
    return float(horizon) * (max(mu) - min(mu))


def summarise_regret(
    regrets: np.ndarray,
    *,
    instance: str,
    algorithm: str,
    horizon: int,
    bound: float | None,
    bound_name: str,
    confidence: float = 0.95,
    checkpoints: Sequence[int] = (),
    curves: np.ndarray | None = None,
    details: Sequence[str] = (),
    means: Sequence[float] | None = None,
) -> RegretResult:
    """``regrets``: final pseudo-regret per run; ``curves``: runs x checkpoints (optional);
    ``means``: the instance's arm means (gives ``max_per_run``, hence a distribution-free lower
    limit for the verdict). ``within_bound`` is the point comparison ``mean <= bound``, kept
    for the JSON contract; it decides nothing."""
    regrets = np.asarray(regrets, dtype=float)
    runs = regrets.size
    mean = float(regrets.mean())
    # numpy's std of equal numbers is round-off (7e-12 for 43 runs at 30053), printed as a
    # spread; Moments.std treats m2 within its own rounding error as 0 (as simulate does)
    std = Moments.of(regrets).std if runs > 1 else 0.0
    iv = student_t_interval(mean=mean, std=std, runs=runs, alpha=1.0 - confidence)
    half = 0.0 if not math.isfinite(iv.high) else iv.high - mean
    within = None if bound is None else bool(mean <= bound)
    tail = tail_of(regrets)
    mean_curve = () if curves is None else tuple(float(v) for v in np.mean(curves, axis=0))
    result = RegretResult(
        instance=instance, algorithm=algorithm, horizon=int(horizon), runs=runs, mean=mean,
        ci_low=mean - half, ci_high=mean + half, confidence=confidence, bound=bound,
        bound_name=bound_name, within_bound=within, checkpoints=tuple(int(c) for c in checkpoints),
        mean_curve=mean_curve, details=tuple(details), std=std,
        max_per_run=None if means is None else max_regret_per_run(means, horizon),
        tail_share=tail[0], largest=tail[1], values=regrets.copy(), looks=(runs,),
    )
    return decided_regret(result, alpha=1.0 - confidence)


def merge_regret(batches: Sequence[RegretResult], *, confidence: float | None = None,
                 batching: Mapping[str, Any] | None = None) -> RegretResult:
    """One :class:`RegretResult` of the runs of ``batches`` (independent runs of the same
    experiment with their own seeds, each keeping its runs' ``values``), in batch order: the
    runs concatenated (so the betting confidence sequence sees them in the order drawn, looked
    at the end of each batch), the mean curve weighted by runs, the first batch's instance,
    bound and details. ``batching``: how the batches were run (the report's section). The
    decision is made again at ``1 - confidence`` (default: the first batch's)."""
    first = batches[0]
    if len(batches) == 1 and batching is None:
        return first
    for b in batches:
        if b.values is None or len(b.values) != b.runs:
            raise ValueError("a batch of regret runs did not keep its runs' values")
        if b.horizon != first.horizon or b.checkpoints != first.checkpoints:
            raise ValueError("batches of one regret experiment differ in horizon or checkpoints")
    values = np.concatenate([np.asarray(b.values, dtype=float) for b in batches])
    looks = tuple(int(v) for v in np.cumsum([b.runs for b in batches]))
    conf = first.confidence if confidence is None else confidence
    runs = int(values.size)
    mean = float(values.mean())
    std = Moments.of(values).std if runs > 1 else 0.0
    iv = student_t_interval(mean=mean, std=std, runs=runs, alpha=1.0 - conf)
    half = 0.0 if not math.isfinite(iv.high) else iv.high - mean
    curve = tuple(float(v) for v in np.sum(
        [np.asarray(b.mean_curve, dtype=float) * b.runs for b in batches], axis=0) / runs) \
        if first.mean_curve else ()
    tail = tail_of(values)
    merged = replace(first, runs=runs, mean=mean, ci_low=mean - half, ci_high=mean + half,
                     confidence=conf, std=std, mean_curve=curve,
                     within_bound=None if first.bound is None else bool(mean <= first.bound),
                     tail_share=tail[0], largest=tail[1], values=values, looks=looks,
                     batching=None if batching is None else dict(batching), decision=None,
                     seconds=sum(b.seconds for b in batches))
    return decided_regret(merged, alpha=1.0 - conf)
