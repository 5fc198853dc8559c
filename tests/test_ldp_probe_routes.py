"""The exact local-DP route of :mod:`dpaudit.usercode.ldp_audit` for every way a report draws from
numpy: the global ``standard_normal``/``randn`` (also imported by name), ``default_rng`` in the
hook or the constructor, a generator nested in the instance or held by the module, a vector
report; and its refusals of randomness the probe does not serve (Zheng et al. 2020's local
reports, calibrated by Dwork & Roth 2014, Theorem A.1). Deterministic: no sampling."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from numpy.random import default_rng, standard_normal

from dpaudit.exact.divergence import gaussian_hockey_stick
from dpaudit.usercode.adapters import adapt
from dpaudit.usercode.ldp_audit import exact_release, find_release

SIGMA = math.sqrt(2 * math.log(1.25 / 1e-5))  # the classical calibration at eps 1, delta 1e-5
MODULE_RNG = np.random.default_rng(3)


class _Base:
    def __init__(self, n_arms, epsilon):
        self.eps = epsilon

    def select(self):
        return 0

    def update(self, arm, reward):
        pass


class GlobalStandardNormal(_Base):
    def privatize(self, reward):
        return reward + SIGMA / self.eps * np.random.standard_normal()


class ImportedStandardNormal(_Base):
    def privatize(self, reward):
        return reward + SIGMA / self.eps * standard_normal()


class Randn(_Base):
    def privatize(self, reward):
        return reward + SIGMA / self.eps * np.random.randn()


class GeneratorInHook(_Base):
    def privatize(self, reward):
        return reward + np.random.default_rng().laplace(0.0, 1.0 / self.eps)


class ImportedDefaultRng(_Base):
    def __init__(self, n_arms, epsilon):
        super().__init__(n_arms, epsilon)
        self.gen = default_rng(12)

    def privatize(self, reward):
        return reward + self.gen.laplace(0.0, 1.0 / self.eps)


class _Device:
    def __init__(self, eps):
        self.eps, self.noise = eps, {"gen": np.random.default_rng(1)}

    def send(self, reward):
        return reward + self.noise["gen"].normal(0.0, SIGMA / self.eps)


class NestedGenerator(_Base):
    def __init__(self, n_arms, epsilon):
        super().__init__(n_arms, epsilon)
        self.device = _Device(epsilon)

    def privatize(self, reward):
        return self.device.send(reward)


class ModuleGenerator(_Base):
    def privatize(self, reward):
        return reward + MODULE_RNG.normal(0.0, SIGMA / self.eps)


class VectorReport(_Base):
    def privatize(self, reward):
        return np.array([reward, reward]) + np.random.normal(0.0, SIGMA / self.eps, size=2)


class UnservedUniform(_Base):
    def privatize(self, reward):
        return reward + np.random.normal(0.0, SIGMA / self.eps) + np.random.uniform()


class UnservedPythonRandom(_Base):
    def privatize(self, reward):
        return reward + SIGMA / self.eps * np.random.standard_normal() + random.random()


def _exact(factory, epsilon=1.0, delta=1e-5):
    rel = find_release(adapt(factory, n_arms=2, horizon=4, epsilon=epsilon, delta=delta))
    return exact_release(rel, epsilon=epsilon, delta=delta)


@pytest.mark.parametrize("factory", [GlobalStandardNormal, ImportedStandardNormal, Randn,
                                     NestedGenerator, ModuleGenerator])
def test_gaussian_reports_are_read_exactly_whatever_they_draw_through(factory):
    ev = _exact(factory)
    assert ev is not None and ev.data["route"] == "probe" and ev.data["family"] == "normal"
    assert ev.data["mu"] == pytest.approx(1.0 / SIGMA, rel=1e-12)
    assert ev.delta_at_epsilon == pytest.approx(
        gaussian_hockey_stick(1.0, 1.0, SIGMA).value, rel=1e-9)


@pytest.mark.parametrize("factory", [GeneratorInHook, ImportedDefaultRng])
def test_laplace_reports_from_default_rng_are_read_exactly(factory):
    ev = _exact(factory, epsilon=0.5, delta=0.0)
    assert ev is not None and ev.data["route"] == "probe" and ev.data["family"] == "laplace"
    assert ev.data["pure_loss"] == pytest.approx(0.5, rel=1e-12)
    assert ev.delta_at_epsilon - ev.error <= 0.0


def test_vector_report_moves_by_its_euclidean_norm():
    ev = _exact(VectorReport)
    assert ev is not None and ev.data["mu"] == pytest.approx(math.sqrt(2) / SIGMA, rel=1e-12)
    assert ev.delta_at_epsilon - ev.error > 1e-5  # both coordinates carry the reward: leaks


@pytest.mark.parametrize("factory", [UnservedUniform, UnservedPythonRandom])
def test_randomness_the_probe_does_not_serve_is_refused_not_folded_into_g(factory):
    assert _exact(factory) is None  # sampled instead


def test_the_served_functions_and_generators_are_restored():
    before = (np.random.normal, np.random.default_rng, MODULE_RNG, standard_normal)
    assert _exact(ModuleGenerator) is not None
    after = (np.random.normal, np.random.default_rng, globals()["MODULE_RNG"],
             globals()["standard_normal"])
    assert all(a is b for a, b in zip(after, before, strict=True))


class PythonGauss(_Base):
    """Gaussian reports through Python's ``random.gauss``: the probe cannot serve them."""

    def privatize(self, reward):
        return reward + random.gauss(0.0, SIGMA / self.eps)


def test_sampled_ldp_route_sizes_its_budget_by_the_claim_and_says_what_fit():
    from dpaudit.usercode.policy_audit import audit_policy

    code = adapt(PythonGauss, n_arms=2, horizon=4, epsilon=1.0, delta=1e-5)
    audit = audit_policy(code, epsilon=1.0, delta=1e-5, notion="ldp", samples=200,
                         search_budget=0, seed=3, seconds=2.0, claim_sized=True)
    assert audit.exact is None and audit.claim_samples == 100_000_000  # 1000 / delta
    assert 200 <= audit.samples < audit.claim_samples  # cut to the 2 s given
    line = next(d for d in audit.details() if d.startswith("budget sized by the claim"))
    assert "fit the time (--seconds)" in line and "--samples 100000000" in line
    plain = audit_policy(code, epsilon=1.0, delta=1e-5, notion="ldp", samples=200,
                         search_budget=0, seed=3)
    assert plain.claim_samples is None and plain.samples == 200  # a given N is used as it is
