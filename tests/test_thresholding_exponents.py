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
