"""The Lemma-15 perturbation (Wang & Zhu 2023): CDF, density, sampler, limits, sympy form, Fact
4."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats
from strategies import centres, counts, deltas, epsilons, unit

from dpaudit.mechanisms import Lemma15Perturbation, lemma15_sympy
from dpaudit.mechanisms._twins import FaultyLemma15Perturbation
from dpaudit.validation import InvalidParameterError


@given(epsilons, deltas, counts, centres, st.lists(st.floats(-20, 20), min_size=2, max_size=20))
def test_cdf_monotone_and_in_unit_interval(eps, dl, n, x0, xs):
    pert = Lemma15Perturbation(eps, dl)
    x = np.sort(np.asarray(xs) / n + x0)
    f = pert.cdf(x, x0, n)
    assert np.all((f >= 0) & (f <= 1))
    assert np.all(np.diff(f) >= -1e-15)


@given(epsilons, deltas, counts, centres, unit)
def test_ppf_inverts_cdf(eps, dl, n, x0, u):
    pert = Lemma15Perturbation(eps, dl)
    x = pert.ppf(u, x0, n)
    assert abs(pert.cdf(x, x0, n) - u) < 1e-9


@given(epsilons, deltas, st.integers(1, 50), centres)
def test_density_integrates_to_cdf(eps, dl, n, x0):
    pert = Lemma15Perturbation(eps, dl)
    half = float(pert.half_width(n))
    a, b = x0 - half, x0 + 0.3 * half
    mass, _ = integrate.quad(lambda x: float(pert.pdf(x, x0, n)), a, b, points=[x0],
                             epsabs=1e-12)
    assert mass == pytest.approx(float(pert.cdf(b, x0, n)), abs=1e-8)


@given(epsilons, deltas, st.integers(1, 100), centres, st.floats(-3, 3))
def test_sympy_form_equals_numpy_form(eps, dl, n, x0, t):
    expr, sym = lemma15_sympy()
    half = float(Lemma15Perturbation(eps, dl).half_width(n))
    x = x0 + t * half * 0.7
    value = float(expr.subs({sym["x"]: x, sym["x0"]: x0, sym["N"]: n, sym["epsilon"]: eps,
                             sym["delta"]: dl}))
    assert value == pytest.approx(float(Lemma15Perturbation(eps, dl).cdf(x, x0, n)), abs=1e-10)


def test_continuity_and_centre():
    pert = Lemma15Perturbation(1.0, 0.01)
    half = float(pert.half_width(3))
    assert float(pert.cdf(2.0 - half, 2.0, 3)) == pytest.approx(0.0, abs=1e-15)
    assert float(pert.cdf(2.0, 2.0, 3)) == pytest.approx(0.5)
    assert float(pert.cdf(2.0 + half, 2.0, 3)) == pytest.approx(1.0)


def test_edge_band_mass_is_exactly_delta():
    # the paper's "F_1 <= F(x0 - A + 1/N) = delta" (proof of Lemma 15)
    for eps, dl, n in [(1.0, 0.01, 1), (0.3, 1e-4, 17), (5.0, 0.2, 3)]:
        pert = Lemma15Perturbation(eps, dl)
        edge = -float(pert.half_width(n))
        assert float(pert.cdf(edge + 1.0 / n, 0.0, n)) == pytest.approx(dl, rel=1e-9)


def test_fact4_tail_is_one_over_t():
    # Wang & Zhu 2023, Fact 4: F(x0 - (1/(N eps)) log((T(e^eps-1)+2T d)/(2(e^eps-1)+2T d))) = 1/T
    for eps, dl, t, n in [(1.0, 0.01, 10**5, 4), (0.1, math.exp(-10), 10**4, 1)]:
        a = math.expm1(eps)
        r = math.log((t * a + 2 * t * dl) / (2 * a + 2 * t * dl)) / (n * eps)
        assert float(Lemma15Perturbation(eps, dl).cdf(-r, 0.0, n)) == pytest.approx(1 / t, rel=1e-9)


def test_delta_zero_limit_is_laplace():
    pert = Lemma15Perturbation(0.7, 0.0)
    x = np.linspace(-5, 5, 41)
    assert np.allclose(pert.cdf(x, 0.0, 2), stats.laplace.cdf(x, scale=1 / (2 * 0.7)))
    # and small delta approaches it
    near = Lemma15Perturbation(0.7, 1e-12)
    assert np.allclose(near.cdf(x, 0.0, 2), pert.cdf(x, 0.0, 2), atol=1e-9)


def test_epsilon_zero_limit_is_uniform():
    pert = Lemma15Perturbation(0.0, 0.05)
    x = np.linspace(-6, 6, 49)
    assert np.allclose(pert.cdf(x, 0.0, 2), stats.uniform.cdf(x, loc=-5, scale=10))
    near = Lemma15Perturbation(1e-9, 0.05)
    assert np.allclose(near.cdf(x, 0.0, 2), pert.cdf(x, 0.0, 2), atol=1e-7)


@pytest.mark.statistical
def test_sampler_matches_cdf():
    # Kolmogorov-Smirnov at significance 1e-4: a correct sampler fails with probability 1e-4
    rng = np.random.default_rng(11)
    for eps, dl in [(1.0, 0.01), (0.0, 0.1), (2.0, 0.0)]:
        pert = Lemma15Perturbation(eps, dl)
        draws = pert.sample(0.3, 5, rng=rng, size=20_000)
        result = stats.kstest(draws, lambda x, p=pert: p.cdf(x, 0.3, 5))
        assert result.pvalue > 1e-4


@pytest.mark.parametrize("eps,dl", [(-1, 0.1), (0, 0), (1, 1), (math.nan, 0.1), ("1", 0.1)])
def test_bad_parameters(eps, dl):
    with pytest.raises(InvalidParameterError):
        Lemma15Perturbation(eps, dl)


def test_bad_counts():
    with pytest.raises(InvalidParameterError):
        Lemma15Perturbation(1, 0.1).cdf(0.0, 0.0, 0)


def test_faulty_variant_doubles_the_rate():
    good, bad = Lemma15Perturbation(1.0, 0.01), FaultyLemma15Perturbation(1.0, 0.01)
    assert float(bad.half_width(3)) == pytest.approx(float(good.half_width(6)))
    # the shifted-density ratio inside the support reaches e^(2 eps) at a shift of 1/N
    ratio = bad.pdf(0.1, 0.0, 3) / bad.pdf(0.1 + 1 / 3, 0.0, 3)
    assert float(ratio) == pytest.approx(math.exp(2.0))


def test_sympy_symbols_assumptions():
    _, sym = lemma15_sympy()
    assert sym["N"].is_positive and sym["epsilon"].is_positive and sym["delta"].is_positive
    assert isinstance(sym["x"], sp.Symbol)
