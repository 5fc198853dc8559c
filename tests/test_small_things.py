"""Issue 26, item 10: output paths checked by writing, options given twice, JUnit times,
round-off shown as data, witnesses printed inside their domain."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from dpaudit.cli import main
from dpaudit.reports.text import witness_text
from dpaudit.sim.simulation import Moments


@pytest.mark.parametrize("path", ["/proc/dpaudit-x.json", "/dev/full"])
@pytest.mark.parametrize("flag", ["--json", "--junit", "--html"])
def test_unwritable_outputs_fail_before_the_run(path, flag, capsys) -> None:
    if not os.path.exists(os.path.dirname(path) if path.startswith("/proc") else path):
        pytest.skip(f"{path} does not exist on this system")
    with pytest.raises(SystemExit) as info:
        main(["check", "laplace", "--quick", "--no-regret", flag, path])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "cannot be written" in err and "claim" not in err


def test_dev_null_and_a_new_file_are_fine(tmp_path, capsys) -> None:
    out = tmp_path / "r.json"
    assert main(["check", "laplace", "--quick", "--no-regret", "--json", os.devnull,
                 "--junit", str(out)]) == 0
    assert out.exists()


@pytest.mark.parametrize("argv", [
    ["check", "laplace", "--json", "a.json", "--json", "b.json"],
    ["check", "laplace", "--epsilon", "1", "--epsilon", "2"],
    ["audit", "laplace", "--samples", "100", "--samples=200"],
    ["simulate", "ucb", "--horizon", "10", "--runs", "2", "--horizon", "20"],
])
def test_an_option_given_twice_is_a_usage_error(argv, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "given twice" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing written


def test_junit_testcases_carry_their_time(tmp_path) -> None:
    junit = tmp_path / "r.xml"
    assert main(["check", "laplace", "--quick", "--no-regret", "--junit", str(junit)]) == 0
    cases = ET.parse(junit).getroot().iter("testcase")
    times = [float(c.get("time")) for c in cases]
    assert times and all(t > 0 for t in times)  # each claim's own wall-clock seconds
    suite = next(ET.parse(junit).getroot().iter("testsuite"))
    assert sum(times) <= float(suite.get("time")) + 1e-3


def test_equal_numbers_have_zero_spread_after_any_merge() -> None:
    rng = np.random.default_rng(0)
    for _ in range(500):
        v = float(rng.random() * 1000)
        m = Moments(0, 0.0, 0.0)
        for k in rng.integers(1, 50, size=int(rng.integers(1, 20))):
            m = m.merge(Moments.of(np.full(int(k), v)))
        assert m.std == 0.0
    assert Moments.of(np.array([1.0, 1.0 + 1e-9])).std == pytest.approx(1e-9 / np.sqrt(2))


def test_witness_values_are_printed_exactly() -> None:
    assert witness_text({"m": 1.0000000001, "eps": 2.5}) == "m=1.0000000001, eps=2.5"
    assert witness_text({"m": float("inf")}) == "m=inf"


def test_the_simulate_report_prints_no_round_off_spread(capsys) -> None:
    """UCB at T = 2 pulls each arm once: every run's regret is 0.4 exactly, yet the merged
    chunks' m2 came out as 5.6e-17 (printed "sd 5.551e-17") before round-off was recognised."""
    code = main(["simulate", "ucb", "--horizon", "2", "--runs", "70001", "--means", "0.3,0.7",
                 "--workers", "1"])
    assert code == 0
    text = capsys.readouterr().out
    assert "sd 0;" in text, text


def test_quick_reproductions_spend_less_than_the_full_budget() -> None:
    """Issue 26 item 9: --quick spent the full budget on two reproductions; every
    reproduction that has a budget to cut now cuts it (horizon x runs strictly smaller)."""
    from dpaudit.registry import all_experiments

    for exp in all_experiments().values():
        full, quick = exp.horizon * exp.runs, exp.quick_horizon * exp.quick_runs
        assert quick < full or full == 1, f"{exp.name}: --quick is the full budget"
