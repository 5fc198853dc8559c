"""Guards on every command: memory and time are estimated from the arguments before any work,
and what does not fit is refused with exit 2 and the estimate (never exit 3, never a kill)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dpaudit.cli import main
from dpaudit.runtime import limits

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _examples_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))


@pytest.fixture(scope="module", autouse=True)
def _registry_loaded():
    """Import every registered module first: the time bound below is on the refusal, not on
    the imports (seconds on a loaded machine)."""
    from dpaudit.registry import all_audits, all_policies

    all_audits(), all_policies()


def _refused(capsys, argv: list[str]) -> str:
    t0 = time.perf_counter()
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert time.perf_counter() - t0 < 5  # refused before any work
    return err


GALLERY = "examples.gallery.dpse:DPSE"


@pytest.mark.parametrize("argv, words", [
    (["simulate", "adap-ucb", "--horizon", "1000", "--runs", "1e12", "--workers", "1"],
     ("TiB of memory", "refused before any work", "lower --runs")),
    # AdaP-UCB costs per episode (about log2 T of them), so 1e9 runs must be long enough to
    # take more than an hour on two workers even at the estimate's optimistic speed
    (["simulate", "adap-ucb", "--horizon", "1e7", "--runs", "1e9", "--workers", "1"],
     ("at least", "--seconds S", "episode block")),
    (["simulate", "adap-ucb", "--horizon", "1e7", "--runs", "1e9", "--workers", "2"],
     ("at least", "--seconds S", "episode block")),
    (["simulate", "ucb", "--horizon", "1e6", "--runs", "1e7", "--workers", "2"],
     ("at least", "arm-pulls", "--seconds S")),
    (["audit", "laplace", "--samples", "1e12"], ("draws at", "lower --samples")),
    (["reproduce", "azize-basu-fig2", "--runs", "1e9"], ("GiB of memory",)),
    (["audit-policy", GALLERY, "--arms", "2", "--horizon", "1e9", "--epsilon", "1"],
     ("TiB of memory", "--memory")),
    (["audit-policy", GALLERY, "--arms", "1", "--horizon", "64", "--epsilon", "1"],
     ("arms=1", "nothing a privacy audit could observe")),
    (["audit-policy", GALLERY, "--arms", "3", "--horizon", "2", "--epsilon", "1"],
     ("horizon=2", "one pull per arm")),
])
def test_what_does_not_fit_is_refused_with_the_estimate(capsys, tmp_path, argv, words):
    argv = [*argv, "--no-state"]
    if argv[0] == "reproduce":
        argv += ["--out", str(tmp_path)]
    err = _refused(capsys, argv)
    for word in words:
        assert word in err, err


def test_a_folder_that_cannot_be_created_is_refused_at_parse_time(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["check", "laplace", "--json", "/proc/no-such-dir/r.json"])
    assert exc.value.code == 2
    assert "cannot create folder" in capsys.readouterr().err
    # the probe leaves nothing behind where it could create the folders
    assert main(["check", "no-such-name-x", "--json", str(tmp_path / "a" / "b" / "r.json")]) == 2
    assert not (tmp_path / "a").exists()


def test_the_time_limit_is_an_environment_setting(capsys, monkeypatch):
    monkeypatch.setenv(limits.TIME_LIMIT_ENV, "1e-9")
    err = _refused(capsys, ["simulate", "ucb", "--horizon", "100", "--runs", "10",
                            "--workers", "1", "--no-state"])
    assert "$DPAUDIT_TIME_LIMIT" in err
    monkeypatch.setenv(limits.TIME_LIMIT_ENV, "soon")
    assert "DPAUDIT_TIME_LIMIT='soon'" in _refused(
        capsys, ["simulate", "ucb", "--horizon", "100", "--runs", "10", "--no-state"])


def test_under_seconds_time_is_not_refused_but_memory_is():
    est = limits.Estimate("x", 1, 1e9, "b")
    assert limits.check_estimate(est, seconds=5.0, advice="a") is est
    with pytest.raises(limits.InvalidParameterError, match="more memory"):
        limits.check_estimate(limits.Estimate("x", 1 << 60, 1.0, "b"), seconds=5.0,
                              advice="a")


def test_seconds_count_from_the_command_start(monkeypatch):
    start = time.monotonic() - 4.0
    limits.command_started(start)
    try:
        with limits.deadline_scope(5.0) as deadline:
            assert deadline == pytest.approx(start + 5.0)
        assert limits.command_elapsed() >= 4.0
    finally:
        limits.command_started(None)
    assert 0.0 <= time.monotonic() - limits.process_start() < 3600


def test_the_address_space_limit_bounds_the_default_memory(monkeypatch):
    monkeypatch.setattr(limits, "_address_space_left", lambda: 300 << 20)
    assert limits.default_memory() == 300 << 20


def test_simulation_chunks_are_capped_so_memory_does_not_grow_with_runs():
    from dpaudit.sim.simulation import simulation_chunk, simulation_estimate

    small = simulation_estimate("ucb", horizon=100, runs=10**5, workers=1)
    large = simulation_estimate("ucb", horizon=100, runs=10**7, workers=1)
    assert simulation_chunk(10**7, 2, 100) == simulation_chunk(10**5, 2, 100)
    chunk_part = small.memory - 10**5 // simulation_chunk(10**5, 2, 100) * 2080
    assert large.memory - 10**7 // simulation_chunk(10**7, 2, 100) * 2080 <= chunk_part + 4096
    assert simulation_chunk(1600, 2, 100) == 100  # small runs keep their chunks (and seeds)


def test_an_episodic_policy_is_estimated_per_episode_not_per_step(capsys):
    """DP-SE plays its last arm to the horizon in one block: 10^9 steps of 100 runs are not
    10^11 arm-pulls of work, and run in well under a second (not refused as hours)."""
    from dpaudit.sim.simulation import simulation_estimate

    est = simulation_estimate("dp-se", horizon=10**9, runs=100, workers=1)
    assert est.seconds < 1.0 and "episode block" in est.basis
    t0 = time.perf_counter()
    assert main(["simulate", "dp-se", "--horizon", "1e9", "--runs", "100", "--workers", "1",
                 "--no-state"]) == 0, capsys.readouterr().err
    assert time.perf_counter() - t0 < 30


@pytest.mark.parametrize("name, horizon, runs", [
    ("adap-ucb", 10**5, 2000), ("dp-imed", 10**5, 2000), ("dp-se", 10**7, 1000),
    ("gdp-elim-new", 10**7, 1000)])
def test_the_episodic_estimate_is_below_the_time_taken(name, horizon, runs):
    # the estimate is a lower bound: its per-block seconds are a third to a quarter of the
    # least measured CPU time; CPU time (not wall time) so a loaded machine cannot help
    from dpaudit.sim.simulation import simulate_policy, simulation_estimate

    est = simulation_estimate(name, horizon=horizon, runs=runs, workers=1)
    t0 = time.process_time()
    simulate_policy(name, horizon=horizon, runs=runs, workers=1)
    assert time.process_time() - t0 >= est.seconds, est.text()


def test_fail_on_inconclusive_has_its_own_exit_code(capsys):
    from dpaudit.cli import EXIT_INCONCLUSIVE, build_parser

    argv = ["audit", "laplace", "--samples", "2000", "--seconds", "0.001", "--no-state"]
    assert main(argv) == 0  # the deadline cut it: INCONCLUSIVE, exit 0 by default
    assert "INCONCLUSIVE" in capsys.readouterr().out
    assert main([*argv, "--fail-on-inconclusive"]) == EXIT_INCONCLUSIVE == 4
    assert main(["audit", "laplace", "--samples", "2000", "--no-state",
                 "--fail-on-inconclusive"]) == 0  # decided: the flag changes nothing
    assert "4 (with --fail-on-inconclusive)" in build_parser().description


def test_reproduce_has_a_deadline_and_keeps_its_cells(capsys, tmp_path):
    code = main(["reproduce", "azize-basu-fig3", "--quick", "--out", str(tmp_path),
                 "--seconds", "0.001"])
    out = capsys.readouterr().out
    assert code == 0 and "deadline of 0.001 s reached" in out and "no figure written" in out
    assert not list(tmp_path.glob("*.png"))


TWENTY_LINES = '''
import math
import numpy as np


class LaplaceUCB:
    def __init__(self, n_arms, horizon, epsilon):
        self.k, self.eps = n_arms, epsilon
        self.n = [0] * n_arms
        self.s = [0.0] * n_arms
        self.t = 0

    def select(self):
        self.t += 1
        if self.t <= self.k:
            return self.t - 1
        return max(range(self.k), key=lambda a: self.s[a] / self.n[a]
                   + math.sqrt(2 * math.log(self.t) / self.n[a]))

    def update(self, arm, reward):
        self.n[arm] += 1
        self.s[arm] += reward + np.random.laplace(0.0, 1.0 / self.eps)
'''


def test_the_time_of_user_code_is_measured_not_assumed(tmp_path, monkeypatch, capsys):
    """A 20-line Python class at --horizon 1e5: the argument-only guard (1e8 steps/s) put the
    audit at about 46 s; the pilot measures a few 1e5 steps/s, i.e. hours, and the audit is
    refused in seconds with the estimate and what would fit (without --seconds: against the
    one-hour default ceiling; with one: the search and the smallest sample against it)."""
    (tmp_path / "twenty_lines_ucb.py").write_text(TWENTY_LINES)
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["audit-policy", "twenty_lines_ucb:LaplaceUCB", "--arms", "2", "--horizon", "1e5",
            "--epsilon", "1", "--no-state"]
    est = limits.Estimate("x", 0, 82_710 * 100_000 / limits.FAST_USER_STEPS_PER_SECOND, "")
    assert est.seconds < 100  # what the argument-only guard assumed, and accepted
    t0 = time.perf_counter()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert time.perf_counter() - t0 < 30  # the pilot's few short runs, not the audit
    speed = float(err.split("the code runs about ")[1].split(" steps/s")[0])
    assert 1e4 < speed < 1e7, err  # Python, measured
    assert "refused before the audit" in err and "longer than the 1 h" in err
    assert "--samples" in err and "fits it" in err and "give --seconds S" in err
    assert main([*argv, "--seconds", "120"]) == 2
    err = capsys.readouterr().err
    assert "left of --seconds 120" in err and "give --seconds" in err
