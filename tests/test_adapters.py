"""Adapters for third-party bandit code: interfaces, seeding, errors, neighbour search."""

from __future__ import annotations

import json
import random
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.cli import main
from dpaudit.sim.rewards import BernoulliRewards
from dpaudit.usercode.adapters import UserCodeError, adapt, next_action, play, realise_rewards
from dpaudit.usercode.neighbour_search import (
    global_bases,
    per_step_pairs,
    propose_pairs,
)
from dpaudit.usercode.policy_audit import (
    ActionFeatures,
    GlobalPolicyTarget,
    _global_chunk,
    audit_policy,
)
from dpaudit.validation import InvalidParameterError

K, T = 2, 12


class NumpyGlobalPolicy:
    def __init__(self, n_arms):
        self.k = n_arms

    def select(self):
        return np.random.randint(self.k)

    def update(self, arm, reward):
        pass


class RandomModulePolicy:
    def __init__(self, k):
        self.k = k

    def select(self):
        return random.randrange(self.k)

    def update(self, arm, reward):
        pass


class RngPolicy:
    def __init__(self, n_arms, rng):
        self.k, self.rng = n_arms, rng

    def select(self):
        return int(self.rng.integers(self.k))

    def update(self, arm, reward):
        pass


class StepPolicy:
    """Round robin until a reward of 1, then stays (deterministic)."""

    def __init__(self, K, T):
        self.k, self.stay = K, None

    def step(self, last_reward, last_arm):
        if last_reward == 1.0 and self.stay is None:
            self.stay = last_arm
        if self.stay is not None:
            return self.stay
        return 0 if last_arm is None else (last_arm + 1) % self.k


class Renamed:
    def __init__(self, n_arms):
        self.k = n_arms

    def pick(self):  # names no convention knows: --methods pick,learn
        return 1

    def learn(self, arm, reward):
        pass


class Crashes(Renamed):
    def __init__(self, n_arms):
        super().__init__(n_arms)
        self.t = 0

    def select(self):
        self.t += 1
        if self.t == 3:
            raise ZeroDivisionError("oops")
        return 0

    def update(self, arm, reward):
        pass


class BadArm(Renamed):
    def select(self):
        return 7

    def update(self, arm, reward):
        pass


class NeedsMore:
    def __init__(self, n_arms, temperature):
        pass


def whole_run(rewards, horizon, epsilon=1.0):
    return [t % len(rewards[0]) for t in range(horizon)]


def whole_run_fn(reward_fn, horizon):
    return [int(reward_fn(t, 0) > 0.5) for t in range(1, horizon + 1)]


class NoisyArgmax:
    """Per-step epsilon-DP: argmax of means + Lap(1/(eps n_a)) (one coordinate changes)."""

    def __init__(self, n_arms, epsilon):
        self.k, self.eps = n_arms, epsilon
        self.s, self.n = [0.0] * n_arms, [0] * n_arms

    def select(self):
        means = [self.s[a] / max(self.n[a], 1) + np.random.laplace(
            0, 1 / (self.eps * max(self.n[a], 1))) for a in range(self.k)]
        return int(np.argmax(means))

    def update(self, arm, reward):
        self.s[arm] += reward
        self.n[arm] += 1


class RawArgmax(NoisyArgmax):
    """Broken: no noise at all (ties broken at random)."""

    def select(self):
        means = np.array([self.s[a] / max(self.n[a], 1) for a in range(self.k)])
        top = np.flatnonzero(means == means.max())
        return int(np.random.choice(top))


def _table(value=0.0):
    return np.full((T, K), value)


def test_interfaces_are_detected_and_factory_keywords_matched():
    assert adapt(NumpyGlobalPolicy, n_arms=K, horizon=T, epsilon=1.0).interface == "select-update"
    step = adapt(StepPolicy, n_arms=K, horizon=T, epsilon=1.0)
    assert step.interface == "step" and step.kwargs == {"K": K, "T": T}
    run = adapt(whole_run, n_arms=K, horizon=T, epsilon=0.5)
    assert run.interface == "run" and run.kwargs == {"epsilon": 0.5}
    named = adapt(Renamed, n_arms=K, horizon=T, epsilon=1.0, methods=("pick", "learn"))
    assert named.methods == ("pick", "learn")
    assert play(named, _table(), np.random.SeedSequence(1)).tolist() == [1] * T


