"""DP-FTPL-New: lockstep simulation vs a naive per-run, per-step, per-arm Python loop.

Both simulate the same algorithm (Wang & Zhu 2023, Algorithm 3, Lemma-15 noise by inverse CDF)
on their Instance 1; the ratio of steps per second is printed, and also the ratio against the
class's own plain reference ``simulate_per_step`` (one run at a time, numpy per step). Also
prints the cost of one exact next-action law (quadrature) against sampling it to the same
precision.

Run: ``python benchmarks/bench_ftpl.py [--horizon T] [--runs R]``.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np

from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew, ftpl_new_log_term
from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_INSTANCE_1

INSTANCE_1 = WANG_ZHU_INSTANCE_1.means


def naive_run(eps: float, delta: float, horizon: int, means, seed: int) -> float:
    """One run, one step and one arm at a time in plain Python (the reference)."""
    rnd = random.Random(seed)
    k = len(means)
    a = math.expm1(eps)
    log_c = math.log1p(a / (2 * delta))
    log_term = ftpl_new_log_term(eps, delta, horizon)
    best = max(means)
    sums = [float(rnd.random() < m) for m in means]
    counts = [1.0] * k
    regret = sum(best - m for m in means)
    for _ in range(k, horizon):
        top, arm = -math.inf, 0
        for i in range(k):
            n = counts[i]
            x0 = sums[i] / n + math.sqrt(math.log(horizon) / n) + log_term / n
            u = rnd.random() or 1e-300
            s = min(u, 1 - u)
            dist = (log_c - math.log1p(s * a / delta)) / (n * eps)
            theta = x0 - dist if u <= 0.5 else x0 + dist
            if theta > top:
                top, arm = theta, i
        sums[arm] += rnd.random() < means[arm]
        counts[arm] += 1
        regret += best - means[arm]
    return regret


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=400)
    args = parser.parse_args()
    eps, delta, t, runs = 1.0, 0.01, args.horizon, args.runs

    naive_runs = max(2, runs // 20)
    start = time.perf_counter()
    naive = [naive_run(eps, delta, t, INSTANCE_1, s) for s in range(naive_runs)]
    naive_rate = naive_runs * t / (time.perf_counter() - start)

    alg = DPFTPLNew(eps, delta, t)
    source = WANG_ZHU_INSTANCE_1.source()
    start = time.perf_counter()
    alg.simulate_per_step(source, t, naive_runs, rng=np.random.default_rng(2))
    ref_rate = naive_runs * t / (time.perf_counter() - start)
    start = time.perf_counter()
    regret = alg.simulate(source, t, runs, rng=np.random.default_rng(0)).regret
    lock_rate = runs * t / (time.perf_counter() - start)
    print(f"T={t}: naive {naive_rate:,.0f} run-steps/s ({naive_runs} runs), "
          f"simulate_per_step {ref_rate:,.0f} run-steps/s ({naive_runs} runs), "
          f"lockstep {lock_rate:,.0f} run-steps/s ({runs} runs): "
          f"ratio {lock_rate / naive_rate:.1f}x vs naive, {lock_rate / ref_rate:.1f}x vs "
          "simulate_per_step")
    print(f"  mean regret naive {np.mean(naive):.1f}, lockstep {regret.mean():.1f} "
          "(same law, different random streams)")

    sums, counts = (1, 4), (3, 9)
    start = time.perf_counter()
    probs, err = alg.next_action_law(sums, counts)
    exact_s = time.perf_counter() - start
    # sampling needs about p(1-p)/err^2 draws to reach the quadrature's accuracy; time 1e6
    start = time.perf_counter()
    alg.sample_next_actions(sums, counts, 10**6, np.random.default_rng(1))
    per_draw = (time.perf_counter() - start) / 1e6
    needed = probs[0] * probs[1] / max(err, 1e-16) ** 2
    print(f"exact next-action law: {exact_s * 1e3:.2f} ms (error {err:.1e}); sampling to that "
          f"accuracy would need {needed:.1e} draws, about {needed * per_draw:.1e} s")


if __name__ == "__main__":
    main()
