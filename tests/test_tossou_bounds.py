"""Reconstructed Theorems 3.2 and 3.3 of Tossou & Dimitrakakis 2016
(``algorithms/tossou_dimitrakakis_2016/bounds.py``).

Independent sources: the Lambert-W step is checked symbolically (sympy) and against mpmath at
50 digits; the bound at a fixed ``x`` is recomputed from the formula with mpmath; UCB1's bound
(Auer, Cesa-Bianchi & Fischer 2002, Thm 1) is the floor the theorems add to.
"""

from __future__ import annotations

import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from dpaudit.algorithms.tossou_dimitrakakis_2016.bounds import (
    lambert_threshold,
    thm32_dp_ucb_bound_terms,
    thm32_dp_ucb_bound_upper,
    thm33_dp_ucb_terms,
    thm33_dp_ucb_upper,
)
from dpaudit.audits.tossou_dimitrakakis_2016 import dp_ucb, dp_ucb_bound
from dpaudit.audits.tossou_dimitrakakis_2016._tossou_common import FIG6_TWO_ARMS, ucb1_bound
from dpaudit.engine import CheckContext
from dpaudit.validation import InvalidParameterError

FIG6 = FIG6_TWO_ARMS
means_st = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=2, max_size=5).filter(
    lambda m: max(m) - min(m) > 1e-3)
horizons = st.integers(10, 10**7)
epsilons = st.floats(0.01, 50.0, allow_nan=False)
xs = st.floats(0.01, 0.99, allow_nan=False)


# --- the Lambert W_{-1} step of App. A.1 -----------------------------------------------------

def test_lambert_step_symbolic():
    """n = -b W_{-1}(-1/(e b)) satisfies n = b (ln n + 1): write w = W (w < -1, w e^w = z), so
    b = -1/(e z) = -e^(-1-w)/w and n = -b w = e^(-1-w); sympy reduces b (ln n + 1) - n to 0."""
    w = sp.Symbol("w", negative=True)
    b = -sp.exp(-1 - w) / w
    n = -b * w
    assert sp.simplify(b * (sp.log(n) + 1) - n) == 0
    assert sp.simplify(n - sp.exp(-1 - w)) == 0


@pytest.mark.parametrize("b", [1.0 + 1e-9, 1.001, 1.5, 2.0, 10.0, 893.7, 1e4, 1e8, 1e15])
def test_lambert_threshold_matches_mpmath_and_solves_the_inequality(b):
    with mpmath.workdps(50):
        ref = -mpmath.mpf(b) * mpmath.lambertw(-1 / (mpmath.e * mpmath.mpf(b)), -1).real
        assert abs(ref - mpmath.mpf(b) * (mpmath.log(ref) + 1)) < mpmath.mpf(10) ** -40
    n0 = lambert_threshold(b)
    assert n0 == pytest.approx(float(ref), rel=1e-12)
    if b >= 1.5:  # scipy's lambertw agrees away from the branch point b = 1
        assert n0 == pytest.approx(-b * special.lambertw(-1 / (math.e * b), k=-1).real,
                                   rel=1e-12)
    # the larger root: the inequality holds after it and fails just before it
    grid = n0 * np.geomspace(1.0 + 1e-9, 1e6, 200)
    assert np.all(grid >= b * (np.log(grid) + 1.0))
    below = n0 * (1.0 - 1e-6)
    assert below < b * (math.log(below) + 1.0)


@pytest.mark.parametrize("b", [0.01, 0.5, 1.0])
def test_lambert_threshold_small_b_is_one(b):
    assert lambert_threshold(b) == 1.0
    grid = np.linspace(1.0, 100.0, 1000)
    assert np.all(grid >= b * (np.log(grid) + 1.0))


def test_barry_approximation_and_upper_bound():
    """Barry et al. 2000 state relative errors of about 0.02%; Chatzigeorgiou 2013's bound is
    above the exact root everywhere."""
    for b in np.geomspace(1.0001, 1e12, 300):
        exact = lambert_threshold(float(b))
        assert abs(lambert_threshold(float(b), "barry") / exact - 1.0) < 3e-4
        assert lambert_threshold(float(b), "upper") >= exact


# --- the bounds --------------------------------------------------------------------------

