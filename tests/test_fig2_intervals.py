"""Fig. 2's ratios with intervals (Azize & Basu 2022; experiment ``azize-basu-fig2-intervals``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.audits.azize_basu_2022 import fig2_intervals as f2
from dpaudit.sim.experiments import ratio_interval


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
