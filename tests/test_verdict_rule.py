"""The one verdict rule for regret and experiments (:mod:`dpaudit.stats.evidence`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.engine import AuditSpec, ClaimSpec, run_check
from dpaudit.stats.evidence import (
    ExperimentEvidence,
    Measurement,
    RegretEvidence,
    SampledEvidence,
    decide_experiment,
    decide_regret,
)
from dpaudit.stats.intervals import (
    bernstein_interval,
    ratio_interval,
    runs_to_settle,
    student_t_interval,
)
from dpaudit.stats.results import Notion, RegretResult, Verdict
from dpaudit.stats.rng import generator
from dpaudit.stats.rule import RunSummary, bounded_interval, runs_to_settle_bounded
from dpaudit.validation import InvalidParameterError


def _t_half(std: float, runs: int, alpha: float) -> float:
    return float(stats.t.ppf(1 - alpha / 2, runs - 1)) * std / math.sqrt(runs)


@pytest.mark.parametrize(("bound", "want"), [(120.0, Verdict.CONSISTENT),
                                             (100.5, Verdict.INCONCLUSIVE),
                                             (80.0, Verdict.VIOLATED)])
def test_three_outcomes_at_the_alpha_share(bound: float, want: Verdict) -> None:
    """mean 100, sd 10, 10^4 runs in [0, 1000], alpha = 0.05 / 2 (the share of a check with
    one sampled claim and a regret experiment): the distribution-free interval is about
    [98.3, 101.7], so 120 lies above it, 100.5 inside and 80 below."""
    alpha = 0.05 / 2
    d = decide_regret(RegretEvidence(100.0, 10.0, 10_000, bound, 1000.0), alpha=alpha)
    assert d.verdict is want and d.alpha == alpha
    iv = bounded_interval(mean=100.0, std=10.0, runs=10_000, low=0.0, high=1000.0,
                          alpha=alpha)
    assert (d.ci_low, d.ci_high) == (iv.low, iv.high) and 98.0 < iv.low < iv.high < 102.0
    assert d.lower_method == "hoeffding-bernstein"
    assert (d.runs_to_settle is None) == (want is not Verdict.INCONCLUSIVE)


def test_without_the_range_of_one_run_nothing_is_decided() -> None:
    """Student-t would call both of these (its half-width is about 2.3), but it is not valid
    for heavy-tailed regret: without ``max_per_run`` the verdict stays INCONCLUSIVE."""
    for bound in (120.0, 80.0):
        d = decide_regret(RegretEvidence(100.0, 10.0, 100, bound), alpha=0.025)
        assert d.verdict is Verdict.INCONCLUSIVE and "distribution-free" in d.reason
        assert d.lower_method == "student-t"


def test_a_mean_one_run_above_the_bound_with_a_wide_interval_is_never_violated() -> None:
    """The old point rule (``mean <= bound``) called this VIOLATED."""
    rng = generator(7, "one-run-above")
    regrets = np.minimum(rng.exponential(100.0, size=20), 2000.0)
    bound = float(regrets.mean()) - float(regrets.max()) / 20  # one run's share below the mean
    d = decide_regret(RegretEvidence(float(regrets.mean()), float(regrets.std(ddof=1)), 20,
                                     bound, 2000.0), alpha=0.05)
    assert regrets.mean() > bound
    assert d.verdict is Verdict.INCONCLUSIVE
    assert d.runs_to_settle is not None and d.runs_to_settle > 20
    assert "runs would settle it" in d.reason


def test_runs_to_settle_is_the_first_run_count_that_decides() -> None:
    for mean, std, bound in ((100.0, 30.0, 95.0), (100.0, 30.0, 104.0), (5.0, 1.0, 4.99)):
        n = runs_to_settle(mean=mean, std=std, value=bound, alpha=0.05)
        assert n is not None and n >= 2
        assert _t_half(std, n, 0.05) < abs(mean - bound)
        assert n == 2 or _t_half(std, n - 1, 0.05) >= abs(mean - bound)
    assert runs_to_settle(mean=1.0, std=1.0, value=1.0, alpha=0.05) is None
    for mean, std, bound in ((100.0, 30.0, 90.0), (100.0, 30.0, 110.0), (5.0, 1.0, 4.5)):
        sm = RunSummary(10, mean, std, mean, mean, 0.0, 0.0, 1000.0)
        n = runs_to_settle_bounded(sm, bound, alpha=0.05)
        assert n is not None and n >= 2
        assert decide_regret(RegretEvidence(mean, std, n, bound, 1000.0),
                             alpha=0.05).verdict is not Verdict.INCONCLUSIVE
        assert decide_regret(RegretEvidence(mean, std, n - 1, bound, 1000.0),
                             alpha=0.05).verdict is Verdict.INCONCLUSIVE


def test_violated_needs_the_distribution_free_limit_when_the_range_is_known() -> None:
    """mean 1000, sd 200 over 50 runs of T * max gap = 10^5: the t lower limit (about 943) is
    above a bound of 900, the distribution-free one is not."""
    ev = RegretEvidence(1000.0, 200.0, 50, 900.0, max_per_run=1e5)
    d = decide_regret(ev, alpha=0.05)
    assert d.lower_method == "hoeffding-bernstein" and d.lower_limit < 900.0
    assert d.verdict is Verdict.INCONCLUSIVE
    n = d.runs_to_settle
    assert n is not None and n > 50
    assert decide_regret(RegretEvidence(1000.0, 200.0, n, 900.0, 1e5),
                         alpha=0.05).verdict is Verdict.VIOLATED


def test_no_bound_is_inconclusive() -> None:
    assert decide_regret(RegretEvidence(5.0, 1.0, 10, None, 100.0), alpha=0.05).verdict \
        is Verdict.INCONCLUSIVE


@pytest.mark.statistical
def test_false_violated_rate_is_at_most_half_alpha_for_a_heavy_tailed_bounded_law() -> None:
    """Regret per run in [0, 1000] with a heavy right tail (1000 * Beta(0.05, 2), mean about
    24.4); bound = the true mean, 30 runs, alpha = 0.1. With the range known, VIOLATED is
    wrong with probability at most alpha / 2 = 0.05 per repetition. Over 400 seeded
    repetitions the count of false VIOLATED is Bin(400, p <= 0.05); we fail above its
    1 - 1e-6 quantile (false-failure probability <= 1e-6)."""
    rng = generator(11, "false-violated")
    a, b, scale, runs, reps, alpha = 0.05, 2.0, 1000.0, 30, 400, 0.1
    true_mean = scale * a / (a + b)
    x = scale * rng.beta(a, b, size=(reps, runs))
    wrong = sum(decide_regret(RegretEvidence(float(r.mean()), float(r.std(ddof=1)), runs,
                                             true_mean, scale), alpha=alpha).verdict
                is Verdict.VIOLATED for r in x)
    assert wrong <= stats.binom.ppf(1 - 1e-6, reps, alpha / 2)


@pytest.mark.statistical
def test_bernstein_interval_covers_for_a_bounded_law() -> None:
    """Coverage of the empirical-Bernstein interval (two-sided, alpha = 0.2) for Bernoulli(0.05)
    values scaled to [0, 50], 10 runs: misses ~ Bin(500, p <= 0.2); fail above the 1 - 1e-6
    quantile (false-failure probability <= 1e-6)."""
    rng = generator(12, "bernstein")
    x = 50.0 * (rng.random((500, 10)) < 0.05)
    miss = 0
    for r in x:
        iv = bernstein_interval(mean=float(r.mean()), std=float(r.std(ddof=1)), runs=10,
                                scale=50.0, alpha=0.2)
        miss += not iv.low <= 2.5 <= iv.high
    assert miss <= stats.binom.ppf(1 - 1e-6, 500, 0.2)


def test_interval_inputs_are_validated() -> None:
    with pytest.raises(InvalidParameterError, match="alpha"):
        student_t_interval(mean=1.0, std=1.0, runs=5, alpha=0.0)
    with pytest.raises(InvalidParameterError, match="std"):
        student_t_interval(mean=1.0, std=math.nan, runs=5, alpha=0.05)
    with pytest.raises(InvalidParameterError, match="scale"):
        bernstein_interval(mean=1.0, std=1.0, runs=5, scale=-1.0, alpha=0.05)
    r, lo, hi = ratio_interval(np.array([10.0, 12.0, 11.0]), np.array([1.0, 1.2, 0.9]),
                               alpha=0.05)
    assert lo < r < hi


def _claim(ev):
    return ClaimSpec("c", Notion.GLOBAL, "s", "ref", lambda ctx, spec: ev)


def _spec(regret_mean: float, bound: float) -> AuditSpec:
    sampled = SampledEvidence(500, 1000, 480, 1000, "E", "D vs D'", 0.5, 1000)

    def regret(ctx):
        return RegretResult("inst", "alg", 100, 400, regret_mean, 0.0, 0.0, 0.95, bound,
                            "Thm", regret_mean <= bound, std=5.0, max_per_run=300.0)
    return AuditSpec("toy", "toy", "paper", [_claim(sampled)], 1.0, 0.0, regret=regret)


def test_the_regret_experiment_is_one_share_of_the_checks_alpha() -> None:
    report = run_check(_spec(100.0, 200.0), alpha=0.05)
    assert report.alpha_split["per_claim_alpha"] == pytest.approx(0.025)
    assert report.alpha_split["regret_experiments"] == 1
    assert report.claims[0].alpha == pytest.approx(0.025)
    assert report.regret.decision.alpha == pytest.approx(0.025)
    assert report.regret.verdict is Verdict.CONSISTENT and report.exit_code == 0
    doc = report.to_dict()["regret"]
    assert doc["verdict"] == "CONSISTENT" and doc["verdict_alpha"] == pytest.approx(0.025)
    no_regret = run_check(_spec(100.0, 200.0), alpha=0.05, regret=False)
    assert no_regret.alpha_split["per_claim_alpha"] == pytest.approx(0.05)


def test_a_violated_regret_makes_the_check_violated() -> None:
    report = run_check(_spec(100.0, 50.0), alpha=0.05)
    assert report.regret.verdict is Verdict.VIOLATED
    assert report.verdict is Verdict.VIOLATED and report.exit_code == 1
    # one run's worth above the bound, within the spread: INCONCLUSIVE, exit 0
    close = run_check(_spec(100.0, 99.0), alpha=0.05)
    assert close.regret.within_bound is False
    assert close.regret.verdict is Verdict.INCONCLUSIVE and close.exit_code == 0


def _m(paper, measured, direction="at most", **kw):
    """A cell of ``runs`` (default 300) runs in [0, 20] with this mean and spread: a valid
    interval under the rule (with ``count`` or ``runs=0``: Clopper-Pearson or exact)."""
    runs = kw.pop("runs", 300)
    std = kw.pop("std", None)
    if std is not None and "count" not in kw and runs > 0:
        kw["summary"] = RunSummary(runs, measured, std, measured, measured, 0.0, 0.0, 20.0)
    return Measurement("cell", paper, measured, runs, direction, std=std, **kw)


@pytest.mark.parametrize(("cells", "status"), [
    ((_m(10.0, 5.0, std=1.0),), "reproduced"),
    ((_m(10.0, 15.0, std=1.0),), "not reproduced"),
    ((_m(10.0, 9.8, std=3.0),), "INCONCLUSIVE"),
    ((_m(10.0, 15.0, "at least", std=1.0),), "reproduced"),
    ((_m(10.0, 5.0, "at least", std=1.0),), "not reproduced"),
    ((_m(10.0, 5.0, "witness at least", std=1.0),), "INCONCLUSIVE"),
    ((_m(10.0, 15.0, "witness at least", std=1.0),), "reproduced"),
    ((_m(0.4, 50.0, "at least", std=1.0, vacuous_below=1.0),), "vacuous"),
    ((_m(None, 5.0, std=1.0),), "run"),
    ((), "run"),
    ((_m(1.0, 4.0, runs=0),), "not reproduced"),
    ((_m(1.0, 1.0, runs=0),), "reproduced"),
    ((_m(0.9, 0.95, "at least", runs=1000, count=950),), "reproduced"),
    ((_m(0.9, 0.9, "at least", runs=1000, count=900),), "INCONCLUSIVE"),
])
def test_experiment_rule(cells, status) -> None:
    d = decide_experiment(ExperimentEvidence("paper", tuple(cells)))
    assert d.status == status
    if status in ("reproduced", "not reproduced"):
        assert d.key is not None and d.key.ci_low <= d.key.measurement.measured <= d.key.ci_high


def test_experiment_alpha_is_split_over_compared_cells_and_any_wrong_cell_decides() -> None:
    cells = (_m(10.0, 5.0, std=1.0), _m(10.0, 20.0, std=1.0), _m(None, 1.0))
    d = decide_experiment(ExperimentEvidence("paper", cells), alpha=0.1)
    assert d.status == "not reproduced" and d.key.measurement.measured == 20.0
    assert [c.alpha for c in d.cells if c.alpha is not None] == pytest.approx([0.05, 0.05])
    with pytest.raises(ValueError, match="direction"):
        _m(1.0, 1.0, "about")


def test_check_and_ledger_json_with_verdicts_follow_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.reports.ledger import LedgerRow, Statement, TestRef, TestStatus
    from dpaudit.schema import envelope, load_schema

    for bound in (200.0, 50.0, 99.0):
        report = run_check(_spec(100.0, bound), alpha=0.05)
        jsonschema.validate(envelope("check", report.exit_code, report.to_dict()),
                            load_schema())
    st = Statement("P", "Thm 1", "lower bound", "necessary (theorem)", "lb",
                   (TestRef("experiment", "x"),))
    numbers = {"paper_value": 2.0, "measured": 5.0, "ci_low": 4.0, "ci_high": 6.0, "runs": 9}
    for status, nums in (("reproduced", numbers), ("vacuous", {**numbers, "paper_value": 0.3}),
                         ("run", {})):
        row = LedgerRow(st, (TestStatus(st.tests[0], status, "", nums),))
        doc = envelope("claims", 0, {"statements": [row.to_dict()]})
        jsonschema.validate(doc, load_schema())
        assert row.status == status
    # a reproduced status without its numbers breaks the contract
    bad = LedgerRow(st, (TestStatus(st.tests[0], "reproduced", "", {}),))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(envelope("claims", 0, {"statements": [bad.to_dict()]}),
                            load_schema())


def test_the_ledger_takes_the_experiments_evidence_never_its_flag() -> None:
    from dpaudit.experiments import ExperimentOutput, Table
    from dpaudit.reports.ledger import experiment_outcome

    table = Table(("x",), ())
    flagged = ExperimentOutput(None, table, "", reproduced=True, verdict="looks fine")
    assert experiment_outcome(flagged) == ("run", "looks fine", {})
    ev = ExperimentEvidence("Thm: regret <= 10", (_m(10.0, 15.0, std=1.0),))
    out = ExperimentOutput(None, table, "", reproduced=True, evidence=ev)
    # a sampled comparison without its confirmation at 4x the runs decides nothing
    status, detail, numbers = experiment_outcome(out)
    assert status == "INCONCLUSIVE" and "no confirmation" in detail
    assert numbers["stable"] is False
    status, detail, numbers = experiment_outcome(out, out)
    assert status == "not reproduced" and "wrong side" in detail
    assert numbers["stable"] is True and numbers["interval_method"] == "hoeffding-bernstein"
    assert numbers["paper_value"] == 10.0 and numbers["measured"] == 15.0
    assert numbers["runs"] == 300 and numbers["ci_low"] > 10.0


def test_reproduce_writes_the_decided_status_beside_the_narration(tmp_path) -> None:
    from dpaudit.experiments import (
        Experiment,
        ExperimentOutput,
        Table,
        new_figure,
        run_experiment,
    )

    def run(settings):
        fig, _ = new_figure()
        ev = ExperimentEvidence("Thm: regret <= 10", (_m(10.0, 5.0, std=1.0),))
        return ExperimentOutput(fig, Table(("x",), ((1,),)), "narration", evidence=ev)

    exp = Experiment("toy-exp", "P", "toy", run)
    _, _, md, _ = run_experiment(exp, exp.settings(horizon=10, runs=2), tmp_path)
    text = md.read_text()
    assert "**reproduced**" in text and "Key cell cell: measured 5" in text
