"""Speed work on the simulation kernels keeps every path's numbers.

* The UCB family's screened compiled kernels (:mod:`dpaudit.algorithms._kernels`) decide as
  the numpy lockstep reference on the same stream: identical actions, regret, counts and
  curve, including instances built to tie (0/1 tables, equal arms) where the screen must
  fall back to the exact indices, and over random instances and seeds (hypothesis).
* The sign words of :func:`~dpaudit.algorithms._lockstep.laplace_parts` taken from the raw
  64-bit stream equal ``rng.integers(0, 2**63)`` for every bit generator (the slower draw is
  kept for the others), and leave the generator in the same state.
* Reused chunk buffers draw the numbers fresh arrays would.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms._lockstep import SIGN_BITS, laplace_parts
from dpaudit.algorithms.baselines.private_ucb import PrivateUCB
from dpaudit.algorithms.baselines.ucb import UCB
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCB, DPUCBBound, DPUCBInt
from dpaudit.sim.bandits import BernoulliRewards, TableRewards

needs_numba = pytest.mark.skipif(not kern.HAVE_NUMBA, reason="numba cannot be imported")

POLICIES = {"ucb": UCB(), "ucb-c0.5": UCB(exploration=0.5), "dp-ucb-bound": DPUCBBound(1.0),
            "dp-ucb-bound-eps10": DPUCBBound(10.0), "private-ucb": PrivateUCB(1.0, horizon=6000),
            "dp-ucb": DPUCB(0.5), "dp-ucb-int": DPUCBInt(0.2)}


def _paths(alg, source, horizon, runs, seed):
    out = []
    for backend in ("numpy", "numba"):
        rng = np.random.default_rng(seed)
        res = alg.simulate(source, horizon, runs, rng=rng, checkpoints=[1, horizon // 2, horizon],
                           record=True, backend=backend)
        out.append((res, rng.random()))
    return out


def _assert_same(pair):
    (a, ua), (b, ub) = pair
    for field in ("actions", "regret", "counts", "curve"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert ua == ub  # the generator is left in the same state


@needs_numba
@pytest.mark.parametrize("name", sorted(POLICIES))
def test_screened_kernels_decide_as_the_reference_where_indices_tie(name):
    """Equal arms and 0/1 tables make exact ties at many steps (all arms with the same
    counts and sums): the screen must hand them to the exact tie-break."""
    alg = POLICIES[name]
    horizon = 600
    sources = [BernoulliRewards([0.5, 0.5, 0.5]), BernoulliRewards([1.0, 1.0]),
               BernoulliRewards([0.0, 0.0, 0.0, 0.0]),
               TableRewards(np.ones((horizon, 3)), means=np.ones(3)),
               TableRewards(np.tile([1.0, 0.0], (horizon, 1)), means=np.array([1.0, 0.0]))]
    for source in sources:
        _assert_same(_paths(alg, source, horizon, 6, seed=5))


@needs_numba
@settings(max_examples=25)
@given(name=st.sampled_from(sorted(POLICIES)), seed=st.integers(0, 2**32 - 1),
       means=st.lists(st.sampled_from([0.0, 0.3, 0.5, 0.51, 0.9, 1.0]), min_size=2,
                      max_size=5),
       horizon=st.integers(5, 300))
def test_compiled_and_numpy_paths_agree_over_random_instances(name, seed, means, horizon):
    _assert_same(_paths(POLICIES[name], BernoulliRewards(means), max(horizon, len(means)), 3,
                        seed))


@needs_numba
def test_long_run_crosses_chunks_and_counter_blocks_identically():
    """Beyond 2048 steps (several chunks; counters past powers of two up to 2^12)."""
    for name in ("ucb", "dp-ucb-bound", "private-ucb"):
        _assert_same(_paths(POLICIES[name], BernoulliRewards([0.6, 0.55, 0.3]), 5000, 4,
                            seed=17))


@pytest.mark.parametrize("bitgen", [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox,
                                    np.random.SFC64, np.random.MT19937])
@pytest.mark.parametrize("nz", [0, 1, 3, 64, 130])
def test_sign_words_are_the_bounded_integers_of_the_stream(bitgen, nz):
    shape = (7, 33, nz)
    a, b = np.random.Generator(bitgen(11)), np.random.Generator(bitgen(11))
    a.random(3)
    b.random(3)  # the same state, not a fresh one
    mag, bits = laplace_parts(a, shape, out=np.empty(7 * 33 * max(nz, 1)))
    ref_mag = b.standard_exponential(shape) if nz else np.zeros(shape)
    ref_bits = b.integers(0, 1 << SIGN_BITS, size=(7, 33, -(-nz // SIGN_BITS)), dtype=np.int64)
    assert np.array_equal(mag, ref_mag) and np.array_equal(bits, ref_bits)
    assert a.random() == b.random()


# -- KL-UCB: certified windows and Pinsker pruning against every root computed ----------------
def _kl_runs(kernel, params, source, horizon, runs, seed, monkeypatch=None, block=None):
    from dpaudit.algorithms import _step_kernels as sk
    from dpaudit.sim.bandits import check_simulation
    h, r, cps = check_simulation(source, horizon, runs, np.random.default_rng(seed),
                                 sorted({1, horizon // 2, horizon}))
    if block is not None:
        monkeypatch.setattr(sk, "BLOCK", block)
    rng = np.random.default_rng(seed)
    res, _, s = sk.run_kernel(kernel, source, h, r, rng=rng, cps=cps, record=True,
                              params=params)
    return res, s, rng.random()


@needs_numba
@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1),
       means=st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.55, 0.8, 0.9, 1.0]), min_size=2,
                      max_size=4),
       horizon=st.integers(5, 3000), c=st.sampled_from([0.0, 3.0]))
def test_kl_ucb_pruned_and_windowed_argmax_is_the_full_argmax(seed, means, horizon, c):
    """The fast kernel (Pinsker pruning, certified windows, block-fed uniforms) against the
    plain kernel with every arm's root computed at every step: identical actions, regret,
    counts, sums, curve and generator state (equal and 0/1 means make exact ties)."""
    from dpaudit.algorithms.baselines import _kl_ucb_kernel as klk
    source = BernoulliRewards(means)
    horizon = max(horizon, len(means))
    fast = _kl_runs(klk.kl_ucb_kernel, (c,), source, horizon, 3, seed)
    full = _kl_runs(klk.kl_ucb_plain_kernel, (c, False), source, horizon, 3, seed)
    for field in ("actions", "regret", "counts", "curve"):
        assert np.array_equal(getattr(fast[0], field), getattr(full[0], field)), field
    assert np.array_equal(fast[1], full[1]) and fast[2] == full[2]


@needs_numba
@pytest.mark.parametrize("block", [1, 2, 7, 64])
def test_kl_ucb_blocks_ending_mid_step_keep_the_stream(monkeypatch, block):
    """Tiny blocks end inside steps that also draw a tie-break uniform (equal arms)."""
    from dpaudit.algorithms.baselines import _kl_ucb_kernel as klk
    source = BernoulliRewards([0.5, 0.5, 0.5])
    fast = _kl_runs(klk.kl_ucb_kernel, (0.0,), source, 400, 3, 9, monkeypatch, block)
    plain = _kl_runs(klk.kl_ucb_plain_kernel, (0.0, True), source, 400, 3, 9)
    assert np.array_equal(fast[0].actions, plain[0].actions) and fast[2] == plain[2]


@needs_numba
def test_touched_kernels_give_the_same_report_on_one_and_two_workers(monkeypatch):
    from dpaudit.runtime import parallel
    from dpaudit.sim.simulation import simulate_policy
    monkeypatch.setattr(parallel, "POOL_START_SECONDS", 0.0)  # always worth a pool
    for name in ("ucb", "dp-ucb-bound", "private-ucb", "kl-ucb", "ldp-apt"):
        one = simulate_policy(name, horizon=300, runs=30, seed=4, workers=1)
        two = simulate_policy(name, horizon=300, runs=30, seed=4, workers=2)
        assert one.numbers() == two.numbers(), name


# -- private APT: runs advanced in lanes against the one-run block kernel ---------------------
def _apt_runs(kernel, source, horizon, runs, seed, record):
    from dpaudit.algorithms import _step_kernels as sk
    from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding import PrivateAPT
    from dpaudit.sim.bandits import check_simulation
    _, params = PrivateAPT(epsilon=1.0, tau=0.5, gamma=0.05).kernel()
    h, r, cps = check_simulation(source, horizon, runs, np.random.default_rng(seed),
                                 sorted({1, 2, horizon // 2, horizon}))
    rng = np.random.default_rng(seed)
    res, n, s = sk.run_kernel(kernel, source, h, r, rng=rng, cps=cps, record=record,
                              params=params)
    return res, n, s, rng.random()


@needs_numba
@pytest.mark.parametrize("lane_numbers", [None, 2 * 2 * 300, 2 * 2 * 300 - 1])
def test_apt_lanes_give_the_one_run_kernels_numbers(monkeypatch, lane_numbers):
    """Runs in groups of 4 (or 2, or one at a time when a run's uniforms do not fit twice),
    the rest one by one: identical actions, regret, counts, sums, curve and generator state
    to the block-fed one-run kernel, on Bernoulli, tied, revised and table sources."""
    from dpaudit.algorithms import _step_kernels as sk
    from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025 import _apt_kernel as aptk
    if lane_numbers is not None:
        monkeypatch.setattr(sk, "LANE_NUMBERS", lane_numbers)
    one_run = sk.BlockFed(aptk._apt_block, 2)
    horizon = 300
    table = np.random.default_rng(2).random((horizon, 4))
    sources = [BernoulliRewards([0.3, 0.4, 0.6, 0.7]), BernoulliRewards([0.5, 0.5, 0.5, 0.5]),
               BernoulliRewards([1.0, 0.0, 1.0]),
               BernoulliRewards([0.3, 0.4, 0.6, 0.7]).changed(7, 1.0),
               TableRewards(table, means=table.mean(axis=0))]
    for source in sources:
        for runs in (1, 3, 4, 5, 9):
            for record in (True, False):
                a = _apt_runs(aptk.apt_kernel, source, horizon, runs, 13, record)
                b = _apt_runs(one_run, source, horizon, runs, 13, record)
                for field in ("regret", "counts", "curve", "actions"):
                    assert np.array_equal(getattr(a[0], field), getattr(b[0], field)), field
                assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
                assert a[3] == b[3]


@needs_numba
@pytest.mark.parametrize("size", [3, 100])
def test_two_arm_ucb_beyond_its_reciprocal_table_decides_as_the_reference(monkeypatch, size):
    """Counts past the table of reciprocal roots (shrunk here) are computed in the kernel:
    the same numbers as the numpy reference on either side of the table's end."""
    monkeypatch.setattr(kern, "RECIP_COUNTS", size)
    monkeypatch.setattr(kern, "_RECIP", [])
    for source in (BernoulliRewards([0.6, 0.55]), BernoulliRewards([1.0, 1.0]),
                   TableRewards(np.tile([1.0, 0.0], (400, 1)), means=np.array([1.0, 0.0]))):
        _assert_same(_paths(POLICIES["ucb"], source, 400, 4, seed=3))
