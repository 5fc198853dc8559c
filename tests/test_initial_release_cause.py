"""The cause test of AdaP-UCB's regret tail (Azize & Basu 2022; experiment
``azize-basu-initial-release-cause``): a 2x2 factorial of Eq. (7)'s reading and the initial
release, decided under the rule."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpaudit.audits.azize_basu_2022 import initial_release_cause as c
from dpaudit.registry import all_experiments
from dpaudit.reports.ledger import experiment_outcome


def test_the_factorial_changes_one_factor_at_a_time() -> None:
    eps = 0.5
    for (bonus, release), label in c.FACTORIAL.items():
        alg = c.VARIANTS[label](eps)
        assert alg.bonus == bonus and alg.initial_noise == release
        assert alg._initial_scale() == pytest.approx((2 if release == "episode-rule" else 1)
                                                     / eps)
    # each compared effect changes exactly one factor, except "both together" (both)
    changed = [sum(a != b for a, b in zip(w, wo, strict=True)) for _, w, wo in c.EFFECTS]
    assert sorted(changed) == [1, 1, 1, 2]
    # the diagnostics are not private and are never compared
    diag = [k for k in c.VARIANTS if k not in c.FACTORIAL.values()]
    assert all(c.VARIANTS[k](eps)._initial_scale() == 0.0 for k in diag)


def test_tail_row_uses_exact_clopper_pearson_limits() -> None:
    regret = np.array([1.0] * 97 + [2e4] * 3)
    k, frac, lo, hi = c.tail_row(regret)
    assert (k, frac) == (3, 0.03)
    # independent reference: the beta-quantile form of the Clopper-Pearson interval
    assert lo == pytest.approx(stats.beta.ppf(0.025, 3, 98))
    assert hi == pytest.approx(stats.beta.ppf(0.975, 4, 97))


def test_difference_interval_is_two_clopper_pearson_intervals_at_half_the_level() -> None:
    a = np.array([1.0] * 990 + [2e4] * 10)
    b = np.array([1.0] * 998 + [2e4] * 2)
    d, lo, hi = c.difference_interval(a, b, 0.02)
    # each share's interval two-sided at 0.01 (0.005 a side): beta quantiles as reference
    la, ha = stats.beta.ppf(0.005, 10, 991), stats.beta.ppf(0.995, 11, 990)
    lb, hb = stats.beta.ppf(0.005, 2, 999), stats.beta.ppf(0.995, 3, 998)
    assert d == pytest.approx(0.008)
    assert (lo, hi) == (pytest.approx(la - hb), pytest.approx(ha - lb))


def test_cells_are_labelled_independently_of_the_runs_and_decided_with_the_confirmation(
) -> None:
    """A short horizon (T = 2e4, 500 runs; confirmation 2000): the compared cells are the
    four effects (paper value 0, 'at least'), matched by label between the two runs; without
    the confirmation the rule decides nothing. The status is what the rule gives the seeded
    runs, never 'not reproduced' here: a wrong side needs an interval below 0, which has
    probability at most 0.05 when the changes remove tail runs (the intervals cover with
    probability >= 0.95)."""
    exp = all_experiments()[c.NAME]
    settings = exp.settings(horizon=20_000, runs=500)
    out = exp.run(settings)
    compared = [m for m in out.evidence.measurements if m.paper_value is not None]
    assert len(compared) == len(c.EFFECTS)
    assert all(m.direction == "at least" and m.paper_value == 0.0 and m.ci_method
               for m in compared)
    assert experiment_outcome(out)[0] == "INCONCLUSIVE"
    confirm = exp.run(settings.confirmation())
    assert {m.label for m in out.evidence.measurements} == {
        m.label for m in confirm.evidence.measurements}
    status, _, numbers = experiment_outcome(out, confirm)
    assert status in ("reproduced", "INCONCLUSIVE") and numbers["confirm_runs"] == 2000
