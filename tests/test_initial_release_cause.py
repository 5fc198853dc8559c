"""The initial-release finding's cause test (Azize & Basu 2022; experiment
``azize-basu-initial-release-cause``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpaudit.audits.azize_basu_2022 import initial_release_cause as c


def test_variants_differ_only_in_the_initial_release_noise() -> None:
    scales = [make(0.5)._initial_scale() for make in c.VARIANTS.values()]
    assert scales == pytest.approx([2 / 0.5, 1 / 0.5, 0.0, 0.0])


def test_tail_row_uses_exact_clopper_pearson_limits() -> None:
    regret = np.array([1.0] * 97 + [2e4] * 3)
    k, frac, lo, hi = c.tail_row(regret)
    assert (k, frac) == (3, 0.03)
    # independent reference: the beta-quantile form of the Clopper-Pearson interval
    assert lo == pytest.approx(stats.beta.ppf(0.025, 3, 98))
    assert hi == pytest.approx(stats.beta.ppf(0.975, 4, 97))