def test_protocol_breaks_are_usage_errors():
    with pytest.raises(InvalidParameterError, match="neither select"):
        adapt(Renamed, n_arms=K, horizon=T, epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="requires temperature"):
        adapt(NeedsMore, n_arms=K, horizon=T, epsilon=1.0)
    bad = adapt(BadArm, n_arms=K, horizon=T, epsilon=1.0)
    with pytest.raises(InvalidParameterError, match=r"arm=7; it must be an integer in \[0, 2\)"):
        play(bad, _table(), np.random.SeedSequence(0))
    with pytest.raises(InvalidParameterError, match="interface="):
        adapt(NumpyGlobalPolicy, n_arms=K, horizon=T, epsilon=1.0, interface="loop")


def test_user_exception_becomes_user_code_error_with_location():
    code = adapt(Crashes, n_arms=K, horizon=T, epsilon=1.0)
    with pytest.raises(UserCodeError, match=r"at step 3 raised ZeroDivisionError: oops") as info:
        play(code, _table(), np.random.SeedSequence(0))
    assert "test_adapters.py" in str(info.value)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


@pytest.mark.parametrize("cls", [NumpyGlobalPolicy, RandomModulePolicy, RngPolicy])
def test_each_generator_is_seeded_per_run(cls):
    code = adapt(cls, n_arms=K, horizon=40, epsilon=1.0)
    table = np.zeros((40, K))
    a = play(code, table, np.random.SeedSequence([7, 1]))
    b = play(code, table, np.random.SeedSequence([7, 1]))
    c = play(code, table, np.random.SeedSequence([7, 2]))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)  # 40 uniform bits agree with probability 2^-40


def test_global_generators_are_restored_after_a_chunk():
    code = adapt(NumpyGlobalPolicy, n_arms=K, horizon=T, epsilon=1.0)
    np.random.seed(3)
    random.seed(3)
    before = (np.random.random(), random.random())
    np.random.seed(3)
    random.seed(3)
    _global_chunk(code, global_bases(T, K)[0].input().source, 5, np.random.default_rng(0))
    assert (np.random.random(), random.random()) == before


def test_run_functions_get_a_table_or_a_reward_function():
    table = _table()
    table[4, 0] = 1.0
    code = adapt(whole_run_fn, n_arms=K, horizon=T, epsilon=1.0, interface="run",
                 feed="reward-fn")
    assert np.flatnonzero(play(code, table, np.random.SeedSequence(0))).tolist() == [4]
    code = adapt(whole_run, n_arms=K, horizon=T, epsilon=1.0)
    assert play(code, table, np.random.SeedSequence(0)).tolist() == [t % K for t in range(T)]


def test_instance_rewards_apply_the_revision_at_its_1_based_step():
    src = BernoulliRewards([0.5, 0.5], revision_step=3, revision_value=1.0)
    draws = np.stack([realise_rewards(src, 6, np.random.default_rng(s)) for s in range(50)])
    assert np.all(draws[:, 2, :] == 1.0)
    assert set(np.unique(draws)) <= {0.0, 1.0} and draws[:, [0, 1, 3, 4, 5]].std() > 0


def test_step_interface_plays_against_the_table():
    code = adapt(StepPolicy, n_arms=3, horizon=8, epsilon=1.0)
    table = np.zeros((8, 3))
    table[3, 1] = 1.0  # step 4 pays on arm 1 (round robin reaches arm 1 at step 5)
    table[4, 1] = 1.0
    assert play(code, table, np.random.SeedSequence(0)).tolist() == [0, 1, 2, 0, 1, 1, 1, 1]


def test_neighbour_search_proposes_first_pulls_and_episode_boundaries():
    bases = global_bases(10, 2)
    pilot = np.array([[0, 1, 0, 0, 1, 1, 1, 1, 0, 0]] * 3)
    pairs = propose_pairs(bases, [pilot] * len(bases), 24, n_arms=2)
    reasons = {(p[1].step, p[1].reason) for p in pairs}
    assert (1, "first pull of arm 0") in reasons and (2, "first pull of arm 1") in reasons
    assert {(3, "first step after a switch"), (5, "first step after a switch"),
            (9, "first step after a switch"), (8, "last step before a switch")} <= reasons
    assert {s for s, r in reasons if r == "early step"} == {4, 6}
    assert len(pairs) == 24 and all(p[1].step is not None for p in pairs)
    assert {p[0].base for p in pairs} == {b.name for b in bases}  # every base represented
    d, d2 = pairs[0]
    assert np.count_nonzero(realise_rewards(d.source, 10, None)
                            != realise_rewards(d2.source, 10, None)) == 2  # one row of K


