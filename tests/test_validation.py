import math

import numpy as np
import pytest

from dpaudit.validation import (
    InvalidParameterError,
    check_delta,
    check_epsilon,
    check_epsilon_delta,
    check_horizon,
    check_int,
    check_means,
    check_rewards,
)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, True, "1", None, [1.0]])
def test_epsilon_rejects_bad_values(bad):
    with pytest.raises(InvalidParameterError, match=r"epsilon=.* must be a finite number in \(0"):
        check_epsilon(bad)


def test_epsilon_zero_allowed_when_asked():
    assert check_epsilon(0, allow_zero=True) == 0.0
    with pytest.raises(InvalidParameterError):
        check_epsilon(-0.5, allow_zero=True)


@pytest.mark.parametrize("bad", [-0.1, 1.0, 1.5, math.nan, False, "0.1"])
def test_delta_domain(bad):
    message = r"delta=.* must be a finite number in \[0, 1\)"
    with pytest.raises(InvalidParameterError, match=message):
        check_delta(bad)


def test_epsilon_delta_not_both_zero():
    with pytest.raises(InvalidParameterError, match="must not both be zero"):
        check_epsilon_delta(0.0, 0.0, allow_zero_epsilon=True)
    assert check_epsilon_delta(0.0, 0.1, allow_zero_epsilon=True) == (0.0, 0.1)
    assert check_epsilon_delta(np.float64(1.0), 0) == (1.0, 0.0)


def test_integers_refuse_floats_and_bools():
    with pytest.raises(InvalidParameterError):
        check_int("runs", 3.0, low=1)
    with pytest.raises(InvalidParameterError):
        check_int("runs", True, low=1)
    assert check_int("runs", np.int64(4), low=1) == 4


def test_horizon_at_least_arms():
    with pytest.raises(InvalidParameterError, match="horizon=3 must be an integer in \\[5, inf\\)"):
        check_horizon(3, 5)


def test_means_and_rewards_in_unit_interval():
    with pytest.raises(InvalidParameterError):
        check_means([0.5, 1.2])
    with pytest.raises(InvalidParameterError):
        check_means([])
    with pytest.raises(InvalidParameterError):
        check_rewards([0.1, math.nan])
    with pytest.raises(InvalidParameterError):
        check_rewards([[0.1, -0.2]])
    assert check_rewards([[0, 1], [0.5, 0.25]]).shape == (2, 2)
