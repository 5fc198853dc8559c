"""UCB family of Tossou & Dimitrakakis 2016: counters, lockstep paths, per-step law, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms._counters import (
    HYBRID,
    LEVELS,
    TREE,
    increment_all,
    increment_selected,
    loss_per_element,
    node_spans,
)
from dpaudit.algorithms.baselines.private_ucb import PrivateUCB
from dpaudit.algorithms.baselines.ucb import KLUCB, UCB, Thompson
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCB, DPUCBBound, DPUCBInt
from dpaudit.mechanisms.counting import HybridCounter, tree_nodes_touched
from dpaudit.sim.bandits import BernoulliRewards, TableRewards
from dpaudit.validation import InvalidParameterError

KERNEL_POLICIES = [
    UCB(), DPUCBBound(1.0), DPUCB(0.5), PrivateUCB(1.0, horizon=3000),
    DPUCBInt(0.2), DPUCBInt(0.2, bonus="frozen"),
]


def _active_nodes(kind: int, n: int) -> list[int]:
    """Positions whose node is in the release after ``n`` elements (from the definitions)."""
    if kind == TREE:
        return [(n >> j) << j for j in range(n.bit_length()) if (n >> j) & 1]
    k = n.bit_length() - 1
    logs = [1 << i for i in range(k + 1)]
    m = n - (1 << k)
    return logs + [(1 << k) + ((m >> j) << j) for j in range(m.bit_length()) if (m >> j) & 1]


@pytest.mark.parametrize("kind", [HYBRID, TREE])
def test_incremental_counter_sums_exactly_the_active_nodes(kind: int) -> None:
    # one counter fed positions 1..300 with known fresh draws: its noise after n elements
    # must be the sum of the nodes the definitions say are active (scale applied)
    p1, p2 = (0.5, 0.25) if kind == HYBRID else (2.0, 0.0)  # eps_log, eps_bin / scale
    nodes, tsum, lsum = np.zeros((1, 1, LEVELS)), np.zeros((1, 1)), np.zeros((1, 1))
    z = np.random.default_rng(0).laplace(size=301)
    first, last, inv = node_spans(kind, 300, p1, p2)
    for n in range(1, 301):
        increment_selected(nodes, tsum, lsum, np.array([0]), np.array([0]), np.array([n]),
                           np.array([z[n]]), kind, p1, p2)
        expect = sum(z[p] / inv[p - 1] for p in _active_nodes(kind, n))
        assert float(lsum[0, 0] + tsum[0, 0]) == pytest.approx(expect, abs=1e-9)
        # the active nodes of release n cover 1..n exactly once (the release is a prefix sum)
        cover = np.zeros(n + 1)
        for p in _active_nodes(kind, n):
            cover[first[p - 1]:last[p - 1] + 1] += 1
        assert np.all(cover[1:] == 1)


def test_increment_all_matches_increment_selected() -> None:
    rng = np.random.default_rng(1)
    a = [np.zeros((3, 2, LEVELS)), np.zeros((3, 2)), np.zeros((3, 2))]
    b = [np.zeros((3, 2, LEVELS)), np.zeros((3, 2)), np.zeros((3, 2))]
    rows = np.arange(3)
    for t in range(1, 70):
        z = rng.laplace(size=(3, 2))
        increment_all(*a, t, z, HYBRID, 0.5, 0.5)
        for arm in range(2):
            increment_selected(*b, rows, np.full(3, arm), np.full(3, t), z[:, arm], HYBRID,
                               0.5, 0.5)
        assert np.array_equal(a[1] + a[2], b[1] + b[2])


@pytest.mark.parametrize("horizon", [1, 2, 3, 7, 8, 100, 1024, 1025, 5000])
def test_node_spans_agree_with_the_counting_module(horizon: int) -> None:
    # the tree: counting.tree_nodes_touched counts every node computed by T, including leaves
    # no release ever uses (element 2 at T = 2); ours counts only nodes some release uses, so
    # it is at most that count, and the worst element (t = 1) agrees
    loss = np.rint(loss_per_element(TREE, horizon, 1.0)).astype(int)
    touched = tree_nodes_touched(horizon)
    assert np.all(loss <= touched)
    assert loss.max() == touched.max() == loss[0]
    # the hybrid: HybridCounter.epsilon_exact (an independent enumeration) also charges the
    # logarithmic release of a block that only closes after T; ours charges released nodes
    # only, so it is at most that, and equal once a block with a binary tree has closed
    eps_exact, _ = HybridCounter(1.0, horizon).epsilon_exact()
    ours = loss_per_element(HYBRID, horizon, 0.5, 0.5).max()
    assert ours <= eps_exact + 1e-12
    if horizon >= 4:
        assert ours == pytest.approx(eps_exact, rel=1e-12)


@pytest.mark.parametrize("alg", KERNEL_POLICIES, ids=lambda a: a.name)
def test_numba_and_numpy_paths_give_identical_numbers(alg) -> None:
    if not kern.HAVE_NUMBA:
        pytest.skip("numba not installed")
    src = BernoulliRewards([0.7, 0.5, 0.45])
    out = [alg.simulate(src, 3000, 7, rng=np.random.default_rng(3), checkpoints=[5, 500],
                        record=True, backend=b) for b in ("numpy", "numba")]
    assert np.array_equal(out[0].actions, out[1].actions)
    assert np.array_equal(out[0].regret, out[1].regret)
    assert np.array_equal(out[0].counts, out[1].counts)
    assert np.array_equal(out[0].curve, out[1].curve)


@pytest.mark.statistical
@pytest.mark.parametrize("alg", [*KERNEL_POLICIES, KLUCB(), Thompson()], ids=lambda a: a.name)
def test_lockstep_and_per_step_reference_have_the_same_law(alg) -> None:
    # Two-sample KS test on the pulls of arm 0 at T = 60 (K = 2, close means, so the noise
    # matters). False-failure probability <= 1e-3 per policy (KS is conservative for discrete
    # samples); seeds fixed, so the outcome is deterministic.
    src = BernoulliRewards([0.6, 0.5])
    fast = alg.simulate(src, 60, 600, rng=np.random.default_rng(11))
    ref = alg.simulate_per_step(src, 60, 400, rng=np.random.default_rng(12))
    assert stats.ks_2samp(fast.counts[:, 0], ref.counts[:, 0]).pvalue > 1e-3


def test_fixed_table_rewards_are_deterministic_for_ucb() -> None:
    # a 0/1 table leaves no reward randomness: UCB's actions are the same in every run
    tab = np.zeros((50, 2))
    tab[::3, 0] = 1.0
    src = TableRewards(tab)
    res = UCB().simulate(src, 50, 4, rng=np.random.default_rng(0), record=True)
    assert np.all(res.actions == res.actions[0])
    assert res.counts.sum(axis=1).tolist() == [50] * 4


def test_regret_curve_and_counts_are_consistent() -> None:
    src = BernoulliRewards([0.9, 0.6])
    res = DPUCB(1.0).simulate(src, 400, 5, rng=np.random.default_rng(2), checkpoints=[400])
    assert np.allclose(res.curve[:, -1], res.regret)
    assert np.allclose(res.regret, res.counts[:, 1] * 0.3)


def test_dp_ucb_int_round_robin_and_release_interval() -> None:
    alg = DPUCBInt(0.1)
    assert alg.interval == 10
    res = alg.simulate(BernoulliRewards([0.5, 0.5]), 20, 3, rng=np.random.default_rng(0),
                       record=True)
    assert np.all(res.actions == np.tile([0, 1], 10))


@given(st.floats(0.05, 5.0), st.floats(1e-12, 0.5), st.floats(1.01, 1.9))
def test_for_target_meets_the_target_by_corollary_3_1(target: float, delta: float,
                                                      v: float) -> None:
    from dpaudit.mechanisms.interval_release import corollary_3_1

    alg = DPUCBInt.for_target(target, delta, v=v)
    assert corollary_3_1(alg.input_epsilon, delta, v=v) == pytest.approx(target, rel=1e-9)


@pytest.mark.parametrize("make", [
    lambda: DPUCBBound(-1.0), lambda: DPUCB(float("nan")), lambda: DPUCBBound(1.0, split=1.0),
    lambda: PrivateUCB(1.0, horizon=1), lambda: PrivateUCB(1.0, horizon=10, gamma=0.0),
    lambda: PrivateUCB(1.0, horizon=10, levels="log"), lambda: DPUCBInt(0.0),
    lambda: DPUCBInt(0.1, v=2.0), lambda: DPUCBInt(0.1, bonus="x"),
    lambda: DPUCBInt.for_target(1.0, 0.0), lambda: KLUCB(c=-1.0),
    lambda: Thompson(prior_a=0.0), lambda: DPUCBBound(True),
])
def test_bad_parameters_raise_invalid_parameter_error(make) -> None:
    with pytest.raises(InvalidParameterError):
        make()


def test_bad_simulation_arguments_raise() -> None:
    src = BernoulliRewards([0.5, 0.4])
    with pytest.raises(InvalidParameterError):
        UCB().simulate(src, 1, 3, rng=np.random.default_rng(0))  # horizon < K
    with pytest.raises(InvalidParameterError):
        UCB().simulate(src, 10, 0, rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError):
        PrivateUCB(1.0, horizon=10).simulate(src, 11, 2, rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError):
        UCB().simulate(src, 10, 2, rng=np.random.default_rng(0), checkpoints=[11])
    with pytest.raises(InvalidParameterError):
        UCB().simulate(src, 10, 2, rng=np.random.default_rng(0), backend="gpu")


def test_private_ucb_levels() -> None:
    assert PrivateUCB(1.0, horizon=1024).n_levels == 11
    assert PrivateUCB(1.0, horizon=1024, levels="ceil_log2").n_levels == 10
    assert math.isclose(PrivateUCB(2.0, horizon=1000).node_scale, 10 / 2.0)
