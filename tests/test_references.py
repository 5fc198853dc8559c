"""Reference mechanisms (Laplace, Gaussian, PrivBern, randomized response) and faulty variants."""

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from strategies import epsilons

from dpaudit.exact.divergence import gaussian_hockey_stick
from dpaudit.mechanisms import (
    Gaussian,
    Laplace,
    PrivBern,
    RandomizedResponse,
    analytic_sigma,
    classical_sigma,
)
from dpaudit.mechanisms import _twins as twins
from dpaudit.stats.rng import generator
from dpaudit.validation import InvalidParameterError

reals = st.floats(min_value=-30.0, max_value=30.0, allow_nan=False)
rewards = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


# -- validation -------------------------------------------------------------------------------
@pytest.mark.parametrize("build", [
    lambda: Laplace(-1.0), lambda: Laplace(float("nan")), lambda: Laplace(True),
    lambda: Laplace(1.0, sensitivity=0.0), lambda: Gaussian(1.0, 0.0),
    lambda: Gaussian(1.0, 1.0), lambda: Gaussian(2.0, 1e-5, calibration="classical"),
    lambda: Gaussian(1.0, 1e-5, calibration="tight"), lambda: PrivBern(0.0),
    lambda: RandomizedResponse(1.0, k=1), lambda: RandomizedResponse(1.0, k=2.0),
    lambda: twins.FaultyRandomizedResponseMislabelled(1.0, k=2),
])
def test_bad_parameters_raise(build):
    with pytest.raises(InvalidParameterError):
        build()


@pytest.mark.parametrize("mech,data", [
    (Laplace(1.0), float("nan")), (Laplace(1.0), "a"), (Gaussian(1.0, 1e-5), np.inf),
    (PrivBern(1.0), 1.5), (PrivBern(1.0), -0.1), (RandomizedResponse(1.0, k=3), 3),
    (RandomizedResponse(1.0), 0.5), (RandomizedResponse(1.0), True),
])
def test_bad_data_raise(mech, data):
    with pytest.raises(InvalidParameterError):
        mech.sample(data, 10, generator(0, "t"))


@pytest.mark.parametrize("mech", [Laplace(1.0), PrivBern(1.0), RandomizedResponse(1.0)])
def test_bad_size_and_rng_raise(mech):
    x = mech.neighbours[0][0]
    with pytest.raises(InvalidParameterError):
        mech.sample(x, 0, generator(0, "t"))
    with pytest.raises(InvalidParameterError):
        mech.sample(x, 5, np.random.default_rng)  # not a Generator instance


@pytest.mark.parametrize("mech", [Laplace(1.0), Gaussian(1.0, 1e-5), PrivBern(0.5),
                                  RandomizedResponse(2.0, k=5)])
def test_sample_shapes_and_reproducibility(mech):
    x = mech.neighbours[0][0]
    a = mech.sample(x, 7, generator(3, "s"))
    assert a.shape == (7,)
    assert np.array_equal(a, mech.sample(x, 7, generator(3, "s")))
    if isinstance(mech, Laplace | Gaussian):
        assert mech.sample(np.zeros(3), 4, generator(0, "v")).shape == (4, 3)


# -- Laplace ----------------------------------------------------------------------------------
@given(epsilons, reals, reals)
def test_laplace_law_is_consistent(eps, y, x):
    mech = Laplace(eps)
    assert 0.0 <= mech.cdf(y, x) <= 1.0
    assert mech.cdf(y, x) + mech.sf(y, x) == pytest.approx(1.0, abs=1e-12)
    # independent source: scipy.stats.laplace
    assert mech.logpdf(y, x) == pytest.approx(stats.laplace.logpdf(y, x, 1 / eps), rel=1e-10,
                                              abs=1e-10)
    assert mech.cdf(y, x) == pytest.approx(stats.laplace.cdf(y, x, 1 / eps), rel=1e-9,
                                           abs=1e-300)


@given(epsilons, reals)
def test_laplace_privacy_loss_within_claim(eps, y):
    mech = Laplace(eps)
    x, xp = mech.neighbours[0]
    assert abs(float(mech.privacy_loss(y, x, xp))) <= eps * (1 + 1e-12)
    assert mech.epsilon_between(x, xp) == pytest.approx(eps)


