"""The probe of :mod:`dpaudit.exact.probe`: a report's law read from its code, exactly.

Gaussian, Laplace, mixed, non-affine, shared-noise and unnoised reports, draws that change
with the data or with the values drawn, unknown generator methods, and a property-based test
(hypothesis) on random ``g`` and ``J``: the recovered ``g`` and ``J`` are the ones the code
uses, and the loss is the Mahalanobis distance computed independently here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpaudit.exact.probe import (
    AffineReport,
    ProbeGenerator,
    Unverified,
    pair_loss,
    probe_report,
)


def _probe(report) -> AffineReport:
    r = probe_report(report)
    assert isinstance(r, AffineReport), r
    return r


def _gauss_delta(eps: float, mu: float) -> float:
    return stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu)


def test_scalar_gaussian_report_is_read_exactly():
    sigma = 2.5

    def rep(x):
        return lambda rng: x + sigma * rng.standard_normal(1)

    a, b = _probe(rep(1.0)), _probe(rep(-1.0))
    assert a.g.tolist() == [1.0] and a.jac.tolist() == [[sigma]] and a.law == "normal"
    loss = pair_loss(a, b, 1.0, 1e-5)
    assert loss.mu == pytest.approx(2.0 / sigma, rel=1e-15)
    assert loss.delta.value == pytest.approx(_gauss_delta(1.0, 2.0 / sigma), rel=1e-9)


def test_normal_with_loc_and_scale_and_a_scalar_draw():
    def rep(x):
        return lambda rng: np.array([rng.normal(x, 3.0), rng.normal(loc=0.0, scale=0.5)])

    a, b = _probe(rep(2.0)), _probe(rep(0.0))
    assert np.allclose(a.jac, np.diag([3.0, 0.5]))
    assert pair_loss(a, b, 1.0, 1e-5).mu == pytest.approx(2.0 / 3.0, rel=1e-14)


def test_laplace_vector_is_read_exactly():
    def rep(x):
        return lambda rng: np.array([x + rng.laplace(0.0, 2.0), 0.5 * x + rng.laplace(0.0, 1.0)])

    a, b = _probe(rep(1.0)), _probe(rep(0.0))
    loss = pair_loss(a, b, 0.5, 1e-5)
    assert a.law == "laplace" and loss.pure == pytest.approx(0.5 + 0.5)
    assert loss.delta.value > 0  # loss 1 above eps 0.5: positive (a lower bound)
    one = pair_loss(_probe(lambda g: 1.0 + g.laplace(0.0, 2.0, 1)),
                    _probe(lambda g: 0.0 + g.laplace(0.0, 2.0, 1)), 0.2, 1e-5)
    # 1 - exp((eps - Delta/b)/2), the closed form for one coordinate
    assert one.delta.value == pytest.approx(1 - math.exp((0.2 - 0.5) / 2), rel=1e-12)


def test_mixed_laws_are_not_guessed():
    def rep(x):
        return lambda rng: np.array([x + rng.standard_normal(), x + rng.laplace()])

    loss = pair_loss(_probe(rep(1.0)), _probe(rep(0.0)), 1.0, 1e-5)
    assert isinstance(loss, Unverified) and "mixed" in loss.reason


def test_non_affine_reports_and_unknown_methods_are_refused():
    assert "not affine" in probe_report(lambda g: np.abs(g.standard_normal(3))).reason
    assert "not affine" in probe_report(lambda g: np.clip(g.standard_normal(2), -1, 1)).reason
    assert "rng.random" in probe_report(lambda g: g.random(2)).reason
    assert "rng.uniform" in probe_report(lambda g: g.uniform(-1, 1, 2)).reason
    assert "rng.integers" in probe_report(lambda g: g.integers(3)).reason


def test_draws_that_depend_on_the_values_drawn_are_refused():
    def rep(rng):
        z = rng.standard_normal()
        return [z, rng.standard_normal()] if z > 0.5 else [z, 0.0]

    assert isinstance(probe_report(rep), Unverified)


def test_data_dependent_draws_and_noise_are_refused():
    a = _probe(lambda g: 1.0 + g.standard_normal(2))
    b = _probe(lambda g: 0.0 + g.standard_normal(3)[:2])
    assert "different draws" in pair_loss(a, b, 1.0, 1e-5).reason
    c = _probe(lambda g: 1.0 + 2.0 * g.standard_normal(1))  # noise scaled by the datum
    d = _probe(lambda g: 0.5 + 1.0 * g.standard_normal(1))
    assert "depends on the data" in pair_loss(c, d, 1.0, 1e-5).reason


def test_unnoised_and_shared_noise_shifts_are_infinite():
    unnoised = pair_loss(_probe(lambda g: np.array([1.0, 1.0 + g.standard_normal()])),
                         _probe(lambda g: np.array([0.0, 1.0 + g.standard_normal()])), 1.0, 1e-5)
    assert unnoised.mu == math.inf and unnoised.delta.value == 1.0
    assert unnoised.epsilon_at_delta == math.inf

    def shared(x):  # two users' reports with one noise draw
        return lambda g: (lambda z: np.array([x + z, 0.0 + z]))(g.standard_normal())

    loss = pair_loss(_probe(shared(1.0)), _probe(shared(0.0)), 1.0, 1e-5)
    assert loss.mu == math.inf and loss.delta.value == 1.0
    # a shift along the shared direction stays finite: both coordinates move together
    both = pair_loss(_probe(lambda g: (lambda z: np.array([1 + z, 1 + z]))(g.standard_normal())),
                     _probe(lambda g: (lambda z: np.array([z, z]))(g.standard_normal())), 1.0,
                     1e-5)
    assert both.mu == pytest.approx(1.0, rel=1e-14)


def test_probe_generator_is_a_numpy_generator_and_serves_its_script():
    gen = ProbeGenerator(np.array([1.0, 2.0, 3.0]))
    assert isinstance(gen, np.random.Generator)
    assert gen.standard_normal(2).tolist() == [1.0, 2.0]
    assert gen.normal(10.0, 2.0) == 16.0 and gen.calls == [("standard_normal", (2,)),
                                                           ("normal", ())]


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 5), n=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_random_affine_reports_recover_g_and_j(m, n, seed):
    rng = np.random.default_rng(seed)
    jac = rng.normal(size=(m, n)) * rng.uniform(0.1, 10.0)
    g1, g2 = rng.normal(size=m), rng.normal(size=m)

    def rep(g):
        return lambda gen: g + jac @ gen.standard_normal(n)

    a, b = _probe(rep(g1)), _probe(rep(g2))
    assert np.allclose(a.g, g1, rtol=1e-13, atol=1e-13)
    assert np.allclose(a.jac, jac, rtol=1e-12, atol=1e-12 * np.abs(jac).max())
    loss = pair_loss(a, b, 1.0, 1e-5)
    s = g1 - g2
    y, *_ = np.linalg.lstsq(jac, s, rcond=None)
    if np.linalg.norm(jac @ y - s) > 1e-6 * np.linalg.norm(s):
        assert loss.mu == math.inf  # the shift leaves range(J)
    else:
        mu = float(np.sqrt(s @ np.linalg.pinv(jac @ jac.T) @ s))
        assert loss.mu == pytest.approx(mu, rel=1e-7)


# -- the third-party route: a policy holding its own numpy Generator --------------------------
class OwnGeneratorLaplace:
    """Reports ``reward + Laplace(1/eps)`` drawn from a generator built in the constructor."""

    def __init__(self, n_arms, epsilon, seed=0):
        self.eps, self.rng = epsilon, np.random.default_rng(seed)

    def select(self):
        return 0

    def update(self, arm, reward):
        pass

    def privatize(self, reward):
        return reward + self.rng.laplace(0.0, 1.0 / self.eps)


class OwnGeneratorGaussianSlip(OwnGeneratorLaplace):
    """Gaussian noise with sigma = sqrt(ln(1.25/delta))/eps (the 2 under the root dropped)."""

    def privatize(self, reward):
        return reward + self.rng.normal(0.0, math.sqrt(math.log(1.25 / 1e-5)) / self.eps)


class OwnGeneratorUniform(OwnGeneratorLaplace):
    def privatize(self, reward):
        return reward + self.rng.uniform(-1.0, 1.0)


def test_third_party_policy_with_its_own_generator_is_read_exactly():
    from dpaudit.usercode.adapters import adapt
    from dpaudit.usercode.ldp_audit import exact_release, find_release

    lap = find_release(adapt(OwnGeneratorLaplace, n_arms=2, horizon=4, epsilon=0.5))
    ev = exact_release(lap, epsilon=0.5, delta=0.0)
    assert ev is not None and ev.data["route"] == "probe" and ev.data["family"] == "laplace"
    assert ev.data["pure_loss"] == pytest.approx(0.5, rel=1e-12)
    assert ev.delta_at_epsilon - ev.error <= 0.0  # exactly eps-DP
    slip = find_release(adapt(OwnGeneratorGaussianSlip, n_arms=2, horizon=4, epsilon=1.0))
    ev = exact_release(slip, epsilon=1.0, delta=1e-5)
    mu = 1.0 / math.sqrt(math.log(1.25 / 1e-5))
    assert ev.data["mu"] == pytest.approx(mu, rel=1e-12)
    assert ev.delta_at_epsilon == pytest.approx(_gauss_delta(1.0, mu), rel=1e-9)
    assert ev.delta_at_epsilon - ev.error > 1e-5  # the slip pays more than claimed
    uni = find_release(adapt(OwnGeneratorUniform, n_arms=2, horizon=4, epsilon=1.0))
    assert exact_release(uni, epsilon=1.0, delta=0.0) is None  # unknown law: sampled instead
