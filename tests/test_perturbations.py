"""DP-FTPL-Gauss and DP-FTPL-Beta perturbations (Wang & Zhu 2023, Alg. 1-2, Thm 11 and 13).

Expected start phases come from REFERENCE 4.5 (N_G ~ 8 at (1, 0.01) and ~ 18.5 at
(1, e^-10); N_B ~ 827 and ~ 1.9e3) and are recomputed here from the printed formulas.
Closed forms are checked against scipy.stats (an independent implementation of the laws) and
40-digit mpmath.
"""

import math

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.mechanisms import BetaPerturbation, GaussPerturbation
from dpaudit.mechanisms.beta_perturbation import (
    beta_cdf_pair,
    beta_parameters,
    beta_start_phase,
    beta_worst_delta,
)
from dpaudit.mechanisms.gauss_perturbation import (
    gauss_cdf_pair,
    gauss_exact_delta,
    gauss_smallest_count,
    gauss_start_phase,
)
from dpaudit.validation import InvalidParameterError


def test_start_phases_match_reference_numbers():
    assert gauss_start_phase(1.0, 0.01) == pytest.approx(
        math.log(math.e / (4 * math.pi * 1e-4)), rel=1e-12)
    assert round(gauss_start_phase(1.0, 0.01), 1) == 7.7
    assert round(gauss_start_phase(1.0, math.exp(-10)), 1) == 18.5
    assert round(beta_start_phase(1.0, 0.01)) == 827
    assert round(beta_start_phase(1.0, math.exp(-10)), -2) == 1900
    assert gauss_start_phase(0.0, 0.1) == pytest.approx(1 / (4 * math.pi * 0.01))


def test_gauss_exact_delta_is_a_shift_of_one_over_n_mpmath():
    n, eps = 3, 1.0
    s = math.sqrt(2 / n)
    with mp.workdps(40):
        cross = ((1 / n) ** 2 / 2 - eps * s * s) / (1 / n)
        ref = mp.quad(lambda x: max(0, mp.npdf(x, 0, s) - mp.e * mp.npdf(x, 1 / n, s)),
                      [-mp.inf, cross, mp.inf])
    r = gauss_exact_delta(eps, n)
    assert abs(r.value - float(ref)) <= r.error


@pytest.mark.parametrize("eps,delta", [(1.0, 0.01), (1.0, math.exp(-10)), (0.1, 0.01)])
def test_smallest_count_is_minimal(eps, delta):
    n = gauss_smallest_count(eps, delta)
    assert gauss_exact_delta(eps, n).value <= delta
    assert n == 1 or gauss_exact_delta(eps, n - 1).value > delta
    # the paper's start phase suffices at these settings
    assert gauss_exact_delta(eps, math.ceil(gauss_start_phase(eps, delta))).upper <= delta


def test_beta_worst_delta_small_case_by_mpmath():
    # N = 3, no padding, R vs R + 1, both directions, at 40 digits: the crossing of
    # p - e q bracketed on a grid and solved by mpmath, the masses by mpmath's regularised
    # incomplete beta (an independent implementation from scipy's betainc)
    eps = 1.0
    worst = 0.0
    with mp.workdps(40):
        for r in range(3):
            pars = [tuple(float(v) for v in beta_parameters(3, rr, padding=False))
                    for rr in (r, r + 1)]
            for (pa, pb), (qa, qb) in (pars, pars[::-1]):
                def diff(x, pa=pa, pb=pb, qa=qa, qb=qb):
                    return (x ** (pa - 1) * (1 - x) ** (pb - 1) / mp.beta(pa, pb)
                            - mp.e * x ** (qa - 1) * (1 - x) ** (qb - 1) / mp.beta(qa, qb))
                xs = [mp.mpf(i) / 1000 for i in range(1, 1000)]
                i = next(i for i in range(len(xs) - 1) if diff(xs[i]) * diff(xs[i + 1]) < 0)
                c = mp.findroot(diff, (xs[i], xs[i + 1]), solver="anderson")
                lo, hi = (0, c) if diff(xs[0]) > 0 else (c, 1)
                h = (mp.betainc(pa, pb, lo, hi, regularized=True)
                     - mp.e * mp.betainc(qa, qb, lo, hi, regularized=True))
                worst = max(worst, float(h))
    d = beta_worst_delta(eps, 3, padding=False)[0]
    assert abs(d.value - worst) <= d.error


def test_unpadded_fails_padded_passes_figure2():
    for n in (10, 10**4):
        assert beta_worst_delta(1.0, n, padding=False)[0].lower > 0.1
    assert beta_worst_delta(1.0, 827)[0].upper < 1e-12


