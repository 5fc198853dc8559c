"""The anytime-valid interval (dpaudit.stats.sequential) and running until decided
(dpaudit.runtime.batches).

The betting confidence sequence is checked against a plain per-run loop written from
Waudby-Smith & Ramdas (2023) and against values computed with the authors' own code
(``confseq`` 0.0.11, ``confseq.betting.betting_mart`` with ``theta=1/2, trunc_scale=1/2``, its
defaults; run once by hand, since confseq does not install here: numpy 2 and a C++ build). Its
coverage is measured under optional stopping: peeking after every batch and stopping at the
first look that misses, the worst stopping rule there is. Statistical tests are seeded and state
their false-failure probability; thresholds are binomial quantiles at it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.runtime.batches import (
    STOP_DECIDED,
    STOP_RUN_CAP,
    STOP_SINGLE,
    STOP_TIME_CAP,
    BatchPlan,
    batch_seed,
    describe,
    run_batches,
)
from dpaudit.stats.evidence import RegretEvidence, decide_regret
from dpaudit.stats.intervals import MeanInterval, student_t_interval
from dpaudit.stats.rng import generator
from dpaudit.stats.rule import ratio_bounds
from dpaudit.stats.sequential import (
    TRUNCATION,
    betting_interval,
    lower_limit,
    predictable_bets,
    projected_half_width,
    runs_to_settle_sequential,
    upper_limit,
)
from dpaudit.validation import InvalidParameterError

# a fixed sequence in [0, 1], skewed towards 0 like regret on its range
X = ((np.arange(1, 41) * 0.6180339887498949) % 1.0) ** 4
# confseq 0.0.11: betting_mart(X, m, alpha=0.1, theta=0.5, trunc_scale=0.5)[-1], i.e. the
# hedged capital max(K+ / 2, K- / 2) after the 40 values
CONFSEQ = {0.05: 206.93246520219134, 0.1: 10.569873623543465, 0.2: 0.36336542026235663,
           0.4: 142.64364845521283}
# and the grid CS of confseq.betting.cs_from_martingale on a 1e-5 grid: [0.10087, 0.32075]
CONFSEQ_GRID = (0.10087, 0.32075)


def _plain_capitals(x: np.ndarray, m: float, alpha_side: float) -> tuple[float, float]:
    """``(K+, K-)`` after all of ``x``, one run at a time (no numpy), from the paper."""
    s, ss = 0.0, 0.0
    kp = km = 1.0
    for t, xi in enumerate(x, start=1):
        var_prev = (0.25 + ss) / t  # sigma2_{t-1}, regularised by one fake run of variance 1/4
        lam = math.sqrt(2 * math.log(1 / alpha_side) / (var_prev * t * math.log(1 + t)))
        kp *= 1 + min(lam, TRUNCATION / m) * (xi - m)
        km *= 1 - min(lam, TRUNCATION / (1 - m)) * (xi - m)
        s += xi
        mu_t = (0.5 + s) / (t + 1)
        ss += (xi - mu_t) ** 2
    return kp, km


@pytest.mark.parametrize("m", sorted(CONFSEQ))
def test_the_capital_is_the_papers_and_confseqs(m: float) -> None:
    kp, km = _plain_capitals(X, m, 0.05)
    bets = predictable_bets(X, alpha=0.05)
    ours_p = float(np.prod(1 + np.minimum(bets, TRUNCATION / m) * (X - m)))
    ours_m = float(np.prod(1 - np.minimum(bets, TRUNCATION / (1 - m)) * (X - m)))
    assert ours_p == pytest.approx(kp, rel=1e-12) and ours_m == pytest.approx(km, rel=1e-12)
    assert max(kp, km) / 2 == pytest.approx(CONFSEQ[m], rel=1e-12)


def test_the_limits_are_where_the_capital_crosses_and_match_confseqs_grid() -> None:
    lo, hi = lower_limit(X, alpha=0.05), upper_limit(X, alpha=0.05)
    assert CONFSEQ_GRID[0] - 1e-5 <= lo <= CONFSEQ_GRID[0]
    assert CONFSEQ_GRID[1] <= hi <= CONFSEQ_GRID[1] + 1e-5
    # the limit is rejected (capital >= 2 / alpha, never reported tighter than the CS) and
    # a point just inside is not
    assert _plain_capitals(X, lo, 0.05)[0] >= 20.0 > _plain_capitals(X, lo + 1e-9, 0.05)[0]
    assert _plain_capitals(X, hi, 0.05)[1] >= 20.0 > _plain_capitals(X, hi - 1e-9, 0.05)[1]
    iv = betting_interval(X * 50.0 + 10.0, low=10.0, high=60.0, alpha=0.1)
    assert iv.method == "betting-cs" and iv.runs == 40
    assert iv.low == pytest.approx(10.0 + 50.0 * lo) and iv.high == pytest.approx(10 + 50 * hi)
    assert iv.low <= iv.mean <= iv.high


def test_looks_give_the_running_intersection() -> None:
    rng = generator(5, "looks")
    v = rng.beta(0.5, 6.0, 400)
    each = [betting_interval(v[:k], low=0.0, high=1.0, alpha=0.1) for k in (50, 100, 400)]
    both = betting_interval(v, low=0.0, high=1.0, alpha=0.1, looks=(50, 100, 400))
    assert both.low == max(i.low for i in each) and both.high == min(i.high for i in each)
    # a prefix's interval does not depend on the runs after it (the bets are predictable)
    assert betting_interval(v[:100], low=0.0, high=1.0, alpha=0.1).low == each[1].low


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(InvalidParameterError, match="outside the declared range"):
        betting_interval([0.5, 2.0], low=0.0, high=1.0, alpha=0.1)
    with pytest.raises(InvalidParameterError, match="above low"):
        betting_interval([0.5], low=1.0, high=1.0, alpha=0.1)
    with pytest.raises(InvalidParameterError, match="at least one run"):
        lower_limit([], alpha=0.1)
    with pytest.raises(InvalidParameterError, match="looks"):
        betting_interval([0.5, 0.2], low=0.0, high=1.0, alpha=0.1, looks=(3,))


def _heavy(rng: np.random.Generator, n: int, scale: float = 1e4) -> np.ndarray:
    """Regret-like runs in [0, scale]: 99.5% near 10 (Exp), 0.5% at ~1e3 x that (uniform on
    [scale / 2, scale]): a private bandit's rare run stuck on a bad arm."""
    body = np.minimum(rng.exponential(10.0, n), scale)
    return np.where(rng.random(n) < 0.005, rng.uniform(scale / 2, scale, n), body)


