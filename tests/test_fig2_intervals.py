"""Fig. 2's ratios with intervals (Azize & Basu 2022; experiment ``azize-basu-fig2-intervals``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.audits.azize_basu_2022 import fig2_intervals as f2
from dpaudit.experiments import ratio_interval
from dpaudit.reports.ledger import experiment_outcome


def test_ratio_interval_is_the_bonferroni_combination_of_two_t_intervals() -> None:
    base = np.array([10.0, 12.0, 11.0, 13.0, 9.0])
    adap = np.array([1.0, 1.2, 0.9, 1.1, 1.0])
    q = stats.t.ppf(0.5 + 0.975 / 2, 4)  # two-sided 97.5% Student-t quantile, 4 d.o.f.
    hb = base.mean() + q * base.std(ddof=1) / math.sqrt(5)
    lb = base.mean() - q * base.std(ddof=1) / math.sqrt(5)
    ha = adap.mean() + q * adap.std(ddof=1) / math.sqrt(5)
    la = adap.mean() - q * adap.std(ddof=1) / math.sqrt(5)
    r, lo, hi = ratio_interval(base, adap)
    assert r == pytest.approx(base.mean() / adap.mean())
    assert (lo, hi) == pytest.approx((lb / ha, hb / la))
    assert lo < r < hi


def test_ratio_interval_is_undefined_when_the_denominator_can_be_zero() -> None:
    r, lo, hi = ratio_interval(np.array([5.0, 6.0, 7.0]), np.array([0.0, 10.0, 0.0]))
    assert math.isfinite(r) and math.isnan(lo) and math.isnan(hi)


@pytest.mark.parametrize(("low", "high", "words"), [
    (11.0, 20.0, "10x narration holds"), (2.0, 3.0, "not 10x"), (0.2, 0.5, "AdaP worse"),
    (0.8, 3.0, "advantage is not shown"), (7.0, 13.0, "cannot say"),
    (math.nan, math.nan, "undefined")])
def test_reading_says_what_the_interval_shows(low: float, high: float, words: str) -> None:
    assert words in f2.reading(low, high)


@pytest.mark.parametrize(("low", "high", "words"), [
    (1.1, 1.5, "supports"), (0.5, 0.9, "contradicts"), (0.9, 1.2, "does not support"),
    (math.nan, math.nan, "interval undefined")])
def test_fig4_panel_reading(low: float, high: float, words: str) -> None:
    from dpaudit.audits.wang_zhu_2023.fig4_narration import panel_reading

    assert panel_reading(low, high).startswith(words)


def test_fig2_ratio_cells_are_ratios_of_valid_intervals_on_the_known_range() -> None:
    """Fig. 2's ratio experiment compares the paper's two algorithms with DP-SE at the
    paper's "10 times" and the ordering at 1, each cell a ratio of two Hoeffding/empirical-
    Bernstein intervals on [0, T * 0.5], its label free of the run count."""
    from dpaudit.audits.azize_basu_2022 import findings as fb
    from dpaudit.registry import all_experiments

    exp = all_experiments()["azize-basu-fig2-ratio"]
    out = exp.run(exp.settings(horizon=2000, runs=50))
    compared = [m for m in out.evidence.measurements if m.paper_value is not None]
    assert sorted(m.paper_value for m in compared) == [1.0, 1.0, 10.0, 10.0]
    for m in out.evidence.measurements:
        assert m.ratio_of is not None and "50" not in m.label
        assert all((s.low, s.high) == (0.0, 1000.0) for s in m.ratio_of)
    assert fb.max_regret((0.75, 0.25), 2000) == 1000.0


def test_fig2_ratio_against_dp_se_is_decided_below_ten() -> None:
    """DP-SE / AdaP-KLUCB and DP-SE / AdaP-UCB lie below the paper's 10 at T = 10^5 with
    5000 runs, on the betting confidence sequence of the kept runs (no confirmation needed).
    Seeded; the rule's intervals cover with probability >= 1 - 0.05, so a wrong 'not
    reproduced' has probability at most 0.05."""
    from dpaudit.registry import all_experiments

    exp = all_experiments()["azize-basu-fig2-ratio"]
    out = exp.run(exp.settings(horizon=10**5, runs=5000))
    assert not out.evidence.needs_confirmation
    status, _, numbers = experiment_outcome(out)
    assert status == "not reproduced" and numbers["stable"] is None
    assert numbers["paper_value"] == 10.0 and numbers["ci_high"] < 10.0
    assert numbers["interval_method"] == "ratio of betting-cs"


def test_fig2_intervals_at_twenty_runs_need_the_sequence_to_decide() -> None:
    """On [0, T/2] twenty runs cannot place a DP-UCB/AdaP ratio on one side of 10 with the
    fixed-run interval (Hoeffding's half-width alone exceeds the means: the rule leaves the
    cells undecided with the runs that would settle them), but the betting confidence sequence
    of the same runs, which adapts to their small spread, places them below 10 (seeded; wrong
    with probability at most 0.05)."""
    from dataclasses import replace

    from dpaudit.registry import all_experiments
    from dpaudit.stats.evidence import ExperimentEvidence, decide_experiment

    exp = all_experiments()[f2.NAME]
    out = exp.run(exp.settings(horizon=2000, runs=20))
    assert all(m.ratio_of is not None for m in out.evidence.measurements)
    status, _, numbers = experiment_outcome(out)
    assert status == "not reproduced" and numbers["paper_value"] == 10.0
    assert numbers["interval_method"] == "ratio of betting-cs"
    fixed = ExperimentEvidence(out.evidence.paper, tuple(
        replace(m, ratio_of=tuple(replace(r, values=None, looks=()) for r in m.ratio_of))
        for m in out.evidence.measurements if m.ratio_of is not None))
    d = decide_experiment(fixed, confirm=fixed)
    assert d.status == "INCONCLUSIVE" and d.runs_to_settle is not None
