"""The planted twins' true privacy loss, computed from the code (never from the audit).

Each twin's ``true_epsilon`` (``list --json``) is derived in its docstring; here it is
recomputed from the twin's own noise parameters: ``sensitivity / scale`` of a single release
(AdaP, DP-SE: a changed reward enters one release), the largest per-element sum of
``1/scale`` over the counter nodes the code creates (the vector Laplace mechanism), or a
dp-accounting bracket of the composed Laplace releases (DP-UCB-Int).
"""

import math

import numpy as np
import pytest

from dpaudit.algorithms._counters import HYBRID, TREE, loss_per_element
from dpaudit.algorithms.azize_basu_2022 import _twins as adap
from dpaudit.algorithms.baselines import _twins as base
from dpaudit.algorithms.tossou_dimitrakakis_2016 import _twins as tossou
from dpaudit.registry import all_audits

EPS = 1.0
N = np.array([2.0, 4.0, 8.0, 64.0, 1024.0])


@pytest.mark.parametrize("cls,bug", [(adap.AdaPUCBSqrt2Scale, "sqrt2-scale"),
                                     (adap.AdaPUCBHalfScale, "half-scale"),
                                     (adap.AdaPKLUCBSqrt2Scale, "sqrt2-scale"),
                                     (adap.AdaPKLUCBHalfScale, "half-scale")])
def test_adap_twin_loss_is_sensitivity_over_scale(cls, bug):
    alg = cls(EPS)
    # an episode release averages N/2 rewards in [0, 1]: sensitivity 2/N (Lemma 1)
    loss = (2.0 / N) / alg._noise_scale(N)
    initial = 1.0 / alg._initial_scale()  # the one-reward initial release
    assert np.allclose(loss, adap.TRUE_EPSILON[bug], rtol=1e-12)
    assert initial <= adap.TRUE_EPSILON[bug]


@pytest.mark.parametrize("cls,key", [(base.DPSESqrt2Scale, "dp-se-sqrt2-scale"),
                                     (base.DPSEArmsScale, "dp-se-arms-scale")])
def test_dp_se_twin_loss(cls, key):
    r = np.array([100.0, 1418.0, 5000.0])
    assert np.allclose((1.0 / r) / cls(EPS).release_scale(r), base.TRUE_EPSILON[key],
                       rtol=1e-12)


@pytest.mark.parametrize("cls,key", [(base.PrivateUCBSqrt2Scale, "private-ucb-sqrt2-scale"),
                                     (base.PrivateUCBNoLevelSplit,
                                      "private-ucb-no-level-split")])
def test_private_ucb_twin_loss_over_the_audited_tree(cls, key):
    alg = cls(EPS, horizon=8)
    worst = loss_per_element(TREE, 8, alg.node_scale).max()
    assert math.isclose(worst, base.TRUE_EPSILON[key], rel_tol=1e-12)


def test_private_ucb_ceil_log2_twin_loss_over_its_audited_tree():
    """``L = ceil(log2 T) = 10`` at ``T = 1024``: element 1 in 11 nodes of ``Lap(10/eps)``."""
    alg = base.PrivateUCBOneLevelShort(EPS, horizon=base.CEIL_LOG2_HORIZON)
    per_element = loss_per_element(TREE, alg.horizon, alg.node_scale)
    assert math.isclose(per_element.max(), base.TRUE_EPSILON["private-ucb-ceil-log2"],
                        rel_tol=1e-12)
    assert math.isclose(per_element[0], per_element.max(), rel_tol=1e-12)  # element 1


def test_old_faulty_names_are_aliases_of_the_same_twin():
    """A registered name never changes meaning: ``private-ucb-faulty`` is the ceil-log2 twin
    under its first name (the same policy entry, the same check)."""
    from dataclasses import replace

    from dpaudit.registry import all_policies
    policies, audits = all_policies(), all_audits()
    assert policies["private-ucb-faulty"] is policies["private-ucb-ceil-log2"]
    new, old = audits["private-ucb-ceil-log2"], audits["private-ucb-faulty"]
    assert replace(old, name=new.name) == new
    assert new.true_epsilon == old.true_epsilon == pytest.approx(1.1, rel=1e-12)