HEAVY_MEAN = 0.995 * 10.0 * (1 - math.exp(-1e3)) + 0.005 * 0.75e4  # 47.45


def _peeking_misses(reps: int, batch: int, looks: int, alpha: float, seed: int
                    ) -> tuple[int, int]:
    """Repetitions (of ``reps``) in which the betting CS, and Student-t, miss the mean at some
    look, peeking after each of ``looks`` batches of ``batch`` runs and stopping at the first
    look that misses (the adversarial stopping rule: the miss rate under it is the largest
    under any stopping rule)."""
    rng = generator(seed, "optional-stopping")
    miss_cs = miss_t = 0
    for _ in range(reps):
        x = _heavy(rng, batch * looks)
        marks = [batch * (k + 1) for k in range(looks)]
        for k in marks:
            iv = betting_interval(x[:k], low=0.0, high=1e4, alpha=alpha,
                                  looks=[j for j in marks if j <= k])
            if not iv.low <= HEAVY_MEAN <= iv.high:
                miss_cs += 1
                break
        for k in marks:
            t = student_t_interval(mean=float(x[:k].mean()), std=float(x[:k].std(ddof=1)),
                                   runs=k, alpha=alpha)
            if not t.low <= HEAVY_MEAN <= t.high:
                miss_t += 1
                break
    return miss_cs, miss_t


