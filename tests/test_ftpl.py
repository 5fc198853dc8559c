"""DP-FTPL-New (Wang & Zhu 2023, Algorithm 3, Theorem 16): index, exact law, simulator, bound."""

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.algorithms.wang_zhu_2023.bounds import thm16_dp_ftpl_new_upper
from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew, ftpl_new_log_term
from dpaudit.exact.loss import discrete_hockey_stick
from dpaudit.sim.bandits import BernoulliRewards, TableRewards
from dpaudit.validation import InvalidParameterError


def test_log_term_limits():
    t = 10**5
    # Remark 17: delta -> 0 gives log(T/2)/eps, eps -> 0 gives (T - 2)/(2 T delta)
    assert ftpl_new_log_term(1.0, 0.0, t) == pytest.approx(math.log(t / 2))
    assert ftpl_new_log_term(1e-9, 0.01, t) == pytest.approx(ftpl_new_log_term(0.0, 0.01, t),
                                                            rel=1e-6)
    assert ftpl_new_log_term(0.0, 0.01, t) == pytest.approx((t - 2) / (2 * t * 0.01))


def test_theorem16_bound_by_hand():
    mu = [0.5, 0.4]
    t, eps, dl = 1000, 1.0, 0.01
    a = math.e - 1
    by_hand = max(16 * math.log(t) / 0.1,
                  (4 / eps) * math.log((t * a + 2 * t * dl) / (2 * a + 2 * t * dl))) + 4 * 2
    assert thm16_dp_ftpl_new_upper(mu, t, eps, dl) == pytest.approx(by_hand)


def test_centre_shift_is_one_over_n():
    alg = DPFTPLNew(1.0, 0.01, 1000)
    n = np.array([1.0, 4.0, 50.0])
    assert np.allclose(alg.centre(n * 0.5 + 1, n) - alg.centre(n * 0.5, n), 1 / n)


def test_next_action_law_sums_to_one_and_matches_sampling():
    alg = DPFTPLNew(1.0, 0.01, 10**4)
    sums, counts = (2, 3, 1), (4, 5, 3)
    probs, err = alg.next_action_law(sums, counts)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12) and err < 1e-8
    draws = alg.sample_next_actions(sums, counts, 200_000, np.random.default_rng(3))
    observed = np.bincount(draws, minlength=3)
    # chi-square goodness of fit at significance 1e-4 (false-failure probability 1e-4)
    assert stats.chisquare(observed, probs * observed.sum()).pvalue > 1e-4


def test_tight_history_reaches_the_claim_exactly():
    # when the other arm's sample lies in [x0 - A + 1/N, x0] of the changed arm, Lemma 15's
    # condition holds with equality: F(x) - e^eps F(x - 1/N) = delta (Wang & Zhu 2023, Fig. 3)
    alg = DPFTPLNew(1.0, 0.01, 10**5)
    p, _ = alg.next_action_law((0, 40), (10, 50))
    q, _ = alg.next_action_law((1, 40), (10, 50))
    assert max(discrete_hockey_stick(p, q, 1.0).value,
               discrete_hockey_stick(q, p, 1.0).value) == pytest.approx(0.01, rel=1e-9)


@pytest.mark.statistical
def test_regret_below_theorem16_on_small_instance():
    # Theorem 16 holds in expectation; the 99.9% upper confidence limit of the mean regret
    # over 30 runs must stay below it (false failure <= 1e-3 if the theorem holds)
    mu = (0.7, 0.5, 0.3)
    alg = DPFTPLNew(1.0, 0.01, 3000)
    res = alg.simulate(BernoulliRewards(mu), 3000, 30, rng=np.random.default_rng(8),
                       checkpoints=(3, 100, 3000))
    regret, curves = res.regret, res.curve
    upper = regret.mean() + stats.t.ppf(0.999, 29) * regret.std(ddof=1) / math.sqrt(30)
    assert upper < thm16_dp_ftpl_new_upper(mu, 3000, 1.0, 0.01)
    assert np.all(np.diff(curves, axis=1) >= 0) and np.allclose(curves[:, -1], regret)
    assert np.allclose(curves[:, 0], 0.2 + 0.4)  # first K steps: each arm once


def test_simulation_reproducible():
    alg = DPFTPLNew(0.5, 0.0, 200)
    env = BernoulliRewards((0.6, 0.4))
    a = alg.simulate(env, 200, 5, rng=np.random.default_rng(1), record=True)
    b = alg.simulate(env, 200, 5, rng=np.random.default_rng(1), record=True)
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.actions, b.actions)


def test_actions_on_reward_table():
    alg = DPFTPLNew(1.0, 0.01, 30)
    table = np.zeros((30, 2))
    table[:, 0] = 1.0
    acts = alg.simulate(TableRewards(table), 30, 50, rng=np.random.default_rng(0),
                        record=True).actions
    assert acts.shape == (50, 30) and np.all(acts[:, :2] == [0, 1])
    assert (acts[:, 2:] == 0).mean() > 0.5


@pytest.mark.parametrize("kwargs", [
    {"epsilon": -1, "delta": 0.1, "horizon": 10},
    {"epsilon": 1, "delta": 1.0, "horizon": 10},
    {"epsilon": 1, "delta": 0.1, "horizon": 1},
    {"epsilon": 0, "delta": 0, "horizon": 10},
])
def test_bad_construction(kwargs):
    with pytest.raises(InvalidParameterError):
        DPFTPLNew(**kwargs)


def test_bad_histories_and_instances():
    alg = DPFTPLNew(1.0, 0.1, 10)
    with pytest.raises(InvalidParameterError):
        alg.next_action_law((1, 2), (1, 1))
    with pytest.raises(InvalidParameterError):
        alg.simulate(BernoulliRewards((0.5,) * 11), 10, 2, rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError):  # longer than the algorithm's T
        alg.simulate(BernoulliRewards((0.5, 0.4)), 11, 2, rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError):
        TableRewards(np.full((10, 2), 2.0))
