"""Rate tests for order-only regret theorems (:mod:`dpaudit.audits.recipes.rates`), the
difference-ratio cell they decide on, the ledger status "undecidable at finite T", and the
exact computations the referee's last pass added (DP-UCB-Int's limit, Theorem 1's equality
budget). Deterministic except where a test says what its false-failure probability is."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from dpaudit.audits.recipes.rates import (
    RATE_FACTOR,
    RateAlgorithm,
    RateTest,
    log_order,
    power_order,
    rate_experiment,
)
from dpaudit.reports.ledger import UNDECIDABLE, statement_status
from dpaudit.statements import Statement
from dpaudit.stats.evidence import ExperimentEvidence, Measurement, decide_experiment

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _fake(increment: callable, gap: float = 1.0):
    """A simulator whose run ``r`` has regret ``increment(t) * u_r`` at ``t``, ``u_r`` uniform
    in [0.5, 1] (so runs differ and the intervals have something to do)."""
    def simulate(ts, runs, rng):
        u = rng.uniform(0.5, 1.0, size=(runs, 1))
        return u * np.array([increment(float(t)) for t in ts])[None, :]
    return RateAlgorithm("fake", simulate, gap)


def _test(alg: RateAlgorithm, order=log_order, name="fake-rate") -> RateTest:
    return RateTest(name=name, paper="nobody 2000", statement="an order", order="ln T", f=order,
                    algorithms=(alg,), decades=(100, 3), quick_decades=(100, 3), runs=2000,
                    quick_runs=2000, setting="a fake instance")


def _status(alg: RateAlgorithm, order=log_order) -> tuple[str, float]:
    exp = rate_experiment(_test(alg, order))
    out = exp.run(exp.settings())
    d = decide_experiment(out.evidence)
    return d.status, d.cells[0].measurement.measured


def test_a_log_regret_is_reproduced_and_a_linear_one_is_not() -> None:
    """Regret 20 ln T (within the order) against regret T / 10 (linear: the local constant
    grows 100x over the two decades between the first and last): decided both ways. A run's
    increment over the first decade is at most 20 ln 10 = 46.05, so the declared cost of a step
    is 46.2 / 900 (the range is what makes the intervals distribution-free)."""
    status, ratio = _status(_fake(lambda t: 20.0 * math.log(t), gap=46.2 / 900))
    assert status == "reproduced" and ratio == pytest.approx(1.0, rel=1e-9)
    status, ratio = _status(_fake(lambda t: t / 10.0, gap=1.0))
    assert status == "not reproduced" and ratio > 10 * RATE_FACTOR


def test_a_power_order_is_read_with_its_own_growth() -> None:
    """Regret sqrt(T) against the order sqrt(T): the local constant is flat (ratio 1)."""
    status, ratio = _status(_fake(lambda t: 3.0 * math.sqrt(t), gap=0.1), power_order(0.5))
    assert status == "reproduced" and ratio == pytest.approx(1.0, rel=1e-9)


def test_the_horizon_must_hold_whole_decades() -> None:
    exp = rate_experiment(_test(_fake(math.log)))
    with pytest.raises(ValueError, match="multiple of 10"):
        exp.run(exp.settings(horizon=123_456))


def test_difference_ratio_cell_interval_round_trip_and_merge() -> None:
    rng = np.random.default_rng(1)
    a, b, c, d = (rng.uniform(lo, hi, 300) for lo, hi in ((8, 10), (4, 5), (3, 4), (0, 1)))
    ranges = [(0.0, 10.0), (0.0, 5.0), (0.0, 4.0), (0.0, 1.0)]
    m = Measurement.of_difference_ratio("cell", 2.0, [a, b, c, d], ranges, scale=0.5)
    want = 0.5 * (a.mean() - b.mean()) / (c.mean() - d.mean())
    assert m.measured == pytest.approx(want) and m.anytime and len(m.tails) == 4
    ev = ExperimentEvidence("x", (m,))
    back = ExperimentEvidence.from_dict(json.loads(json.dumps(ev.to_dict())))
    assert back == ev
    cell = decide_experiment(ev).cells[0]
    assert cell.ci_low <= m.measured <= cell.ci_high and "differences" in cell.method
    merged = m.merged([m])
    assert merged.runs == 600 and merged.measured == pytest.approx(m.measured)


def test_a_ratio_reports_each_side_with_its_own_tail() -> None:
    """The numerator's share of tail runs is never printed beside the denominator's largest
    run (or the other way round)."""
    num = np.r_[np.ones(999), 500.0]  # one run in a thousand far out
    den = np.full(1000, 4469.0)
    m = Measurement.of_ratio("r", 1.0, num, den, numerator_range=(0, 1e4),
                             denominator_range=(0, 1e4))
    assert m.tail_share == pytest.approx(0.001) and m.largest == 500.0
    text = m.tail_text()
    assert "numerator: 0.001 of its runs above 10x its median, largest 500" in text
    assert "denominator: 0 of its runs above 10x its median, largest 4469" in text


def test_undecidable_statements_keep_contradictions_and_gaps() -> None:
    st = Statement("p", "Theorem 3", "lower bound", "necessary (theorem)", "a liminf",
                   undecidable="a liminf")
    assert statement_status(st, ["run"]) == UNDECIDABLE
    assert statement_status(st, ["INCONCLUSIVE", "run"]) == UNDECIDABLE
    assert statement_status(st, ["not reproduced", "run"]) == "not reproduced"
    assert statement_status(st, []) == "not yet implemented"
    plain = Statement("p", "Theorem 3", "lower bound", "necessary (theorem)", "x")
    assert statement_status(plain, ["run"]) == "run"


def test_the_liminf_trend_beside_theorem_3_is_the_stored_table() -> None:
    """Azize & Basu 2022, Theorem 3's note quotes the stored azize-basu-thm3 table."""
    from dpaudit.audits.azize_basu_2022.statements import THM3_NOTE

    text = (DOCS / "azize_basu" / "azize_basu_thm3.csv").read_text()
    rows = list(csv.DictReader(text.splitlines()))
    early = [float(r["ratio at T/100 = 100000"]) for r in rows]
    late = [float(r["ratio at T"]) for r in rows]
    note = " ".join(THM3_NOTE.split())
    m = re.search(r"between (\S+) and (\S+) at T/100 = 10\^5 and between (\S+) and (\S+) "
                  r"at T", note)
    assert m is not None, note
    quoted = [float(x) for x in m.groups()]
    for q, v in zip(quoted, (min(early), max(early), min(late), max(late)), strict=True):
        assert q == pytest.approx(v, rel=6e-3)
    assert all(v > 1 for v in early + late) and f"all {len(rows)} cells above 1" in note
    rose: dict[str, list[int]] = {}
    for r, a, b in zip(rows, early, late, strict=True):
        rose.setdefault(r["policy"], [0, 0])
        rose[r["policy"]][0] += b > a
        rose[r["policy"]][1] += 1
    assert f"AdaP-UCB {rose['adap-ucb'][0]} of {rose['adap-ucb'][1]}" in note
    assert f"AdaP-KLUCB {rose['adap-klucb'][0]} of {rose['adap-klucb'][1]}" in note
    total = rose["adap-ucb"][0] + rose["adap-klucb"][0]
    assert rose["dp-se"][0] == 0 and f"all {rose['dp-se'][1]} of DP-SE's" in note
    assert f"rose in {total} cells" in note


