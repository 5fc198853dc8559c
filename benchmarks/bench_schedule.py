"""Speed-up of the commands people run whole on 2 workers: ``check dp-ftpl-gauss``, ``check
dp-ftpl-new`` (every claim, finding and the regret experiment, full budgets) and ``claims``
(the ledger of all papers, ``--quick`` tests), each on 1 worker, on a local pool of 2 and on a
Dask ``LocalCluster`` of 2 worker processes, in the same run, beside a reference of plain
parallel numpy work (the same kind of reference as ``bench_parallel_delta.py``: independent
chunks of normal draws and threshold counts on 1 and 2 processes). The reports (check JSON
without its wall-clock fields and worker count; the ledger's JSON) must be identical.

The machine may be shared: the load average is recorded before and after every measurement,
and the figure to read is the speed-up as a fraction of the reference's, measured in the same
run under the same load. ``--write-costs`` stores the 1-worker seconds of every piece
(``dpaudit/runtime/piece_costs.json``: the order in which the scheduler submits pieces).

Run: ``python benchmarks/bench_schedule.py [--what check claims] [--no-dask] [--write-costs]``
(results: ``benchmarks/results/schedule-scaling.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "schedule-scaling.json"
COSTS = Path(__file__).resolve().parents[1] / "dpaudit" / "runtime" / "piece_costs.json"
PLAIN_CHUNK, PLAIN_CHUNKS = 1 << 23, 24


def _plain_chunk(i: int) -> int:
    x = np.random.Generator(np.random.PCG64(i)).normal(0.0, 3.7, size=PLAIN_CHUNK)
    return int(np.count_nonzero(x >= 1.3)) + int(np.count_nonzero(x <= -2.1))


def plain(workers: int) -> float:
    """Wall seconds of the reference on ``workers`` processes (one chunk per task)."""
    start = time.perf_counter()
    if workers == 1:
        sum(_plain_chunk(i) for i in range(PLAIN_CHUNKS))
    else:
        with ProcessPoolExecutor(workers) as pool:
            sum(pool.map(_plain_chunk, range(PLAIN_CHUNKS)))
    return time.perf_counter() - start


def _strip(o):
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items() if k != "seconds"}
    if isinstance(o, list):
        return [_strip(v) for v in o]
    return o


def check_numbers(report) -> dict:
    doc = _strip(json.loads(json.dumps(report.to_dict(), default=str)))
    doc["parameters"].pop("workers", None)
    return doc


def _warm() -> int:
    from dpaudit.registry import all_audits, all_experiments

    return len(all_audits()) + len(all_experiments())


class Dask:
    """A LocalCluster of 2 worker processes (one thread each), named by $DPAUDIT_SCHEDULER
    while in use."""

    def __enter__(self):
        from distributed import Client, LocalCluster

        self.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                    dashboard_address=None)
        # warm workers, as a cluster in use is: dpaudit and its audits imported (a local pool
        # forks from this process, which has them)
        with Client(self.cluster.scheduler_address) as client:
            client.run(_warm)
        os.environ["DPAUDIT_SCHEDULER"] = self.cluster.scheduler_address
        return self

    def __exit__(self, *exc):
        os.environ.pop("DPAUDIT_SCHEDULER", None)
        self.cluster.close()


def timed(fn):
    load = os.getloadavg()[0]
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out, (load, os.getloadavg()[0])


def bench_check(name: str, dask: bool, costs: dict) -> dict:
    from dpaudit.engine import run_check
    from dpaudit.registry import get_audit

    spec = get_audit(name)
    marks: list[tuple[float, str]] = []
    s1, r1, l1 = timed(lambda: run_check(spec, workers=1, progress=lambda lab: marks.append(
        (time.perf_counter(), lab))))
    marks.append((time.perf_counter(), "end"))
    findings = 0
    # the 1-worker seconds of each piece
    for (t, lab), (t2, _) in zip(marks, marks[1:], strict=False):
        if lab.startswith("claim "):
            i, rest = lab[len("claim "):].split("/", 1)
            key = f"claim:{i}:{rest.split(': ', 1)[1]}"
        elif lab.startswith("finding: "):
            findings += 1
            key = f"finding:{findings}:{lab[len('finding: '):]}"
        elif lab == "regret experiment":
            key = "regret"
        else:
            continue
        costs[f"check:{name}:full:{key}"] = round(t2 - t, 2)
    p1 = plain(1)
    s2, r2, l2 = timed(lambda: run_check(spec, workers=2))
    p2 = plain(2)
    row = {"command": f"check {name}", "seconds_1_worker": s1, "seconds_2_workers": s2,
           "speedup": s1 / s2, "identical_2_workers": check_numbers(r2) == check_numbers(r1),
           "plain_seconds_1": p1, "plain_seconds_2": p2, "plain_speedup": p1 / p2,
           "load_1_worker": l1, "load_2_workers": l2}
    if dask:
        with Dask():
            s3, r3, l3 = timed(lambda: run_check(spec, workers=1))
        row.update(seconds_dask_2=s3, dask_speedup=s1 / s3, load_dask=l3,
                   identical_dask=check_numbers(r3) == check_numbers(r1),
                   dask_vs_pool=(s1 / s3) / (s1 / s2))
    row["speedup_of_reference"] = row["speedup"] / row["plain_speedup"]
    return row


def _ledger(workers: int, costs: dict | None) -> list:
    from dpaudit.commands.claims import _test_piece, schedule_tests
    from dpaudit.registry import all_statements
    from dpaudit.reports.ledger import Runner, build_ledger, ledger_json
    from dpaudit.runtime.schedule import Piece, run_graph

    statements = all_statements()
    runner = Runner()
    if costs is None:
        schedule_tests(statements, runner, workers=workers)
    else:  # one worker: the same pieces in order here, each timed (the costs table)
        pieces, seen = [], set()
        for st in statements:
            for ref in st.tests:
                kind = "experiment" if ref.kind == "experiment" else "check"
                if (kind, ref.name) not in seen and runner.to_run(ref):
                    seen.add((kind, ref.name))
                    pieces.append(Piece(f"claims:{kind}:{ref.name}",
                                        partial(_test_piece, kind, ref.name, runner.seed)))

        def done(res) -> None:
            costs[res.key] = round(res.seconds, 2)
            kind, name = res.key.split(":", 2)[1:]
            if kind == "experiment":
                runner.keep_experiment(name, res.value)
            else:
                runner.keep_check(name, *res.value)

        run_graph(pieces, workers=1, done=done)
    return ledger_json(build_ledger(statements, runner=runner))


def bench_claims(dask: bool, costs: dict) -> dict:
    s1, l1_rows, l1 = timed(lambda: _ledger(1, costs))
    p1 = plain(1)
    s2, l2_rows, l2 = timed(lambda: _ledger(2, None))
    p2 = plain(2)
    row = {"command": "claims (all papers, --quick tests)", "seconds_1_worker": s1,
           "seconds_2_workers": s2, "speedup": s1 / s2, "identical_2_workers": l2_rows == l1_rows,
           "plain_seconds_1": p1, "plain_seconds_2": p2, "plain_speedup": p1 / p2,
           "load_1_worker": l1, "load_2_workers": l2}
    if dask:
        with Dask():
            s3, l3_rows, l3 = timed(lambda: _ledger(2, None))
        row.update(seconds_dask_2=s3, dask_speedup=s1 / s3, load_dask=l3,
                   identical_dask=l3_rows == l1_rows, dask_vs_pool=(s1 / s3) / (s1 / s2))
    row["speedup_of_reference"] = row["speedup"] / row["plain_speedup"]
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--what", nargs="+", default=["check", "claims"],
                    choices=["check", "claims"])
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--write-costs", action="store_true")
    args = ap.parse_args()
    costs = json.loads(COSTS.read_text())["seconds"] if COSTS.exists() else {}
    before = os.getloadavg()
    rows = []
    if "check" in args.what:
        for name in ("dp-ftpl-gauss", "dp-ftpl-new"):
            rows.append(bench_check(name, not args.no_dask, costs))
            print(json.dumps(rows[-1]), flush=True)
    if "claims" in args.what:
        rows.append(bench_claims(not args.no_dask, costs))
        print(json.dumps(rows[-1]), flush=True)
    after = os.getloadavg()
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    doc = {**old, "cpus": os.cpu_count(),
           "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           **{r["command"]: r for r in rows},
           "loadavg_before_after": {**old.get("loadavg_before_after", {}),
                                    " + ".join(args.what): [before, after]}}
    busy = max(before[0], after[0])
    doc["note"] = ("the machine was shared: load average above 1.5 during the run; the "
                   "figure is each speed-up as a fraction of the plain reference's, measured "
                   "in the same run" if busy > 1.5 else "load average at most 1.5")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(doc, indent=1) + "\n")
    if args.write_costs:
        data = json.loads(COSTS.read_text()) if COSTS.exists() else {}
        data["seconds"] = dict(sorted(costs.items()))
        COSTS.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
