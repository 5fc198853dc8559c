"""Benchmark: episodic simulation vs a plain per-step implementation (issue 5).

Run: ``python benchmarks/bench_episodic.py [--quick]``. Prints times and ratios measured in
this run (no stored numbers):

1. AdaP-UCB, AdaP-KLUCB, DP-SE and GDP-Elim-New on Azize & Basu 2022's Figure 2 instance at
   T = 10^5: the plain per-step reference (``simulate_per_step``: one run at a time, one
   reward draw and a Python step per time step) against the episodic simulator
   (``simulate``: one binomial draw per episode, runs in lockstep), per run, at 20 runs (the
   paper's count) and at 1000 runs in lockstep. Both go through the same ``Policy``
   interface and return the same ``SimulationResult``.
2. The whole Figure 2 set of AdaP-UCB, AdaP-KLUCB and DP-SE at T = 10^7 with 20 runs each
   (the target is under a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpaudit.algorithms.azize_basu_2022.adap import AdaPKLUCB, AdaPUCB
from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_FIG2
from dpaudit.algorithms.baselines.dp_se import DPSE
from dpaudit.algorithms.wang_zhu_2023.gdp_elim import GDPElimNew
from dpaudit.sim.bandits import checkpoint_grid


def per_run_seconds(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer reference runs")
    args = parser.parse_args()
    env = AZIZE_BASU_FIG2.source()
    horizon = 10**5
    ref_runs = 2 if args.quick else 5
    print(f"1. T = {horizon}, Figure 2 instance, epsilon = 1")
    for alg in (AdaPUCB(1.0), AdaPKLUCB(1.0), DPSE(1.0), GDPElimNew(1.0, 0.01)):
        rng = np.random.default_rng(1)
        t0 = time.perf_counter()
        alg.simulate_per_step(env, horizon, ref_runs, rng=rng)
        ref = (time.perf_counter() - t0) / ref_runs
        print(f"  {alg.name}: plain per-step reference {ref * 1e3:.1f} ms per run "
              f"(mean of {ref_runs} runs)")
        for runs in (20, 1000):
            sec = per_run_seconds(
                lambda runs=runs, alg=alg: alg.simulate(env, horizon, runs,
                                                        rng=np.random.default_rng(2)),
                3)
            print(f"    episodic, {runs:>4} runs in lockstep: {sec * 1e3:8.2f} ms total, "
                  f"{sec / runs * 1e6:8.1f} us per run, ratio {ref / (sec / runs):8.0f}x")
    print("2. Figure 2 set at T = 10^7, 20 runs each, regret curves at 200 checkpoints")
    horizon = 10**7
    cps = checkpoint_grid(horizon, 200)
    total = 0.0
    for alg in (AdaPUCB(1.0), AdaPKLUCB(1.0), DPSE(1.0)):
        t0 = time.perf_counter()
        res = alg.simulate(env, horizon, 20, rng=np.random.default_rng(3), checkpoints=cps)
        sec = time.perf_counter() - t0
        total += sec
        print(f"  {alg.name:<11} {sec:6.3f} s   mean regret {res.regret.mean():9.1f}")
    print(f"  total {total:.3f} s (target: under 60 s)")


if __name__ == "__main__":
    main()
