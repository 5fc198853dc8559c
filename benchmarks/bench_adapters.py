"""audit-policy on the examples/privbandits package: caught or not, bound, samples, seconds.

    python benchmarks/bench_adapters.py [--samples N] [--horizon T] [--seeds S] [--workers W]

1. Each example (one correct, four broken private UCBs) is audited with the automatic
   neighbour search (no hand-chosen pair) at epsilon = 1, alpha = 0.05: verdict, epsilon
   lower bound, samples per side, runs of the code and seconds.
2. False alarms: the correct example is audited with ``S`` different seeds at alpha = 0.05;
   the number of VIOLATED verdicts and an exact 95% upper limit on the false-alarm rate.
3. Throughput: runs per second of the adapter (seeding, reward table, protocol checks) against
   the bare loop a user would write around the same class, measured in the same run, and with
   ``W`` workers against one.

BLAS is pinned to one thread (set before numpy is imported): the learned-score fit is a small
problem, and on a shared 2-core machine a multi-threaded OpenBLAS made it 4x slower.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from dpaudit.usercode.adapters import adapt  # noqa: E402
from dpaudit.usercode.neighbour_search import global_bases  # noqa: E402
from dpaudit.usercode.policy_audit import GlobalPolicyTarget, audit_policy  # noqa: E402
from examples.privbandits import broken, ucb  # noqa: E402

EXAMPLES = [("ucb:EpisodeLaplaceUCB", ucb.EpisodeLaplaceUCB),
            ("broken:RawInitialMeansUCB", broken.RawInitialMeansUCB),
            ("broken:CumulativeMeanUCB", broken.CumulativeMeanUCB),
            ("broken:EarlyStopUCB", broken.EarlyStopUCB),
            ("broken:SharedNoiseUCB", broken.SharedNoiseUCB)]


def _verdict(audit) -> str:
    return "VIOLATED" if audit.result.epsilon_lower_bound > 1.0 else "not violated"


def examples(samples: int, horizon: int, workers: int) -> None:
    print(f"1. examples, K=2, T={horizon}, epsilon=1, alpha=0.05, --samples {samples}, "
          f"workers={workers}, seed 20221122")
    print(f"{'example':<28} {'verdict':<13} {'eps >=':>7} {'samples':>8} {'runs':>7} "
          f"{'seconds':>8}  neighbour found")
    for name, cls in EXAMPLES:
        code = adapt(cls, n_arms=2, horizon=horizon, epsilon=1.0)
        a = audit_policy(code, epsilon=1.0, samples=samples, seed=20221122, workers=workers)
        print(f"{name:<28} {_verdict(a):<13} {a.result.epsilon_lower_bound:7.3f} "
              f"{a.samples:8d} {a.runs:7d} {a.seconds:8.1f}  {a.result.data_prime!r}")


def false_alarms(seeds: int, samples: int, horizon: int) -> None:
    code = adapt(ucb.EpisodeLaplaceUCB, n_arms=2, horizon=horizon, epsilon=1.0)
    bounds = []
    start = time.perf_counter()
    for s in range(seeds):
        a = audit_policy(code, epsilon=1.0, samples=samples, seed=1000 + s, alpha=0.05)
        bounds.append(a.result.epsilon_lower_bound)
    hits = sum(b > 1.0 for b in bounds)
    upper = 1.0 if hits == seeds else float(stats.beta.ppf(0.95, hits + 1, seeds - hits))
    print(f"\n2. false alarms: EpisodeLaplaceUCB, {seeds} seeds (1000..), --samples {samples}, "
          f"alpha=0.05: {hits} VIOLATED (rate <= {upper:.3f} at 95%); bounds: max "
          f"{max(bounds):.3f}, median {np.median(bounds):.3f}; {time.perf_counter() - start:.0f} s")


def _bare_loop(horizon: int, runs: int) -> float:
    table = np.zeros((horizon, 2)).tolist()
    start = time.perf_counter()
    for r in range(runs):
        np.random.seed(r)
        policy = ucb.EpisodeLaplaceUCB(2, horizon, 1.0)
        for t in range(horizon):
            a = policy.select()
            policy.update(a, table[t][a])
    return runs / (time.perf_counter() - start)


def throughput(horizon: int, workers: int, runs: int = 8000) -> None:
    code = adapt(ucb.EpisodeLaplaceUCB, n_arms=2, horizon=horizon, epsilon=1.0)
    data = global_bases(horizon, 2)[0].input()
    rates = {}
    for w in sorted({1, workers}):
        target = GlobalPolicyTarget(code, epsilon=1.0, delta=0.0, workers=w)
        target.sample(data, 800, np.random.default_rng(1))  # start the pool (kept per audit)
        start = time.perf_counter()
        out = target.sample(data, runs, np.random.default_rng(0))
        rates[w] = runs / (time.perf_counter() - start)
        target.close()
        if w == 1:
            ref = out
        else:
            same = np.array_equal(ref, out)
    bare = _bare_loop(horizon, runs)
    print(f"\n3. throughput, T={horizon}, {runs} runs: bare loop {bare:,.0f} runs/s; adapter "
          f"{rates[1]:,.0f} runs/s (ratio {rates[1] / bare:.2f})", end="")
    if workers > 1:
        print(f"; {workers} workers {rates[workers]:,.0f} runs/s (x{rates[workers] / rates[1]:.2f}"
              f" vs 1), identical outputs: {same}")
    else:
        print()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=4000)
    p.add_argument("--horizon", type=int, default=32)
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--skip", nargs="*", default=(), choices=("examples", "alarms", "speed"))
    args = p.parse_args()
    if "examples" not in args.skip:
        examples(args.samples, args.horizon, args.workers)
    if "alarms" not in args.skip:
        false_alarms(args.seeds, min(args.samples, 2000), args.horizon)
    if "speed" not in args.skip:
        throughput(args.horizon, max(args.workers, 2))


if __name__ == "__main__":
    main()
