"""Speed-up of the commands people run whole on 2 workers: ``check dp-ftpl-gauss``, ``check
dp-ftpl-new`` (every claim, finding and the regret experiment, full budgets) and ``claims``
(the ledger of all papers, ``--quick`` tests), each on 1 worker, on a local pool of 2 and on a
Dask ``LocalCluster`` of 2 worker processes, in the same run, beside a reference of plain
parallel numpy work (the same kind of reference as ``bench_parallel_delta.py``: independent
chunks of normal draws and threshold counts on 1 and 2 processes). Each measurement is the
command a user types (``python -m dpaudit check NAME --workers N --json FILE``), run in a fresh
process after one warm-up run (numba's on-disk caches), so no measurement inherits the
in-memory caches of another. The JSON reports, without their wall-clock seconds and the
worker count, must be identical.

The machine may be shared: the load average is recorded before and after every measurement,
and the figure to read is the speed-up as a fraction of the reference's, measured in the same
run under the same load. ``--write-costs`` stores the 1-worker seconds of every piece of
the two checks (``dpaudit/runtime/piece_costs.json``: the order in which the scheduler
submits pieces).

Run: ``python benchmarks/bench_schedule.py [--what check claims] [--no-dask] [--write-costs]
[--repeats N]`` (each figure the median of N rounds, 3 by default)
(results: ``benchmarks/results/schedule-scaling.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_parallel_delta as parallel_delta

RESULTS = Path(__file__).resolve().parent / "results" / "schedule-scaling.json"
COSTS = Path(__file__).resolve().parents[1] / "dpaudit" / "runtime" / "piece_costs.json"
#: chunks of the plain reference (bench_parallel_delta.py's chunks of 2^23 normal draws)
PLAIN_CHUNKS = 24


def plain(workers: int) -> float:
    """Wall seconds of bench_parallel_delta.py's plain-numpy reference, 24 chunks, on
    ``workers`` processes."""
    return parallel_delta.plain(workers, chunks=PLAIN_CHUNKS)


def _strip(o):
    """A report without what may differ between equal runs: wall-clock seconds, the worker
    count and the scheduler asked for."""
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items()
                if k not in ("seconds", "workers", "scheduler")}
    if isinstance(o, list):
        return [_strip(v) for v in o]
    return o


def _warm() -> int:
    from dpaudit.registry import all_audits, all_experiments

    return len(all_audits()) + len(all_experiments())


class Dask:
    """A LocalCluster of 2 worker processes (one thread each), warmed as a cluster in use is
    (dpaudit and its audits imported), for ``--scheduler ADDRESS``."""

    def __enter__(self):
        from distributed import Client, LocalCluster

        self.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                    dashboard_address=None)
        with Client(self.cluster.scheduler_address) as client:
            client.run(_warm)
        self.address = self.cluster.scheduler_address
        return self

    def __exit__(self, *exc):
        self.cluster.close()


def command(argv: list[str], tmp: Path) -> tuple[float, dict, tuple[float, float]]:
    """Wall seconds of ``python -m dpaudit ARGV --json FILE`` in a fresh process (no cache of
    an earlier measurement in memory: a pool forked from a warm process would inherit them),
    its JSON report and the load average before and after."""
    out = tmp / "report.json"
    load = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dpaudit", *argv, "--json", str(out)],
                          capture_output=True, text=True, cwd=tmp)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return seconds, _strip(json.loads(out.read_text())), (load, os.getloadavg()[0])


def bench(label: str, argv: list[str], dask: bool, tmp: Path, warm: bool = True,
          repeats: int = 1) -> dict:
    """``argv`` on 1 worker, on 2 and on a LocalCluster of 2, each a fresh process, beside
    the plain reference on 1 and 2 processes measured around them. ``warm``: one run first
    whose time is not kept (numba compiles into its on-disk cache; the ledger's checks use
    kernels the check rows have compiled already). ``repeats``: that many rounds of the
    three, one after the other; each figure is the median over the rounds, and each speed-up
    the median of the rounds' ratios (a round's runs are measured minutes apart at most, so
    a drift of the machine's speed moves both sides of a ratio alike)."""
    if warm:
        command([*argv, "--workers", "1"], tmp)
    p1 = plain(1)
    rounds = []
    for _ in range(repeats):
        s1, r1, l1 = command([*argv, "--workers", "1"], tmp)
        s2, r2, l2 = command([*argv, "--workers", "2"], tmp)
        got = {"s1": s1, "s2": s2, "l1": l1, "l2": l2, "same2": r2 == r1}
        if dask:  # a new cluster each round: its workers keep no cache of an earlier run
            with Dask() as cluster:
                s3, r3, l3 = command([*argv, "--workers", "2", "--scheduler",
                                      cluster.address], tmp)
            got.update(s3=s3, l3=l3, same3=r3 == r1)
        rounds.append(got)
    p2 = plain(2)

    def med(key: str) -> float:
        return float(statistics.median(r[key] for r in rounds))

    speedups = [r["s1"] / r["s2"] for r in rounds]
    row = {"command": label, "argv": " ".join(argv), "repeats": repeats,
           "seconds_1_worker": med("s1"), "seconds_2_workers": med("s2"),
           "speedup": float(statistics.median(speedups)), "speedups": speedups,
           "identical_2_workers": all(r["same2"] for r in rounds),
           "plain_seconds_1": p1, "plain_seconds_2": p2, "plain_speedup": p1 / p2,
           "load_1_worker": rounds[0]["l1"], "load_2_workers": rounds[0]["l2"]}
    if dask:
        dask_speedups = [r["s1"] / r["s3"] for r in rounds]
        row.update(seconds_dask_2=med("s3"), dask_speedup=statistics.median(dask_speedups),
                   dask_speedups=dask_speedups, load_dask=rounds[0]["l3"],
                   identical_dask=all(r["same3"] for r in rounds),
                   dask_vs_pool=statistics.median(dask_speedups) / row["speedup"])
    row["speedup_of_reference"] = row["speedup"] / row["plain_speedup"]
    return row


