"""DP-SE (Sajed & Sheffet 2019, the successive-elimination baseline of Azize & Basu 2022)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.algorithms.baselines.dp_se import DPSE
from dpaudit.sim.bandits import BernoulliRewards, TableRewards
from dpaudit.validation import InvalidParameterError


@given(st.integers(1, 30), st.integers(2, 50), st.floats(1e-9, 0.5), st.floats(1e-3, 50.0))
def test_threshold_is_at_most_a_quarter_of_the_gap(e: int, alive: int, beta: float,
                                                   eps: float) -> None:
    """R_e makes h_e <= Delta_e/8 and c_e <= Delta_e/8, so 2 (h_e + c_e) <= Delta_e / 2."""
    alg = DPSE(eps)
    r = alg.epoch_length(e, np.array([alive]), beta)
    thr = alg.threshold(e, np.array([alive]), r, beta)
    assert float(thr[0]) <= 2.0 ** (-e) / 2 * (1 + 1e-12)


def test_epoch_length_matches_the_reference_formula() -> None:
    # e = 1, |S| = 5, beta = 1e-7, eps = 1: max{128 ln(4e8), 16 ln(2e8)} + 1, rounded up
    expected = math.ceil(max(128 * math.log(8 * 5 / 1e-7), 16 * math.log(4 * 5 / 1e-7)) + 1)
    assert DPSE(1.0).epoch_length(1, np.array([5]), 1e-7)[0] == expected


def test_parameters_are_validated() -> None:
    with pytest.raises(InvalidParameterError):
        DPSE(0.0)
    with pytest.raises(InvalidParameterError):
        DPSE(1.0, beta=1.5)
    with pytest.raises(InvalidParameterError):
        DPSE(1.0).simulate(BernoulliRewards([0.5, 0.4]), 1, 3, rng=np.random.default_rng(0))


def test_simulation_covers_the_horizon_and_keeps_the_best_arm() -> None:
    env = BernoulliRewards([0.9, 0.1, 0.2])
    res = DPSE(1.0).simulate(env, 200_000, 30, rng=np.random.default_rng(0),
                             checkpoints=np.array([100, 200_000]))
    assert np.all(res.counts.sum(axis=1) == 200_000)
    assert np.allclose(res.curve[:, -1], res.regret)
    assert np.all(res.counts[:, 0] > res.counts[:, 1:].sum(axis=1))
    # arm 0 is never eliminated; every other arm is, and arm 1 (gap 0.8) no later than arm 2
    assert np.all(res.decisions[:, 0] == 0) and np.all(res.decisions[:, 1:] > 0)
    assert np.all(res.decisions[:, 1] <= res.decisions[:, 2])


def test_table_mode_is_deterministic_up_to_noise() -> None:
    tab = np.ones((5000, 2))
    tab[:, 1] = 0.0
    res = DPSE(5.0).simulate(TableRewards(tab), 5000, 20, rng=np.random.default_rng(2))
    r1 = int(DPSE(5.0).epoch_length(1, np.array([2]), 1 / 5000)[0])
    # arm 1 (always 0) is eliminated after epoch 1 in every run: gap 1 > threshold
    assert np.all(res.counts[:, 1] == r1)