@pytest.mark.statistical
def test_coverage_under_optional_stopping_on_a_heavy_tailed_law() -> None:
    """800 repetitions, alpha = 0.1, peeking after each of 8 batches of 20 runs. The CS misses
    with probability <= 0.1 at any stopping time: misses ~ Bin(800, <= 0.1), and we fail above
    the 1 - 1e-6 quantile (false-failure probability <= 1e-6). Student-t misses whenever the
    first 20 runs hold no tail run (0.995^20 = 0.905): misses ~ Bin(800, >= 0.9); we assert
    more than the 1e-6 quantile of Bin(800, 0.85) (false-failure probability <= 1e-6)."""
    miss_cs, miss_t = _peeking_misses(800, 20, 8, 0.1, 41)
    assert miss_cs <= stats.binom.ppf(1 - 1e-6, 800, 0.1)
    assert miss_t > stats.binom.ppf(1e-6, 800, 0.85)


@pytest.mark.slow
@pytest.mark.statistical
def test_coverage_under_optional_stopping_many_looks() -> None:
    """The larger twin: 3000 repetitions, 20 batches of 10 runs, alpha = 0.05; thresholds as
    above (false-failure probability <= 1e-6 each)."""
    miss_cs, miss_t = _peeking_misses(3000, 10, 20, 0.05, 42)
    assert miss_cs <= stats.binom.ppf(1 - 1e-6, 3000, 0.05)
    assert miss_t > stats.binom.ppf(1e-6, 3000, 0.9)


@pytest.mark.statistical
def test_a_ratio_of_two_sequences_covers_under_optional_stopping() -> None:
    """Ratio of two heavy means (the numerator's law scaled by 3, true ratio 3), each CS at
    alpha / 2 = 0.1, 300 repetitions peeking after each of 5 batches of 20: misses ~
    Bin(300, <= 0.2); fail above the 1 - 1e-6 quantile (false-failure probability <= 1e-6)."""
    rng = generator(43, "ratio-stopping")
    miss = 0
    for _ in range(300):
        a = 3.0 * _heavy(rng, 100, scale=1e4 / 3.0)
        b = _heavy(rng, 100, scale=1e4 / 3.0)
        for k in range(20, 101, 20):
            marks = list(range(20, k + 1, 20))
            num = betting_interval(a[:k], low=0.0, high=1e4, alpha=0.1, looks=marks)
            den = betting_interval(b[:k], low=0.0, high=1e4 / 3.0, alpha=0.1, looks=marks)
            lo, hi = ratio_bounds(num, den)
            if not lo <= 3.0 <= hi:
                miss += 1
                break
    assert miss <= stats.binom.ppf(1 - 1e-6, 300, 0.2)


def test_runs_to_settle_is_an_estimate_that_shrinks_with_the_gap() -> None:
    far = runs_to_settle_sequential(mean=0.03, std=0.005, value=0.2, alpha=0.05)
    near = runs_to_settle_sequential(mean=0.03, std=0.005, value=0.05, alpha=0.05)
    assert far is not None and near is not None and 2 <= far < near
    assert runs_to_settle_sequential(mean=0.1, std=0.01, value=0.1, alpha=0.05) is None
    # the projection is a half-width that falls with the runs
    widths = [projected_half_width(runs=n, std=0.1, alpha=0.025) for n in (10, 10**3, 10**7)]
    assert widths[0] > widths[1] > widths[2] > 0
    ratio = runs_to_settle_sequential(mean=0.3, std=0.01, value=1.0, alpha=0.05,
                                      ratio_to=(0.1, 0.01))
    assert ratio is not None and ratio >= 2