def test_padding_constant_bound():
    # Thm 13's proof: (a + k)(b + k) >= 0.09 (a + b + 2k)^2 for every reachable (a, b)
    for n in range(1, 400):
        p, q = beta_parameters(n, np.arange(n + 1))
        assert np.all(p * q >= 0.09 * (p + q) ** 2)


@given(st.integers(1, 40), st.data())
def test_sympy_cdfs_equal_scipy(n, data):
    r = data.draw(st.integers(0, n - 1))
    x = data.draw(st.floats(0.001, 0.999))
    g = gauss_cdf_pair(n, successes=r)
    assert float(g.cdf.subs(g.x, x)) == pytest.approx(
        stats.norm.cdf(x, r / n, math.sqrt(2 / n)), abs=1e-12)
    b = beta_cdf_pair(n, successes=r)
    p, q = beta_parameters(n, r)
    F, _, f, _ = b.numpy_functions()
    assert F(np.array([x]))[0] == pytest.approx(stats.beta.cdf(x, p, q), abs=1e-12)
    # the scipy override equals the sympy form (CDF and its derivative), 15 digits
    assert float(b.cdf.subs(b.x, x).evalf(20)) == pytest.approx(F(np.array([x]))[0],
                                                                abs=1e-12)
    assert float(sp.diff(b.cdf, b.x).subs(b.x, x).evalf(20)) == pytest.approx(
        f(np.array([x]))[0], rel=1e-9, abs=1e-12)


@given(st.integers(1, 30), st.lists(st.floats(-3, 3), min_size=2, max_size=20))
def test_gauss_cdf_monotone_in_unit_interval(n, xs):
    F, G, _, _ = gauss_cdf_pair(n).numpy_functions()
    xs = np.sort(np.array(xs))
    for fn in (F, G):
        v = fn(xs)
        assert np.all((0 <= v) & (v <= 1)) and np.all(np.diff(v) >= -1e-15)


@pytest.mark.statistical
def test_samplers_have_the_stated_means():
    # Each z-statistic is N(0,1) under the stated law (CLT, 2e5 draws); |z| > 4.9 has
    # probability 1e-6, so this test's false-failure probability is below 2e-6.
    rng = np.random.default_rng(4)
    n, r = np.full(200_000, 10), np.full(200_000, 3)
    g = GaussPerturbation(1.0, 0.01).sample(r, n, rng=rng)
    z = (g.mean() - 0.3) / math.sqrt(0.2 / g.size)
    assert abs(z) < 4.9
    b = BetaPerturbation(1.0, 0.01).sample(r, n, rng=rng)
    p, q = beta_parameters(10, 3)
    mean, var = p / (p + q), p * q / ((p + q) ** 2 * (p + q + 1))
    assert abs((b.mean() - mean) / math.sqrt(var / b.size)) < 4.9


def test_symbolic_cdf_is_a_cdf():
    g = gauss_cdf_pair(4)
    assert sp.limit(g.cdf, g.x, sp.oo) == 1 and sp.limit(g.cdf, g.x, -sp.oo) == 0


def test_bad_parameters():
    with pytest.raises(InvalidParameterError):
        gauss_start_phase(1.0, 0.0)
    with pytest.raises(InvalidParameterError):
        GaussPerturbation(1.0, 0.01).sample(np.array([2]), np.array([1]),
                                            rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError):
        beta_cdf_pair(5, successes=5)
    with pytest.raises(InvalidParameterError):
        gauss_exact_delta(1.0, 0)
    with pytest.raises(InvalidParameterError):
        BetaPerturbation(-1.0, 0.01)


@pytest.mark.parametrize("eps", [sp.Rational(1, 2), sp.Integer(1), sp.Integer(3)])
def test_unpadded_limit_closed_form_matches_sympy(eps):
    # independent: sympy maximises g(t) = (1 - e^-t) - e^eps (1 - e^-t - t e^-t) itself
    from dpaudit.audits.wang_zhu_2023.beta_perturbation import unpadded_limit
    t = sp.Symbol("t", positive=True)
    g = (1 - sp.exp(-t)) - sp.exp(eps) * (1 - sp.exp(-t) - t * sp.exp(-t))
    crit = [c for c in sp.solve(sp.diff(g, t), t) if c.is_positive]
    ref = max(float(g.subs(t, c)) for c in crit)
    assert unpadded_limit(float(eps)) == pytest.approx(ref, rel=1e-12)
