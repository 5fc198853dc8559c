"""The library-backed divergences against the closed forms and 40-digit mpmath quadrature.

Production code takes the Laplace and Gaussian privacy profiles and the analytic Gaussian sigma
from Google's dp_accounting (``dpaudit.exact.divergence``). The closed forms live here only, as
independent references: the Laplace curve ``max(0, 1 - exp((eps - Delta/b)/2))`` (Dwork & Roth)
and Balle & Wang (2018) Thm 8 for the Gaussian, both evaluated with mpmath at 50 digits, and
``mpmath.quad`` of ``max(0, p(x) - e^eps q(x))`` with textbook densities at 40 digits. Every
comparison asserts agreement *within the error bound the function states* (plus nothing), over
a grid that includes the extremes of the parameter domain.
"""

import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.exact.divergence import (
    beta_hockey_stick,
    classical_gaussian_sigma,
    continuous_hockey_stick,
    epsilon_for_delta,
    gaussian_analytic_sigma,
    gaussian_hockey_stick,
    laplace_hockey_stick,
    privacy_curve,
)
from dpaudit.exact.loss import Bounded, OutOfRangeError
from dpaudit.validation import InvalidParameterError


def laplace_closed_form(eps, sens, b):
    """Reference: ``max(0, 1 - exp((eps - Delta/b)/2))`` at 50 digits."""
    with mp.workdps(50):
        a = mp.mpf(sens) / mp.mpf(b)
        return float(max(mp.mpf(0), -mp.expm1((mp.mpf(eps) - a) / 2)))


def gaussian_closed_form(eps, sens, sigma):
    """Reference: Balle & Wang (2018) Thm 8 at 50 digits."""
    with mp.workdps(50):
        mu = mp.mpf(sens) / mp.mpf(sigma)
        e = mp.mpf(eps)
        return float(mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu))


def _mp_hockey(p, q, eps, points):
    with mp.workdps(40):
        e = mp.exp(eps)
        return float(mp.quad(lambda x: max(mp.mpf(0), p(x) - e * q(x)), points))


def _within(result: Bounded, reference: float) -> None:
    assert abs(result.value - reference) <= result.error, (result, reference)


EPSILONS = [1e-3, 0.1, 0.3, 1.0, 3.0, 20.0, 50.0]
RATIOS = [1e-3, 0.1, 0.5, 1.0, 2.0, 10.0, 50.0, 200.0]


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("ratio", RATIOS)
def test_laplace_agrees_with_closed_form_within_its_bound(eps, ratio):
    for sens in (1.0, 1 / 7):
        b = sens / ratio
        _within(laplace_hockey_stick(eps, sens, b), laplace_closed_form(eps, sens, b))


@pytest.mark.parametrize("eps", [0.0, *EPSILONS])
@pytest.mark.parametrize("mu", [1e-3, 0.1, 0.5, 1.0, 3.0, 10.0, 40.0])
def test_gaussian_agrees_with_closed_form_within_its_bound(eps, mu):
    for sens in (1.0, 0.01):
        sigma = sens / mu
        _within(gaussian_hockey_stick(eps, sens, sigma), gaussian_closed_form(eps, sens, sigma))


@pytest.mark.parametrize("eps", [0.3, 3.0, 1e-3, 20.0, 100.0, 1000.0, 1e-8])
def test_laplace_calibrated_exactly_is_zero_within_its_bound(eps):
    # the round-off false alarm of `check laplace --epsilon 0.3`: 2.8e-17 must sit inside
    # the stated bound, which must itself be tiny
    m = 3
    r = laplace_hockey_stick(eps, 1.0 / m, 1.0 / (m * eps))
    assert r.value - r.error <= 0.0 and r.error < 1e-12


def test_extremes_are_out_of_range_not_wrong():
    # dp_accounting's own get_delta_for_epsilon returns 0.5 here; scipy's Laplace logcdf
    # underflows: we refuse rather than answer wrongly
    with pytest.raises(OutOfRangeError):
        laplace_hockey_stick(1000.0, 1.0, 0.5 / 1000.0)
    with pytest.raises(OutOfRangeError):
        laplace_hockey_stick(1.0, 1.0, 1e-310)  # subnormal scale
    assert gaussian_hockey_stick(1000.0, 1.0, 1.0).value == 0.0


@pytest.mark.parametrize("eps,sens,b", [(0.4, 1.5, 1.0), (0.1, 1.0, 2.0), (1.0, 3.0, 0.7)])
def test_laplace_matches_mpmath_quadrature(eps, sens, b):
    p = lambda x: mp.exp(-abs(x) / b) / (2 * b)  # noqa: E731
    q = lambda x: mp.exp(-abs(x - sens) / b) / (2 * b)  # noqa: E731
    ref = _mp_hockey(p, q, eps, [-mp.inf, 0, (sens - eps * b) / 2, sens, mp.inf])
    _within(laplace_hockey_stick(eps, sens, b), ref)


