"""GDP-Elim-New (seed 003, Algorithm 4): reconstruction checks and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.algorithms._episodic import BernoulliRewards, TableRewards
from dpaudit.algorithms.bounds import thm18_gdp_elim_upper
from dpaudit.algorithms.gdp_elim import GDPElimNew, log_x
from dpaudit.mechanisms import Lemma15Perturbation
from dpaudit.validation import InvalidParameterError


@given(st.floats(0.01, 5.0), st.floats(1e-8, 0.5), st.integers(10, 10**7),
       st.integers(1, 10**4))
def test_lemma15_tail_at_the_proof_radius_is_one_over_T_squared(eps, delta, horizon, n):
    """Theorem 18's event B(k): with (eps, delta/2) the Lemma-15 tail at distance
    ln(X)/(N eps) is exactly 1/T^2 (this fixes Algorithm 4 line 6 as (eps, delta/2))."""
    law = Lemma15Perturbation(eps, delta / 2)
    radius = log_x(eps, delta, horizon) / (n * eps)
    tail = float(law.cdf(np.array(-radius), 0.0, n))
    # the cdf is (1/2 + k) e^{-N eps r} - k with k = delta/(2(e^eps - 1)): floating-point
    # cancellation costs an absolute error of a few ulps of (1/2 + k)
    k = delta / 2 / math.expm1(eps)
    assert tail == pytest.approx(1.0 / horizon**2, rel=1e-9, abs=8 * 2.0**-52 * (0.5 + k))


def test_eps_over_two_would_not_give_the_proof_tail() -> None:
    law = Lemma15Perturbation(0.5, 0.01)
    radius = log_x(1.0, 0.01, 1000) / (100 * 1.0)
    assert float(law.cdf(np.array(-radius), 0.0, 100)) > 10.0 / 1000**2


@given(st.integers(1, 12), st.integers(10, 10**7), st.floats(0.05, 5.0), st.floats(0.0, 0.5))
def test_phase_length_meets_the_proofs_two_conditions(k, horizon, eps, delta):
    alg = GDPElimNew(eps, delta)
    n = alg.phase_length(k, horizon)
    d = 2.0 ** (-k)
    assert math.sqrt(2 * math.log(horizon) / n) <= d / 4 * (1 + 1e-12)
    assert log_x(eps, delta, horizon) / (n * eps) <= d / 4 * (1 + 1e-12)


def test_parameters_are_validated() -> None:
    with pytest.raises(InvalidParameterError):
        GDPElimNew(0.0, 0.0)
    with pytest.raises(InvalidParameterError):
        GDPElimNew(1.0, 1.0)
    with pytest.raises(InvalidParameterError):
        GDPElimNew(1.0, 0.1, lemma15_delta_factor=2.0)
    assert GDPElimNew(1.0, 0.1).perturbation.delta == pytest.approx(0.05)


def test_exploits_the_best_arm_on_an_easy_instance() -> None:
    env = BernoulliRewards([0.95, 0.05])
    res = GDPElimNew(1.0, 0.01).simulate(env, 20_000, 40, rng=np.random.default_rng(0),
                                          checkpoints=np.array([20_000]))
    assert np.all(res.counts.sum(axis=1) == 20_000)
    assert np.all(res.decisions[:, 1] == 0) and np.all(res.decisions[:, 0] == 1)
    assert np.all(res.regret <= thm18_gdp_elim_upper([0.95, 0.05], 20_000, 1.0, 0.01))


@pytest.mark.statistical
def test_binomial_blocks_have_the_per_step_law_with_revision() -> None:
    """Block sums (one binomial draw, revised step set to v) vs summing per-step Bernoulli
    draws with the revision applied: chi-square two-sample test, reject at p < 1e-3
    (false-failure probability 1e-3, seeds fixed)."""
    mu, length, step, v = 0.3, 12, 5, 1.0
    env = BernoulliRewards([mu], revision_step=step, revision_value=v)
    n = 20_000
    epi = env.block_sums(np.zeros(n, int), np.zeros(n, int), np.full(n, length),
                         np.random.default_rng(1))
    draws = (np.random.default_rng(2).random((n, length)) < mu).astype(float)
    draws[:, step - 1] = v
    ref = draws.sum(axis=1)
    values = np.union1d(epi, ref)
    table = np.array([[np.sum(epi == x) for x in values], [np.sum(ref == x) for x in values]])
    table = table[:, table.sum(axis=0) >= 10]
    assert stats.chi2_contingency(table)[1] > 1e-3
    assert epi.min() >= v  # the revised reward is always inside this block


def test_table_rewards_sum_blocks_exactly() -> None:
    tab = TableRewards(np.arange(10) / 10.0, n_arms=2)
    s = tab.block_sums(np.array([0, 1]), np.array([0, 3]), np.array([4, 2]), None)
    assert np.allclose(s, [0.6, 0.7])
    changed = tab.changed(4, 1.0)
    assert changed.block_sums(np.array([1]), np.array([3]), np.array([1]), None)[0] == 1.0
    with pytest.raises(InvalidParameterError):
        tab.changed(11, 0.0)


@pytest.mark.statistical
def test_episodic_simulator_has_the_per_step_law() -> None:
    """Exploitation (phase, arm) on Bernoulli(0.8, 0.3), T = 2600 (one decision after
    phase 1): episodic vs the per-step reference, chi-square two-sample test, reject at
    p < 1e-3 (false-failure probability 1e-3, seeds fixed)."""
    alg, means, horizon = GDPElimNew(1.0, 0.01), np.array([0.8, 0.3]), 2600
    rng = np.random.default_rng(7)
    ref = np.array([alg.simulate_per_step(means, horizon, rng=rng)[2][0] for _ in range(300)])
    epi = alg.simulate(BernoulliRewards(means), horizon, 20_000,
                       rng=np.random.default_rng(8)).decisions[:, 0]
    table = np.array([[np.sum(ref == v) for v in (0, 1)], [np.sum(epi == v) for v in (0, 1)]])
    assert table.min() >= 10
    assert stats.chi2_contingency(table)[1] > 1e-3
