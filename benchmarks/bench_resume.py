"""What chunk-level state costs, and what an interrupted run saves (dpaudit.runtime.state).

1. **Overhead**: the same command with and without state (``--no-state``), alternated
   ``--repeats`` times, median CPU time of each and their ratio: ``audit laplace`` at
   ``--samples`` (its measurement streams in 16 chunks of event counts) and ``simulate ucb``
   (16 chunks of regret statistics).
2. **Write cost**: the time of one state write (encode + atomic write with fsync) against the
   number of saved chunks, for chunks of event counts (an int) and of regret statistics
   (``--runs`` / 16 runs x 31 checkpoints); writes are throttled to one per second (and to at
   most ~5% of the run: never more often than 20 times a write's own duration).
3. **Resume**: ``simulate`` stopped after half its chunks, then resumed: the resumed run's time
   against an uninterrupted run's.

Run: ``python benchmarks/bench_resume.py [--samples 3e7] [--runs 4000] [--repeats 3]``;
about two minutes on an idle 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's dpaudit, in this process and the commands


def timed(argv: list[str], env: dict[str, str], cwd: str) -> float:
    """CPU seconds (user + system) of the command: less noisy than wall time on a loaded
    machine (the writes' fsync waits are not in it; section 2 times them in wall clock)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "dpaudit", *argv], env=env, cwd=cwd,
                          capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1, 130):
        raise SystemExit(f"{argv}: exit {done.returncode}\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def overhead(argv: list[str], repeats: int, env: dict[str, str], cwd: str) -> None:
    with_state, without = [], []
    for _ in range(repeats):
        without.append(timed([*argv, "--no-state"], env, cwd))
        with_state.append(timed(argv, env, cwd))
    a, b = statistics.median(without), statistics.median(with_state)
    print(f"  {' '.join(argv)}: no state {a:.2f} CPU s, state {b:.2f} CPU s (median of {repeats}); "
          f"ratio {b / a:.3f}")


def write_cost(runs: int) -> None:
    from dpaudit.runtime.state import CheckState, encode
    from dpaudit.sim.simulation import Moments, _Chunk

    per = max(1, runs // 16)
    rng = np.random.default_rng(0)
    regret = _Chunk(Moments.of(rng.random(per)), rng.random(31) * per, np.arange(2))
    with tempfile.TemporaryDirectory() as tmp:
        for label, value in (("event count", 123456), (f"regret stats ({per} runs)", regret)):
            for n in (16, 256, 4096):
                state = CheckState(Path(tmp), "bench", f"{n}{label}".ljust(64, "x"),
                                   resume=False, prefix="bench")
                state.current = "piece"
                for i in range(n):
                    state.chunks.setdefault("piece|call#0", {})[str(i)] = {
                        "value": encode(value), "seconds": 0.1}
                t0 = time.perf_counter()
                for _ in range(5):
                    state._flush()
                each = (time.perf_counter() - t0) / 5
                size = state.path.stat().st_size
                print(f"  {label:>24}: {n:5d} saved chunks -> one write {each * 1e3:7.2f} ms, "
                      f"file {size / 1024:8.1f} KiB")
                state.discard()


def resume_saving(runs: int, env: dict[str, str], cwd: str) -> None:
    argv = ["simulate", "ucb", "--horizon", "20000", "--runs", str(runs), "--workers", "1"]
    full = timed([*argv, "--no-state"], env, cwd)
    stopped = timed(argv, {**env, "DPAUDIT_STOP_AFTER_CHUNKS": "8"}, cwd)
    resumed = timed([*argv, "--resume"], env, cwd)
    print(f"  {' '.join(argv)}: uninterrupted {full:.2f} CPU s; stopped after 8 of 16 chunks "
          f"{stopped:.2f} CPU s; resumed {resumed:.2f} CPU s ({resumed / full:.2f} of "
          "uninterrupted)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", default="3e7", help="audit samples per side (default 3e7)")
    ap.add_argument("--runs", type=int, default=4000, help="simulate runs (default 4000)")
    ap.add_argument("--repeats", type=int, default=3, help="alternated repeats (default 3)")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DPAUDIT_STATE_DIR", None)
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    with tempfile.TemporaryDirectory() as cwd:
        print("1. overhead of saving chunk state")
        overhead(["audit", "laplace", "--samples", args.samples], args.repeats, env, cwd)
        overhead(["simulate", "ucb", "--horizon", "20000", "--runs", str(args.runs),
                  "--workers", "1"], args.repeats, env, cwd)
        print("2. cost of one state write")
        write_cost(args.runs)
        print("3. an interrupted run resumed")
        resume_saving(args.runs, env, cwd)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