def test_a_regret_verdict_on_kept_runs_uses_the_sequence() -> None:
    rng = generator(6, "regret-cs")
    v = np.minimum(rng.exponential(1600.0, 60), 5e4)
    ev = RegretEvidence(float(v.mean()), float(v.std(ddof=1)), 60, 9889.0, 5e4, values=v,
                        looks=(20, 40, 60))
    d = decide_regret(ev, alpha=0.05)
    iv = betting_interval(v, low=0.0, high=5e4, alpha=0.05, looks=(20, 40, 60))
    assert d.lower_method == "betting-cs" and (d.ci_low, d.ci_high) == (iv.low, iv.high)
    # without the runs (a report stored before they were kept) the fixed-n interval decides
    old = decide_regret(RegretEvidence(ev.mean, ev.std, 60, 9889.0, 5e4), alpha=0.05)
    assert old.lower_method == "hoeffding-bernstein"


# -- running until decided -----------------------------------------------------------------

def test_batches_double_have_their_own_seeds_and_stop_when_decided() -> None:
    seen: list[tuple[int, int, int]] = []

    def run(index: int, size: int, seed: int) -> int:
        seen.append((index, size, seed))
        return size

    done = run_batches(run, plan=BatchPlan(20, 10_000), seed=7, key="k",
                       decided=lambda r, looks: looks[-1] >= 160)
    assert [s for _, s, _ in seen] == [20, 20, 40, 80] and done.looks == (20, 40, 80, 160)
    assert done.stopped == STOP_DECIDED and seen[0][2] == 7
    seeds = [s for _, _, s in seen]
    assert len(set(seeds)) == 4 and seeds == [batch_seed(7, "k", i) for i in range(4)]
    assert batch_seed(7, "k", 2) != batch_seed(7, "other", 2) != batch_seed(8, "k", 2)
    assert "160 = 20 + 20 + 40 + 80" in describe(done.to_dict())


def test_the_run_cap_cuts_the_last_batch_and_stops() -> None:
    done = run_batches(lambda i, n, s: n, plan=BatchPlan(20, 100), seed=1, key="k",
                       decided=lambda r, looks: False)
    assert done.sizes == (20, 20, 40, 20) and done.stopped == STOP_RUN_CAP
    unit = run_batches(lambda i, n, s: n, plan=BatchPlan(20, 110, unit=20), seed=1, key="k",
                       decided=lambda r, looks: False)
    assert unit.sizes == (20, 20, 40, 20)  # a multiple of the unit: 10 more would not be
    single = run_batches(lambda i, n, s: n, plan=BatchPlan(20, 20), seed=1, key="k",
                         decided=lambda r, looks: False)
    assert single.sizes == (20,) and single.stopped == STOP_RUN_CAP
    none = run_batches(lambda i, n, s: n, plan=BatchPlan(20, 1000), seed=1, key="k",
                       decided=lambda r, looks: None)
    assert none.sizes == (20,) and none.stopped == STOP_SINGLE


def test_the_time_cap_adds_no_batch_that_would_end_after_it() -> None:
    now = [0.0]

    def run(index: int, size: int, seed: int) -> int:
        now[0] += size * 0.01  # 0.01 s a run
        return size

    done = run_batches(run, plan=BatchPlan(20, 10_000, max_seconds=2.0), seed=1, key="k",
                       decided=lambda r, looks: False, clock=lambda: now[0])
    # 20 runs end at 0.2 s, 40 at 0.4, 80 at 0.8, 160 at 1.6; 320 would end at 3.2 > 2
    assert done.sizes == (20, 20, 40, 80) and done.stopped == STOP_TIME_CAP
    assert "time cap" in describe(done.to_dict())


def test_caps_are_validated() -> None:
    with pytest.raises(InvalidParameterError):
        BatchPlan(0, 10)
    with pytest.raises(InvalidParameterError):
        BatchPlan(10, 100, max_seconds=0.0)


def test_mean_interval_type_is_shared() -> None:
    iv = betting_interval([0.1, 0.2, 0.3], low=0.0, high=1.0, alpha=0.2)
    assert isinstance(iv, MeanInterval) and iv.alpha == 0.2


# -- the commands' loops -------------------------------------------------------------------