def test_action_features_mark_switches_and_first_pulls():
    f = ActionFeatures(4, 2)(np.array([[0, 0, 1, 1]]))
    assert f.shape == (1, 8 + 2 + 3 + 2)
    assert f[0, 8:10].tolist() == [2, 2] and f[0, 10:13].tolist() == [0, 1, 0]
    assert f[0, 13:].tolist() == [0.25, 0.75]


def test_per_step_history_is_replayed():
    code = adapt(RawArgmax, n_arms=2, horizon=T, epsilon=1.0)
    h, h2 = per_step_pairs(2, counts=(2,))[1]  # all ones; arm 0's last reward flipped to 0
    seq = np.random.SeedSequence(0)
    assert next_action(code, h2.arms, h2.rewards, seq) == 1


@pytest.mark.statistical
def test_per_step_audit_catches_an_unnoised_argmax_and_passes_report_noisy_max():
    # P(VIOLATED) for the correct NoisyArgmax is at most alpha = 0.01 (validity of the bound);
    # RawArgmax's next action on the all-ones history with arm 0's last reward flipped is
    # never arm 0 (q = 0) against 1/2 on the neighbour: expected bound ~log(0.45 / 0.003).
    kw = {"epsilon": 1.0, "notion": "per-step", "samples": 1000, "alpha": 0.01, "seed": 5,
          "search_budget": 2}
    bad = audit_policy(adapt(RawArgmax, n_arms=2, horizon=T, epsilon=1.0), **kw)
    assert bad.result.epsilon_lower_bound > 1.0
    good = audit_policy(adapt(NoisyArgmax, n_arms=2, horizon=T, epsilon=1.0), **kw)
    assert good.result.epsilon_lower_bound <= 1.0


def _write_module(tmp_path, monkeypatch, body):
    (tmp_path / "third_party_ucb.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("third_party_ucb", None)


def test_cli_exit_3_on_an_exception_inside_user_code(tmp_path, monkeypatch, capsys):
    _write_module(tmp_path, monkeypatch, """
        class UCB:
            def __init__(self, n_arms):
                self.t = 0
            def select(self):
                return 0
            def update(self, arm, reward):
                self.t += 1
                if self.t == 5:
                    raise KeyError("state")
        """)
    code = main(["audit-policy", "third_party_ucb:UCB", "--arms", "2", "--horizon", "8",
                 "--epsilon", "1", "--samples", "200"])
    err = capsys.readouterr().err
    assert code == 3 and "KeyError" in err and "third_party_ucb.py" in err
    assert "Traceback" not in err


def test_cli_exit_2_on_protocol_break_and_json_shape(tmp_path, monkeypatch, capsys):
    _write_module(tmp_path, monkeypatch, """
        import numpy as np
        class Nothing:
            def __init__(self, n_arms):
                pass
        class Uniform:
            def __init__(self, n_arms):
                self.k = n_arms
            def select(self):
                return int(np.random.randint(self.k))
            def update(self, arm, reward):
                pass
        """)
    assert main(["audit-policy", "third_party_ucb:Nothing", "--arms", "2", "--horizon", "8",
                 "--epsilon", "1"]) == 2
    assert "neither select" in capsys.readouterr().err
    out = tmp_path / "r.json"
    code = main(["audit-policy", "third_party_ucb:Uniform", "--arms", "2", "--horizon", "6",
                 "--epsilon", "1", "--samples", "400", "--search-budget", "2",
                 "--json", str(out)])
    report = json.loads(out.read_text())
    claim = report["claims"][0]
    assert code == 0 and claim["notion"] == "global" and claim["method"] == "sampled"
    # uniform actions never depend on the rewards: no candidate moves any action on coupled
    # runs, so the audit stops after the search, INCONCLUSIVE, without drawing a sample
    assert claim["verdict"] == "INCONCLUSIVE" and claim["data"]["not_started"] == "search"
    assert report["parameters"]["samples_used"] == 0


def test_any_number_of_workers_gives_the_same_runs(monkeypatch):
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1]))
    from examples.privbandits.ucb import EpisodeLaplaceUCB  # importable by the workers

    code = adapt(EpisodeLaplaceUCB, n_arms=2, horizon=16, epsilon=1.0)
    data = global_bases(16, 2, rewards="instance", means=[0.7, 0.3])[0].input()
    runs = [GlobalPolicyTarget(code, epsilon=1.0, delta=0.0, workers=w, chunk=30).sample(
        data, 130, np.random.default_rng(4)) for w in (1, 2)]
    assert np.array_equal(runs[0], runs[1])


