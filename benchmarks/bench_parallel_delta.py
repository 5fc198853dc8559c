"""Parallel speed-up of a claim-sized sampled audit with delta > 0 (issue: claims with delta
audited with power, item 2): the selection's tail histograms are summaries that merge across
workers, so the event choice is no longer a serial step.

The audit: the registered ``gaussian-analytic`` mechanism (Balle & Wang 2018's analytic
calibration) at its claim ``(1, 1e-5)`` with the default claim-sized budget (1000/delta = 1e8
draws per side, the selection streamed into histograms), run on 1 worker and on 2 workers in
the same process, alternating, ``--repeats`` times each. Wall seconds (parallel work is what
is timed), the median ratio 1-worker / 2-worker, the range of the ratio over the repeats, the
load average before and after (the machine may be shared: the ratio is measured under that
load), and whether the reports are identical (they must be: the result never depends on the
worker count). On a machine whose load exceeds its cores the wall ratio says little, so each
2-worker run also records the CPU seconds of this process (``process_time``) and of its
finished worker processes (``getrusage(RUSAGE_CHILDREN)``): if all of this process's CPU were
serial, two idle cores would give at least ``(own + workers) / (own + workers / 2)``, an
Amdahl bound that does not depend on the load (``amdahl_2core``); against the 1-worker run's
CPU seconds instead (the pool's overhead counted), ``cpu_speedup_2core`` = 1-worker CPU /
(own + workers / 2), paired by repeat.

Beside it, a reference measured in the same run: the same number and size of chunks of the same
kind of work (normal draws and threshold counts) as plain numpy, on 1 and 2 processes, one
chunk per task: the two-process speed-up this machine gives such work (``plain_median_ratio``),
and the audit's speed-up as a fraction of it.

Run: ``python benchmarks/bench_parallel_delta.py [--repeats 3] [--name gaussian-analytic]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from dpaudit.registry import all_audits
from dpaudit.stats.blackbox import AuditBudget, audit_mechanism

CPU: dict[int, list[tuple[float, float]]] = {1: [], 2: []}


def one(mech, eps: float, dlt: float, workers: int) -> tuple[float, tuple]:
    t, own = time.perf_counter(), time.process_time()
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = audit_mechanism(mech, epsilon=eps, delta=dlt, budget=AuditBudget(), seed=5,
                          key="bench:parallel-delta", workers=workers)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[workers].append((time.process_time() - own, (after.ru_utime + after.ru_stime)
                         - (kids.ru_utime + kids.ru_stime)))
    ev = res.evidence
    return time.perf_counter() - t, (ev.count_p, ev.count_q, ev.event, res.epsilon_lower_bound)


def _plain_chunk(i: int) -> int:
    """The measurement's work without dpaudit: 2^23 normal draws and two threshold counts."""
    x = np.random.Generator(np.random.PCG64(i)).normal(0.0, 3.7, size=PLAIN_CHUNK)
    return int(np.count_nonzero(x >= 1.3)) + int(np.count_nonzero(x <= -2.1))


#: the reference's chunk (the audit's measurement chunk at its default 64 MiB) and chunks
#: (both sides' 11 chunks of the 9e7 measured draws)
PLAIN_CHUNK, PLAIN_CHUNKS = 1 << 23, 22


def plain(workers: int, chunks: int = PLAIN_CHUNKS) -> float:
    """Wall seconds of the reference: the same number and size of chunks of the same kind of
    draws, as plain numpy on ``workers`` processes, one chunk per task (no selection, no
    serial step): what this machine gives such work, measured in the same run."""
    start = time.perf_counter()
    if workers == 1:
        sum(_plain_chunk(i) for i in range(chunks))
    else:
        with ProcessPoolExecutor(workers) as pool:
            sum(pool.map(_plain_chunk, range(chunks)))
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", default="gaussian-analytic")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    spec = all_audits()[args.name]
    eps, dlt = spec.default_epsilon, spec.default_delta
    mech = spec.mechanism(eps, dlt)
    load_before = os.getloadavg()
    one(mech, eps, dlt, 1)  # warm imports and caches
    CPU[1].clear()
    times: dict[int, list[float]] = {1: [], 2: []}
    outs: dict[int, list[tuple]] = {1: [], 2: []}
    ref: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(args.repeats):
        for w in (1, 2):
            secs, out = one(mech, eps, dlt, w)
            times[w].append(secs)
            outs[w].append(out)
            ref[w].append(plain(w))
    t1, t2 = float(np.median(times[1])), float(np.median(times[2]))
    r1, r2 = float(np.median(ref[1])), float(np.median(ref[2]))
    pairs = [a / b for a, b in zip(times[1], times[2], strict=True)]
    row = {"name": args.name, "epsilon": eps, "delta": dlt,
           "samples_per_side": AuditBudget().for_delta(dlt).samples,
           "seconds_1_worker": times[1], "seconds_2_workers": times[2],
           "median_ratio": t1 / t2, "ratio_per_repeat": pairs,
           "identical": all(o == outs[1][0] for o in outs[1] + outs[2]),
           "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
           "cpus": os.cpu_count(), "cpu_1_worker": CPU[1], "cpu_2_workers_own_children": CPU[2],
           "amdahl_2core": [(a + b) / (a + b / 2) for a, b in CPU[2]],
           "cpu_speedup_2core": [(c + d) / (a + b / 2)
                                 for (c, d), (a, b) in zip(CPU[1], CPU[2], strict=True)],
           "plain_seconds_1_worker": ref[1], "plain_seconds_2_workers": ref[2],
           "plain_median_ratio": r1 / r2}
    print(f"{args.name} (eps {eps:g}, delta {dlt:g}, {row['samples_per_side']:.3g} draws per "
          f"side): 1 worker {t1:.1f} s, 2 workers {t2:.1f} s (medians of {args.repeats}); "
          f"speed-up {t1 / t2:.2f} (per repeat {', '.join(f'{p:.2f}' for p in pairs)}); "
          f"reports identical: {row['identical']}; load average before "
          f"{load_before[0]:.1f}, after {row['loadavg_after'][0]:.1f} on {row['cpus']} CPUs; "
          f"2 workers' CPU (this process + workers): "
          f"{', '.join(f'{a:.1f} + {b:.1f} s' for a, b in CPU[2])}; Amdahl bound on two idle "
          f"cores {', '.join(f'{x:.2f}' for x in row['amdahl_2core'])}; against the 1-worker "
          f"CPU {', '.join(f'{x:.2f}' for x in row['cpu_speedup_2core'])}; the same chunks "
          f"of plain numpy draws (reference, same run): {r1:.1f} s / {r2:.1f} s = "
          f"{r1 / r2:.2f}, so the audit reaches {(t1 / t2) / (r1 / r2):.2f} of this machine's "
          "two-process speed-up on such work")
    print(json.dumps(row))


if __name__ == "__main__":
    main()