def test_adap_all_rewards_twin_loss_over_its_audited_tables():
    """Arm 0's initial reward enters its initial release and every later episode release; arm
    0 winning every episode of ``T = 32`` (K = 2) gives the most: the losses ``sensitivity /
    scale`` of those releases, from the code's own release statistic and scales, sum to the
    registered 3 eps; the audit simulates this horizon."""
    from dpaudit.audits.azize_basu_2022._adap_common import AUDIT_HORIZON
    alg = adap.AdaPUCBAllRewards(EPS)
    assert adap.ALL_REWARDS_HORIZON == AUDIT_HORIZON
    total, n, t = 0.0, 1.0, 2  # after the K = 2 initial pulls, arm 0 has one reward
    losses = [1.0 / alg._initial_scale()]
    while t < adap.ALL_REWARDS_HORIZON:
        length = min(int(n), adap.ALL_REWARDS_HORIZON - t)
        new_n = np.array([n + length])
        one = np.array([1.0])
        moved = (alg.release_mean(np.array([total + 1.0]), one, np.array([length]), new_n)
                 - alg.release_mean(np.array([total]), one, np.array([length]), new_n))
        losses.append(float(abs(moved[0]) / alg._noise_scale(new_n)[0]))
        n, t = n + length, t + length
    assert len(losses) == 6
    assert math.isclose(sum(losses), adap.ALL_REWARDS_TRUE_EPSILON, rel_tol=1e-12)


def test_new_twin_names_keep_their_faulty_aliases():
    """``adap-ucb-faulty``, ``dp-ftpl-new-faulty``, ``dp-ftpl-beta-faulty`` and
    ``dp-ucb-int-faulty`` are the new twins under their first names: the same policy entry
    and the same check."""
    from dataclasses import replace

    from dpaudit.registry import all_policies
    policies, audits = all_policies(), all_audits()
    for new_name, old_name, value in (("adap-ucb-all-rewards", "adap-ucb-faulty", 3.0),
                                      ("dp-ftpl-new-double-rate", "dp-ftpl-new-faulty",
                                       math.inf),
                                      ("dp-ftpl-beta-unpadded", "dp-ftpl-beta-faulty",
                                       3.9065231387961568),
                                      ("dp-ucb-int-every-pull", "dp-ucb-int-faulty",
                                       tossou.EVERY_PULL_TRUE_EPSILON[0])):
        assert policies[old_name] is policies[new_name]
        new, old = audits[new_name], audits[old_name]
        assert replace(old, name=new.name) == new
        assert new.faulty and new.expect_violated and new.true_epsilon == value


@pytest.mark.parametrize("cls,bug", [(tossou.DPUCBSqrt2Scale, "sqrt2-scale"),
                                     (tossou.DPUCBNoSplit, "no-split"),
                                     (tossou.DPUCBBoundSqrt2Scale, "sqrt2-scale"),
                                     (tossou.DPUCBBoundNoSplit, "no-split")])
def test_counter_twin_loss_is_the_largest_element_sum(cls, bug):
    alg = cls(EPS)
    per_element = loss_per_element(HYBRID, 4096, alg.eps_log, alg.eps_bin)
    assert math.isclose(per_element.max(), tossou.TRUE_EPSILON[bug], rel_tol=1e-12)
    assert math.isclose(per_element[2], tossou.TRUE_EPSILON[bug], rel_tol=1e-12)  # element 3


def test_correct_algorithms_have_the_claimed_loss():
    from dpaudit.algorithms.baselines.private_ucb import PrivateUCB
    from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCB
    assert math.isclose(loss_per_element(TREE, 8, PrivateUCB(EPS, horizon=8).node_scale).max(),
                        EPS)
    a = DPUCB(EPS)
    assert math.isclose(loss_per_element(HYBRID, 4096, a.eps_log, a.eps_bin).max(), EPS)


def test_registered_twins_carry_these_values():
    audits = all_audits()
    expected = {
        "adap-ucb-sqrt2-scale": math.sqrt(2), "adap-ucb-half-scale": 2.0,
        "adap-klucb-sqrt2-scale": math.sqrt(2), "adap-klucb-half-scale": 2.0,
        "dp-se-sqrt2-scale": math.sqrt(2), "dp-se-arms-scale": 2.0,
        "private-ucb-sqrt2-scale": math.sqrt(2), "private-ucb-no-level-split": 4.0,
        "dp-ucb-sqrt2-scale": math.sqrt(2), "dp-ucb-no-split": 2.0,
        "dp-ucb-bound-sqrt2-scale": math.sqrt(2), "dp-ucb-bound-no-split": 2.0,
        "adap-ucb-unnoised-first": math.inf, "adap-klucb-unnoised-first": math.inf,
        "dp-se-shared-draw": math.inf, "dp-ucb-shared-draw": math.inf,
    }
    for name, value in expected.items():
        spec = audits[name]
        assert spec.faulty and spec.expect_violated
        assert spec.true_epsilon == value or math.isclose(spec.true_epsilon, value,
                                                            rel_tol=1e-12), name
        # every twin observes the releases (the level its bug is in)
        assert [c.observes for c in spec.claims] == ["releases"], name


