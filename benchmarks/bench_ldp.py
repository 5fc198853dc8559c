"""Benchmark: the local-DP simulators in lockstep vs their plain per-step references.

Run: ``python benchmarks/bench_ldp.py [--quick]``. Prints times and ratios measured in this
run (no stored numbers): per run, the plain reference (``simulate_per_step``: one run at a
time, one Python step per pull) against the lockstep simulator (``simulate``: every run's
step in one vectorised operation) at 100 and 1000 runs, for private APT and the LUCB rule of
Barbara, Lazzaro & Pike-Burke 2025 and the one-point UCB reduction of Zheng et al. 2020.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding import (
    PrivateAPT,
    PrivateThresholdLUCB,
)
from dpaudit.algorithms.zheng_et_al_2020.ldp_reductions import OnePointUCB
from dpaudit.sim.bandits import BernoulliRewards


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer reference runs")
    args = parser.parse_args()
    ref_runs = 3 if args.quick else 10
    cases = [
        ("private APT, T=2000", PrivateAPT(1.0, tau=0.5, gamma=0.05),
         BernoulliRewards([0.3, 0.4, 0.6, 0.7]), 2000),
        ("LUCB threshold (stops near 1400 pulls)", PrivateThresholdLUCB(2.0, tau=0.5,
                                                                        delta=0.1),
         BernoulliRewards([0.1, 0.3, 0.7, 0.9]), 10**6),
        ("one-point UCB, T=2000", OnePointUCB(1.0, 1e-5), BernoulliRewards([0.9, 0.1]), 2000),
    ]
    for label, alg, src, horizon in cases:
        t0 = time.perf_counter()
        alg.simulate_per_step(src, horizon, ref_runs, rng=np.random.default_rng(1))
        ref = (time.perf_counter() - t0) / ref_runs
        print(f"{label}: plain per-step reference {ref * 1e3:.1f} ms per run "
              f"(mean of {ref_runs} runs)")
        for runs in (100, 1000):
            t0 = time.perf_counter()
            alg.simulate(src, horizon, runs, rng=np.random.default_rng(2))
            sec = (time.perf_counter() - t0) / runs
            print(f"    lockstep, {runs:>4} runs: {sec * 1e3:7.3f} ms per run, "
                  f"{ref / sec:6.1f}x faster than the reference")


if __name__ == "__main__":
    main()