def _toy_spec():
    from dpaudit.engine import AuditSpec, CheckContext
    from dpaudit.sim.regret import summarise_regret

    def regret(ctx: CheckContext):
        # 20 runs a call, regret in [0, 100] with mean 40 against a bound of 50
        v = ctx.rng("regret").uniform(20.0, 60.0, 20)
        return summarise_regret(v, instance="toy", algorithm="toy", horizon=100, bound=50.0,
                                bound_name="toy bound", means=(1.0, 0.0))

    return AuditSpec("toy", "a toy regret", "none", (), default_epsilon=1.0,
                     default_delta=0.0, regret=regret)


def test_check_adds_calls_of_its_regret_experiment_until_decided() -> None:
    from dpaudit.engine import run_check

    spec = _toy_spec()
    once = run_check(spec).regret
    assert once is not None and once.runs == 20 and once.batching is None
    assert once.verdict.value == "INCONCLUSIVE"
    done = run_check(spec, regret_max_runs=10_000)
    r = done.regret
    assert r is not None and r.verdict.value == "CONSISTENT" and r.batching is not None
    assert r.batching["stopped"] == STOP_DECIDED and r.runs % 20 == 0 and r.runs > 20
    assert r.looks == tuple(np.cumsum(r.batching["batch_runs"]))
    assert r.decision is not None and r.decision.lower_method == "betting-cs"
    # the first call is the check's own (same seed), and a rerun gives the same report
    assert np.array_equal(r.values[:20], once.values)
    again = run_check(spec, regret_max_runs=10_000).regret
    assert again is not None
    assert again.to_dict() | {"seconds": 0} == r.to_dict() | {"seconds": 0}
    capped = run_check(spec, regret_max_runs=20).regret  # the cap is the first call
    assert capped is not None and capped.runs == 20 and capped.verdict.value == "INCONCLUSIVE"
    assert capped.batching is not None and capped.batching["stopped"] == STOP_RUN_CAP


def test_simulate_runs_until_decided_with_the_same_numbers_for_any_workers() -> None:
    from dpaudit.sim.simulation import simulate_policy

    one = simulate_policy("adap-ucb", horizon=10**5, runs=20, workers=1, max_runs=10_000)
    two = simulate_policy("adap-ucb", horizon=10**5, runs=20, workers=2, max_runs=10_000)
    assert one.numbers() == two.numbers()
    assert one.runs == 40 and one.batching is not None
    assert one.batching["stopped"] == STOP_DECIDED and one.decision.verdict.value == "CONSISTENT"
    first = simulate_policy("adap-ucb", horizon=10**5, runs=20, workers=1)
    assert first.runs == 20 and first.decision.verdict.value == "INCONCLUSIVE"
    assert first.batching is None and first.mean == pytest.approx(float(one.values[:20].mean()))


def test_a_batch_above_keep_runs_is_appended_to_its_cell(monkeypatch, tmp_path) -> None:
    """An experiment's added batches keep their runs at any size: a batch of more than
    KEEP_RUNS runs used to keep only its moments, so the cell silently stayed at its first
    batch's runs while the report counted them all (shown here with KEEP_RUNS at 300)."""
    import json

    import dpaudit.stats.rule as rule
    from dpaudit.cli import main

    monkeypatch.setattr(rule, "KEEP_RUNS", 300)
    assert main(["reproduce", "azize-et-al-2025-thm2-rate", "--horizon", "100000", "--runs",
                 "200", "--max-runs", "1600", "--out", str(tmp_path), "--no-state"]) in (0, 1)
    doc = json.loads((tmp_path / "azize_et_al_2025_thm2_rate.json").read_text())
    assert doc["batching"]["batch_runs"] == [200, 200, 400, 800]
    for cell in doc["evidence"]["measurements"]:
        assert cell["runs"] == 1600
        assert [(part["runs"], part["looks"]) for part in cell["ratio_of"]] == [
            (1600, [200, 400, 800, 1600])] * 2
