"""Reward sources, the regret tracker and the simulate preamble of ``dpaudit.sim.bandits``."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpaudit.sim.bandits import (
    BernoulliRewards,
    Instance,
    RegretTracker,
    TableRewards,
    check_simulation,
    checkpoint_grid,
    result_from_actions,
    stack_results,
)
from dpaudit.validation import InvalidParameterError


@pytest.mark.statistical
def test_binomial_blocks_have_the_per_step_law_with_revision() -> None:
    """Block sums (one binomial draw, revised step set to v) vs summing per-step rewards of
    the same source: chi-square two-sample test, reject at p < 1e-3 (false-failure
    probability 1e-3, seeds fixed)."""
    mu, length, step, v = 0.3, 12, 5, 1.0
    env = BernoulliRewards([mu], revision_step=step, revision_value=v)
    n = 20_000
    arms = np.zeros(n, dtype=np.int64)
    epi = env.block_sums(arms, np.ones(n, dtype=np.int64), np.full(n, length),
                         np.random.default_rng(1))
    rng = np.random.default_rng(2)
    ref = sum(env.rewards(t, arms, rng) for t in range(1, length + 1))
    values = np.union1d(epi, ref)
    table = np.array([[np.sum(epi == x) for x in values], [np.sum(ref == x) for x in values]])
    table = table[:, table.sum(axis=0) >= 10]
    assert stats.chi2_contingency(table)[1] > 1e-3
    assert epi.min() >= v  # the revised reward is always inside this block


def test_revision_outside_a_block_leaves_it_alone() -> None:
    env, rng = BernoulliRewards([1.0, 0.0]).changed(3, 0.0), np.random.default_rng(0)
    s = env.block_sums(np.array([0, 0, 1]), np.array([1, 4, 1]), np.array([2, 5, 3]), rng)
    assert s.tolist() == [2.0, 5.0, 0.0]
    assert env.block_sums(np.array([0]), np.array([2]), np.array([2]), rng)[0] == 1.0
    assert env.rewards(3, np.array([0, 0]), np.random.default_rng(0)).tolist() == [0.0, 0.0]


def test_table_rewards_sum_blocks_exactly() -> None:
    seq = TableRewards(np.arange(10) / 10.0, n_arms=2)  # every arm earns r_t = (t - 1)/10
    s = seq.block_sums(np.array([0, 1]), np.array([1, 4]), np.array([4, 2]), None)
    assert np.allclose(s, [0.6, 0.7])  # steps 1..4 and 4..5
    changed = seq.changed(4, 1.0)
    assert changed.block_sums(np.array([1]), np.array([4]), np.array([1]), None)[0] == 1.0
    assert changed.rewards(4, np.array([0, 1]), None).tolist() == [1.0, 1.0]
    with pytest.raises(InvalidParameterError):
        seq.changed(11, 0.0)
    with pytest.raises(InvalidParameterError):
        seq.block_sums(np.array([0]), np.array([9]), np.array([3]), None)


def test_table_is_steps_by_arms() -> None:
    tab = np.zeros((6, 3))
    tab[:, 2] = 1.0
    src = TableRewards(tab)
    assert src.n_arms == 3 and src.length == 6 and np.all(src.gaps == 0)
    two = src.changed(2, np.array([1.0, 0.0, 0.0]))
    assert two.rewards(2, np.array([0, 1, 2]), None).tolist() == [1.0, 0.0, 0.0]
    assert two.rewards(3, np.array([0, 1, 2]), None).tolist() == [0.0, 0.0, 1.0]
    for bad in (np.full((4, 2), 1.5), np.zeros((2, 2, 2)), [[0.5, float("nan")]]):
        with pytest.raises(InvalidParameterError):
            TableRewards(bad)
    with pytest.raises(InvalidParameterError):
        TableRewards(np.zeros(5))  # a sequence needs n_arms
    with pytest.raises(InvalidParameterError):
        TableRewards(np.zeros((5, 2)), n_arms=3)
    with pytest.raises(InvalidParameterError):
        src.changed(1, np.array([1.0, 0.0]))  # one value per arm
    assert np.allclose(TableRewards(tab, means=[0.2, 0.5, 0.9]).gaps, [0.7, 0.4, 0.0])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 40), st.integers(1, 6), st.integers(0, 2**31))
def test_tracker_blocks_equal_the_step_by_step_sums(k: int, horizon: int, runs: int,
                                                    seed: int) -> None:
    """Random block schedules: the tracker's regret, counts, curve and actions equal the plain
    cumulative sums of the recorded action sequence."""
    rng = np.random.default_rng(seed)
    gaps = rng.random(k)
    cps = np.unique(rng.integers(1, horizon + 1, size=3))
    track = RegretTracker(runs, gaps, cps, horizon=horizon, record=True)
    played = np.zeros(runs, dtype=np.int64)
    while (played < horizon).any():
        arms = rng.integers(0, k, size=runs)
        length = np.minimum(rng.integers(0, 5, size=runs), horizon - played)
        track.add(arms, played + 1, length)
        played += length
    res = track.result()
    ref = result_from_actions(res.actions, gaps, cps, record=True)
    assert np.array_equal(res.counts, ref.counts)
    assert np.allclose(res.regret, ref.regret) and np.allclose(res.curve, ref.curve)


def test_tracker_step_path_and_stacking() -> None:
    gaps = np.array([0.0, 0.5])
    track = RegretTracker(2, gaps, np.array([1, 3]), horizon=3, record=True)
    for t, arms in enumerate(([0, 1], [1, 1], [0, 1]), start=1):
        track.step(np.array(arms), t)
    res = track.result(decisions=np.array([[1], [2]]), extra={"n": np.array([7, 8])})
    assert res.actions.tolist() == [[0, 1, 0], [1, 1, 1]]
    assert res.curve.tolist() == [[0.0, 0.5], [0.5, 1.5]]
    both = stack_results([res, res])
    assert both.regret.shape == (4,) and both.extra["n"].tolist() == [7, 8, 7, 8]
    with pytest.raises(TypeError):
        res.extra["n"] = 1  # read-only
    again = pickle.loads(pickle.dumps(res))  # results cross process pools
    assert np.array_equal(again.actions, res.actions) and again.extra["n"].tolist() == [7, 8]


def test_simulate_preamble() -> None:
    src, rng = BernoulliRewards([0.5, 0.4]), np.random.default_rng(0)
    h, n, cps = check_simulation(src, 10, 3, rng, (10, 2, 2))
    assert (h, n, cps.tolist()) == (10, 3, [2, 10])
    for args in ((src, 1, 3, rng), (src, 10, 0, rng), (src, 10, 3, None), (src, 10, 3, rng, (0,)),
                 (src, 10.0, 3, rng), ([0.5, 0.4], 10, 3, rng),
                 (TableRewards(np.zeros((5, 2))), 6, 3, rng)):
        with pytest.raises(InvalidParameterError):
            check_simulation(*args)


def test_checkpoint_grid_and_instances() -> None:
    grid = checkpoint_grid(10**7, 30)
    assert grid[0] == 1 and grid[-1] == 10**7 and np.all(np.diff(grid) > 0)
    inst = Instance("x", [0.5, 0.25], "Someone 2020, Fig. 1", settings={"epsilon": 1.0})
    assert inst.means == (0.5, 0.25) and inst.n_arms == 2
    assert pickle.loads(pickle.dumps(inst)) == inst and {inst: 1}[inst] == 1  # hashable
    assert np.allclose(inst.source().gaps, [0.0, 0.25])
    with pytest.raises(InvalidParameterError):
        Instance("bad", [0.5, 1.5], "Someone 2020")
