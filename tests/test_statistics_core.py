"""Core statistics: Clopper-Pearson limits, epsilon from counts, exact discrete loss."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.exact.loss import discrete_epsilon, discrete_hockey_stick, piecewise_quadrature
from dpaudit.stats.events import cp_lower, cp_upper
from dpaudit.stats.evidence import detectable_epsilon_at_power, epsilon_from_counts
from dpaudit.validation import InvalidParameterError


def test_clopper_pearson_matches_beta_quantiles():
    # independent source: the Clopper-Pearson limits are Beta quantiles (scipy.stats.beta)
    assert cp_lower(30, 100, 0.025) == pytest.approx(stats.beta.ppf(0.025, 30, 71))
    assert cp_upper(30, 100, 0.025) == pytest.approx(stats.beta.ppf(0.975, 31, 70))
    assert cp_upper(0, 100, 0.05) == pytest.approx(1 - 0.05 ** (1 / 100))
    assert cp_lower(0, 100, 0.05) == 0.0
    assert cp_upper(100, 100, 0.05) == 1.0


@given(st.integers(0, 1000), st.integers(0, 1000), st.floats(0, 0.5), st.floats(1e-6, 0.5))
def test_epsilon_from_counts_never_nan_and_nonnegative(cp, cq, delta, alpha):
    bound, p_lo, q_hi = epsilon_from_counts(cp, 1000, cq, 1000, delta=delta, alpha=alpha)
    assert math.isfinite(bound) and bound >= 0
    assert 0 <= p_lo <= 1 and 0 < q_hi <= 1


def test_epsilon_from_counts_formula():
    bound, p_lo, q_hi = epsilon_from_counts(500, 1000, 100, 1000, delta=0.0, alpha=0.05)
    assert bound == pytest.approx(math.log(p_lo / q_hi))
    assert bound < math.log(5)


def test_epsilon_from_counts_validates():
    with pytest.raises(InvalidParameterError):
        epsilon_from_counts(1, 0, 1, 10, delta=0.0, alpha=0.05)
    with pytest.raises(InvalidParameterError):
        epsilon_from_counts(1, 10, 1, 10, delta=0.0, alpha=1.5)


def test_hockey_stick_and_exact_epsilon_randomized_response():
    # randomized response with p = e/(1+e) is exactly (1, 0)-DP: closed form
    p = np.array([math.e, 1.0]) / (1 + math.e)
    q = p[::-1]
    h = discrete_hockey_stick(p, q, 1.0)
    assert h.value - h.error <= 0.0 and h.error < 1e-15
    e = discrete_epsilon(p, q, 0.0)
    assert abs(e.value - 1.0) <= e.error + 1e-15
    # at eps = 0 the divergence is the total variation distance
    assert discrete_hockey_stick(p, q, 0.0).value == pytest.approx(abs(p[0] - q[0]))


def test_exact_epsilon_infinite_when_supports_differ():
    assert discrete_epsilon(np.array([0.5, 0.5, 0.0]), np.array([0.5, 0.0, 0.5]),
                            0.1).value == math.inf
    assert discrete_epsilon(np.array([0.95, 0.05]), np.array([1.0, 0.0]), 0.05).value == 0.0


def test_piecewise_quadrature_exact_on_exponential():
    value, err = piecewise_quadrature(np.exp, np.array([0.0, 0.5, 2.0]))
    assert value == pytest.approx(math.e**2 - 1, rel=1e-13)
    assert err < 1e-10


@pytest.mark.statistical
def test_discrete_bound_valid_for_randomized_response():
    # a correct (1, 0)-DP mechanism through the one sampled engine: the bound exceeds 1 with
    # probability <= alpha = 1e-3 (seed fixed, so 1e-3 is this test's false-failure probability)
    from dpaudit.stats.evidence import decide
    from dpaudit.stats.sampled import AuditBudget, SamplerPair, sampled_audit

    p = math.e / (1 + math.e)

    def rr(bit):
        return lambda n, g: (g.random(n) < (p if bit else 1 - p)).astype(np.int64)

    ev = sampled_audit([SamplerPair("1 vs 0", rr(1), rr(0))], delta=0.0, alpha=1e-3,
                       budget=AuditBudget(samples=420_000, selection_fraction=1 / 21),
                       seed=5, key="rr")
    subject = type("S", (), {"id": "rr", "notion": "ldp", "statement": "", "reference": "",
                             "epsilon": 1.0, "delta": 0.0, "alpha": 1e-3})()
    bound = decide(subject, subject, ev, alpha=1e-3).epsilon_lower_bound
    assert bound <= 1.0
    assert bound > 0.9  # power: the event is found and measured


def test_detectable_epsilon_decreases_with_samples():
    def at(p, n, delta=0.0):
        return detectable_epsilon_at_power(p, n, n, epsilon=1.0, delta=delta, alpha=0.05)
    small, large = at(0.2, 10_000), at(0.2, 1_000_000)
    assert 1.0 < large < small
    assert at(0.001, 100, delta=0.01) == math.inf
