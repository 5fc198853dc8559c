"""``python -m dpaudit audit``: exit codes 0/1/2, built-ins and MODULE:OBJECT, JSON shape."""

import json
from pathlib import Path

import pytest

from dpaudit.cli import main

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def user_module(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURES))


@pytest.mark.statistical
def test_builtin_consistent_exit_0_and_json(tmp_path, capsys):
    # a correct mechanism is flagged with probability <= alpha = 1e-4 (false-failure 1e-4)
    out = tmp_path / "r.json"
    code = main(["audit", "laplace", "--epsilon", "1", "--samples", "200000", "--alpha",
                 "1e-4", "--json", str(out)])
    assert code == 0
    assert "dpaudit audit laplace: CONSISTENT" in capsys.readouterr().out
    data = json.loads(out.read_text())
    claim = data["claims"][0]
    for key in ("id", "notion", "epsilon", "delta", "verdict", "method", "epsilon_lower_bound"):
        assert key in claim
    assert claim["method"] == "sampled" and claim["verdict"] == "CONSISTENT"
    assert data["verdict"] == "CONSISTENT" and data["parameters"]["samples"] == 200000


@pytest.mark.statistical
def test_builtin_faulty_exit_1():
    # the faulty variant's true loss is 2 (claim 1): missed with probability far below 1e-6
    assert main(["audit", "laplace-faulty", "--samples", "200000"]) == 1


@pytest.mark.statistical
def test_user_object_exit_codes(user_module, tmp_path):
    # MECH is correct (false failure <= alpha = 1e-4); LEAKY has true loss 4 vs claim 1
    assert main(["audit", "user_mechanism:MECH", "--samples", "100000", "--alpha", "1e-4"]) == 0
    out = tmp_path / "leaky.json"
    assert main(["audit", "user_mechanism:LEAKY", "--samples", "100000", "--json",
                 str(out)]) == 1
    claim = json.loads(out.read_text())["claims"][0]
    assert claim["verdict"] == "VIOLATED" and claim["epsilon_lower_bound"] > 1.0
    assert main(["audit", "user_mechanism:make_mech", "--samples", "20000", "--alpha",
                 "1e-4"]) == 0


@pytest.mark.parametrize("argv", [
    ["audit", "lapace"],
    ["audit", "laplace", "--epsilon", "-1"],
    ["audit", "laplace", "--samples", "5"],
    ["audit", "laplace", "--alpha", "1.5"],
    ["audit", "gaussian", "--delta", "0"],
    ["audit", "no_such_module_xyz:OBJ"],
    ["audit", "user_mechanism:MISSING"],
    ["audit", "user_mechanism:"],
])
def test_usage_errors_exit_2(argv, user_module, capsys):
    assert main(argv) == 2
    assert "dpaudit: error:" in capsys.readouterr().err


def test_unknown_name_suggests_close_matches(capsys):
    assert main(["audit", "privbrn"]) == 2
    assert "did you mean privbern" in capsys.readouterr().err


def test_malformed_arguments_exit_2():
    with pytest.raises(SystemExit) as exc:
        main(["audit", "laplace", "--samples", "many"])
    assert exc.value.code == 2


def test_list_and_missing_target(capsys):
    assert main(["audit", "--list"]) == 0
    out = capsys.readouterr().out
    assert "laplace-faulty" in out and "randomized-response" in out
    assert main(["audit"]) == 2
