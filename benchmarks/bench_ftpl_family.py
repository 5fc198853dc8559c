"""DP-FTPL-Gauss / DP-FTPL-Beta: lockstep simulator vs plain per-step policy vs the RNG floor.

On Instance 2 of Wang & Zhu (2023) (101 arms, ``mu_i = 0.3 + 0.004 (i - 1)``), measured in the
same run:

* ``lockstep``: :meth:`simulate` with all runs in lockstep (``runs`` runs, ``--steps`` steps
  after the start phase);
* ``plain``: :meth:`simulate_per_step`, the one-run-at-a-time reference (same law), on fewer
  runs; costs are compared per run-step;
* ``floor``: drawing the same random numbers alone (``runs x K`` perturbations and ``runs``
  rewards per step, in the same call pattern), without the policy's arithmetic.

Prints the speed-up of the lockstep simulator over the plain policy and its cost relative to
the floor (target: within 3x). Run: ``python benchmarks/bench_ftpl_family.py [--steps S]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpaudit.algorithms.wang_zhu_2023._ftpl_engine import BLOCK_VALUES
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta, DPFTPLGauss
from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_INSTANCE_2
from dpaudit.sim.bandits import BernoulliRewards

INSTANCE_2 = WANG_ZHU_INSTANCE_2.means


def _time(fn, *args, **kwargs) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def floor_gauss(steps: int, runs: int, k: int, rng: np.random.Generator) -> None:
    per_block = max(1, BLOCK_VALUES // (runs * k))
    done = 0
    while done < steps:
        b = min(per_block, steps - done)
        rng.standard_normal((b, runs, k))
        for _ in range(b):
            rng.random(runs)
        done += b


def floor_beta(steps: int, runs: int, k: int, rng: np.random.Generator) -> None:
    a = rng.integers(400, 500, size=(runs, k)).astype(float)
    b = 1000.0 - a
    for _ in range(steps):
        rng.beta(a, b)
        rng.random(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3000, help="steps after the start phase")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--plain-runs", type=int, default=2)
    args = ap.parse_args()
    src = BernoulliRewards(INSTANCE_2)
    k = len(INSTANCE_2)
    for name, make, floor in (
        ("DP-FTPL-Gauss", lambda: DPFTPLGauss(1.0, 0.01, horizon=10**5), floor_gauss),
        ("DP-FTPL-Beta (start phase 32)",
         lambda: DPFTPLBeta(1.0, 0.01, horizon=10**5, start_phase="tight"), floor_beta),
    ):
        alg = make()
        start = alg.start_phase * k
        horizon = start + args.steps
        rng = np.random.default_rng(1)
        # the start phase costs one binomial draw per arm and run: time it separately
        t_start = _time(alg.simulate, src, start, args.runs, rng=rng)
        t_fast = _time(alg.simulate, src, horizon, args.runs, rng=rng) - t_start
        t_floor = _time(floor, args.steps, args.runs, k, rng)
        # the plain reference, also without its start phase
        t_plain = (_time(alg.simulate_per_step, src, horizon, args.plain_runs, rng=rng)
                   - _time(alg.simulate_per_step, src, start, args.plain_runs, rng=rng))
        fast = t_fast / (args.steps * args.runs)
        plain = t_plain / (args.steps * args.plain_runs)
        print(f"{name}: K={k}, {args.runs} runs, {args.steps} steps after a start phase of "
              f"{start} steps")
        print(f"  lockstep  {fast * 1e6:8.2f} us per run-step (start phase: {t_start:.3f} s)")
        print(f"  plain     {plain * 1e6:8.2f} us per run-step ({args.plain_runs} runs)")
        print(f"  floor     {t_floor / (args.steps * args.runs) * 1e6:8.2f} us per run-step "
              "(the same random numbers alone)")
        print(f"  speed-up over plain: {plain / fast:.1f}x; lockstep / floor: "
              f"{t_fast / t_floor:.2f}x (target <= 3x)")


if __name__ == "__main__":
    main()
