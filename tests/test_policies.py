"""One conformance suite for every registered bandit policy (``dpaudit.registry.all_policies``).

A new algorithm module that declares ``POLICIES`` is covered here without new test code:

* the fast simulator and the plain per-step reference have the same law (seeded chi-square
  two-sample test on the small instance the entry declares);
* a fixed-reward :class:`TableRewards` source gives the same law as the equivalent
  deterministic :class:`BernoulliRewards` instance (means in {0, 1}), with a revised step;
* the same seed gives the same result; bad parameters give ``InvalidParameterError``;
* ``record=True`` gives actions consistent with counts, regret and the checkpoint curve;
* a policy whose ``simulate`` takes ``backend`` has the same law on its compiled path and on
  its numpy lockstep path (seeded chi-square test on a source with a revised step of reward
  1/2, so fixed rewards and Bernoulli observations of them are exercised too).

For per-step-DP policies (``next_action_law`` and ``sample_next_actions``), sampled next
actions follow the exact law.

Error budget of the statistical tests: the whole family (two law tests per registered policy,
one more per per-step-DP policy, one more per policy with a ``backend``) fails falsely with
probability at most ``FAMILY_ALPHA = 1e-3`` (Bonferroni: each test rejects at
``FAMILY_ALPHA / number of tests``), up to the chi-square approximation (every category is
kept only if its pilot frequency gives an expected count >= 5 in the smaller sample).
Categories are fixed on an independent pilot sample, never on the samples that are compared.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from scipy import stats

from dpaudit.interfaces import Policy
from dpaudit.registry import all_aliases, all_policies
from dpaudit.sim.bandits import BernoulliRewards, Instance, SimulationResult, TableRewards
from dpaudit.validation import InvalidParameterError

REGISTRY = all_policies()
#: an alias's entry is its target's object (``all_aliases``): each law is tested once
NAMES = sorted(n for n in REGISTRY if n not in all_aliases())
PER_STEP_NAMES = [n for n in NAMES if callable(getattr(REGISTRY[n].factory(), "next_action_law",
                                                       None))]
BACKEND_NAMES = [n for n in NAMES if "backend" in inspect.signature(
    REGISTRY[n].factory().simulate).parameters]
FAMILY_ALPHA = 1e-3
PER_TEST_ALPHA = FAMILY_ALPHA / (2 * len(NAMES) + len(PER_STEP_NAMES) + len(BACKEND_NAMES))
N_PILOT, N_FAST, N_REF = 4_000, 20_000, 300
MIN_FREQUENCY = 5 / N_REF  # expected count >= 5 in the per-step sample
CITATION = re.compile(r"[A-Z][a-z]+.* (19|20)\d\d")


def _policy(name: str):
    entry = REGISTRY[name]
    return entry.factory(**entry.small_overrides)


def _keys(res: SimulationResult) -> np.ndarray:
    """One row per run: the decisions code (when the policy has one) and the pull counts."""
    parts = [res.counts] if res.decisions is None else [res.decisions, res.counts]
    return np.concatenate([np.asarray(p, dtype=np.int64).reshape(len(res.regret), -1)
                           for p in parts], axis=1)


def _regret(res: SimulationResult) -> np.ndarray:
    """Regret rounded to 1e-9: the two simulators sum the same gaps in different orders."""
    return np.round(res.regret, 9)


class _Categories:
    """Categories fixed on a pilot sample: frequent rows of ``_keys`` (+ "other"), or, when
    those cover less than half the pilot mass, pilot deciles of the regret."""

    def __init__(self, pilot: SimulationResult) -> None:
        rows, counts = np.unique(_keys(pilot), axis=0, return_counts=True)
        freq = counts / counts.sum()
        order = np.argsort(-freq)[:20]
        kept = order[freq[order] >= MIN_FREQUENCY]
        self.rows = rows[kept] if freq[kept].sum() >= 0.5 else None
        self.edges = None
        if self.rows is None:
            regret = _regret(pilot)
            edges = np.unique(np.quantile(regret, np.linspace(0.1, 0.9, 9)))
            freq = np.bincount(np.searchsorted(edges, regret, side="right"),
                               minlength=edges.size + 1) / regret.size
            kept, mass = [], 0.0  # merge bins until each holds MIN_FREQUENCY of the pilot
            for edge, f in zip(edges, freq[:-1], strict=True):
                mass += f
                if mass >= MIN_FREQUENCY:
                    kept, mass = [*kept, edge], 0.0
            if kept and mass + freq[-1] < MIN_FREQUENCY:
                kept.pop()
            self.edges = np.array(kept)

    def of(self, res: SimulationResult) -> np.ndarray:
        if self.rows is not None:
            keys = _keys(res)
            match = np.all(keys[:, None, :] == self.rows[None, :, :], axis=2)
            return np.where(match.any(axis=1), np.argmax(match, axis=1), len(self.rows))
        return np.searchsorted(self.edges, _regret(res), side="right")


def _same_law_pvalue(a: np.ndarray, b: np.ndarray) -> float:
    """Chi-square two-sample (homogeneity) test on category labels; 1.0 if one category."""
    cats = np.union1d(a, b)
    table = np.array([[np.sum(a == c) for c in cats], [np.sum(b == c) for c in cats]])
    if table.shape[1] < 2:
        return 1.0
    return float(stats.chi2_contingency(table)[1])


def _registry_ids():
    return pytest.mark.parametrize("name", NAMES)


# -- the registry itself ---------------------------------------------------------------------
def test_registry_holds_the_ported_policies():
    assert {"adap-ucb", "adap-klucb", "dp-se", "dp-ftpl-new", "gdp-elim-new"} <= set(NAMES)


@_registry_ids()
def test_entry_is_declared_completely(name):
    entry = REGISTRY[name]
    policy = entry.factory()
    assert isinstance(policy, Policy) and isinstance(policy.name, str)
    assert callable(getattr(policy, "simulate_per_step", None))
    assert isinstance(entry.instance, Instance) and CITATION.match(entry.paper)
    assert CITATION.search(entry.instance.citation)
    assert entry.invalid, "declare at least one parameter set the factory must reject"
    assert "seed" not in entry.paper.lower()


# -- law of the fast simulator ---------------------------------------------------------------
@pytest.mark.statistical
@_registry_ids()
def test_fast_simulator_has_the_per_step_law(name):
    """False-failure probability PER_TEST_ALPHA (module docstring); seeds fixed."""
    entry, policy = REGISTRY[name], _policy(name)
    source, horizon = BernoulliRewards(entry.small_instance), entry.small_horizon
    cats = _Categories(policy.simulate(source, horizon, N_PILOT, rng=np.random.default_rng(1)))
    fast = policy.simulate(source, horizon, N_FAST, rng=np.random.default_rng(2))
    ref = policy.simulate_per_step(source, horizon, N_REF, rng=np.random.default_rng(3))
    assert np.unique(cats.of(fast)).size >= 2, "small instance has a degenerate law"
    assert _same_law_pvalue(cats.of(fast), cats.of(ref)) > PER_TEST_ALPHA


@pytest.mark.statistical
@_registry_ids()
def test_table_source_has_the_law_of_the_fixed_instance(name):
    """A constant 0/1 table with one revised step vs the deterministic Bernoulli instance
    with the same revision (Wang & Zhu 2023, Def. 3 form). False-failure probability
    PER_TEST_ALPHA; seeds fixed."""
    entry, policy = REGISTRY[name], _policy(name)
    k, horizon = len(entry.small_instance), entry.small_horizon
    means = np.arange(k) % 2 == 0  # arms 0, 2, ... earn 1; the others 0
    step = k + 1
    bern = BernoulliRewards(means.astype(float)).changed(step, 0.0)
    table = TableRewards(np.tile(means.astype(float), (horizon, 1)),
                         means=means.astype(float)).changed(step, 0.0)
    cats = _Categories(policy.simulate(bern, horizon, N_PILOT, rng=np.random.default_rng(4)))
    a = policy.simulate(bern, horizon, N_PILOT, rng=np.random.default_rng(5))
    b = policy.simulate(table, horizon, N_PILOT, rng=np.random.default_rng(6))
    assert _same_law_pvalue(cats.of(a), cats.of(b)) > PER_TEST_ALPHA


@pytest.mark.statistical
@pytest.mark.parametrize("name", BACKEND_NAMES)
def test_compiled_and_numpy_paths_have_the_same_law(name):
    """The compiled kernel (default) against the numpy lockstep loop (``backend="numpy"``) on
    the small instance with step ``K + 1`` revised to reward 1/2. False-failure probability
    PER_TEST_ALPHA (module docstring); seeds fixed. (Paths that share one random stream, the
    UCB family's, are also checked for identical numbers in test_dp_ucb.py; the kernels of
    the other policies against their own Python function in test_compiled_paths.py.)"""
    entry, policy = REGISTRY[name], _policy(name)
    k, horizon = len(entry.small_instance), entry.small_horizon
    source = BernoulliRewards(entry.small_instance).changed(k + 1, 0.5)
    cats = _Categories(policy.simulate(source, horizon, N_PILOT, rng=np.random.default_rng(13),
                                       backend="numpy"))
    fast = policy.simulate(source, horizon, N_FAST, rng=np.random.default_rng(14))
    ref = policy.simulate(source, horizon, N_FAST, rng=np.random.default_rng(15),
                          backend="numpy")
    assert np.unique(cats.of(fast)).size >= 2, "small instance has a degenerate law"
    assert _same_law_pvalue(cats.of(fast), cats.of(ref)) > PER_TEST_ALPHA


@pytest.mark.statistical
@pytest.mark.parametrize("name", PER_STEP_NAMES)
def test_sampled_next_actions_follow_the_exact_law(name):
    """Chi-square goodness of fit of 20000 sampled next actions to ``next_action_law`` (its
    quadrature error, below 1e-9, is negligible at this sample size) on a history with unequal
    counts. False-failure probability PER_TEST_ALPHA; seed fixed."""
    policy = _policy(name)
    k = len(REGISTRY[name].small_instance)
    counts = np.arange(1, k + 1, dtype=float)
    sums = np.floor(counts / 2)
    probs, err = policy.next_action_law(sums, counts)
    assert err < 1e-9 and abs(probs.sum() - 1) < 1e-9
    draws = policy.sample_next_actions(sums, counts, 20_000, np.random.default_rng(9))
    observed = np.bincount(draws, minlength=k)
    possible = probs > 1e-12  # arms the exact law rules out must never be drawn
    assert observed[~possible].sum() == 0 and possible.sum() >= 2
    expected = 20_000 * probs[possible] / probs[possible].sum()
    assert stats.chisquare(observed[possible], expected).pvalue > PER_TEST_ALPHA


# -- determinism, validation, recorded actions -----------------------------------------------
@_registry_ids()
@pytest.mark.parametrize("method", ["simulate", "simulate_per_step"])
def test_same_seed_same_result(name, method):
    entry, policy = REGISTRY[name], _policy(name)
    run = getattr(policy, method)
    source = BernoulliRewards(entry.small_instance)
    a, b = (run(source, entry.small_horizon, 3, rng=np.random.default_rng(7), record=True)
            for _ in range(2))
    for field in ("regret", "counts", "curve", "actions", "decisions"):
        x, y = getattr(a, field), getattr(b, field)
        assert (x is None and y is None) or np.array_equal(x, y), field


@_registry_ids()
def test_bad_parameters_are_rejected(name):
    entry = REGISTRY[name]
    for kwargs in entry.invalid:
        with pytest.raises(InvalidParameterError):
            entry.factory(**kwargs)
    policy = _policy(name)
    source = BernoulliRewards(entry.small_instance)
    k, rng = source.n_arms, np.random.default_rng(0)
    bad_calls = [
        (source, k - 1, 2, {"rng": rng}),  # horizon < K
        (source, k, 0, {"rng": rng}),  # no runs
        (source, k, 2, {"rng": 0}),  # not a Generator
        (source, k, 2, {"rng": rng, "checkpoints": (k + 1,)}),  # checkpoint after T
        (np.zeros((k, k)), k, 2, {"rng": rng}),  # a bare array is not a source
        (TableRewards(np.zeros((k, k))), k + 1, 2, {"rng": rng}),  # longer than the table
    ]
    for method in (policy.simulate, policy.simulate_per_step):
        for src, horizon, runs, kw in bad_calls:
            with pytest.raises(InvalidParameterError):
                method(src, horizon, runs, **kw)


@_registry_ids()
@pytest.mark.parametrize("method", ["simulate", "simulate_per_step"])
def test_recorded_actions_agree_with_counts_regret_and_curve(name, method):
    entry, policy = REGISTRY[name], _policy(name)
    source = BernoulliRewards(entry.small_instance)
    horizon, k, runs = entry.small_horizon, source.n_arms, 20
    cps = sorted({1, k, horizon // 2, horizon})
    res = getattr(policy, method)(source, horizon, runs, rng=np.random.default_rng(8),
                                  checkpoints=cps, record=True)
    acts = res.actions
    assert acts.shape == (runs, horizon) and acts.min() >= 0 and acts.max() < k
    assert np.array_equal(np.stack([np.bincount(a, minlength=k) for a in acts]), res.counts)
    path = np.cumsum(source.gaps[acts], axis=1)
    assert np.allclose(path[:, -1], res.regret)
    assert np.allclose(path[:, np.array(cps) - 1], res.curve)
    assert res.curve.shape == (runs, len(cps)) and np.array_equal(res.checkpoints, cps)
    plain = getattr(policy, method)(source, horizon, runs, rng=np.random.default_rng(8))
    assert plain.actions is None and np.array_equal(plain.counts, res.counts)


@pytest.mark.parametrize("name", [n for n in NAMES if REGISTRY[n].faulty])
def test_broken_twin_is_a_documented_subclass_of_a_correct_policy(name):
    cls = type(REGISTRY[name].factory())
    correct = {type(REGISTRY[n].factory()) for n in NAMES if not REGISTRY[n].faulty}
    # beside its paper's algorithms, in its package's _twins
    assert cls.__module__.rsplit(".", 1)[-1] == "_twins"
    assert any(issubclass(cls, c) and cls is not c for c in correct)
    assert "what is wrong" in (cls.__doc__ or "").lower()


# -- every entry declares its regret bound or why none applies -------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_entry_declares_a_bound_or_why_none_applies(name):
    """``simulate``, ``check`` and ``claims`` read the bound from the entry alone."""
    entry = REGISTRY[name]
    assert (entry.bound is None) != (entry.no_bound_reason is None), name
    if entry.faulty:
        assert entry.bound is None  # no theorem covers a broken twin
    if entry.no_bound_reason is not None:
        assert len(entry.no_bound_reason) > 20, entry.no_bound_reason


@pytest.mark.parametrize("name", [n for n in NAMES if REGISTRY[n].bound is not None])
@pytest.mark.parametrize("horizon", [10**3, 10**5])
def test_declared_bound_is_a_number_at_the_policys_parameters(name, horizon):
    from dpaudit.sim.simulation import policy_bound

    entry = REGISTRY[name]
    policy = entry.factory()
    value, title = policy_bound(entry, policy, entry.instance.means, horizon)
    assert np.isfinite(value) and value > 0
    assert re.search(r"(19|20)\d\d, Theorem", title), title
    # every declared bound grows with the horizon (each has a ln T term)
    later, _ = policy_bound(entry, policy, entry.instance.means, 10 * horizon)
    assert later > value
