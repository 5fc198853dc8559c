"""The exact whole-trajectory engine (dpaudit.exact.trajectory, trajectory_search).

Independent references: the closed-form composition of randomized response (a binomial sum),
dp-accounting's PLD of the same composition, the project's per-step exact loss
(``next_action_law`` of DP-FTPL-New with ``discrete_epsilon``), and sampling of the running
algorithm (a chi-square test with a stated false-failure probability).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew
from dpaudit.exact.loss import discrete_epsilon
from dpaudit.exact.trajectory import (
    Histories,
    Prefixes,
    StatisticPolicy,
    epsilon_at_delta,
    hockey_stick_both,
    sequence_law,
    sequence_loss,
)
from dpaudit.exact.trajectory_search import search_tables
from dpaudit.sim.rewards import TableRewards
from dpaudit.validation import InvalidParameterError


class RepeatedRR:
    """Step 1 pulls arm 0; every later step pulls arm 1 with the randomized-response
    probability of the first observation (``e^eps / (1 + e^eps)`` if it was 1): ``T - 1``
    independent eps-DP releases of one datum, so exactly ``(T - 1) eps``-DP."""

    n_arms = 2
    markov = False

    def __init__(self, epsilon: float) -> None:
        self.keep = 1.0 / (1.0 + math.exp(-epsilon))

    def observe_probability(self, rewards):
        return np.asarray(rewards, dtype=float)

    def action_law(self, h: Histories):
        m = h.sums.shape[0]
        if h.t == 1:
            return np.tile([1.0, 0.0], (m, 1)), np.zeros(m)
        p1 = np.where(h.observations[:, 0] == 1.0, self.keep, 1.0 - self.keep)
        return np.stack([1.0 - p1, p1], axis=1), np.zeros(m)


def logistic_policy(beta: float) -> StatisticPolicy:
    """A cheap Markov policy with a closed-form law: P(arm 1) = sigmoid(beta (mu1 - mu0))."""
    def law(s, n):
        p1 = special.expit(beta * (s[1] / n[1] - s[0] / n[0]))
        return np.array([1.0 - p1, p1]), 0.0
    return StatisticPolicy(2, law, round_robin=True)


tables = st.integers(1, 6).flatmap(lambda t: st.lists(
    st.lists(st.floats(0.0, 1.0), min_size=2, max_size=2), min_size=t, max_size=t))
binary_tables = st.integers(1, 7).flatmap(lambda t: st.lists(
    st.lists(st.sampled_from([0.0, 1.0]), min_size=2, max_size=2), min_size=t, max_size=t))


@settings(max_examples=40, deadline=None)
@given(table=tables, beta=st.floats(0.1, 20.0))
def test_law_sums_to_one_and_is_nonnegative(table, beta):
    law = sequence_law(logistic_policy(beta), table)
    assert law.probabilities.shape == (2 ** len(table),)
    assert np.all(law.probabilities >= 0)
    assert abs(law.probabilities.sum() - 1.0) <= law.error


@settings(max_examples=30, deadline=None)
@given(table=tables, beta=st.floats(0.1, 20.0), delta=st.sampled_from([0.0, 1e-6, 0.01, 0.3]))
def test_identical_tables_have_zero_loss(table, beta, delta):
    pol = logistic_policy(beta)
    law = sequence_law(pol, table)
    loss = sequence_loss(law, law, epsilon=0.5, delta=delta)
    assert loss.epsilon_at_delta == 0.0
    assert loss.delta_at_epsilon.value == 0.0


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("horizon", [2, 5, 12])
def test_repeated_randomized_response_composes_exactly(epsilon, horizon):
    """Pure DP: (T - 1) eps. The curve: the binomial closed form of the composition, and
    dp-accounting's pessimistic PLD, which lies between delta(eps) and delta(eps - m h)."""
    pol = RepeatedRR(epsilon)
    table = np.zeros((horizon, 2))
    prime = table.copy()
    prime[0] = 1.0
    p, q = sequence_law(pol, table), sequence_law(pol, prime)
    m = horizon - 1
    pure = sequence_loss(p, q, epsilon=epsilon, delta=0.0)
    assert pure.epsilon_at_delta == pytest.approx(m * epsilon, rel=1e-12)
    # closed form: j of the m releases say "1"; P = keep^j (1-keep)^(m-j) under the datum 1
    keep = 1.0 / (1.0 + math.exp(-epsilon))
    j = np.arange(m + 1)
    binom = special.comb(m, j)
    a, b = binom * keep ** j * (1 - keep) ** (m - j), binom * keep ** (m - j) * (1 - keep) ** j
    h = 1e-4
    noise = 2.0 / (1.0 + math.exp(epsilon))  # dp-accounting's RR: random bucket w.p. noise
    composed = pld.from_randomized_response(noise, 2, value_discretization_interval=h)
    composed = composed.self_compose(m)
    for e in np.linspace(0.0, m * epsilon, 7):
        ours = float(hockey_stick_both(p.probabilities, q.probabilities, e)[0])
        closed = max(np.maximum(a - math.exp(e) * b, 0).sum(),
                     np.maximum(b - math.exp(e) * a, 0).sum())
        assert ours == pytest.approx(closed, abs=1e-12)
        lib = composed.get_delta_for_epsilon(e)
        assert ours <= lib + 1e-12
        # E_P[(1 - e^(eps - L))_+] with every loss rounded up by at most h per release
        below = float(hockey_stick_both(p.probabilities, q.probabilities, e - m * h)[0])
        assert lib <= below + 1e-9


