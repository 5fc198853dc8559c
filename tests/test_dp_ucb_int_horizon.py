"""DP-UCB-Int over long horizons: binned PLD brackets and the RDP limit (Tossou & Dimitrakakis
2016, Theorem 3.4; the experiment ``tossou-dp-ucb-int-horizon``). All checks are deterministic."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant as rdp_ref

from dpaudit.audits.tossou_dimitrakakis_2016 import dp_ucb_int_horizon as exp
from dpaudit.mechanisms import interval_release as ir
from dpaudit.validation import InvalidParameterError

TARGET_1 = 0.00396431694945  # the paper's printed input for target epsilon 1


@pytest.mark.parametrize("n", [1, 5, 32, 33, 100, 12345])
def test_release_bins_partition_the_releases(n: int) -> None:
    bins = ir.release_bins(n)
    assert bins[0][0] == 1 and bins[-1][1] == n
    assert all(b[0] == a[1] + 1 for a, b in zip(bins, bins[1:], strict=False))
    assert all(lo <= hi for lo, hi in bins)


@pytest.mark.parametrize("eps", [1e-4, 1e-2, 0.5, 3.0])
@pytest.mark.parametrize("order", [1.25, 2.0, 32.0, 1024.0])
def test_laplace_rdp_matches_dp_accounting(eps: float, order: float) -> None:
    # independent source: dp-accounting's scalar implementation of Mironov 2017, Prop. 6
    ours = float(ir.laplace_rdp(np.array([eps]), order)[0])
    assert ours == pytest.approx(rdp_ref._laplace_rdp(eps, order), rel=1e-10, abs=1e-15)


def test_binned_bracket_contains_the_release_by_release_accounting() -> None:
    pulls = 40 * math.ceil(1 / TARGET_1)  # 40 releases: 32 single bins, then grouped ones
    lo_b, hi_b = ir.pld_bracket_binned(TARGET_1, pulls=pulls, interval=1e-5)
    lo, hi = ir.pld_bracket(TARGET_1, pulls=pulls, interval=1e-5)
    for d in (1e-5, 1e-10):
        assert lo_b.get_epsilon_for_delta(d) <= hi.get_epsilon_for_delta(d) + 1e-9
        assert hi_b.get_epsilon_for_delta(d) >= lo.get_epsilon_for_delta(d) - 1e-9
        assert lo_b.get_epsilon_for_delta(d) <= hi_b.get_epsilon_for_delta(d)


def test_rdp_upper_is_an_upper_bound_and_grows_with_the_horizon() -> None:
    pulls = 10**5
    lo, _ = ir.pld_bracket_binned(TARGET_1, pulls=pulls, interval=1e-5)
    values = [ir.rdp_epsilon_upper(TARGET_1, 1e-5, pulls=n) for n in (10**4, pulls, 10**7)]
    assert values == sorted(values)
    assert values[1] >= lo.get_epsilon_for_delta(1e-5)
    assert ir.rdp_epsilon_upper(TARGET_1, 1e-5, pulls=math.inf) >= values[-1]


def test_rdp_upper_rejects_delta_zero() -> None:
    with pytest.raises(InvalidParameterError, match="delta"):
        ir.rdp_epsilon_upper(TARGET_1, 0.0)


@pytest.mark.parametrize(("low", "high", "expected"), [
    (0.01, 0.05, "below target"), (0.2, 0.3, "above target"), (0.05, 0.2, "undecided")])
def test_conclusion_reads_the_bracket(low: float, high: float, expected: str) -> None:
    assert exp.conclusion(0.1, low, high) == expected


def test_cells_are_exact_and_read_the_deciding_end() -> None:
    """A cell is exact (runs = 0, no confirmation asked) and carries the end of the bracket that
    decides it; a bracket containing the target is not compared."""
    below = exp.cell_measurement(1.0, 1e-5, 10**6, 0.39, 0.40)
    above = exp.cell_measurement(0.1, 1e-10, 10**6, 0.112, 0.113)
    open_ = exp.cell_measurement(0.1, 1e-5, math.inf, 0.07, 0.12)
    assert (below.runs, below.measured, below.paper_value) == (0, 0.40, 1.0)
    assert (above.measured, above.paper_value) == (0.112, 0.1)
    assert open_.paper_value is None and "undecided" in open_.note
    assert above.label == "target 0.1, delta' 1e-10, n = 1e6"
    assert open_.label.endswith("n = inf")


def test_implied_delta_is_the_corollarys_own() -> None:
    """The compared delta' of each target is the one its printed rate needs under the derived
    Corollary 3.1 (c = 1): ln(1/delta') = 19.73 for target 1 and 4.17 for target 0.1."""
    assert -math.log(exp.implied_delta(1.0)) == pytest.approx(19.7286, abs=1e-3)
    assert -math.log(exp.implied_delta(0.1)) == pytest.approx(4.1739, abs=1e-3)
    assert exp.deltas_of(0.1)[0] == exp.implied_delta(0.1)
    shown = exp.cell_measurement(0.1, 1e-10, 10**6, 0.112, 0.113, compared=False)
    assert shown.paper_value is None and "not compared" in shown.note


@pytest.mark.slow
def test_quick_run_decides_each_target_at_its_implied_delta() -> None:
    """At the quick budget (PLD to 10^7 pulls, the exact series at 10^7 and in the limit) both
    targets are met at the delta' their printed rates imply, at every n and in the limit
    (reproduced, exact, no confirmation); at delta' = 1e-10, shown beside and not compared,
    target 0.1 is exceeded from 10^6 pulls."""
    from dpaudit.stats.evidence import decide_experiment

    out = exp.horizon_experiment(exp.EXPERIMENTS[0].settings(quick=True))
    d = decide_experiment(out.evidence)
    assert d.status == "reproduced" and d.stable is None
    assert all(c.outcome == "right side" for c in d.cells if c.outcome != "not compared")
    above = {c.measurement.label for c in d.cells if c.outcome == "not compared"
             and "above target" in c.measurement.note}
    assert {"target 0.1, delta' 1e-10, n = 1e6", "target 0.1, delta' 1e-10, n = 1e7",
            "target 0.1, delta' 1e-10, n = inf"} <= above