def test_laplace_sympy_form_matches_numpy():
    mech = Laplace(0.7, sensitivity=2.0)
    y, x = sp.symbols("y x", real=True)
    f = sp.lambdify((y, x), mech.sympy_logpdf(y, x), "numpy")
    pts = np.linspace(-5, 5, 11)
    assert np.allclose(f(pts, 0.3), mech.logpdf(pts, 0.3))


@pytest.mark.statistical
def test_laplace_samples_follow_the_law():
    # KS test at level 1e-6 (false-failure probability 1e-6 for a correct sampler)
    mech = Laplace(1.3)
    y = mech.sample(0.5, 20_000, generator(11, "ks"))
    assert stats.kstest(y, lambda t: mech.cdf(t, 0.5)).pvalue > 1e-6


# -- Gaussian ---------------------------------------------------------------------------------
def test_analytic_sigma_reference_value():
    # independent source: Balle & Wang (2018) profile evaluated with mpmath at 50 digits
    mpmath.mp.dps = 50
    sigma = analytic_sigma(1.0, 1e-5)

    def profile(s):
        s = mpmath.mpf(s)
        phi = lambda z: mpmath.ncdf(z)  # noqa: E731
        return phi(1 / (2 * s) - s) - mpmath.e * phi(-1 / (2 * s) - s)

    assert float(profile(sigma)) <= 1e-5
    assert float(profile(sigma * (1 - 1e-9))) > 1e-5  # smallest such sigma (to 1e-9)
    assert sigma == pytest.approx(3.7306, abs=1e-3)


@given(st.floats(min_value=0.05, max_value=20.0), st.floats(min_value=1e-12, max_value=0.5))
def test_analytic_calibration_is_tight(eps, delta):
    s = analytic_sigma(eps, delta)
    assert gaussian_hockey_stick(eps, 1.0, s).upper <= delta
    assert gaussian_hockey_stick(eps, 1.0, s * (1 - 1e-6)).value > delta * (1 - 1e-3)


@given(st.floats(min_value=0.01, max_value=1.0), st.floats(min_value=1e-12, max_value=0.2))
def test_classical_calibration_is_valid_for_eps_at_most_one(eps, delta):
    # Dwork & Roth, Thm A.1: never below the tight sigma in its range
    assert classical_sigma(eps, delta) >= analytic_sigma(eps, delta)
    assert Gaussian(eps, delta, calibration="classical").delta_at(eps).upper <= delta


def test_classical_formula_fails_for_large_epsilon():
    # why classical is refused for eps > 1: at eps=10, delta=1e-5 the true delta is ~2.3e-5
    assert gaussian_hockey_stick(10.0, 1.0, classical_sigma(10.0, 1e-5)).lower > 2e-5


@given(reals, reals)
def test_gaussian_law_is_consistent(y, x):
    mech = Gaussian(0.8, 1e-6)
    assert mech.cdf(y, x) + mech.sf(y, x) == pytest.approx(1.0, abs=1e-12)
    assert mech.logpdf(y, x) == pytest.approx(stats.norm.logpdf(y, x, mech.sigma), rel=1e-10)


@pytest.mark.statistical
def test_gaussian_samples_follow_the_law():
    # KS test at level 1e-6 (false-failure probability 1e-6)
    mech = Gaussian(1.0, 1e-5)
    y = mech.sample(-1.0, 20_000, generator(12, "ks"))
    assert stats.kstest(y, lambda t: mech.cdf(t, -1.0)).pvalue > 1e-6


# -- PrivBern and randomized response ---------------------------------------------------------
@given(epsilons, rewards, rewards)
def test_privbern_ratio_at_most_e_eps(eps, r, r2):
    mech = PrivBern(eps)
    p, q = mech.output_probabilities(r), mech.output_probabilities(r2)
    assert np.all(np.log(p) - np.log(q) <= eps * (1 + 1e-9))
    assert mech.prob_one(r) == pytest.approx((r * math.expm1(eps) + 1) / (math.exp(eps) + 1))


