"""Issue 26, items 1-2: memory is estimated before the work and a time limit is a deadline."""

from __future__ import annotations

import textwrap
import time

import pytest

from dpaudit.cli import main
from dpaudit.runtime import limits
from dpaudit.validation import InvalidParameterError

SLOW = '''
import time

class Slow:
    """10 ms a step: an audit of the default size would take hours."""
    def __init__(self, n_arms):
        self.k, self.t = n_arms, 0
    def select(self):
        time.sleep(0.01)
        self.t += 1
        return self.t % self.k
    def update(self, arm, reward):
        pass
'''


@pytest.fixture()
def slow_policy(tmp_path, monkeypatch):
    (tmp_path / "slow_policy_limits.py").write_text(textwrap.dedent(SLOW))
    monkeypatch.syspath_prepend(str(tmp_path))
    return "slow_policy_limits:Slow"


@pytest.mark.parametrize("text, value", [("512M", 512 << 20), ("4G", 4 << 30),
                                         ("2.5GiB", int(2.5 * (1 << 30))), ("1e9", 10**9)])
def test_memory_sizes_parse(text, value) -> None:
    assert limits.parse_memory(text) == value


@pytest.mark.parametrize("text", ["lots", "-1G", "0", "inf", "12K"])
def test_bad_memory_sizes_are_usage_errors(text) -> None:
    with pytest.raises(InvalidParameterError, match="memory="):
        limits.parse_memory(text)


def test_a_horizon_of_1e9_is_refused_up_front_with_the_size(slow_policy, capsys) -> None:
    t0 = time.perf_counter()
    code = main(["audit-policy", slow_policy, "--arms", "2", "--horizon", "1e9", "--epsilon",
                 "1", "--seconds", "600"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "would need about" in err and "TiB" in err and "--memory" in err
    assert time.perf_counter() - t0 < 60  # refused before any of the policy's steps ran


def test_the_memory_option_lowers_the_budget(slow_policy, capsys) -> None:
    code = main(["audit-policy", slow_policy, "--arms", "2", "--horizon", "100000",
                 "--epsilon", "1", "--memory", "64M"])
    assert code == 2 and "budget of 64 MiB" in capsys.readouterr().err


def test_the_estimate_counts_the_selection_sample_and_the_chunks() -> None:
    got = limits.policy_audit_bytes(horizon=1000, n_arms=2, samples=20_000,
                                    selection_fraction=0.2, max_select=200_000, chunk=200,
                                    workers=2)
    # T K = 2000 <= 4096: each selected run also holds its one-hot features (T x K float64)
    per_run = 8 * 1000 + 8 * 1000 * 2
    assert got == 2 * 4000 * per_run + 2 * 200 * per_run


def test_an_audit_that_does_not_fit_its_seconds_is_refused_at_the_measured_speed(
        slow_policy, capsys) -> None:
    """--seconds 2 against a policy of 10 ms a step: the pilot measures it after the import
    and the audit is refused (exit 2) with the estimate and the --seconds that would fit,
    before any of the audit's runs; the argument-only guard (1e8 steps/s) had let it start."""
    t0 = time.perf_counter()
    code = main(["audit-policy", slow_policy, "--arms", "2", "--horizon", "20", "--epsilon",
                 "1", "--seconds", "2", "--no-state"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "steps/s (pilot:" in err and "refused before the audit" in err
    assert "neighbour search" in err and "give --seconds" in err
    assert time.perf_counter() - t0 < 30  # the pilot's few runs, not the audit's


def test_run_with_deadline_kills_the_work_at_the_deadline() -> None:
    t0 = time.perf_counter()
    with pytest.raises(limits.DeadlineReached):
        limits.run_with_deadline(lambda: time.sleep(60), 0.5)
    assert time.perf_counter() - t0 < 30  # not the 60 s of the work


def test_run_with_deadline_returns_the_value_or_the_exception() -> None:
    assert limits.run_with_deadline(lambda: {"x": 1}, 30) == {"x": 1}
    with pytest.raises(ValueError, match="boom"):
        limits.run_with_deadline(lambda: (_ for _ in ()).throw(ValueError("boom")), 30)
    assert limits.run_with_deadline(lambda: 3, None) == 3
