"""The compiled per-step kernels (in the paper packages, run by
``dpaudit.algorithms._step_kernels``) and the fallback.

* Same seed, same numbers: each policy's compiled kernel and the kernel's own Python
  function (``py_func``, the code numba compiles) consume the caller's generator identically
  and return identical regret, counts, curve and actions, on a Bernoulli instance, on one
  with a revised step of reward 1/2 and on a table of fractional rewards; and over the
  policies' parameter domain (hypothesis, parameters from the registry's factories).
* Without numba the policies run their numpy path and say so once (``SlowPathWarning``, which
  the test configuration turns into an error unless it is expected); ``backend="numba"`` is
  then a clear error.

The laws of the compiled and numpy paths are compared in test_policies.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms import _step_kernels as sk
from dpaudit.registry import all_policies
from dpaudit.sim.bandits import BernoulliRewards, TableRewards, check_simulation
from dpaudit.validation import InvalidParameterError

REGISTRY = all_policies()
KERNEL_NAMES = sorted(n for n in REGISTRY if callable(getattr(REGISTRY[n].factory(), "kernel",
                                                              None))
                      and REGISTRY[n].factory().kernel() is not None)

pytestmark = pytest.mark.skipif(not kern.HAVE_NUMBA, reason="numba cannot be imported")


def _both(policy, source, horizon, runs, seed):
    kernel, params = policy.kernel()
    out = []
    for python in (False, True):
        h, r, cps = check_simulation(source, horizon, runs, np.random.default_rng(seed),
                                     sorted({1, horizon // 2, horizon}))
        rng = np.random.default_rng(seed)
        res, n, s = sk.run_kernel(kernel, source, h, r, rng=rng, cps=cps, record=True,
                                  params=params, python=python)
        out.append((res, s, rng.random()))  # the generator's state after the run
    return out


def _assert_identical(pair):
    (a, sa, ua), (b, sb, ub) = pair
    for field in ("regret", "counts", "curve", "actions"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert np.array_equal(sa, sb) and ua == ub


def test_every_per_step_policy_outside_the_ucb_family_has_a_kernel():
    assert {"kl-ucb", "thompson", "dp-ftpl-new", "dp-ftpl-gauss", "ldp-one-point-ucb",
            "ldp-apt"} <= set(KERNEL_NAMES)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_compiled_kernel_and_its_python_function_give_the_same_numbers(name):
    entry = REGISTRY[name]
    policy = entry.factory(**entry.small_overrides)
    means = np.asarray(entry.small_instance, dtype=float)
    k, horizon = means.size, entry.small_horizon
    table = np.random.default_rng(0).random((horizon, k))
    for source in (BernoulliRewards(means), BernoulliRewards(means).changed(k + 1, 0.5),
                   TableRewards(table, means=means)):
        _assert_identical(_both(policy, source, horizon, 4, seed=21))


@settings(max_examples=15, deadline=None)
@given(name=st.sampled_from(KERNEL_NAMES), seed=st.integers(0, 2**32 - 1),
       means=st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), min_size=2, max_size=4),
       horizon=st.integers(4, 40))
def test_kernels_agree_and_stay_valid_over_the_domain(name, seed, means, horizon):
    """Instances with 0/1 and interior means, any horizon >= K: identical numbers on both
    paths; every run pulls ``horizon`` times and its regret is the sum of its gaps."""
    policy = REGISTRY[name].factory(**REGISTRY[name].small_overrides)
    horizon = max(horizon, len(means))
    source = BernoulliRewards(means)
    pair = _both(policy, source, horizon, 3, seed)
    _assert_identical(pair)
    res = pair[0][0]
    assert np.all(res.counts.sum(axis=1) == horizon)
    assert np.allclose(res.regret, source.gaps[res.actions].sum(axis=1))


@pytest.fixture
def without_numba(monkeypatch):
    monkeypatch.setattr(kern, "HAVE_NUMBA", False)
    monkeypatch.setattr(kern, "NUMBA_ERROR", "ImportError: test")
    monkeypatch.setattr(kern, "_warned", False)


@pytest.mark.parametrize("name", ["ucb", "thompson", "dp-ftpl-new"])
def test_without_numba_the_numpy_path_runs_and_says_so_once(without_numba, name):
    policy = REGISTRY[name].factory(**REGISTRY[name].small_overrides)
    source = BernoulliRewards(REGISTRY[name].small_instance)
    with pytest.warns(kern.SlowPathWarning, match="numba cannot be imported.*slower"):
        first = policy.simulate(source, 30, 3, rng=np.random.default_rng(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second warning would raise here
        again = policy.simulate(source, 30, 3, rng=np.random.default_rng(1))
    numpy_path = policy.simulate(source, 30, 3, rng=np.random.default_rng(1), backend="numpy")
    assert np.array_equal(first.counts, numpy_path.counts)
    assert np.array_equal(again.counts, numpy_path.counts)
    with pytest.raises(InvalidParameterError, match="numba"):
        policy.simulate(source, 30, 3, rng=np.random.default_rng(1), backend="numba")


def test_unknown_backend_is_rejected():
    policy = REGISTRY["thompson"].factory()
    with pytest.raises(InvalidParameterError):
        policy.simulate(BernoulliRewards([0.5, 0.4]), 10, 2, rng=np.random.default_rng(0),
                        backend="gpu")
