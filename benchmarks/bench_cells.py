"""Speed-up of a long reproduction cell split into chunks of runs (``dpaudit.sim.chunked``).

The cells of Tossou & Dimitrakakis Fig. 6 simulated all their runs in one lockstep call: at
the paper's ``T = 10^5`` the confirmation's 4000 runs of DP-UCB-Int on the 10-arm instance
took minutes on one core (the longest cells of the stored outputs, 100-430 s). Split, a cell's
chunks spread over the workers (``reproduce NAME --workers N``: the cell runs in this process
holding one of N tokens, its chunks in helper processes) and resume inside. Timed here: one
such cell (``--runs``, default the paper's first batch of 1000) on 1 and 2 workers in the same
run, beside the plain-numpy reference of ``bench_schedule.py``; the results must be identical.

Run: ``python benchmarks/bench_cells.py [--runs 1000] [--arms 10] [--epsilon 0.1]``
(results: ``benchmarks/results/schedule-scaling.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from functools import partial

import numpy as np
from bench_schedule import RESULTS, plain, with_ids


def cell(alg, inst, horizon: int, runs: int, cps, imports: dict):
    from dpaudit.sim.chunked import simulate_runs

    res = simulate_runs(alg, inst.source(), horizon, runs, seed=20221122,
                        key=("fig6", inst.name, alg.name), checkpoints=cps)
    return (res.regret, res.curve, res.counts), {}


def main() -> None:
    from dpaudit.audits.tossou_dimitrakakis_2016 import figures as fig
    from dpaudit.runtime.schedule import Piece, run_graph

    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--arms", type=int, default=10)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--algorithm", default="DP-UCB-Int")
    args = ap.parse_args()
    horizon = 10**5
    inst = next(i for i in fig.INSTANCES if i.n_arms == args.arms)
    alg = next(a for a in fig._algorithms(args.epsilon, horizon) if a.name == args.algorithm)
    piece = Piece("cell", partial(cell, alg, inst, horizon, args.runs,
                                  fig.checkpoints(horizon)))
    out, secs, loads = {}, {}, {}
    for w in (1, 2):
        loads[w] = [os.getloadavg()[0]]
        start = time.perf_counter()
        out[w] = run_graph([piece], workers=w)["cell"].value
        secs[w] = time.perf_counter() - start
        loads[w].append(os.getloadavg()[0])
    p1, p2 = plain(1), plain(2)
    same = all(np.array_equal(a, b) for a, b in zip(out[1], out[2], strict=True))
    key = (f"cell: Tossou & Dimitrakakis Fig. 6, {args.algorithm}, {args.arms} arms, eps "
           f"{args.epsilon:g}, T = {horizon}, {args.runs} runs")
    row = {"command": key, "seconds_1_worker": secs[1], "seconds_2_workers": secs[2],
           "speedup": secs[1] / secs[2], "identical_2_workers": same, "plain_seconds_1": p1,
           "plain_seconds_2": p2, "plain_speedup": p1 / p2,
           "speedup_of_reference": (secs[1] / secs[2]) / (p1 / p2),
           "load_1_worker": loads[1], "load_2_workers": loads[2]}
    print(json.dumps(row))
    doc = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    doc[key] = row
    RESULTS.write_text(json.dumps(with_ids(doc), indent=1) + "\n")


if __name__ == "__main__":
    main()