@settings(max_examples=25, deadline=None)
@given(table=binary_tables, beta=st.floats(0.5, 30.0), step=st.integers(0, 6),
       row=st.sampled_from([(0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]))
def test_epsilon_is_monotone_in_delta_and_matches_root_finder(table, beta, step, row):
    pol = logistic_policy(beta)
    t = np.array(table)
    prime = t.copy()
    prime[min(step, len(t) - 1)] = row
    p, q = sequence_law(pol, t).probabilities, sequence_law(pol, prime).probabilities
    grid = [0.0, 1e-9, 1e-4, 1e-2, 0.1, 0.5]
    eps = [epsilon_at_delta(p, q, d) for d in grid]
    assert all(a >= b for a, b in zip(eps, eps[1:], strict=False))
    for d, e in zip(grid[1:], eps[1:], strict=True):
        ref = discrete_epsilon(p, q, d)
        assert e == pytest.approx(float(ref.value), abs=float(ref.error) + 1e-9)
        # the root is a root: delta(eps) <= d, and just below eps it exceeds d
        assert hockey_stick_both(p, q, e)[0] <= d + 1e-12
        if e > 1e-6:
            assert hockey_stick_both(p, q, e - 1e-6)[0] > d - 1e-12


@pytest.mark.parametrize("history", [((0.0, 0.0), (1, 1)), ((1.0, 3.0), (2, 5)),
                                     ((0.0, 2.0), (3, 10))])
def test_horizon_one_is_the_per_step_loss(history):
    """T = 1 after a history: the next-action exact loss of Wang & Zhu's Definition 1."""
    alg = DPFTPLNew(1.0, 0.01, 10**5)
    (s, n) = history
    s_prime = (s[0] + 1.0, s[1])
    pol = StatisticPolicy(2, alg.next_action_law, initial=(np.array(s), np.array(n)))
    pol_prime = StatisticPolicy(2, alg.next_action_law,
                                initial=(np.array(s_prime), np.array(n)))
    table = np.zeros((1, 2))
    p, q = sequence_law(pol, table), sequence_law(pol_prime, table)
    ours = sequence_loss(p, q, epsilon=1.0, delta=0.01)
    ref = discrete_epsilon(alg.next_action_law(s, n)[0], alg.next_action_law(s_prime, n)[0],
                           0.01)
    assert ours.epsilon_at_delta == pytest.approx(float(ref.value), abs=1e-8)


def test_binary_tables_attain_the_maximum():
    """Random [0, 1] neighbouring pairs never beat the exhaustive binary maximum (module
    docstring of trajectory_search: the loss is convex in each entry)."""
    pol = logistic_policy(6.0)
    best = search_tables(pol, 3, epsilon=0.5, delta=0.01)
    assert best.exhaustive and best.evaluated == best.total == 2 ** 6 * 3 * 3 // 2
    rng = np.random.default_rng(np.random.SeedSequence(2201))
    for _ in range(200):
        t = rng.random((3, 2))
        prime = t.copy()
        prime[rng.integers(3)] = rng.random(2)
        loss = sequence_loss(sequence_law(pol, t), sequence_law(pol, prime), epsilon=0.5,
                             delta=0.01)
        assert loss.epsilon_at_delta <= best.loss.epsilon_at_delta + 1e-9


def test_law_is_the_running_algorithms_law():
    """Chi-square of 200000 simulated DP-FTPL-New trajectories (T = 5) against the exact law;
    false-failure probability 1e-6 (the test fails only when p < 1e-6), cells with expected
    count below 5 pooled."""
    alg = DPFTPLNew(1.0, 0.01, 5)
    pol = StatisticPolicy(2, alg.next_action_law, round_robin=True)
    table = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.5], [0.3, 1.0]])
    law = sequence_law(pol, table).probabilities
    rng = np.random.default_rng(np.random.SeedSequence(22031))
    runs = 200_000
    actions = alg.simulate(TableRewards(table), 5, runs, rng=rng, record=True).actions
    codes = (np.asarray(actions) * (2 ** np.arange(4, -1, -1))).sum(axis=1)
    observed = np.bincount(codes, minlength=32)
    expected = law * runs
    big = expected >= 5
    obs = np.append(observed[big], observed[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    keep = exp > 0
    assert stats.chisquare(obs[keep], exp[keep]).pvalue > 1e-6


def test_bad_tables_are_rejected():
    pol = logistic_policy(1.0)
    for bad in ([[0.5, 2.0]], [[np.nan, 0.0]], [0.0, 1.0], np.zeros((2, 3))):
        with pytest.raises(InvalidParameterError):
            sequence_law(pol, bad)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 0.3, 1.0]), min_size=8, max_size=8),
                min_size=2, max_size=6),
       st.sampled_from(["markov", "history"]), st.sampled_from([64 << 20, 3000, 0]))
