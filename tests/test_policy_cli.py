"""``audit-policy`` as a command-line user meets it: its options are validated like every
command's, its help says what code it takes, its errors name the flags the user typed, an
error the adapter made is a usage error (not "an error in user code"), a real error in user
code is placed at the user's line, and the report states the exit code the process returns.

Small programs of each shape are written to a temporary folder per test; none of these tests
samples much (each audit stops at a usage error, or is tiny), so they take seconds.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from dpaudit.cli import main
from dpaudit.usercode.adapters import adapt
from dpaudit.validation import InvalidParameterError

COMMON = ["--arms", "2", "--horizon", "8", "--epsilon", "1", "--samples", "400",
          "--search-budget", "2", "--no-state"]

PROGRAMS = {
    # no method name dpaudit knows: the advice must be the flags
    "odd_names": '''
        class OddNames:
            def __init__(self, n_arms):
                self.k, self.t = n_arms, 0
            def pick(self):
                self.t += 1
                return self.t % self.k
            def learn(self, arm, reward):
                pass
    ''',
    # a select method that asks for the last reward: dpaudit cannot pass it there
    "last_reward_select": '''
        class LastRewardSelect:
            def __init__(self, n_arms):
                self.k, self.t = n_arms, 0
            def select(self, last_reward):
                self.t += 1
                return self.t % self.k
            def update(self, arm, reward):
                pass
    ''',
    # a step-interface policy (for the --history-method check)
    "stepper": '''
        class Stepper:
            def __init__(self, n_arms):
                self.k, self.t = n_arms, 0
            def step(self, last_reward, last_arm):
                self.t += 1
                return self.t % self.k
    ''',
    # a whole-run function of the rewards alone: dpaudit's call also passes the horizon
    "rewards_only": '''
        import numpy as np

        def play(rewards):
            return np.zeros(len(rewards), dtype=int)
    ''',
    # a run(means, ...) drawing through pull(means, arm), with --set means=... given too
    "means_run": '''
        import numpy as np

        def pull(means, arm):
            return float(np.random.random() < means[arm])

        def run(means, horizon, epsilon):
            return [pull(means, t % len(means)) and t % len(means) for t in range(horizon)]
    ''',
    # a real error inside user code, raised by numpy on the user's behalf (a negative scale)
    "negative_scale": '''
        import numpy as np

        class NegativeScale:
            def __init__(self, n_arms, epsilon):
                self.k, self.eps, self.t = n_arms, epsilon, 0
            def select(self):
                self.t += 1
                return self.t % self.k
            def update(self, arm, reward):
                noisy = reward + np.random.laplace(0.0, -1.0 / self.eps)  # LINE: scale < 0
                return noisy
    ''',
    # actions that never depend on the rewards: INCONCLUSIVE at once
    "uniform_gate": '''
        class Uniform:
            def __init__(self, n_arms):
                self.k, self.t = n_arms, 0
            def select(self):
                self.t += 1
                return self.t % self.k
            def update(self, arm, reward):
                pass
    ''',
}


@pytest.fixture
def programs(tmp_path, monkeypatch):
    for name, text in PROGRAMS.items():
        (tmp_path / f"cli_{name}.py").write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _err(capsys, argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


# -- A: --seconds -------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["nan", "inf", "0", "-5"])
def test_bad_seconds_are_usage_errors_before_any_work(programs, capsys, value):
    code, err = _err(capsys, ["audit-policy", "cli_uniform_gate:Uniform", *COMMON,
                              "--seconds", value])
    assert code == 2, err
    assert "seconds=" in err and "must be a finite number in (0, inf)" in err
    assert "internal error" not in err


# -- D: --help ----------------------------------------------------------------------------
def test_help_describes_the_shapes_gives_an_example_and_names_the_docs(capsys):
    with pytest.raises(SystemExit) as info:
        main(["audit-policy", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for words in ("select()/update(arm, reward)", "step(last_reward, last_arm)",
                  "fn(rewards, horizon)", "--reward-fn MODULE:pull", "--methods pick,learn",
                  "Examples:", "python -m dpaudit audit-policy my_pkg.ucb:MyUCB",
                  "docs/audit-policy.md"):
        assert words in out, words
    interface_help = out[out.index("\n  --interface"):].split("\n  --", 2)[1]
    assert "the shape of the code" in interface_help and "object-run" in interface_help


# -- E: errors speak the command line's language ------------------------------------------
def test_unknown_method_names_are_answered_with_the_flags(programs, capsys):
    code, err = _err(capsys, ["audit-policy", "cli_odd_names:OddNames", *COMMON])
    assert code == 2
    assert "--methods pick,learn" in err and "--interface run" in err
    assert "methods=(" not in err and "interface=" not in err
    # the Python API keeps its keywords
    with pytest.raises(InvalidParameterError, match=r"methods=\('pick', 'learn'\)"):
        adapt(__import__("cli_odd_names").OddNames, n_arms=2, horizon=8, epsilon=1.0)
    # and the flags it names work
    assert main(["audit-policy", "cli_odd_names:OddNames", *COMMON,
                 "--methods", "pick,learn"]) == 0


def test_local_dp_and_history_errors_name_their_flags(programs, capsys):
    code, err = _err(capsys, ["audit-policy", "cli_odd_names:OddNames", *COMMON,
                              "--methods", "pick,learn", "--notion", "ldp"])
    assert code == 2 and "--ldp-hook NAME or --ldp-sink NAME" in err
    assert "ldp_hook=" not in err
    code, err = _err(capsys, ["audit-policy", "cli_stepper:Stepper", *COMMON,
                              "--notion", "per-step", "--history-method", "set_history"])
    assert code == 2
    assert "--history-method set_history needs --interface select-update" in err
    assert "history_method=" not in err


# -- G: the adapter's own mistakes are usage errors; user errors at the user's line --------
def test_a_select_method_asking_for_a_reward_is_a_usage_error_not_a_user_error(programs,
                                                                            capsys):
    code, err = _err(capsys, ["audit-policy", "cli_last_reward_select:LastRewardSelect",
                              *COMMON])
    assert code == 2, err  # was exit 3, "error in user code: KeyError: 'reward'"
    assert "KeyError" not in err and "error in user code" not in err
    assert "LastRewardSelect.select(last_reward)" in err
    assert "--methods SELECT,UPDATE" in err and "--interface step" in err


def test_a_call_dpaudit_builds_wrongly_names_the_flags(programs, capsys):
    code, err = _err(capsys, ["audit-policy", "cli_rewards_only:play", *COMMON,
                              "--interface", "run"])
    assert code == 2, err
    assert "does not fit its signature" in err and "not an error in the code" in err
    assert "--feed" in err and "error in user code" not in err


def test_means_given_twice_is_a_usage_error_naming_the_flag(programs, capsys):
    code, err = _err(capsys, ["audit-policy", "cli_means_run:run", *COMMON,
                              "--reward-fn", "cli_means_run:pull", "--set", "means=[0.2, 0.8]"])
    assert code == 2, err  # was exit 3: "got multiple values for argument 'means'"
    assert "multiple values" not in err and "error in user code" not in err
    assert "drop --set means=..." in err and "--rewards instance --means" in err


def test_an_error_raised_in_numpy_for_the_user_is_placed_at_the_users_line(programs, capsys):
    source = (programs / "cli_negative_scale.py").read_text().splitlines()
    line = next(i for i, text in enumerate(source, 1) if "# LINE" in text)
    code, err = _err(capsys, ["audit-policy", "cli_negative_scale:NegativeScale", *COMMON])
    assert code == 3, err
    assert "error in user code" in err and "ValueError" in err
    assert f"cli_negative_scale.py:{line} in update" in err, err
    assert "mtrand" not in err and "adapters.py" not in err


def test_an_environment_reports_the_claim_it_is_audited_against():
    from dpaudit.usercode.adapters import _build
    from examples.gallery.env_params import EnvETC

    code = adapt(EnvETC, n_arms=3, horizon=40, epsilon=0.5, delta=1e-6)
    import numpy as np

    obj = _build(code, np.random.SeedSequence(0))
    assert (obj.k, obj.horizon, obj.epsilon) == (3, 40, 0.5)
    assert obj.env.delta == 1e-6 and obj.env.eps == 0.5 and obj.env.n_arms == 3


# -- H: the report states the exit code the process returns --------------------------------
def test_fail_on_inconclusive_is_in_the_text_and_the_json(programs, capsys, tmp_path):
    out = tmp_path / "gate.json"
    argv = ["audit-policy", "cli_uniform_gate:Uniform", *COMMON, "--fail-on-inconclusive"]
    code = main([*argv, "--json", str(out)])
    text = capsys.readouterr().out
    doc = json.loads(out.read_text())
    assert code == 4
    assert doc["exit_code"] == 4 and doc["fail_on_inconclusive"] is True
    assert "(exit code 4)" in text and "(exit code 0)" not in text
    code = main([*argv, "--json", "-"])
    assert code == 4 and json.loads(capsys.readouterr().out)["exit_code"] == 4


@pytest.mark.parametrize("argv", [["check", "laplace", "--quick", "--seconds", "1e-6"],
                                  ["audit", "laplace", "--samples", "2000", "--seconds",
                                   "0.001"]])
def test_check_and_audit_gates_report_the_process_exit_code(argv, capsys):
    from dpaudit.schema import load_schema

    code = main([*argv, "--no-state", "--fail-on-inconclusive", "--json", "-"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 4 and doc["exit_code"] == 4 and doc["deadline_hit"] is True
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, load_schema())


def test_the_pages_state_the_planning_constants_of_the_code():
    """docs/audit-policy.md quotes the margin, the pilot's and the progress line's constants:
    those of the code."""
    from pathlib import Path

    from dpaudit.runtime import progress
    from dpaudit.usercode import pilot, policy_audit

    text = " ".join((Path(__file__).resolve().parents[1] / "docs" / "audit-policy.md")
                    .read_text().split())
    assert (f"with a margin (`PLAN_SHARE = {pilot.PLAN_SHARE:g}` of the time left, less "
            f"`PLAN_RESERVE = {pilot.PLAN_RESERVE:g}` seconds:") in text.replace(".0`", "`")
    assert f"until a run takes `PILOT_RUN_SECONDS = {pilot.PILOT_RUN_SECONDS:g}`" in text
    assert (f"({pilot.PILOT_START}, {pilot.PILOT_START * pilot.PILOT_FACTOR}, "
            f"{pilot.PILOT_START * pilot.PILOT_FACTOR ** 2}, ...") in text
    assert f"every `PLAIN_EVERY = {progress.PLAIN_EVERY:g}` seconds" in text
    assert f"as far as `SUGGEST_SECONDS = {policy_audit.SUGGEST_SECONDS:g}` seconds" in text
    cli = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    assert f"plain line of the same counts every `PLAIN_EVERY = {progress.PLAIN_EVERY:g}` " \
           "seconds" in " ".join(cli.split())


# -- I: --seconds plans with a margin from the measured speed -----------------------------
NOISY = '''
import numpy as np

class NoisyGreedy:
    def __init__(self, n_arms):
        self.s, self.n = np.zeros(n_arms), np.ones(n_arms)
    def select(self):
        return int(np.argmax(self.s / self.n + np.random.laplace(0, 1, len(self.s))))
    def update(self, arm, reward):
        self.s[arm] += reward
        self.n[arm] += 1
'''


@pytest.fixture
def noisy(tmp_path, monkeypatch):
    (tmp_path / "cli_noisy_greedy.py").write_text(NOISY)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    return importlib.import_module("cli_noisy_greedy")


def test_samples_are_planned_to_fit_the_deadline_with_a_margin(noisy, tmp_path, capsys):
    """A million samples asked for, 8 seconds given: the samples are cut after the search to
    what the measured speed fits in 75% of what is left, so the audit ends with a verdict
    inside its deadline instead of being stopped by it (and losing its work)."""
    out = tmp_path / "planned.json"
    code = main(["audit-policy", "cli_noisy_greedy:NoisyGreedy", "--arms", "2", "--horizon",
                 "6", "--epsilon", "1", "--samples", "1e6", "--search-budget", "2",
                 "--seconds", "8", "--no-state", "--json", str(out)])
    doc = json.loads(out.read_text())
    claim = doc["claims"][0]
    assert code in (0, 1) and doc["deadline_hit"] is False, claim["details"]
    assert 200 <= doc["parameters"]["samples_used"] < 10**6
    assert any("requested samples per side fit" in d for d in claim["details"])
    assert doc["seconds"] < 8


def test_sampling_that_cannot_fit_what_the_search_left_does_not_start(noisy):
    """When not even the smallest sample fits the time the neighbour search left, no sample is
    drawn (a measurement cut by the clock would not be valid): the audit says which stage did
    not fit instead of starting a measurement it cannot finish."""
    from dpaudit.usercode.policy_audit import audit_policy

    code = adapt(noisy.NoisyGreedy, n_arms=2, horizon=6, epsilon=1.0)
    audit = audit_policy(code, epsilon=1.0, samples=1000, search_budget=2, seconds=0.5,
                         progress=False)
    assert audit.result is None and audit.not_started == "time" and audit.samples == 0
    assert audit.inconclusive_reason.startswith("the sampled audit did not start")
    assert "needs about" in audit.inconclusive_reason
    assert audit.details()[0].startswith("no sample was drawn")