@pytest.mark.parametrize("eps,sens,sigma", [(0.4, 1.0, 0.8), (1.0, 1.0, 3.0), (3.0, 2.0, 0.9)])
def test_gaussian_matches_mpmath_quadrature(eps, sens, sigma):
    p = lambda x: mp.npdf(x, 0, sigma)  # noqa: E731
    q = lambda x: mp.npdf(x, sens, sigma)  # noqa: E731
    cross = (sens**2 / 2 - eps * sigma**2) / sens  # p = e^eps q here
    r = gaussian_hockey_stick(eps, sens, sigma)
    assert abs(r.value - _mp_hockey(p, q, eps, [-mp.inf, cross, mp.inf])) <= r.error + 1e-15


@pytest.mark.parametrize("eps", [1e-3, 0.1, 1.0, 5.0, 20.0, 50.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.01, 0.5])
def test_analytic_sigma_is_the_smallest_within_its_bracket(eps, delta):
    s = gaussian_analytic_sigma(eps, delta)
    # never under-noises (mpmath reference); and it is the smallest up to what the profile's
    # error bound can resolve: at eps = 1e-3, delta = 1e-12 the profile is the difference of
    # two masses of 3e-8, its bound 4e-8 relative, worth ~2e-9 of sigma; 1e-7 less noise
    # exceeds delta everywhere on the grid
    assert gaussian_closed_form(eps, 1.0, s) <= delta
    assert gaussian_closed_form(eps, 1.0, s * (1 - 1e-7)) > delta
    assert gaussian_analytic_sigma(eps, delta, 3.0) == pytest.approx(3.0 * s, rel=1e-12)


def test_classical_sigma_formula():
    # Dwork & Roth Thm A.1: sigma = sqrt(2 ln(1.25/delta))/eps, above the analytic one
    assert classical_gaussian_sigma(1.0, 1e-5) == pytest.approx(math.sqrt(2 * math.log(1.25e5)))
    assert gaussian_analytic_sigma(1.0, 1e-5) < classical_gaussian_sigma(1.0, 1e-5)


@pytest.mark.parametrize("eps,a,b", [(1.0, 1.0, 11.0), (0.5, 4.0, 7.0), (1.0, 30.0, 20.0),
                                     (8.0, 1.0, 11.0), (1e-3, 2.0, 3.0)])
def test_beta_matches_mpmath(eps, a, b):
    def dens(p, q):
        return lambda x: x ** (p - 1) * (1 - x) ** (q - 1) / mp.beta(p, q)
    f, g = dens(a, b + 1), dens(a + 1, b)
    x1 = a / (a + b * math.exp(eps))
    x2 = a * math.exp(eps) / (b + a * math.exp(eps))
    ref = max(_mp_hockey(f, g, eps, [0, x1, 1]), _mp_hockey(g, f, eps, [0, x2, 1]))
    r = beta_hockey_stick(eps, a, b)
    assert abs(float(r.value) - ref) <= float(r.error) + 1e-15


def test_beta_huge_epsilon_is_finite():
    r = beta_hockey_stick(1000.0, np.array([1.0, 50.0]), np.array([10.0, 60.0]))
    assert np.all(np.isfinite(r.value)) and np.all(r.value >= 0)


def test_quadrature_reproduces_gaussian_closed_form():
    from scipy.stats import norm
    r = continuous_hockey_stick(lambda x: norm.pdf(x, 0, 0.8), lambda x: norm.pdf(x, 1, 0.8),
                                0.4, (-12.0, 13.0))
    assert r.error < 1e-10
    assert abs(r.value - gaussian_closed_form(0.4, 1.0, 0.8)) <= r.error + 1e-13


@given(st.floats(0.0, 5.0), st.floats(0.05, 5.0), st.floats(0.05, 5.0))
def test_curves_are_probabilities_and_decreasing(eps, sens, scale):
    for fn in (laplace_hockey_stick, gaussian_hockey_stick):
        d0, d1 = fn(eps, sens, scale), fn(eps + 0.1, sens, scale)
        assert 0.0 <= d1.value <= d0.value + d0.error + d1.error and d0.value <= 1.0


@given(st.floats(0.01, 0.5))
def test_epsilon_for_delta_inverts_the_curve(delta):
    def curve(e):
        return gaussian_hockey_stick(e, 1.0, 1.0)
    eps = epsilon_for_delta(curve, delta)
    assert curve(eps.value).lower <= delta
    if eps.value > 1e-6:
        assert curve(eps.value - eps.error - 1e-9).value > delta
    assert privacy_curve(curve, [eps.value])[0] == curve(eps.value).value


def test_bad_parameters_raise():
    with pytest.raises(InvalidParameterError):
        laplace_hockey_stick(-1.0, 1.0, 1.0)
    with pytest.raises(InvalidParameterError):
        gaussian_hockey_stick(1.0, 1.0, 0.0)
    with pytest.raises(InvalidParameterError):
        classical_gaussian_sigma(1.0, 0.0)
    with pytest.raises(InvalidParameterError):
        beta_hockey_stick(1.0, np.array([1.0, -1.0]), 2.0)
    with pytest.raises(InvalidParameterError):
        continuous_hockey_stick(np.exp, np.exp, 1.0, (1.0, 0.0))


def test_no_floating_point_warnings_at_the_extremes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for eps in (1e-3, 50.0, 700.0):
            gaussian_hockey_stick(eps, 1.0, 1e-3)
            gaussian_hockey_stick(eps, 1.0, 1e3)
            laplace_hockey_stick(eps, 1.0, 1e3)