@pytest.mark.parametrize("eps", [0.1, 1.0, 8.0])
def test_thm32_at_fixed_x_recomputed_with_mpmath(eps):
    """Recompute the formula of the docstring by hand, at x = 1/2 and T = 10^5."""
    T, x, gap = 10**5, 0.5, 0.3
    with mpmath.workdps(30):
        lt4 = mpmath.log(4 * mpmath.mpf(T) ** 4)
        b = 2 * mpmath.sqrt(8) * lt4 / ((1 - x) * eps * gap)
        priv = -b * mpmath.lambertw(-1 / (mpmath.e * b), -1).real
        ucb = 8 * mpmath.log(T) / (x * gap) ** 2
        ref = gap * (max(priv, ucb) + 1 + 2 * mpmath.pi**2 / 3)
    assert thm32_dp_ucb_bound_upper(FIG6, T, eps, x=x) == pytest.approx(float(ref), rel=1e-12)


def test_thm33_time_reading_at_fixed_x():
    T, x, gap, eps = 10**5, 0.5, 0.3, 1.0
    h = math.sqrt(8) / eps * math.log(4 * T**4) * (math.log(T) + 1)
    ref = gap * (max(8 * math.log(T) / (x * gap) ** 2, 2 * h / ((1 - x) * gap))
                 + 1 + 2 * math.pi**2 / 3)
    assert thm33_dp_ucb_upper(FIG6, T, eps, x=x) == pytest.approx(ref, rel=1e-12)


@given(means_st, horizons, epsilons)
@settings(max_examples=60, deadline=None)
def test_count_reading_of_thm33_is_thm32(means, horizon, eps):
    """With Eq. 2.2 read at the arm's count and p = 4, Theorem 3.3's steps are Theorem 3.2's
    (the "same transcendental form" of App. A.2): the numbers coincide."""
    horizon = max(horizon, len(means))
    assert thm33_dp_ucb_upper(means, horizon, eps, stream="count") == pytest.approx(
        thm32_dp_ucb_bound_upper(means, horizon, eps), rel=1e-12)


def test_zeta_constant():
    """Error probability t^-p: constant 1 + pi^2/3 + 2 zeta(p - 2); p = 4 gives 1 + 2 pi^2/3."""
    assert thm33_dp_ucb_terms(FIG6, 1000, 1.0).constant == pytest.approx(1 + 2 * math.pi**2 / 3)
    with mpmath.workdps(30):
        ref = 1 + mpmath.pi**2 / 3 + 2 * mpmath.zeta(1.5)
    assert thm33_dp_ucb_terms(FIG6, 1000, 1.0, error_exponent=3.5).constant == pytest.approx(
        float(ref), rel=1e-12)


@given(means_st, horizons, epsilons, st.one_of(st.none(), xs))
@settings(max_examples=80, deadline=None)
def test_bounds_at_least_ucb1(means, horizon, eps, x):
    """Both theorems add a privacy factor to UCB1's regret: never below UCB1's bound."""
    horizon = max(horizon, len(means))
    floor = ucb1_bound(means, horizon)
    assert thm32_dp_ucb_bound_upper(means, horizon, eps, x=x) >= floor
    assert thm33_dp_ucb_upper(means, horizon, eps, x=x) >= floor


@given(means_st, horizons, epsilons, st.floats(1.01, 10.0))
@settings(max_examples=60, deadline=None)
def test_monotone_in_eps_and_horizon(means, horizon, eps, factor):
    horizon = max(horizon, len(means))
    for f in (thm32_dp_ucb_bound_upper, thm33_dp_ucb_upper):
        b = f(means, horizon, eps)
        assert f(means, horizon, eps * factor) <= b * (1 + 1e-12)
        assert f(means, int(horizon * factor) + 1, eps) >= b * (1 - 1e-12)


@pytest.mark.parametrize("terms_of", [thm32_dp_ucb_bound_terms, thm33_dp_ucb_terms])
def test_free_x_is_the_minimiser(terms_of):
    best = terms_of(FIG6, 10**5, 1.0)
    assert best.ucb_pulls[0] == pytest.approx(best.privacy_pulls[0], rel=1e-9)
    for x in np.linspace(0.01, 0.99, 99):
        assert terms_of(FIG6, 10**5, 1.0, x=float(x)).bound >= best.bound * (1 - 1e-12)


def test_large_eps_limit_is_ucb1_with_the_union_constant():
    T = 10**5
    lim = 0.3 * (8 * math.log(T) / 0.09 + 1 + 2 * math.pi**2 / 3)
    for f in (thm32_dp_ucb_bound_upper, thm33_dp_ucb_upper):
        assert f(FIG6, T, 1e12) == pytest.approx(lim, rel=1e-9)