def test_theorem_1_equals_the_earlier_bound_exactly_from_its_budget() -> None:
    """Azize et al. 2025, Theorem 1 against Azize & Basu 2022, Theorem 3: equal (the same
    floating-point number) from :func:`equal_from` on, larger just below it."""
    from dpaudit.algorithms.azize_et_al_2025.bounds import thm1_rate
    from dpaudit.audits.azize_et_al_2025.experiments import INSTANCES, _old_rate, equal_from

    for inst in INSTANCES:
        e = equal_from(inst.means)
        for eps in (e * (1 + 1e-9), 2 * e, 10.0):
            assert thm1_rate(inst.means, eps) == _old_rate(inst.means, eps)
        assert thm1_rate(inst.means, 0.99 * e) > _old_rate(inst.means, 0.99 * e)
    assert equal_from(INSTANCES[1].means) == pytest.approx(math.log(9.0), rel=1e-12)


def test_the_series_expansion_of_the_laplace_loss_matches_its_closed_form() -> None:
    """DP-UCB-Int's limit: the tail's cumulant series (sympy's expansion to eps^5) against the
    exact log-MGF of a Laplace privacy loss, at small eps and complex arguments."""
    from dpaudit.audits.tossou_dimitrakakis_2016._dp_ucb_int_limit import _log_mgf

    e = 2e-3
    for z in (0.5 + 3j, 2.0 - 1j, -1.0 + 0.5j, 5.0):
        exact = _log_mgf(np.array([z]), np.array([e]), [0.0] * 4)[0]
        series = _log_mgf(np.array([z]), np.array([]), [e**2, e**3, e**4, e**5])[0]
        assert abs(exact - series) < 1e-12 * (1 + abs(z)) ** 6


def test_the_releases_limit_is_the_stored_one_and_above_the_earlier_bracket() -> None:
    """The exact series' limit for target 0.1 at delta' = 1e-5 lies inside the bracket the two
    accountants gave before ([0.0736, 0.117]: PLD at 10^8 pulls below, RDP above) and above
    the target; in the limit the releases are (0.1, 1.63e-5)-DP."""
    from dpaudit.audits.tossou_dimitrakakis_2016._dp_ucb_int_calibration import PAPER_POINTS
    from dpaudit.audits.tossou_dimitrakakis_2016._dp_ucb_int_limit import delta_at, epsilon_at

    e = PAPER_POINTS[0.1]
    # delta(eps) decreases in eps: above 1e-5 at 0.0736 and at the target, below at 0.117
    assert delta_at(e, 0.0736)[0] > 1e-5 and delta_at(e, 0.117)[0] < 1e-5
    d, err = delta_at(e, 0.1)
    assert d == pytest.approx(1.6327e-5, rel=1e-3) and err < 1e-9
    assert epsilon_at  # the root itself: test_the_series_sits_inside_the_pld_bracket...


