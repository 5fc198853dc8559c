"""The experiment rule (dpaudit.stats.rule): valid intervals under heavy tails, the ratio of two
means, the tail beside the mean, and decisions that must survive a confirmation at 4x the runs.

Statistical tests are seeded and state their false-failure probability; thresholds come from
binomial quantiles at that probability, never from tuning.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpaudit.stats.evidence import ExperimentEvidence, Measurement, decide_experiment
from dpaudit.stats.intervals import student_t_interval
from dpaudit.stats.rng import generator
from dpaudit.stats.rule import (
    CONFIRM_FACTOR,
    bounded_interval,
    ratio_bounds,
    runs_to_settle_bounded,
    stable_outcome,
    summarise_runs,
    tail_of,
)
from dpaudit.validation import InvalidParameterError


def _heavy(rng: np.random.Generator, size: tuple[int, ...], scale: float = 1e4) -> np.ndarray:
    """Regret-like runs in [0, scale]: 99.5% of runs near 10 (Exp), 0.5% lock onto a bad arm
    and carry regret of order ``scale`` (uniform on [scale / 2, scale])."""
    body = np.minimum(rng.exponential(10.0, size), scale)
    tail = rng.uniform(scale / 2, scale, size)
    return np.where(rng.random(size) < 0.005, tail, body)


HEAVY_MEAN = 0.995 * 10.0 * (1 - math.exp(-1e3)) + 0.005 * 0.75e4  # E of _heavy (scale 1e4)


@pytest.mark.statistical
def test_the_bounded_interval_covers_a_heavy_tailed_law_where_student_t_does_not() -> None:
    """20 runs of the heavy law (0.5% of runs ~1e3x the others), alpha = 0.1, 2000 seeded
    repetitions. The rule's interval misses with probability <= 0.1: its misses are
    Bin(2000, <= 0.1), and we fail above the 1 - 1e-6 quantile (false-failure probability
    <= 1e-6). Student-t misses whenever no run hit the tail (probability 0.995^20 = 0.905,
    and then its upper limit is far below the mean 47.45): its misses are Bin(2000, >= 0.9)
    - we assert they exceed the 1e-6 quantile of Bin(2000, 0.85) (false-failure <= 1e-6)."""
    rng = generator(31, "heavy-coverage")
    x = _heavy(rng, (2000, 20))
    miss_rule = miss_t = 0
    for r in x:
        m, s = float(r.mean()), float(r.std(ddof=1))
        iv = bounded_interval(mean=m, std=s, runs=20, low=0.0, high=1e4, alpha=0.1)
        miss_rule += not iv.low <= HEAVY_MEAN <= iv.high
        t = student_t_interval(mean=m, std=s, runs=20, alpha=0.1)
        miss_t += not t.low <= HEAVY_MEAN <= t.high
    assert miss_rule <= stats.binom.ppf(1 - 1e-6, 2000, 0.1)
    assert miss_t > stats.binom.ppf(1e-6, 2000, 0.85)


@pytest.mark.statistical
def test_the_ratio_of_two_valid_intervals_covers() -> None:
    """Ratio of the means of two heavy laws (the numerator scaled by 3), 30 runs each,
    alpha = 0.2 (0.1 per mean): misses ~ Bin(1000, <= 0.2); fail above the 1 - 1e-6 quantile
    (false-failure probability <= 1e-6)."""
    rng = generator(32, "ratio-coverage")
    miss = 0
    for _ in range(1000):
        a = 3.0 * _heavy(rng, (30,), scale=1e4 / 3.0)
        b = _heavy(rng, (30,), scale=1e4 / 3.0)
        m = Measurement.of_ratio("r", 1.0, a, b, numerator_range=(0.0, 1e4),
                                 denominator_range=(0.0, 1e4 / 3.0))
        lo, hi = ratio_bounds(*(s.interval(0.1) for s in m.ratio_of))
        miss += not lo <= 3.0 <= hi
    assert miss <= stats.binom.ppf(1 - 1e-6, 1000, 0.2)


@settings(max_examples=200, deadline=None)
@given(mean_frac=st.floats(0.0, 1.0), std_frac=st.floats(0.0, 0.5),
       runs=st.integers(1, 10**6), alpha=st.floats(1e-6, 0.5),
       low=st.floats(-1e6, 1e6), width=st.floats(1e-3, 1e7))
def test_bounded_interval_holds_its_mean_inside_its_range_and_narrows_with_runs(
        mean_frac, std_frac, runs, alpha, low, width) -> None:
    high = low + width
    mean, std = low + mean_frac * width, std_frac * width
    iv = bounded_interval(mean=mean, std=std, runs=runs, low=low, high=high, alpha=alpha)
    assert low <= iv.low <= mean <= iv.high <= high
    more = bounded_interval(mean=mean, std=std, runs=4 * runs, low=low, high=high,
                            alpha=alpha)
    assert more.high - more.low <= iv.high - iv.low + 1e-9 * width


def test_tail_share_and_largest() -> None:
    share, largest = tail_of([1, 1, 1, 1, 100])
    assert share == pytest.approx(0.2) and largest == 100.0
    assert tail_of([0, 0, 0, 5]) == (0.25, 5.0)  # median 0: every run above 0 is the tail
    sm = summarise_runs([1.0, 2.0, 3.0], low=0.0, high=10.0)
    assert (sm.runs, sm.mean, sm.median, sm.largest) == (3, 2.0, 2.0, 3.0)


def test_a_value_outside_the_declared_range_is_an_error() -> None:
    with pytest.raises(InvalidParameterError, match="outside the declared range"):
        summarise_runs([1.0, 11.0], low=0.0, high=10.0)
    with pytest.raises(InvalidParameterError, match="high"):
        summarise_runs([1.0], low=1.0, high=1.0)
    with pytest.raises(InvalidParameterError, match="finite"):
        summarise_runs([math.nan], low=0.0, high=1.0)


def test_stability_keeps_a_side_only_when_the_confirmation_agrees() -> None:
    assert stable_outcome("right side", "right side") == ("right side", True)
    assert stable_outcome("wrong side", "right side") == ("straddles", False)
    assert stable_outcome("wrong side", None) == ("straddles", False)
    assert stable_outcome("straddles", "right side") == ("straddles", False)
    assert stable_outcome("straddles", "straddles") == ("straddles", True)


def _cell(values, paper=5.0, label="c"):
    """A cell whose runs are not kept (as one of more than KEEP_RUNS runs, or stored before
    runs were kept): decided on the fixed-run interval, so it needs the confirmation."""
    m = Measurement.of_runs(label, paper, values, low=0.0, high=20.0)
    assert m.summary is not None
    return replace(m, summary=replace(m.summary, values=None, looks=()))


def test_a_decision_needs_its_confirmation_at_4x_the_runs() -> None:
    rng = generator(33, "confirm")
    first = ExperimentEvidence("p", (_cell(rng.uniform(0, 2, 300)),))
    agree = ExperimentEvidence("p", (_cell(rng.uniform(0, 2, 300 * CONFIRM_FACTOR)),))
    flip = ExperimentEvidence("p", (_cell(rng.uniform(8, 10, 300 * CONFIRM_FACTOR)),))
    d = decide_experiment(first, confirm=agree)
    assert d.status == "reproduced" and d.stable is True and d.confirm_runs == 1200
    assert d.interval_method == "hoeffding-bernstein" and d.tail_share == 0.0
    d = decide_experiment(first, confirm=flip)
    assert d.status == "INCONCLUSIVE" and d.stable is False
    d = decide_experiment(first, confirm_required=True)
    assert d.status == "INCONCLUSIVE" and "no confirmation" in d.reason
    # exact cells need no confirmation
    exact = ExperimentEvidence("p", (Measurement("e", 1.0, 0.5, 0),))
    d = decide_experiment(exact, confirm_required=True)
    assert d.status == "reproduced" and d.stable is None


def test_an_undecided_cell_says_how_many_runs_would_settle_it() -> None:
    rng = generator(34, "settle")
    values = rng.uniform(3.0, 6.0, 40)  # mean about 4.5, paper value 5: straddles at 40 runs
    ev = ExperimentEvidence("p", (_cell(values),))
    d = decide_experiment(ev, confirm=ev)
    assert d.status == "INCONCLUSIVE" and d.runs_to_settle is not None
    need = d.runs_to_settle
    sm = _cell(values).summary
    assert sm is not None and runs_to_settle_bounded(sm, 5.0, alpha=0.05) == need
    big = bounded_interval(mean=sm.mean, std=sm.std, runs=need, low=0.0, high=20.0,
                           alpha=0.05)
    small = bounded_interval(mean=sm.mean, std=sm.std, runs=need - 1, low=0.0, high=20.0,
                             alpha=0.05)
    assert big.high < 5.0 <= small.high


def test_a_cell_that_keeps_its_runs_is_decided_without_a_confirmation() -> None:
    """Its interval is the betting confidence sequence, valid at any stopping time: the
    confirmation would add nothing, so none is asked for, and a side it finds stands."""
    rng = generator(36, "anytime")
    kept = Measurement.of_runs("c", 5.0, rng.uniform(0, 2, 300), low=0.0, high=20.0)
    assert kept.anytime and kept.summary is not None and len(kept.summary.values) == 300
    ev = ExperimentEvidence("p", (kept,))
    assert not ev.needs_confirmation
    d = decide_experiment(ev, confirm_required=True)
    assert d.status == "reproduced" and d.stable is None and d.confirm_runs is None
    assert d.interval_method == "betting-cs" and "no confirmation needed" in d.reason
    assert "no confirmation run" not in d.reason
    # a fixed-run cell beside it still needs its confirmation
    mixed = ExperimentEvidence("p", (kept, _cell(rng.uniform(0, 2, 300), label="f")))
    assert mixed.needs_confirmation
    d = decide_experiment(mixed, confirm_required=True)
    assert d.status == "INCONCLUSIVE" and "no confirmation run" in d.reason


def test_batches_of_a_cell_merge_in_order_and_are_looked_at_each_end() -> None:
    rng = generator(37, "merge")
    a, b = rng.uniform(3.0, 6.0, 40), rng.uniform(3.0, 6.0, 40)
    ev = ExperimentEvidence("p", (Measurement.of_runs("c", 5.0, a, low=0.0, high=20.0),))
    later = ExperimentEvidence("p", (Measurement.of_runs("c", 5.0, b, low=0.0, high=20.0),))
    merged = ev.merged([later]).measurements[0]
    assert merged.runs == 80 and merged.summary is not None
    assert merged.summary.looks == (40, 80)
    assert np.array_equal(merged.summary.values, np.concatenate([a, b]))
    d = decide_experiment(ExperimentEvidence("p", (merged,)))
    assert d.cells[0].method == "betting-cs"
    if d.status == "INCONCLUSIVE":  # the estimate is the sequence's, from its spread
        assert d.runs_to_settle is not None and d.runs_to_settle > 80


def test_student_t_cells_are_shown_but_never_decide() -> None:
    ev = ExperimentEvidence("p", (Measurement("t", 10.0, 1.0, 1000, std=0.1),))
    d = decide_experiment(ev, confirm=ev)
    assert d.status == "INCONCLUSIVE" and "without a valid interval" in d.reason
    assert d.cells[0].method == "student-t" and not d.cells[0].valid


def test_evidence_round_trips_through_json() -> None:
    rng = generator(35, "json")
    ev = ExperimentEvidence("p", (
        _cell(rng.uniform(0, 2, 10)),
        Measurement.of_ratio("r", 2.0, rng.uniform(1, 2, 10), rng.uniform(0.5, 1, 10),
                             numerator_range=(0.0, 2.0), denominator_range=(0.0, 1.0)),
        Measurement("k", 0.5, 0.6, 100, "at least", count=60),
        Measurement("e", 1.0, 0.5, 0)))
    import json

    assert ExperimentEvidence.from_dict(json.loads(json.dumps(ev.to_dict()))) == ev
