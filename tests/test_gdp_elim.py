"""GDP-Elim-New (Wang & Zhu 2023, Algorithm 4): reconstruction checks and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.algorithms.wang_zhu_2023.bounds import thm18_gdp_elim_upper
from dpaudit.algorithms.wang_zhu_2023.gdp_elim import GDPElimNew, log_x
from dpaudit.mechanisms import Lemma15Perturbation
from dpaudit.sim.bandits import BernoulliRewards
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
