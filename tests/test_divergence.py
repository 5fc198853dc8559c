"""Closed-form hockey-stick divergences pinned against independent 40-digit mpmath quadrature.

Independent source: ``mpmath.quad`` of ``max(0, p(x) - e^eps q(x))`` with the densities written
out from their textbook definitions, split at the kinks and at the crossing point, at 40
digits. Balle & Wang (2018, Thm 8) for the Gaussian form; Dwork & Roth for the classical sigma.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.divergence import (
    beta_hockey_stick,
    classical_gaussian_sigma,
    continuous_hockey_stick,
    epsilon_for_delta,
    gaussian_analytic_sigma,
    gaussian_hockey_stick,
    laplace_hockey_stick,
    privacy_curve,
)
from dpaudit.validation import InvalidParameterError


def _mp_hockey(p, q, eps, points):
    with mp.workdps(40):
        e = mp.exp(eps)
        return float(mp.quad(lambda x: max(mp.mpf(0), p(x) - e * q(x)), points))


@pytest.mark.parametrize("eps,sens,b", [(0.4, 1.5, 1.0), (0.1, 1.0, 2.0), (1.0, 3.0, 0.7)])
def test_laplace_matches_mpmath(eps, sens, b):
    p = lambda x: mp.exp(-abs(x) / b) / (2 * b)  # noqa: E731
    q = lambda x: mp.exp(-abs(x - sens) / b) / (2 * b)  # noqa: E731
    ref = _mp_hockey(p, q, eps, [-mp.inf, 0, (sens - eps * b) / 2, sens, mp.inf])
    assert laplace_hockey_stick(eps, sens, b) == pytest.approx(ref, rel=1e-12, abs=1e-15)


def test_laplace_zero_at_calibration():
    assert laplace_hockey_stick(1.0, 1.0, 1.0) == 0.0
    assert laplace_hockey_stick(0.999, 1.0, 1.0) > 0.0


@pytest.mark.parametrize("eps,sens,sigma", [(0.4, 1.0, 0.8), (1.0, 1.0, 3.0), (3.0, 2.0, 0.9)])
def test_gaussian_matches_mpmath(eps, sens, sigma):
    p = lambda x: mp.npdf(x, 0, sigma)  # noqa: E731
    q = lambda x: mp.npdf(x, sens, sigma)  # noqa: E731
    cross = (sens**2 / 2 - eps * sigma**2) / sens  # p = e^eps q here
    ref = _mp_hockey(p, q, eps, [-mp.inf, cross, mp.inf])
    assert gaussian_hockey_stick(eps, sens, sigma) == pytest.approx(ref, rel=1e-9, abs=1e-300)


def test_analytic_sigma_meets_delta_exactly_and_beats_classical():
    s = gaussian_analytic_sigma(1.0, 1e-5)
    assert gaussian_hockey_stick(1.0, 1.0, s) == pytest.approx(1e-5, rel=1e-8)
    # Dwork & Roth Thm A.1: sigma = sqrt(2 ln(1.25/delta))/eps
    assert classical_gaussian_sigma(1.0, 1e-5) == pytest.approx(math.sqrt(2 * math.log(1.25e5)))
    assert s < classical_gaussian_sigma(1.0, 1e-5)


@pytest.mark.parametrize("eps,a,b", [(1.0, 1.0, 11.0), (0.5, 4.0, 7.0), (1.0, 30.0, 20.0)])
def test_beta_matches_mpmath(eps, a, b):
    def dens(p, q):
        return lambda x: x ** (p - 1) * (1 - x) ** (q - 1) / mp.beta(p, q)
    f, g = dens(a, b + 1), dens(a + 1, b)
    x1 = a / (a + b * math.exp(eps))
    x2 = a * math.exp(eps) / (b + a * math.exp(eps))
    ref = max(_mp_hockey(f, g, eps, [0, x1, 1]), _mp_hockey(g, f, eps, [0, x2, 1]))
    assert float(beta_hockey_stick(eps, a, b)) == pytest.approx(ref, rel=1e-9, abs=1e-15)


def test_quadrature_reproduces_gaussian_closed_form():
    from scipy.stats import norm
    h, err = continuous_hockey_stick(lambda x: norm.pdf(x, 0, 0.8), lambda x: norm.pdf(x, 1, 0.8),
                                     0.4, (-12.0, 13.0))
    assert err < 1e-10
    assert h == pytest.approx(gaussian_hockey_stick(0.4, 1.0, 0.8), rel=1e-9)


@given(st.floats(0.0, 5.0), st.floats(0.05, 5.0), st.floats(0.05, 5.0))
def test_curves_are_probabilities_and_decreasing(eps, sens, scale):
    for fn in (laplace_hockey_stick, gaussian_hockey_stick):
        d0, d1 = fn(eps, sens, scale), fn(eps + 0.1, sens, scale)
        assert 0.0 <= d1 <= d0 <= 1.0


@given(st.floats(0.01, 0.5))
def test_epsilon_for_delta_inverts_the_curve(delta):
    def curve(e):
        return gaussian_hockey_stick(e, 1.0, 1.0)
    eps = epsilon_for_delta(curve, delta)
    assert curve(eps) <= delta + 1e-12
    if eps > 1e-6:
        assert curve(eps - 1e-6) > delta - 1e-9
    assert privacy_curve(curve, [eps])[0] == pytest.approx(curve(eps))


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