@pytest.mark.parametrize("kwargs", [
    {"x": 0.0}, {"x": 1.0}, {"x": float("nan")}, {"constant": -1.0}, {"lambert": "foo"},
    {"epsilon": 0.0}, {"epsilon": True}, {"horizon": 1}, {"means": (0.5, float("nan"))}])
def test_invalid_input(kwargs):
    args = {"means": FIG6, "horizon": 1000, "epsilon": 1.0, **kwargs}
    for f in (thm32_dp_ucb_bound_upper, thm33_dp_ucb_upper):
        with pytest.raises(InvalidParameterError):
            f(**args)


@pytest.mark.parametrize("kwargs", [{"stream": "foo"}, {"error_exponent": 3.0}])
def test_invalid_thm33_reading(kwargs):
    with pytest.raises(InvalidParameterError):
        thm33_dp_ucb_upper(FIG6, 1000, 1.0, **kwargs)


def test_single_arm_has_zero_regret_bound():
    assert thm32_dp_ucb_bound_upper((0.5,), 10, 1.0) == 0.0


# --- the premise Eq. 2.2 (finding recorded in the docstring and the docs) ---------------------

def _tail_diff_gamma(m: int, scale: float, a: float) -> float:
    """P(G1 - G2 > a), G1, G2 iid Gamma(m, scale): the sum of m iid Laplace(scale) exceeds a."""
    def f(g: float) -> float:
        return math.exp(stats.gamma.logpdf(g, m, scale=scale)
                        + stats.gamma.logsf(a + g, m, scale=scale))
    return integrate.quad(f, 0, np.inf, limit=500, epsabs=0, epsrel=1e-10)[0]


def test_eq22_premise_fails_for_the_implemented_counter():
    """At T = 10^5, element n = 2^16 - 1 of a hybrid counter sums 15 block-15 tree nodes of
    scale 15/(eps/2) (plus log-part noise, symmetric and independent, which can only widen
    the tail beyond half of this one). Eq. 2.2 with C = sqrt(8) and gamma = T^-4 claims the
    error exceeds (C/eps) ln(4 T^4)(ln n + 1) with probability <= 1e-20; the tree part alone
    exceeds it with probability about 3.6e-14 (eps cancels: everything scales with 1/eps)."""
    T, n = 10**5, 2**16 - 1
    nu = math.sqrt(8) * math.log(4 * T**4) * (math.log(n) + 1)
    p = 2 * _tail_diff_gamma(15, 2 * 15, nu)
    assert p / 2 > 1e3 * T**-4.0
    assert p == pytest.approx(3.6456e-14, rel=1e-3)
    page = (Path(__file__).resolve().parents[1] / "docs" / "tossou_dimitrakakis.md").read_text()
    assert f"with probability `{p:.1e}`, not `<= 1e-20`" in page  # the figure the page quotes
    # the same quadrature reproduces a closed form: m = 1 is one Laplace, tail e^(-a/b)/2
    assert _tail_diff_gamma(1, 2.0, 7.0) == pytest.approx(0.5 * math.exp(-3.5), rel=1e-9)


# --- the checks' verdicts ------------------------------------------------------------------

#: false-failure probability of each comparison below if the theorem holds (the rule's
#: distribution-free interval of the mean regret, the betting confidence sequence on [0, T max
#: gap], two-sided at 2 ALPHA: its lower limit is above the bound with probability <= ALPHA);
#: 6 comparisons
ALPHA = 1e-6


@pytest.mark.statistical
@pytest.mark.parametrize("module", [dp_ucb_bound, dp_ucb])
@pytest.mark.parametrize("eps", [0.1, 1.0, 8.0])
def test_measured_regret_within_reconstructed_bound(module, eps):
    """Quick budget (T = 10^4, 20 runs, default seed): the rule's 1 - ALPHA lower limit of the
    mean regret (distribution-free, valid for heavy tails) is below the reconstructed bound,
    so the verdict is not VIOLATED (a failure would say the theorem, as reconstructed, is
    contradicted by measurement)."""
    from dpaudit.stats.evidence import decide_regret, regret_evidence
    from dpaudit.stats.results import Verdict

    spec = module.AUDITS[0]
    res = spec.regret(CheckContext(epsilon=eps, delta=0.0, quick=True))
    assert res.bound is not None and "Theorem 3." in res.bound_name
    assert res.max_per_run is not None  # the range that makes the interval distribution-free
    d = decide_regret(regret_evidence(res), alpha=2 * ALPHA)
    assert d.verdict is not Verdict.VIOLATED and d.lower_limit <= res.bound
    assert res.within_bound