def test_time_budget_shrinks_the_samples_before_sampling_and_says_so():
    # planned after the search, with a margin: 75% of what is left, less 1 s
    code = adapt(NoisyArgmax, n_arms=K, horizon=T, epsilon=1.0)  # its actions read rewards
    audit = audit_policy(code, epsilon=1.0, samples=100_000, seconds=5.0, search_budget=1,
                         seed=2, graybox=False)  # the stage would take a quarter of the 5 s
    assert 200 <= audit.samples < 100_000
    assert audit.result.n_measure + audit.result.n_select == audit.samples
    assert any("time budget" in line for line in audit.details())


def test_progress_line_counts_runs(capsys):
    import io
    import re

    stream = io.StringIO()
    code = adapt(NumpyGlobalPolicy, n_arms=K, horizon=T, epsilon=1.0)
    audit = audit_policy(code, epsilon=1.0, samples=200, search_budget=1, progress=True,
                         stream=stream)
    text = stream.getvalue()  # a tqdm bar of runs (issue 26 item 5), cleared when done
    assert "audit-policy:" in text and "run/s" in text
    # "20/948 [" while the plan holds, "976run [" past it
    shown = [int(m) for m in re.findall(r"(\d+)(?:/\d+ | ?run )\[", text)]
    assert shown and 0 < max(shown) <= audit.runs


@given(st.integers(2, 4), st.integers(2, 20), st.integers(0, 2**32 - 1),
       st.sampled_from(["table", "instance"]), st.integers(1, 16))
def test_every_proposed_pair_differs_in_one_step_at_an_extreme_value(k, horizon, seed,
                                                                     rewards, n):
    rng = np.random.default_rng(seed)
    bases = global_bases(horizon, k, rewards=rewards)
    pilots = [rng.integers(0, k, size=(3, horizon)) for _ in bases]
    pairs = propose_pairs(bases, pilots, n, n_arms=k)
    assert 1 <= len(pairs) <= n
    keys = set()
    for d, d2 in pairs:
        assert d.step is None and 1 <= d2.step <= horizon and d2.value in (0.0, 1.0)
        keys.add((d2.base, d2.step, d2.value))
        if rewards == "table":
            a, b = (realise_rewards(x.source, horizon, None) for x in (d, d2))
            assert np.flatnonzero((a != b).any(axis=1)).tolist() == [d2.step - 1]
            assert np.all(b[d2.step - 1] == d2.value)
        else:
            assert d2.source.revision_step == d2.step
    assert len(keys) == len(pairs)  # no pair proposed twice


class Unseeded(NumpyGlobalPolicy):
    """Draws from a generator seeded by the OS: valid runs, not reproducible ones."""

    def __init__(self, n_arms):
        super().__init__(n_arms)
        self.rng = np.random.default_rng()

    def select(self):
        return int(self.rng.integers(self.k))


def test_unreproducible_code_is_reported_not_refused():
    code = adapt(Unseeded, n_arms=K, horizon=T, epsilon=1.0)
    audit = audit_policy(code, epsilon=1.0, samples=200, search_budget=1, seed=3)
    assert not audit.reproducible
    assert any("not reproducible" in line for line in audit.details())


def test_cli_user_module_that_fails_to_import(tmp_path, monkeypatch, capsys):
    _write_module(tmp_path, monkeypatch, "def broken(:\n    pass\n")
    args = ["audit-policy", "third_party_ucb:UCB", "--arms", "2", "--horizon", "8",
            "--epsilon", "1"]
    assert main(args) == 2 and "cannot import module 'third_party_ucb'" in \
        capsys.readouterr().err
    _write_module(tmp_path, monkeypatch, "raise RuntimeError('no GPU found')\n")
    assert main(args) == 3
    err = capsys.readouterr().err
    assert "RuntimeError: no GPU found" in err and "third_party_ucb.py" in err