@pytest.mark.slow
def test_dp_ucb_int_sqrt2_twin_is_benign_at_the_default():
    # exact eps(1e-5) of one arm's releases over 10^5 pulls, from the twin's own scale table,
    # bracketed by dp-accounting's optimistic and pessimistic PLDs (discretisation 1e-4)
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    from dpaudit.mechanisms.interval_release import release_counts
    alg = tossou.DPUCBIntSqrt2Scale.for_target(1.0, 1e-5)
    pulls = 10**5
    _, scales, _ = alg.constants(1, pulls)
    brackets = []
    for pessimistic in (False, True):
        total = None
        for n in release_counts(alg.input_epsilon, pulls):
            # noise multiplier = scale / sensitivity = scale * n
            one = pldlib.from_laplace_mechanism(float(scales[n] * n), sensitivity=1.0,
                                                pessimistic_estimate=pessimistic,
                                                value_discretization_interval=1e-4,
                                                use_connect_dots=pessimistic)
            total = one if total is None else total.compose(one)
        brackets.append(total.get_epsilon_for_delta(1e-5))
    lo, hi = tossou.INT_TRUE_EPSILON
    assert lo <= brackets[0] + 5e-4 and brackets[1] <= hi + 5e-4, brackets
    spec = all_audits()["dp-ucb-int-sqrt2-scale"]
    assert spec.faulty and not spec.expect_violated and spec.true_epsilon == hi < 1.0