def test_privbern_mean_is_affine_and_tight():
    mech = PrivBern(1.0)
    e = math.e
    assert mech.prob_one(0.0) == pytest.approx(1 / (e + 1))
    assert mech.prob_one(1.0) == pytest.approx(e / (e + 1))
    assert mech.epsilon_between(1.0, 0.0) == pytest.approx(1.0)
    r, eps = sp.symbols("r epsilon", positive=True)
    assert sp.simplify(mech.sympy_prob_one(r, eps).subs({r: 0}) - 1 / (sp.exp(eps) + 1)) == 0


@given(epsilons, st.integers(min_value=2, max_value=9))
def test_randomized_response_probabilities(eps, k):
    mech = RandomizedResponse(eps, k=k)
    probs = mech.output_probabilities(np.arange(k))
    assert np.allclose(probs.sum(axis=-1), 1.0)
    assert mech.epsilon_between(0, k - 1) == pytest.approx(eps, rel=1e-9)


@pytest.mark.statistical
def test_discrete_samplers_follow_their_law():
    # chi-square goodness of fit at level 1e-6 each (false-failure probability 2e-6 total)
    for mech, x in ((RandomizedResponse(1.5, k=4), 2), (PrivBern(0.7), 0.3)):
        y = mech.sample(x, 50_000, generator(13, "chi2", repr(mech)))
        observed = np.bincount(y, minlength=mech.n_outcomes)
        expected = mech.output_probabilities(x) * len(y)
        assert stats.chisquare(observed, expected).pvalue > 1e-6


# -- faulty variants: their true loss is above the claim (exactly) ----------------------------
def test_faulty_true_losses():
    assert twins.FaultyLaplaceHalfScale(1.0).epsilon_between(0.0, 1.0) == pytest.approx(2.0)
    assert twins.FaultyLaplaceNoSensitivity(1.0).epsilon_between(0.0, 3.0) == pytest.approx(3.0)
    assert twins.FaultyPrivBernMislabelled(1.0).epsilon_between(1.0, 0.0) == pytest.approx(2.0)
    assert twins.FaultyRandomizedResponseMislabelled(1.0).epsilon_between(0, 1) == (
        pytest.approx(1.0 + math.log(3.0)))
    assert twins.FaultyGaussianHalfSigma(1.0, 1e-5).delta_at(1.0).lower > 1e-3
    assert twins.FaultyGaussianNoSensitivity(1.0, 1e-5).delta_at(1.0).lower > 1e-2


def test_textbook_twins_register_their_derived_true_losses():
    """Each textbook twin ``NAME-<bug>`` carries the true loss its class's docstring derives,
    recomputed here from the code (the exact pure loss, or the ``eps`` at which the exact
    Gaussian ``delta(eps)`` is the claimed 1e-5); ``NAME-faulty`` is the same check."""
    from dataclasses import replace

    from dpaudit.audits.textbook.mechanisms import TRUE_EPSILON
    from dpaudit.registry import all_audits
    assert TRUE_EPSILON["randomized-response-binary-keep"] == pytest.approx(
        twins.FaultyRandomizedResponseMislabelled(1.0).epsilon_between(0, 1), rel=1e-12)
    assert TRUE_EPSILON["laplace-sensitivity-unit-scale"] == pytest.approx(
        twins.FaultyLaplaceNoSensitivity(1.0).epsilon_between(0.0, 3.0), rel=1e-12)
    for key, mech in (("gaussian-analytic-half-sigma", twins.FaultyGaussianHalfSigma(1.0, 1e-5)),
                      ("gaussian-sensitivity-unit-sigma",
                       twins.FaultyGaussianNoSensitivity(1.0, 1e-5))):
        eps = TRUE_EPSILON[key]
        at = mech.delta_at(eps)
        assert abs(float(at.value) - 1e-5) <= 1e-12 + float(at.error), key
        assert float(mech.delta_at(eps * (1 - 1e-6)).value) > 1e-5, key
    audits = all_audits()
    for new, value in TRUE_EPSILON.items():
        spec = audits[new]
        assert spec.faulty and spec.expect_violated and spec.true_epsilon == value
        old = audits[spec.original + "-faulty"]
        assert replace(old, name=new) == spec
