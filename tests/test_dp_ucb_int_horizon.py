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


def test_quick_run_decides_target_01_at_delta_1e10_exactly() -> None:
    """At the quick budget (PLD to 10^7 pulls, discretisation 1e-5) the target 0.1 is exceeded
    at delta' = 1e-10 from 10^6 pulls (the PLD's optimistic lower bound is above 0.1), target 1
    holds at both compared delta' up to the limit; the status is exact, no confirmation."""
    from dpaudit.stats.evidence import decide_experiment

    out = exp.horizon_experiment(exp.EXPERIMENTS[0].settings(quick=True))
    d = decide_experiment(out.evidence)
    assert d.status == "not reproduced" and d.stable is None
    wrong = {c.measurement.label for c in d.cells if c.outcome == "wrong side"}
    assert wrong == {"target 0.1, delta' 1e-10, n = 1e6", "target 0.1, delta' 1e-10, n = 1e7",
                     "target 0.1, delta' 1e-10, n = inf"}
    right = [c for c in d.cells if c.measurement.label.startswith("target 1,")]
    assert right and all(c.outcome == "right side" for c in right)
