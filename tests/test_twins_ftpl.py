"""Planted twins of Wang & Zhu 2023's perturbed-leader algorithms, and their release record.

Each twin's infinite true loss (docstrings of :mod:`dpaudit.algorithms.wang_zhu_2023._twins`)
rests on one deterministic fact about its first perturbed release, checked here exactly on
the running code: with one shared draw, ``F_1(theta_1) - F_0(theta_0)`` is 0 at the history
whose laws ``F`` are used; unnoised, the first release equals the centres. Verdicts at the
default budget over seeds 1..10: ``benchmarks/results/twins-ldp-ftpl.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.algorithms.wang_zhu_2023 import _twins as t
from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta, DPFTPLGauss
from dpaudit.audits.wang_zhu_2023._release import _cdfs, release_sources
from dpaudit.registry import all_audits
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.sim.releases import ReleaseRecorder

EPS, DELTA = 1.0, 0.01


def _make(cls):
    if issubclass(cls, DPFTPLNew):
        return cls(EPS, DELTA, 1000)
    return cls(EPS, DELTA, horizon=1000)


def _first_release(alg, source, runs=2000, seed=5):
    n0 = int(getattr(alg, "start_phase", 1))
    rec = ReleaseRecorder()
    alg.simulate(source, 2 * n0 + 1, runs, rng=np.random.default_rng(seed), releases=rec)
    return rec.labelled("theta"), n0


def _pit_gap(alg, theta, n0, r0):
    cdf = _cdfs(alg, np.array([r0, 0.0]), np.full(2, float(n0)))
    return cdf(theta[:, 1], 1) - cdf(theta[:, 0], 0)


def _same_path(policy) -> dict:
    """The recorder is served by the numpy path: the run without it must take that path too
    (``backend="numpy"``) for the two to share a random stream; the compiled path has the same
    law, checked by tests/test_compiled_paths.py and tests/test_policies.py."""
    import inspect

    params = inspect.signature(policy.simulate).parameters
    return {"backend": "numpy"} if "backend" in params else {}


@pytest.mark.parametrize("cls", [t.GaussSharedNoise, t.BetaSharedUniform, t.NewSharedNoise])
def test_shared_noise_twins_tie_the_arms_to_one_uniform(cls):
    alg = _make(cls)
    d, d_prime = release_sources()
    for source, r0_delta in ((d, 0.0), (d_prime, -1.0)):
        theta, n0 = _first_release(alg, source)
        # at the history that produced the release, the probability-integral transforms agree
        assert np.allclose(_pit_gap(alg, theta, n0, n0 + r0_delta), 0.0, atol=1e-9)
    # and at the neighbouring history's laws they do not (the loss is infinite)
    theta, n0 = _first_release(alg, d)
    assert np.mean(np.abs(_pit_gap(alg, theta, n0, n0 - 1.0)) > 1e-6) > 0.9


@pytest.mark.parametrize("cls", [DPFTPLGauss, DPFTPLBeta, DPFTPLNew])
def test_correct_algorithms_draw_independent_scores(cls):
    alg = _make(cls)
    theta, n0 = _first_release(alg, release_sources()[1])
    assert np.mean(np.abs(_pit_gap(alg, theta, n0, n0 - 1.0)) > 1e-6) > 0.99


@pytest.mark.parametrize("cls", [t.GaussFirstReleaseRaw, t.BetaFirstReleaseRaw,
                                 t.NewFirstReleaseRaw])
def test_first_release_raw_twins_release_the_centres(cls):
    alg = _make(cls)
    for source in release_sources():
        theta, n0 = _first_release(alg, source)
        first = theta[:, :2]
        assert np.all(first == first[0])  # deterministic given the history
        second = theta[:, 2:4] if theta.shape[1] >= 4 else None
        assert second is None or np.unique(second[:, 0]).size > 1  # noise from then on


@pytest.mark.parametrize("cls", [DPFTPLGauss, DPFTPLBeta, DPFTPLNew])
def test_recording_changes_nothing(cls):
    alg = _make(cls)
    src = BernoulliRewards((0.3, 0.7))
    horizon = 2 * int(getattr(alg, "start_phase", 1)) + 30
    a = alg.simulate(src, horizon, 300, rng=np.random.default_rng(3), record=True,
                     **_same_path(alg))
    rec = ReleaseRecorder()
    b = alg.simulate(src, horizon, 300, rng=np.random.default_rng(3), record=True,
                     releases=rec)
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.regret, b.regret)
    assert rec.labelled("theta").shape == (300, 2 * (horizon - 2 * alg.start_phase
                                                     if hasattr(alg, "start_phase")
                                                     else horizon - 2))


def test_twins_are_registered_with_infinite_loss():
    audits = all_audits()
    names = [f"dp-ftpl-{a}-{b}" for a, b in (("gauss", "shared-noise"),
                                             ("gauss", "first-release-raw"),
                                             ("beta", "shared-uniform"),
                                             ("beta", "first-release-raw"),
                                             ("new", "shared-noise"),
                                             ("new", "first-release-raw"))]
    for name in names:
        spec = audits[name]
        assert spec.faulty and spec.true_epsilon == float("inf") and spec.expect_violated
        assert any(c.id == "releases-sampled" and c.observes == "releases"
                   for c in spec.claims)


def test_gdp_elim_new_records_each_phase_without_changing_its_law():
    from dpaudit.algorithms.wang_zhu_2023.gdp_elim import GDPElimNew

    alg = GDPElimNew(EPS, DELTA)
    src = BernoulliRewards((0.9, 0.1))
    a = alg.simulate(src, 20_000, 200, rng=np.random.default_rng(4), record=True)
    rec = ReleaseRecorder()
    b = alg.simulate(src, 20_000, 200, rng=np.random.default_rng(4), record=True,
                     releases=rec)
    assert np.array_equal(a.decisions, b.decisions) and np.array_equal(a.regret, b.regret)
    assert len(rec) >= 1 and rec.labelled("theta").shape[1] == 2 * len(rec)


def test_every_claim_and_finding_says_what_it_observes():
    from dpaudit.stats.results import OBSERVES, default_observes

    audits = all_audits()
    ours = [n for n in audits if n.startswith(("dp-ftpl-", "gdp-elim-new", "ldp-"))]
    for name in ours:
        spec = audits[name]
        for c in spec.claims:
            level = c.observes or default_observes(c.notion, None)
            assert level in OBSERVES, (name, c.id)
        for f in spec.findings:
            assert (f.observes or default_observes(f.notion, None)) in OBSERVES, (name, f.id)
    new = audits["dp-ftpl-new"]
    assert {f.id: f.observes for f in new.findings}["trajectory-lower-bound"] == "trajectory"
    assert {c.id: c.observes for c in new.claims}["releases-sampled"] == "releases"


@pytest.mark.parametrize("cls", [t.GDPSharedNoise, t.GDPFirstReleaseRaw])
def test_gdp_elim_new_twins_phase_one_release(cls):
    from dpaudit.audits.wang_zhu_2023.gdp_elim_new import phase_one_layout

    alg = cls(EPS, DELTA)
    horizon, n1, cdf = phase_one_layout(alg)
    d, d_prime = release_sources()
    rec = ReleaseRecorder()
    alg.simulate(d_prime, horizon, 500, rng=np.random.default_rng(2), releases=rec)
    theta = rec.labelled("theta")[:, :2]
    if cls is t.GDPSharedNoise:  # one uniform behind both arms at the laws of this history
        assert np.allclose(cdf(theta[:, 1], 1) - cdf(theta[:, 0], 0), 0.0, atol=1e-9)
    else:  # the phase means themselves
        assert np.allclose(theta, [(n1 - 1.0) / n1, 0.0])


def test_no_start_phase_twin_true_loss_is_the_gaussian_shift_at_count_one():
    """At ``N = 1`` one changed observation is a Gaussian shift with ``mu = 1/sqrt 2``: its
    exact ``delta`` is the claim's 0.01 at the registered ``eps``, above it just below, and
    smaller at every larger count (so the first perturbed step is the worst)."""
    from dpaudit.mechanisms.gauss_perturbation import gauss_exact_delta
    from dpaudit.registry import all_policies
    eps = t.NO_START_PHASE_TRUE_EPSILON
    at = gauss_exact_delta(eps, 1, variance_numerator=2.0)
    assert abs(float(at.value) - 0.01) <= 1e-9 + float(at.error)
    assert float(gauss_exact_delta(eps * (1 - 1e-6), 1, variance_numerator=2.0).value) > 0.01
    assert all(float(gauss_exact_delta(eps, n, variance_numerator=2.0).value) < 0.01
               for n in (2, 5, 50))
    audits, policies = all_audits(), all_policies()
    assert audits["dp-ftpl-gauss-no-start-phase"].true_epsilon == eps
    assert audits["dp-ftpl-gauss-faulty"].variant is t.DPFTPLGaussNoStartPhase  # the alias
    assert policies["dp-ftpl-gauss-faulty"] is policies["dp-ftpl-gauss-no-start-phase"]


@pytest.mark.parametrize("n", [1, 7, 827])
def test_double_rate_twin_true_loss_is_infinite_at_the_claimed_delta(n):
    """The twin's law (rate ``2 N eps``) on the history and the one whose centre moved by
    ``1/N``: the band ``[x0 - A', x0 - A' + 1/N)`` has mass ``delta (e^eps + 1)`` under the
    first and density 0 under the second, so ``delta(eps') >= 0.0372 > 0.01`` at every
    ``eps'``: the registered true loss is infinite."""
    from dpaudit.registry import all_policies
    eps, delta = 1.0, 0.01
    pert = t.DPFTPLNewFaultyPerturbation(eps, delta, horizon=10**5).make_perturbation()
    x0, half = 0.3, float(pert.half_width(n))
    assert 1.0 / n < half
    edge = x0 - half + 1.0 / n
    mass = float(pert.cdf(edge, x0, n))
    assert mass == pytest.approx(delta * (np.e + 1.0), rel=1e-9) and mass > delta
    band = np.linspace(x0 - half, edge, 50, endpoint=False)[1:]
    assert np.all(pert.pdf(band, x0 + 1.0 / n, n) == 0.0)
    assert np.all(pert.pdf(band, x0, n) > 0.0)
    audits, policies = all_audits(), all_policies()
    assert audits["dp-ftpl-new-double-rate"].true_epsilon == np.inf
    assert audits["dp-ftpl-new-faulty"].variant is t.DPFTPLNewFaultyPerturbation  # the alias
    assert policies["dp-ftpl-new-faulty"] is policies["dp-ftpl-new-double-rate"]


def test_unpadded_twin_true_loss_is_the_extreme_pair_at_the_start_phase():
    """Without the padding, an arm's score moves from ``Beta(R + 1, N - R + 1)`` to ``Beta(R +
    2, N - R)``; at the registered ``eps`` the worst pair over every ``R`` at ``N = N_B = 827``
    has exact ``delta`` equal to the claim's 0.01 (above it just below), every larger count
    checked is below 0.01 and decreases towards the ``Exp(1)`` vs ``Gamma(2, 1)`` limit
    ``1 - e^eps (1 - exp(-e^-eps))``."""
    import math

    from dpaudit.mechanisms.beta_perturbation import beta_worst_delta
    from dpaudit.registry import all_policies
    eps = t.UNPADDED_TRUE_EPSILON
    alg = t.DPFTPLBetaUnpadded(1.0, 0.01, horizon=10**5)
    assert alg.start_phase == 827 and not alg.padding
    at, r = beta_worst_delta(eps, alg.start_phase, padding=False)
    assert abs(float(at.value) - 0.01) <= 1e-12 + float(at.error) and r in (0, 826)
    below, _ = beta_worst_delta(eps * (1 - 1e-6), alg.start_phase, padding=False)
    assert float(below.value) > 0.01
    limit = 1.0 - math.exp(eps) * -math.expm1(-math.exp(-eps))
    larger = [float(beta_worst_delta(eps, n, padding=False)[0].value)
              for n in (828, 900, 1500, 5000, 20000, 10**5)]
    assert all(d < 0.01 for d in larger)
    assert all(a >= b >= limit for a, b in zip(larger, larger[1:], strict=False))
    audits, policies = all_audits(), all_policies()
    assert audits["dp-ftpl-beta-unpadded"].true_epsilon == eps
    assert audits["dp-ftpl-beta-faulty"].variant is t.DPFTPLBetaUnpadded  # the alias
    assert policies["dp-ftpl-beta-faulty"] is policies["dp-ftpl-beta-unpadded"]