def test_dp_ucb_int_every_pull_twin_loss_brackets_above_its_claim():
    """The every-pull twin at its check's instance: the arm whose first reward changed
    releases at every one of its ``f`` round-robin pulls and at most the adaptive steps more;
    release ``n`` is a Laplace mechanism of multiplier ``scale * n`` from the twin's own scale
    table. dp-accounting brackets the exact eps(delta') (optimistic PLD over the releases
    every run makes, pessimistic over the most it can make), and the registered claim is
    below the bracket: the twin must be VIOLATED."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    from dpaudit.audits.tossou_dimitrakakis_2016.dp_ucb_int import _pairs
    audits = all_audits()
    spec = audits["dp-ucb-int-every-pull"]
    eps, delta = spec.default_epsilon, spec.default_delta
    alg = tossou.DPUCBIntEveryPull.for_target(eps, delta)
    f, horizon = alg.interval, 2 * alg.interval + 16
    assert alg.release_every == 1 and (f, horizon) == (168, 352)
    assert f"K=2, T={horizon}," in _pairs(alg)[0].description  # the global-dp tables
    assert tossou.EVERY_PULL_RELEASES == (f, horizon - f)  # round robin, then all adaptive
    _, scales, _ = alg.constants(2, horizon)

    def composed(releases: int, pessimistic: bool):
        total = None
        for n in range(1, releases + 1):
            one = pldlib.from_laplace_mechanism(float(scales[n] * n), sensitivity=1.0,
                                                pessimistic_estimate=pessimistic,
                                                value_discretization_interval=1e-4,
                                                use_connect_dots=pessimistic)
            total = one if total is None else total.compose(one)
        return total.get_epsilon_for_delta(delta)

    fewest, most = tossou.EVERY_PULL_RELEASES
    lo, hi = composed(fewest, False), composed(most, True)
    assert 9.0922 < lo < 9.0923 and 9.1951 < hi < 9.1952, (lo, hi)
    assert tossou.EVERY_PULL_TRUE_EPSILON[0] <= lo <= hi <= tossou.EVERY_PULL_TRUE_EPSILON[1]
    assert eps < lo  # the claim is below the whole bracket
    assert spec.faulty and spec.expect_violated
    assert spec.true_epsilon == tossou.EVERY_PULL_TRUE_EPSILON[0]
    assert [c.id for c in spec.claims] == [c.id for c in audits["dp-ucb-int"].claims]


def test_infinite_loss_twins_release_a_deterministic_function_of_the_data():
    # infinite loss: some released value (or difference) is the data itself, so one output
    # has probability 1 on a table and 0 on its neighbour (derivations in the docstrings)
    from dpaudit.sim.bandits import TableRewards
    from dpaudit.sim.releases import ReleaseRecorder

    def record(alg, table, horizon, runs=200):
        rec = ReleaseRecorder()
        alg.simulate(TableRewards(table), horizon, runs, rng=np.random.default_rng(9),
                     releases=rec)
        return rec

    one = np.zeros((8, 2))
    one[0] = 1.0
    for cls in (adap.AdaPUCBUnnoisedFirst, adap.AdaPKLUCBUnnoisedFirst):
        rec = record(cls(EPS), one, 8)
        assert np.all(rec.first(1)[:, 0] == 1.0)  # arm 0's initial reward, as it is
    rec = record(base.DPSESharedDraw(EPS), np.r_[np.ones((1, 2)), np.zeros((3999, 2))], 4000)
    r1 = int(base.DPSESharedDraw(EPS).epoch_length(1, np.array([2]), 1 / 4000)[0])
    first = rec.first(2)
    assert np.allclose(first[:, 0] - first[:, 1], 1.0 / r1, rtol=0, atol=1e-12)
    table = np.zeros((4, 2))
    table[2] = 1.0
    rec = record(tossou.DPUCBSharedDraw(EPS), table, 4)
    y3 = rec.labelled("counters")[:, 4:6]  # every counter after step 3
    played = rec.releases[2].arm
    diff = y3[np.arange(200), played] - y3[np.arange(200), 1 - played]
    assert np.allclose(diff, 1.0, rtol=0, atol=1e-12)


def test_mechanism_twins_carry_their_derived_true_losses():
    """The mechanism-level twins ``NAME-<bug>`` (first registered as ``NAME-faulty``, aliases
    kept) carry the loss their variant's docstring derives, recomputed from the code here
    (the Lemma-15 band and the Gaussian shift at N = 1 in ``tests/test_twins_ftpl.py``)."""
    from dataclasses import replace

    from dpaudit.algorithms.wang_zhu_2023._twins import (
        NO_START_PHASE_TRUE_EPSILON,
        UNPADDED_TRUE_EPSILON,
    )
    from dpaudit.audits.recipes.ldp import gaussian_epsilon
    from dpaudit.audits.zheng_et_al_2020.ldp_one_point import _bound_calibrated_epsilon
    from dpaudit.exact.divergence import classical_gaussian_sigma
    from dpaudit.mechanisms import _twins as twins
    from dpaudit.mechanisms.counting import BinaryTreeCounter, HybridCounter
    expected = {
        "privbern-double-exponent": twins.FaultyPrivBernMislabelled(EPS).epsilon_between(
            1.0, 0.0),
        "tree-counter-ceil-log2": BinaryTreeCounter(EPS, 1024,
                                                    levels="ceil_log2").epsilon_exact()[0],
        "hybrid-counter-no-split": HybridCounter(EPS, 4096,
                                                 faulty_no_split=True).epsilon_exact()[0],
        "lemma15-perturbation-double-rate": math.inf,
        "gauss-perturbation-no-start-phase": NO_START_PHASE_TRUE_EPSILON,
        "beta-perturbation-unpadded": UNPADDED_TRUE_EPSILON,
        # a mean of m >= 1 rewards (sensitivity 1/m) with Lap(1/((m + 1) eps)): m = 1 worst
        "laplace-terms-scale": max((1.0 / m) * ((m + 1) * EPS) for m in range(1, 100)),
        # the classical sigma halved: the eps at which the Gaussian shift has delta 1e-5
        "gaussian-half-sigma": gaussian_epsilon(
            1e-5, 2.0 / classical_gaussian_sigma(EPS, 1e-5, 1.0)),
        "ldp-one-point-bound-calibrated": _bound_calibrated_epsilon(),
    }
    audits = all_audits()
    for name, value in expected.items():
        spec = audits[name]
        assert spec.faulty and spec.expect_violated, name
        assert spec.true_epsilon == pytest.approx(value, rel=1e-12), name
        assert replace(audits[spec.original + "-faulty"], name=name) == spec
    assert expected["tree-counter-ceil-log2"] == pytest.approx(1.1, rel=1e-12)
    assert expected["hybrid-counter-no-split"] == pytest.approx(2.0, rel=1e-12)
    assert expected["laplace-terms-scale"] == pytest.approx(2.0, rel=1e-12)
    assert expected["gaussian-half-sigma"] == pytest.approx(1.61032, rel=1e-5)
