"""``simulate`` says what it did: the workers it used, an episodic policy's episodes per
second (the arm-pulls only as their equivalent), and a memory estimate that counts every table
a run or a process holds, checked against tracemalloc for every registered policy."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tracemalloc

import pytest

from dpaudit.registry import all_policies
from dpaudit.sim.simulation import simulate_policy, simulation_estimate

#: small enough to run every policy in seconds, large enough that a table of one number per
#: step (8 bytes at each of T steps, built from temporaries of its size) shows
HORIZON, RUNS = 5_000, 10


@pytest.mark.parametrize("name", sorted(all_policies()))
def test_the_estimate_covers_what_a_small_run_holds(name: str) -> None:
    """The estimate is what the command refuses on, so it must not be below the peak of the
    memory a run allocates (tracemalloc counts numpy's arrays). Deterministic: no sampling
    decides it; the run is warmed first at the same size (compiled kernels, caches)."""
    simulate_policy(name, horizon=HORIZON, runs=RUNS, workers=1)
    est = simulation_estimate(name, horizon=HORIZON, runs=RUNS, workers=1)
    tracemalloc.start()
    try:
        simulate_policy(name, horizon=HORIZON, runs=RUNS, workers=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= est.memory, f"{name}: peak {peak} bytes above the estimate {est.memory}"


@pytest.mark.parametrize("name", ["dp-ucb-bound", "dp-ucb-int"])
def test_a_table_of_one_number_per_step_is_counted(name: str) -> None:
    """DP-UCB-Bound keeps ln n and DP-UCB-Int its release scales for every step: the
    estimate grows by at least 8 bytes per step of the horizon."""
    small = simulation_estimate(name, horizon=10**5, runs=20, workers=1).memory
    large = simulation_estimate(name, horizon=10**7, runs=20, workers=1).memory
    assert large - small >= 8 * (10**7 - 10**5)


def _simulate_capped(*argv: str) -> subprocess.CompletedProcess:
    def cap() -> None:  # as `ulimit -v 8000000` (KiB)
        resource.setrlimit(resource.RLIMIT_AS, (8_000_000 * 1024, 8_000_000 * 1024))

    return subprocess.run([sys.executable, "-m", "dpaudit", "simulate", *argv, "--no-state"],
                          capture_output=True, text=True, preexec_fn=cap, timeout=120)


@pytest.mark.parametrize("argv", [("dp-ucb-bound", "--horizon", "1e12", "--runs", "2"),
                                  ("dp-ucb-int", "--horizon", "1e9", "--runs", "20")])
def test_a_table_that_does_not_fit_is_refused_with_the_estimate(argv) -> None:
    got = _simulate_capped(*argv)
    assert got.returncode == 2, got.stderr[-2000:]
    assert "would need about" in got.stderr and "memory" in got.stderr
    assert "Traceback" not in got.stderr and "MemoryError" not in got.stderr


def test_an_episodic_policy_reports_its_episodes_and_the_workers_it_used(tmp_path) -> None:
    from dpaudit.cli import main

    out = tmp_path / "r.json"
    assert main(["simulate", "adap-ucb", "--horizon", "1e4", "--runs", "20", "--workers", "2",
                 "--no-state", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["block_unit"] == "episodes" and doc["blocks_per_second"] > 0
    # the work is too small for a pool: it ran here, and the report says 1 worker was used
    assert doc["placement"] and doc["workers_used"] == 1 and doc["workers"] == 2
    report = simulate_policy("adap-ucb", horizon=10**4, runs=20, workers=1)
    text = __import__("dpaudit.commands.simulate", fromlist=["format_report"]).format_report(
        report)
    assert "episodes per second (episodic" in text and "equivalent to" in text
    assert "1 worker(s)" in text


def test_a_step_wise_policy_reports_arm_pulls_only() -> None:
    from dpaudit.commands.simulate import format_report

    report = simulate_policy("ucb", horizon=10**3, runs=10, workers=1)
    assert report.blocks_per_second is None and report.block_unit is None
    text = format_report(report)
    assert "arm-pulls per second" in text and "episodes" not in text