@pytest.mark.slow
def test_the_series_sits_inside_the_pld_bracket_at_a_finite_horizon() -> None:
    """At 10^6 pulls (3952 releases, target 1) dp-accounting's binned PLD brackets epsilon at
    1e-5 tightly; the exact series lies inside."""
    from dpaudit.audits.tossou_dimitrakakis_2016._dp_ucb_int_calibration import PAPER_POINTS
    from dpaudit.audits.tossou_dimitrakakis_2016._dp_ucb_int_limit import epsilon_at
    from dpaudit.mechanisms.interval_release import pld_bracket_binned

    lo_p, hi_p = pld_bracket_binned(PAPER_POINTS[1.0], pulls=10**6, interval=1e-5)
    lo, hi = epsilon_at(PAPER_POINTS[1.0], 1e-5, pulls=10**6)
    assert lo_p.get_epsilon_for_delta(1e-5) <= lo <= hi <= hi_p.get_epsilon_for_delta(1e-5)


def test_the_eta_reading_of_the_glm_rewards() -> None:
    """Zheng et al. 2020, Sec. 4's named model y = g(x^T theta*) + eta, eta in [-1, 1]: at
    theta* = 0 the rewards are g(0) -+ 1 (attained for every x); the release's bound covers
    every theta* through the hull [g(-1) - 1, g(1) + 1]."""
    from scipy.special import expit

    from dpaudit.algorithms.zheng_et_al_2020.ldp_contextual import LDPGLMBandit, glm_rewards

    assert glm_rewards("logistic", 0.1, "eta") == pytest.approx((0.05 - 1.0, 0.05 + 1.0))
    alg = LDPGLMBandit(1.0, 1e-5, link_bound=0.1, rewards="eta")
    hull = (0.1 * (expit(1.0) - expit(-1.0)) + 1.0) / 0.1
    assert alg.gradient_factor() == pytest.approx(hull)
    # the attained domain lies inside the hull the bound covers
    lo, hi = glm_rewards("logistic", 0.1, "eta")
    assert 0.1 * expit(-1.0) - 1.0 <= lo and hi <= 0.1 * expit(1.0) + 1.0


def _stored_cells(stem: str, folder: str) -> list:
    doc = json.loads((DOCS / folder / f"{stem}.json").read_text())
    return decide_experiment(ExperimentEvidence.from_dict(doc["evidence"])).cells


@pytest.mark.parametrize(("stem", "folder", "module", "key"), [
    ("zheng_one_point_rate", "zheng_et_al", "zheng_et_al_2020", "Alg. 1, Theorem 2-3, Cor. 4"),
    ("zheng_two_point_rate", "zheng_et_al", "zheng_et_al_2020", "Alg. 2, Theorem 5-6"),
    ("zheng_linear_rate", "zheng_et_al", "zheng_et_al_2020", "Theorem 8"),
    ("zheng_glm_rate", "zheng_et_al", "zheng_et_al_2020", "Theorem 9-10"),
    ("azize_basu_thm8_rate", "azize_basu", "azize_basu_2022", "Theorem 8, Eq. (8)"),
    ("wang_zhu_thm11_rate", "wang_zhu", "wang_zhu_2023", "Theorem 11"),
])
def test_rate_notes_quote_the_stored_outputs(stem: str, folder: str, module: str,
                                             key: str) -> None:
    """Each rate test's ledger note quotes its stored output's ratio and interval."""
    import importlib

    statements = importlib.import_module(f"dpaudit.audits.{module}.statements").STATEMENTS
    note = " ".join(next(s for s in statements if s.location == key
                         and s.kind == "regret upper bound").note.split())
    (cell,) = _stored_cells(stem, folder)
    nums = [float(x) for x in re.findall(r"(\d+\.\d+)", note)]
    assert any(abs(n - cell.measurement.measured) <= 0.006 for n in nums), note
    assert any(abs(n - cell.ci_low) <= 0.006 for n in nums), note
    assert any(abs(n - cell.ci_high) <= 0.006 for n in nums), note


def test_theorem_2_rate_note_quotes_both_cells() -> None:
    """Azize et al. 2025, Theorem 2: the note quotes each algorithm's stored ratio and
    interval (two cells, alpha split over them)."""
    from dpaudit.audits.azize_et_al_2025.statements import STATEMENTS

    note = " ".join(next(s for s in STATEMENTS if s.location == "Theorem 2").note.split())
    for cell in _stored_cells("azize_et_al_2025_thm2_rate", "azize_et_al_2025"):
        name = cell.measurement.label.split(":")[0]
        m = re.search(name + r" (\d+\.\d+), interval \[(\d+\.\d+), (\d+\.\d+)\]", note)
        assert m is not None, name
        got = [float(x) for x in m.groups()]
        want = [cell.measurement.measured, cell.ci_low, cell.ci_high]
        assert all(abs(a - b) <= 0.006 for a, b in zip(got, want, strict=True)), (got, want)
