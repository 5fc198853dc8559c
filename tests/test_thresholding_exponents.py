"""Upper against lower bounds of Barbara, Lazzaro & Pike-Burke 2025 (experiment
``ldp-thresholding-exponents``): the symbolic identity and its numeric form. Deterministic."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.bounds import (
    complexity,
    private_complexity,
)
from dpaudit.audits.barbara_lazzaro_pike_burke_2025 import exponents as ex


def test_fixed_budget_rate_ratio_is_c_c_prime_times_e_eps_plus_one_squared() -> None:
    eps, c, cp = sp.symbols("epsilon c c_prime", positive=True)
    assert sp.simplify(ex.symbolic_rate_ratio() - c * cp * (sp.exp(eps) + 1) ** 2) == 0


@pytest.mark.parametrize("eps", [0.05, 1.0, 8.0])
def test_numeric_ratio_equals_the_rates_of_the_bounds_module(eps: float) -> None:
    means, tau = (0.1, 0.35, 0.65, 0.9), 0.5
    h, h_eps = complexity(means, tau), private_complexity(means, tau, eps)
    r_up, r_low = 1.0 / (16.0 * h_eps), 16.0 * math.expm1(eps) ** 2 / h
    assert r_low / r_up == pytest.approx(ex.rate_ratio(eps), rel=1e-12)


def test_mismatch_is_constant_at_small_eps_and_grows_like_e_2eps() -> None:
    assert ex.rate_ratio(1e-6) == pytest.approx(4 * 16 * 16, rel=1e-5)
    assert ex.rate_ratio(8.0) / ex.rate_ratio(7.0) == pytest.approx(
        ((math.exp(8) + 1) / (math.exp(7) + 1)) ** 2, rel=1e-12)


def test_confidence_ratio_grows_where_kl_outgrows_the_squared_gap() -> None:
    near_half = ex.confidence_ratio((0.1, 0.35, 0.65, 0.9), 0.5, 0.5)
    near_zero = ex.confidence_ratio((0.001, 0.01, 0.3, 0.5), 0.1, 0.5)
    assert near_zero > near_half > 0


@pytest.mark.parametrize("eps", [0.05, 1.0, 8.0])
def test_exponent_ratio_is_the_upper_exponent_over_the_lower(eps: float) -> None:
    """The cell per eps is the ratio itself: ``(T / (16 H^eps)) / (16 (e^eps - 1)^2 T / H)``."""
    means, tau, t = (0.1, 0.35, 0.65, 0.9), 0.5, 1000.0
    h, h_eps = complexity(means, tau), private_complexity(means, tau, eps)
    upper_exponent, lower_exponent = t / (16.0 * h_eps), 16.0 * math.expm1(eps) ** 2 * t / h
    assert ex.exponent_ratio(eps) == pytest.approx(upper_exponent / lower_exponent, rel=1e-12)


def test_limits_that_decide_the_statement() -> None:
    """As eps -> 0 (the paper's reading) the fixed-budget ratio tends to 4 c c' (sympy), and
    the fixed-confidence limit is at most 8 c'' / (tau (1 - tau)) on every instance (the
    chi-square bound on kl), here on the experiment's instances and on a grid of others."""
    assert ex.rate_ratio_limit() == 4 * 16 * 16
    assert ex.rate_ratio_limit(c=64.0) == 4 * 64 * 16
    assert ex.confidence_limit((0.1, 0.35, 0.65, 0.9), 0.5) == pytest.approx(
        ex.confidence_ratio((0.1, 0.35, 0.65, 0.9), 0.5, 1e-7), rel=1e-5)
    for means, tau in ex.INSTANCES.values():
        assert ex.confidence_limit(means, tau) <= ex.confidence_constant(tau)
    for tau in (0.05, 0.3, 0.5, 0.9):
        for mu in (1e-6, 0.01, 0.2, 0.49, 0.51, 0.8, 0.999999):
            if mu != tau:
                assert ex.confidence_limit((mu,), tau) <= ex.confidence_constant(tau) * (
                    1 + 1e-12)


def test_experiment_decides_as_the_paper_reads_it() -> None:
    """Exact cells only (runs = 0): every eps has its ratio cell (not compared), the limits
    are compared, and the rule gives ``reproduced`` with no confirmation needed."""
    from dpaudit.registry import all_experiments
    from dpaudit.stats.evidence import decide_experiment

    exp = all_experiments()[ex.NAME]
    out = exp.run(exp.settings(quick=True))
    cells = out.evidence.measurements
    assert all(m.runs == 0 for m in cells)
    per_eps = [m for m in cells if m.paper_value is None]
    assert [m.measured for m in per_eps] == [ex.exponent_ratio(e) for e in ex.EPSILONS]
    d = decide_experiment(out.evidence, confirm_required=True)
    assert d.status == "reproduced" and d.stable is None


def test_ledger_note_numbers_are_the_computed_ratios() -> None:
    """The exponent ratios the ledger's note quotes (1/1024, 1/3540, 1/2.28e9)."""
    from dpaudit.audits.barbara_lazzaro_pike_burke_2025.statements import STATEMENTS

    note = next(s.note for s in STATEMENTS if s.location.startswith("Sec. 3.2 and 4.2"))
    for eps, shown in ((0.0, "1/1024"), (1.0, "1/3540"), (8.0, "1/2.28e9")):
        assert shown in note
        # rounded to the digits shown: within half a unit of the third significant digit
        assert 1.0 / ex.exponent_ratio(eps) == pytest.approx(float(shown[2:]), rel=5e-3)
