"""Locally private thresholding bandits (Barbara, Lazzaro & Pike-Burke 2025): reconstruction,
law of the fast simulators against the per-step references, Theorem 4.1's guarantee, checks.

Statistical tests are seeded; each names its false-failure probability and derives its
threshold from it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.bounds import (
    complexity,
    private_complexity,
    thm31_upper,
    thm32_lower,
    thm41_upper,
    thm42_lower,
)
from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding import (
    PrivateAPT,
    PrivateThresholdLUCB,
    map_threshold,
    thresholding_loss,
)
from dpaudit.engine import CheckContext
from dpaudit.mechanisms import PrivBern
from dpaudit.registry import get_audit
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.stats.evidence import decide
from dpaudit.stats.results import Verdict
from dpaudit.validation import InvalidParameterError

# false-failure probability of each two-sample law test below
LAW_ALPHA = 1e-3


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(0.0, 1.0), eps=st.floats(1e-3, 20.0))
def test_threshold_map_is_privbern_mean(mu, eps):
    """Lemma 2.1 / Eq. (4): E[PrivBern(r)] for r ~ Bern(mu) is the map applied to mu."""
    assert map_threshold(mu, eps) == pytest.approx(float(PrivBern(eps).prob_one(mu)),
                                                   abs=1e-12)


def test_threshold_map_limits():
    """eps -> 0: every private mean is 1/2 (no information); eps -> inf: the identity."""
    assert map_threshold(0.9, 1e-9) == pytest.approx(0.5, abs=1e-9)
    assert map_threshold(0.9, 50.0) == pytest.approx(0.9, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(0.01, 10.0), gamma=st.floats(0.0, 0.2))
def test_private_complexity_scales_by_kappa(eps, gamma):
    """Eq. (8): H^eps = ((e^eps + 1)/(e^eps - 1))^2 H, and Delta^eps = kappa Delta."""
    means = (0.2, 0.45, 0.7)
    ratio = ((math.exp(eps) + 1) / math.expm1(eps)) ** 2
    assert private_complexity(means, 0.5, eps, gamma) == pytest.approx(
        ratio * complexity(means, 0.5, gamma), rel=1e-10)
    gaps = np.abs(np.array([map_threshold(m, eps) for m in means]) - map_threshold(0.5, eps))
    assert gaps == pytest.approx(math.tanh(eps / 2) * np.abs(np.array(means) - 0.5), abs=1e-12)


def test_thm41_solves_its_implicit_inequality():
    means, k = (0.1, 0.3, 0.7, 0.9), 4
    t = thm41_upper(means, 0.5, 1.0, 0.1)
    h = private_complexity(means, 0.5, 1.0)
    assert t == pytest.approx(k + 2 * h * math.log(4 * k * t ** 3 / 0.1), rel=1e-9)


def test_bounds_limits_and_monotonicity():
    means = (0.3, 0.4, 0.6, 0.7)
    assert thm31_upper(means, 0.5, 0.05, 10, 1.0) == 1.0  # vacuous at tiny budgets
    big = [thm31_upper(means, 0.5, 0.05, t, 4.0) for t in (10**5, 10**6)]
    assert big[1] < big[0] < 1.0
    assert thm32_lower([0.1] * 4, 1, 1e-6) == pytest.approx(0.25, rel=1e-6)
    assert thm42_lower(means, 0.5, 0.5, 0.01) > thm42_lower(means, 0.5, 1.0, 0.01)


def test_loss_counts_only_arms_outside_the_tolerance_band():
    means = np.array([0.3, 0.48, 0.7])
    assert not thresholding_loss(np.array([False, True, True]), means, 0.5, 0.05)
    assert not thresholding_loss(np.array([False, False, True]), means, 0.5, 0.05)
    assert thresholding_loss(np.array([True, False, True]), means, 0.5, 0.05)
    assert thresholding_loss(np.array([False, False, False]), means, 0.5, 0.05)


@pytest.mark.parametrize("bad", [
    lambda: PrivateAPT(-1.0, tau=0.5), lambda: PrivateAPT(1.0, tau=1.5),
    lambda: PrivateAPT(1.0, tau=0.5, gamma=-0.1), lambda: PrivateThresholdLUCB(1.0, tau=0.5,
                                                                             delta=0.0),
    lambda: PrivateThresholdLUCB(1.0, tau=0.5, delta=0.1, radius_power=1.0),
    lambda: PrivateAPT(1.0, tau=0.5).simulate(BernoulliRewards([0.2, 0.8]), 1, 5,
                                              rng=np.random.default_rng(0)),
    lambda: thm32_lower([0.0, 0.1], 100, 1.0), lambda: complexity([0.5, 0.7], 0.5),
])
def test_bad_parameters_raise(bad):
    with pytest.raises(InvalidParameterError):
        bad()


def _same_law(a: np.ndarray, b: np.ndarray) -> float:
    """p-value of a chi-square test that two samples of small integers share one law."""
    values = np.union1d(a, b)
    table = np.array([[np.sum(a == v) for v in values], [np.sum(b == v) for v in values]])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        return 1.0
    return float(stats.chi2_contingency(table).pvalue)


@pytest.mark.statistical
def test_apt_fast_and_per_step_have_the_same_law():
    """Joint law of (pulls of arm 0, loss) after T = 40; p-value below LAW_ALPHA fails."""
    alg, src = PrivateAPT(1.0, tau=0.5, gamma=0.05), BernoulliRewards([0.35, 0.55, 0.7])
    fast = alg.simulate(src, 40, 4000, rng=np.random.default_rng(11))
    slow = alg.simulate_per_step(src, 40, 800, rng=np.random.default_rng(12))
    code = lambda r: np.minimum(r.counts[:, 0], 20) * 2 + r.extra["loss"]  # noqa: E731
    assert _same_law(code(fast), code(slow)) > LAW_ALPHA


@pytest.mark.statistical
def test_lucb_fast_and_per_step_have_the_same_law():
    """Stopping times (binned by 20) and correctness; p-value below LAW_ALPHA fails."""
    alg, src = PrivateThresholdLUCB(4.0, tau=0.5, delta=0.1), BernoulliRewards([0.1, 0.9])
    fast = alg.simulate(src, 10_000, 3000, rng=np.random.default_rng(21))
    slow = alg.simulate_per_step(src, 10_000, 600, rng=np.random.default_rng(22))
    assert fast.stopped.all() and slow.stopped.all()
    assert _same_law(fast.stopping_time // 20, slow.stopping_time // 20) > LAW_ALPHA


@pytest.mark.statistical
def test_lucb_is_delta_correct():
    """Theorem 4.1: P(wrong set) <= delta. Fails only if the Clopper-Pearson lower limit of
    the error rate (one-sided, level 1e-3: the false-failure probability) exceeds delta."""
    from dpaudit.stats.events import cp_lower

    delta = 0.2
    alg = PrivateThresholdLUCB(1.0, tau=0.5, delta=delta)
    res = alg.simulate(BernoulliRewards([0.4, 0.55, 0.8]), 10**6, 400,
                       rng=np.random.default_rng(31))
    errors = int((~res.correct).sum())
    assert res.stopped.all()
    assert float(cp_lower(errors, 400, 1e-3)) <= delta


@pytest.mark.parametrize("name", ["ldp-tbp-fixed-budget", "ldp-tbp-fixed-confidence"])
def test_checks_claims_hold(name):
    """The correct mechanism is never VIOLATED: each sampled claim runs at alpha = 1e-3, so
    the three together fail falsely with probability <= 3e-3 (seeded, hence deterministic)."""
    spec = get_audit(name)
    for eps in (0.1, 1.0, 5.0):
        ctx = CheckContext(eps, 0.0, alpha=1e-3, quick=True)
        results = [decide(c, ctx, c.evaluate(ctx, c)) for c in spec.claims]
        assert [r.verdict for r in results][0] is Verdict.EXACT
        assert all(r.verdict is not Verdict.VIOLATED for r in results)
        assert results[0].epsilon_lower_bound == pytest.approx(eps, rel=1e-9)


def test_reproduction_writes_figure_and_table(tmp_path):
    from dpaudit.experiments import run_experiment
    from dpaudit.registry import get_experiment

    exp = get_experiment("ldp-thresholding")
    paths = run_experiment(exp, exp.settings(horizon=128, runs=20, seed=3, quick=True),
                           tmp_path)
    assert [p.suffix for p in paths] == [".png", ".csv", ".md", ".json"]
    assert all(p.stat().st_size > 0 for p in paths)
    assert "no experiments" in paths[2].read_text()
    with pytest.raises(InvalidParameterError):
        exp.settings(horizon=10)


@pytest.mark.statistical
def test_measured_losses_respect_theorems_3_1_and_3_2():
    """Reconstructed constants (16 and 16) against measurements. Theorem 3.1 at eps = 4,
    T = 16000 (the first budget where its bound is below 1): the one-sided 1e-3 Clopper-Pearson
    lower limit of the loss must not exceed it. Theorem 3.2's family at eps = 0.1, T = 400:
    the 1e-3 upper limit of the largest loss count over the 5 environments must reach the
    lower bound (if the theorem holds, the environment attaining the max of the true losses
    alone fails with probability <= 1e-3, and the largest count is at least its count).
    False failure <= 1e-3 + 1e-3; seeded."""
    from dpaudit.stats.events import cp_lower, cp_upper

    means = (0.3, 0.4, 0.6, 0.7)
    res = PrivateAPT(4.0, tau=0.5, gamma=0.05).simulate(
        BernoulliRewards(means), 16_000, 200, rng=np.random.default_rng(61))
    bound = thm31_upper(means, 0.5, 0.05, 16_000, 4.0)
    assert bound < 1.0
    assert float(cp_lower(int(res.extra["loss"].sum()), 200, 1e-3)) <= bound
    worst = 0
    for env in range(5):
        mu = np.full(4, 0.6)
        if env:
            mu[env - 1] = 0.4
        r = PrivateAPT(0.1, tau=0.5).simulate(BernoulliRewards(mu), 400, 300,
                                              rng=np.random.default_rng(70 + env))
        worst = max(worst, int(r.extra["loss"].sum()))
    assert float(cp_upper(worst, 300, 1e-3)) >= thm32_lower([0.1] * 4, 400, 0.1)


def _evidence(name: str, **kw):
    from dpaudit.registry import get_experiment

    exp = get_experiment(name)
    return exp.run(exp.settings(quick=True, **kw)).evidence


@pytest.mark.parametrize("name", ["ldp-thresholding", "ldp-thresholding-thm41",
                                  "ldp-thresholding-thm42", "ldp-thresholding-thm32"])
def test_cells_follow_the_rule_and_labels_do_not_depend_on_runs(name):
    """Every compared cell has a valid interval (a count, a mean on its known range, or a
    stated method), and the confirmation at 4x the runs has the same labels."""
    first = _evidence(name, horizon=128, runs=20)
    again = _evidence(name, horizon=128, runs=80)
    assert [m.label for m in first.measurements] == [m.label for m in again.measurements]
    compared = [m for m in first.measurements if m.paper_value is not None]
    assert compared and all(m.runs > 0 for m in compared)
    for m in compared:
        assert m.count is not None or m.summary is not None or m.ci_method


def test_theorem_31_cells_vacuous_at_the_grid_and_compared_where_informative():
    """At the budget grid the bound is 1 (vacuous); at the informative budgets it is at most
    0.05, and the first budget where it is."""
    from dpaudit.audits.barbara_lazzaro_pike_burke_2025 import experiments as blp

    cells = _evidence("ldp-thresholding", horizon=128, runs=20).measurements
    grid = [m for m in cells if m.label.startswith("T=")]
    informative = [m for m in cells if m.label.startswith("bound")]
    assert grid and all(m.paper_value == 1.0 and m.vacuous_above == 1.0 for m in grid)
    assert {m.label.split("eps=")[1].split(",")[0] for m in informative} == {"0.5", "1", "2",
                                                                            "4"}
    for eps in (0.5, 1.0, 2.0, 4.0):
        t = blp.informative_budget(eps)
        assert thm31_upper(MEANS_FB, 0.5, 0.05, t, eps) <= blp.INFORMATIVE
        assert thm31_upper(MEANS_FB, 0.5, 0.05, t - 1, eps) > blp.INFORMATIVE


MEANS_FB = (0.3, 0.4, 0.6, 0.7)


def test_theorem_41_cell_is_the_theorems_event_and_42_can_only_witness():
    cells41 = _evidence("ldp-thresholding-thm41", horizon=128, runs=20).measurements
    counts = [m for m in cells41 if m.paper_value is not None]
    assert all(m.count is not None and m.paper_value == pytest.approx(0.9) for m in counts)
    cells42 = _evidence("ldp-thresholding-thm42", horizon=128, runs=20).measurements
    assert all(m.direction == "witness at least" and m.vacuous_below == 1.0 for m in cells42)
    for m in cells42:  # the range of one run: [K, the cap]
        assert m.summary.low == 4.0 and m.summary.high >= m.summary.largest


def test_probability_bounds_outside_zero_one_are_vacuous():
    """An upper bound on a probability at or above 1, or a lower bound at or below 0, says
    nothing: the cell is vacuous whatever was measured."""
    from dpaudit.stats.evidence import ExperimentEvidence, Measurement, decide_experiment

    upper = Measurement("u", 1.0, 0.9, 100, "at most", count=90, vacuous_above=1.0)
    lower = Measurement("l", 0.0, 0.0, 100, "at least", count=0, ci_low=0.0, ci_high=0.1,
                        vacuous_below=math.ulp(0.0))
    tiny = Measurement("t", 5e-324, 0.5, 100, "at least", count=50,
                       vacuous_below=math.ulp(0.0))
    ev = ExperimentEvidence("p", (upper, lower))
    assert decide_experiment(ev).status == "vacuous"
    # a positive bound, however small, is compared (and here witnessed)
    d = decide_experiment(ExperimentEvidence("p", (upper, tiny)),
                          confirm=ExperimentEvidence("p", (upper, tiny)))
    assert d.status == "reproduced"
    below_one = Measurement("u", 0.999, 0.5, 100, "at most", count=50, vacuous_above=1.0)
    assert decide_experiment(ExperimentEvidence("p", (below_one,)),
                             confirm=ExperimentEvidence("p", (below_one,))).status \
        == "reproduced"


def test_theorem_31_note_names_the_informative_budgets():
    """The ledger's note: 'about 22,000 to 355,000 pulls' (eps 4 down to 0.5); 1.4 and 0.7
    million at the grid's eps 0.25 and 0.35 (not run)."""
    from dpaudit.audits.barbara_lazzaro_pike_burke_2025 import experiments as blp
    from dpaudit.audits.barbara_lazzaro_pike_burke_2025.statements import STATEMENTS

    note = next(s.note for s in STATEMENTS if s.location == "Theorem 3.1")
    assert "about 22,000 to 355,000 pulls" in note and "eps >= 0.5" in note
    assert round(blp.informative_budget(4.0), -3) == 22_000
    assert round(blp.informative_budget(0.5), -3) == 355_000
    assert "1.4 and 0.7 million pulls, untested" in note
    assert round(blp.informative_budget(0.25), -5) == 1_400_000
    assert round(blp.informative_budget(0.25 * 2**0.5), -5) == 700_000 > blp.MAX_INFORMATIVE_T