def test_a_law_resumed_from_a_known_prefix_is_the_law_from_step_one(flat_tables, kind,
                                                                    max_bytes):
    """Tables sharing prefixes (as a search's do), computed one after the other through one
    :class:`Prefixes`, give the laws computed from step 1, bit for bit (law, error bound and
    node count), whatever the cache keeps (everything, a few states, nothing)."""
    policy = logistic_policy(3.0) if kind == "markov" else RepeatedRR(0.7)
    # each table: 4 steps of 2 arms; later tables copy a prefix of the first
    tables = [np.array(flat_tables[0]).reshape(4, 2)]
    for i, flat in enumerate(flat_tables[1:]):
        own = np.array(flat).reshape(4, 2)
        cut = i % 4
        tables.append(np.vstack([tables[0][:cut], own[cut:]]))
    prefixes = Prefixes(max_bytes)
    for tab in tables:
        fresh, resumed = sequence_law(policy, tab), sequence_law(policy, tab, prefixes=prefixes)
        assert np.array_equal(resumed.probabilities, fresh.probabilities)
        assert (resumed.error, resumed.nodes) == (fresh.error, fresh.nodes)
    assert prefixes._bytes <= max_bytes
    if max_bytes == 64 << 20 and len(tables) > 2:
        # the third table shares its first row with the first: it was resumed, not recomputed
        assert prefixes.longest(tables[2])[0] >= 1


def test_prefixes_travel_empty() -> None:
    import pickle

    prefixes = Prefixes(1 << 20)
    sequence_law(logistic_policy(1.0), np.ones((3, 2)), prefixes=prefixes)
    assert prefixes._states
    back = pickle.loads(pickle.dumps(prefixes))
    assert not back._states and back.max_bytes == 1 << 20


def test_prefixes_of_one_policy_are_refused_to_another() -> None:
    # the first policy is a temporary: freed after its table, its address may go to the
    # second (a Prefixes that kept only the id took the second for the first, now and then)
    prefixes = Prefixes()
    sequence_law(logistic_policy(1.0), np.ones((3, 2)), prefixes=prefixes)
    with pytest.raises(InvalidParameterError, match="one policy"):
        sequence_law(logistic_policy(2.0), np.ones((3, 2)), prefixes=prefixes)
