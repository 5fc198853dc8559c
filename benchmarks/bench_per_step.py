"""Benchmark: per-step policies (UCB, DP-UCB) in lockstep vs a plain per-step loop.

Run: ``python benchmarks/bench_per_step.py [--quick] [--fig2]``. Everything is measured in this
run (no stored numbers), as CPU seconds of this process (``time.process_time``; the machine is
shared, so wall time mostly measures the neighbours):

1. UCB and DP-UCB (Tossou & Dimitrakakis 2016) on Azize & Basu 2022's 5-arm Figure 2
   instance at 20 and 100 runs: arm-pulls per second of the compiled lockstep path
   (``simulate``, numba), the numpy lockstep reference (``backend="numpy"``), the plain
   per-step loop (``simulate_per_step``: one run at a time, one Python step per time step,
   counter nodes drawn when first used), and of drawing the random numbers alone (the
   uniforms and Laplace node noise the lockstep path consumes). Ratios: compiled vs plain,
   DP-UCB vs UCB.
2. ``--fig2``: Azize & Basu 2022's Figure 2 with DP-UCB at T = 10^7 and 20 runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpaudit.algorithms._lockstep import CHUNK, laplace_parts
from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_FIG2
from dpaudit.algorithms.baselines.ucb import UCB
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCB


def cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def draws_only(runs: int, horizon: int, noise: int, rng: np.random.Generator) -> None:
    """The random numbers the lockstep path consumes, drawn chunk by chunk into reused
    buffers as the lockstep path draws them, nothing else."""
    first = min(CHUNK, horizon)
    ubuf, vbuf, mbuf = (np.empty(runs * first), np.empty(runs * first),
                        np.empty(runs * first * noise))
    t = 0
    while t < horizon:
        c = min(CHUNK, horizon - t)
        rng.random(out=ubuf[:runs * c].reshape(runs, c))
        rng.random(out=vbuf[:runs * c].reshape(runs, c))
        if noise:
            laplace_parts(rng, (runs, c, noise), out=mbuf)
        t += c


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="T = 2*10^4 and fewer plain runs")
    parser.add_argument("--fig2", action="store_true", help="Figure 2 with DP-UCB, T = 10^7")
    args = parser.parse_args()
    env = AZIZE_BASU_FIG2.source()
    k = env.n_arms
    horizon = 2 * 10**4 if args.quick else 10**5
    plain_t = 2000 if args.quick else 10**4
    # warm the compiled kernel (cached on disk after the first run)
    for alg in (UCB(), DPUCB(1.0)):
        alg.simulate(env, 50, 2, rng=np.random.default_rng(0))
    print(f"1. {k} arms (Azize & Basu 2022, Fig. 2 instance), T = {horizon}; pulls per CPU "
          "second")
    rates = {}
    for alg, noise in ((UCB(), 0), (DPUCB(1.0), k)):
        plain = cpu(lambda alg=alg: alg.simulate_per_step(env, plain_t, 2,
                                                          rng=np.random.default_rng(1)))
        plain_rate = 2 * plain_t / plain
        print(f"  {alg.name}: plain per-step loop {plain_rate:.3g} pulls/s "
              f"(2 runs x T = {plain_t})")
        for runs in (20, 100):
            pulls = runs * horizon
            fast = cpu(lambda alg=alg, runs=runs: alg.simulate(
                env, horizon, runs, rng=np.random.default_rng(2)))
            ref = cpu(lambda alg=alg, runs=runs: alg.simulate(
                env, horizon // 10, runs, rng=np.random.default_rng(2), backend="numpy"))
            raw = cpu(lambda runs=runs, noise=noise: draws_only(
                runs, horizon, noise, np.random.default_rng(3)))
            rates[(alg.name, runs)] = pulls / fast
            print(f"    {runs:>3} runs: compiled lockstep {pulls / fast:.3g} pulls/s "
                  f"({pulls / fast / plain_rate:.0f}x the plain loop); numpy lockstep "
                  f"{pulls / 10 / ref:.3g} pulls/s; random numbers alone "
                  f"{pulls / raw:.3g} pulls/s")
    for runs in (20, 100):
        ratio = rates[("UCB", runs)] / rates[("DP-UCB", runs)]
        print(f"  DP-UCB is {ratio:.2f}x slower than UCB at {runs} runs (target: within 2x)")
    if args.fig2:
        t_fig = 10**7
        sec = cpu(lambda: DPUCB(1.0).simulate(env, t_fig, 20, rng=np.random.default_rng(4)))
        print(f"2. Azize & Basu 2022 Fig. 2, DP-UCB, T = {t_fig}, 20 runs: {sec:.1f} CPU s")


if __name__ == "__main__":
    main()
