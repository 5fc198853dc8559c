"""Binary-tree and hybrid continual counters (Chan, Shi & Song 2011; used by Azize & Basu 2022 and
Tossou & Dimitrakakis 2016)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.mechanisms.counting import (
    BinaryTreeCounter,
    HybridCounter,
    tree_levels,
    tree_nodes_touched,
)
from dpaudit.validation import InvalidParameterError


def _brute_nodes(horizon, used_up_to):
    """Enumerate dyadic nodes ((m-1) 2^j, m 2^j] with m 2^j <= used_up_to, count membership."""
    counts = [0] * horizon
    j = 0
    while (1 << j) <= max(used_up_to, 1):
        m = 1
        while m * (1 << j) <= used_up_to:
            for t in range((m - 1) * (1 << j) + 1, m * (1 << j) + 1):
                if t <= horizon:
                    counts[t - 1] += 1
            m += 1
        j += 1
    return counts


@given(st.integers(1, 200), st.data())
def test_nodes_touched_matches_enumeration(horizon, data):
    used = data.draw(st.integers(0, horizon))
    assert tree_nodes_touched(horizon, used_up_to=used).tolist() == _brute_nodes(horizon, used)


@given(st.integers(1, 5000))
def test_levels(horizon):
    assert tree_nodes_touched(horizon).max() == tree_levels(horizon) == \
        math.floor(math.log2(horizon)) + 1
    assert tree_levels(horizon, "ceil_log2") == max(1, math.ceil(math.log2(horizon)))


@pytest.mark.parametrize("k", [3, 10])
def test_ceil_log2_is_one_short_at_powers_of_two(k):
    c = BinaryTreeCounter(1.0, 2**k, levels="ceil_log2")
    assert c.epsilon_exact()[0] == pytest.approx((k + 1) / k)
    assert BinaryTreeCounter(1.0, 2**k + 1, levels="ceil_log2").epsilon_exact()[0] == 1.0


@pytest.mark.parametrize("horizon", [1, 2, 3, 7, 8, 100, 4096])
def test_hybrid_is_eps_and_no_split_is_two_eps(horizon):
    # horizons 1 and 2 release only through the logarithmic part: eps/2
    expected = 0.5 if horizon > 2 else 0.25
    assert HybridCounter(0.5, horizon).epsilon_exact()[0] == pytest.approx(expected)
    faulty = HybridCounter(0.5, horizon, faulty_no_split=True).epsilon_exact()[0]
    assert faulty == pytest.approx(2 * expected)


@pytest.mark.statistical
def test_tree_release_noise_variance_matches_node_count():
    # At t (T = 8, scale b = 4/eps) the noise is a sum of popcount(t) Laplace(b) draws, variance
    # 2 b^2 popcount(t). Chebyshev on the sample variance S^2 over n runs:
    # Var(S^2) <= sigma^4 (2 + 3/m)/n (excess kurtosis 3/m); with n = 2e5 and threshold
    # c = sigma^2/2 the false-failure probability per t is <= 4 (2 + 3)/n = 1e-4, 8e-4 in all.
    rng = np.random.default_rng(7)
    c = BinaryTreeCounter(1.0, 8)
    noise = c.release(np.zeros((200_000, 8)), rng=rng)
    for t in range(1, 9):
        sigma2 = 2 * c.node_scale**2 * bin(t).count("1")
        assert abs(noise[:, t - 1].var() - sigma2) < sigma2 / 2


@pytest.mark.statistical
def test_hybrid_release_is_unbiased():
    # Mean error at each t is N(0, v_t/n) by the CLT (v_t <= 2 * 40 * 8^2 here); a 5.3-sigma
    # band fails with probability <= 1e-7 per t, 1e-5 over the 37 times.
    rng = np.random.default_rng(8)
    x = rng.integers(0, 2, size=(20_000, 37)).astype(float)
    h = HybridCounter(1.0, 37)
    err = h.release(x, rng=rng) - np.cumsum(x, axis=1)
    assert np.all(np.abs(err.mean(axis=0)) < 5.3 * err.std(axis=0) / math.sqrt(x.shape[0]))


def test_bad_parameters():
    with pytest.raises(InvalidParameterError):
        BinaryTreeCounter(1.0, 0)
    with pytest.raises(InvalidParameterError):
        tree_levels(8, "log")
    with pytest.raises(InvalidParameterError):
        HybridCounter(1.0, 10, split=1.5)
    with pytest.raises(InvalidParameterError):
        BinaryTreeCounter(1.0, 8).release(np.zeros((2, 7)), rng=np.random.default_rng(0))