def piece_costs(name: str, costs: dict) -> None:
    """The 1-worker seconds of each piece of ``check NAME`` (the scheduler's submission order),
    read from its progress in this process."""
    from dpaudit.engine import run_check
    from dpaudit.registry import get_audit

    marks: list[tuple[float, str]] = []
    run_check(get_audit(name), workers=1,
              progress=lambda lab: marks.append((time.perf_counter(), lab)))
    marks.append((time.perf_counter(), "end"))
    findings = 0
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


def with_ids(doc: dict) -> dict:
    """``doc`` with ``rows``: its measured rows under a one-word ``id`` (the command's words
    joined by dashes, up to the first parenthesis), for the docs' quotes, whose keys have no
    spaces."""
    rows = [dict(r, id="-".join(k.split("(")[0].split())) for k, r in doc.items()
            if isinstance(r, dict) and "seconds_1_worker" in r]
    return {**doc, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--what", nargs="+", default=["check", "claims"],
                    choices=["check", "claims"])
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--write-costs", action="store_true")
    ap.add_argument("--repeats", type=int, default=3,
                    help="rounds of 1 worker, 2 workers (and the cluster) per row; the "
                         "figures are medians over them (default 3; the ledger's row is long: "
                         "--what claims --repeats 1 takes about a quarter of an hour)")
    args = ap.parse_args()
    costs = json.loads(COSTS.read_text())["seconds"] if COSTS.exists() else {}
    before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if "check" in args.what:
            for name in ("dp-ftpl-gauss", "dp-ftpl-new"):
                rows.append(bench(f"check {name}", ["check", name, "--no-state"],
                                  not args.no_dask, Path(tmp), repeats=args.repeats))
                print(json.dumps(rows[-1]), flush=True)
                if args.write_costs:
                    piece_costs(name, costs)
        if "claims" in args.what:
            rows.append(bench("claims (all papers, --quick tests)", ["claims"],
                              not args.no_dask, Path(tmp), warm=False,
                              repeats=args.repeats))
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
    RESULTS.write_text(json.dumps(with_ids(doc), indent=1) + "\n")
    if args.write_costs:
        data = json.loads(COSTS.read_text()) if COSTS.exists() else {}
        data["seconds"] = dict(sorted(costs.items()))
        COSTS.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
