"""The benchmark suite: every figure as a ratio against a reference measured beside it.

Run: ``python benchmarks/run.py [--quick] [--skip-scripts] [--peers-python PATH]``.
Writes ``benchmarks/results/{quick,full}.md`` (a Markdown table) and ``.json`` (the table, the
machine, and the output of every gathered script). Nothing is stored from earlier runs: every
reference is measured in the same run, on the same machine, under the same load.

Sections (see ``_sections.py``): the gathered scripts (``bench_*.py``; the family engineers'
``bench_per_step.py`` and ``bench_ftpl_family.py`` when present), per-step policies, episodic
algorithms, audits, scaling (1 and 2 local workers, a local Dask cluster), peak memory, the
tightness table (``tightness.py``: every check at ``--quick``, sampled over exact per level) and
peers (SMPyBandits, only from a separate environment: ``--peers-python`` or
``benchmarks/.peers/bin/python``; never a dependency).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

# one BLAS thread, set before numpy is imported: the audits' small learned-score fits run
# several times slower with a multi-threaded OpenBLAS on a shared 2-core machine
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _sections import SECTIONS, Row  # noqa: E402

# (script, quick arguments, full arguments); a missing script is skipped with a note
SCRIPTS = (
    ("bench_auditor.py", ["--seeds", "1"], ["--seeds", "5"]),
    ("bench_false_alarms.py", ["--samples", "20000", "--audits", "5"], []),
    ("bench_episodic.py", ["--quick"], []),
    ("bench_ftpl.py", ["--horizon", "2000", "--runs", "100"], []),
    ("bench_adapters.py", ["--seeds", "3"], []),
    ("bench_per_step.py", ["--quick"], []),
    ("bench_ftpl_family.py", ["--steps", "1000"], []),
    ("bench_trajectory.py", ["--quick", "--samples", "100000"], ["--samples", "200000"]),
)


def machine() -> dict[str, object]:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(),
            "python": platform.python_version(), "numpy": np.__version__,
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
            "date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def gathered(quick: bool, timeout: float) -> tuple[list[Row], dict[str, str]]:
    rows, outputs = [], {}
    for name, quick_args, full_args in SCRIPTS:
        path = HERE / name
        if not path.exists():
            rows.append(Row("scripts", name, None, None, None, "absent on this branch: skipped"))
            continue
        args = quick_args if quick else full_args
        start = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, str(path), *args], capture_output=True,
                                  text=True, timeout=timeout, cwd=HERE.parent)
            out, ok = proc.stdout + proc.stderr, proc.returncode == 0
        except subprocess.TimeoutExpired as exc:
            out, ok = f"{exc.stdout or ''}\n(timed out after {timeout:.0f} s)", False
        secs = time.perf_counter() - start
        outputs[name] = out
        note = ("ran; its own ratios are in the JSON" if ok
                else "FAILED or timed out (output in the JSON)")
        rows.append(Row("scripts", f"{name} {' '.join(args)}".strip(), secs, None, None,
                        f"{note}; seconds"))
    return rows, outputs


def fmt(value: float | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "NO"
    return f"{value:.3g}"


def _machine_line(info: dict[str, object], seconds: float) -> str:
    load = info.get("load_average")
    return (f"Machine: {info['cpu']}, {info['cores']} cores, {info['platform']}, Python "
            f"{info['python']}, numpy {info['numpy']}; load average at start "
            f"{fmt(load[0]) if load else '?'}; {info['date_utc']}; the "  # type: ignore[index]
            f"run took {seconds:.0f} s.")


def markdown(rows: list[Row], info: dict[str, object], quick: bool, seconds: float,
             kept: dict | None = None, measured: dict | None = None) -> str:
    lines = [f"# Benchmarks ({'--quick' if quick else 'full'} run)", "",
             _machine_line(info, seconds), ""]
    if kept is not None and measured:
        by_run: dict[str, list[str]] = {}
        for section in dict.fromkeys(r.section for r in rows):
            run = measured.get(section)
            if run is not None:
                by_run.setdefault(_machine_line(run["machine"], run["seconds"]),
                                  []).append(section)
        lines += [f"Only the sections {', '.join(kept['only'])} were run then; each section's "
                  "rows come from the run that measured it:", ""]
        lines += [f"- {', '.join(secs)}: {line}" for line, secs in by_run.items()] + [""]
    elif kept is not None:
        lines += [f"Only the sections {', '.join(kept['only'])} were run then; the rows of "
                  "the other sections are kept from the earlier run: "
                  + _machine_line(kept["machine"], kept["seconds"]), ""]
    lines += ["Every ratio is measured / reference, both measured in the same run.", "",
             "| section | figure | measured | reference | ratio | unit, notes |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.section} | {r.figure} | {fmt(r.value)} | {fmt(r.reference)} | "
                     f"{fmt(r.ratio)} | {r.note} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes: a few minutes on 2 busy cores")
    parser.add_argument("--skip-scripts", action="store_true",
                        help="do not run the gathered bench_*.py scripts")
    parser.add_argument("--peers-python", default=None,
                        help="a python with SMPyBandits installed (separate environment)")
    parser.add_argument("--only", default=None,
                        help="comma-separated sections to run (default: all)")
    args = parser.parse_args()
    info = machine()
    start = time.perf_counter()
    rows: list[Row] = []
    outputs: dict[str, str] = {}
    only = None if args.only is None else set(args.only.split(","))
    if not args.skip_scripts and (only is None or "scripts" in only):
        script_rows, outputs = gathered(args.quick, 240 if args.quick else 3600)
        rows += script_rows
        print("\n".join(r.line() for r in script_rows), flush=True)
    for name, section in SECTIONS.items():
        if only is not None and name not in only:
            continue
        for row in section(quick=args.quick, peers_python=args.peers_python):
            rows.append(row)
            print(row.line(), flush=True)
    seconds = time.perf_counter() - start
    out_dir = HERE / "results"
    out_dir.mkdir(exist_ok=True)
    stem = "quick" if args.quick else "full"
    kept = None
    this_run = {"machine": info, "seconds": seconds}
    measured = {r.section: this_run for r in rows}  # section -> the run that measured it
    old_path = out_dir / f"{stem}.json"
    if only is not None and old_path.exists():
        # --only re-runs some sections: the other sections' rows stay, each said to come
        # from the run that measured it
        old = json.loads(old_path.read_text())
        earlier = old.get("kept") or {"machine": old["machine"], "seconds": old["seconds"]}
        kept = {"only": sorted(only), "machine": earlier["machine"],
                "seconds": earlier["seconds"]}
        old_run = {"machine": old["machine"], "seconds": old["seconds"]}
        for r in old["rows"]:
            if r["section"] in measured:
                continue
            if r["section"] in old.get("measured", {}):
                measured[r["section"]] = old["measured"][r["section"]]
            elif old.get("kept") and r["section"] not in old["kept"].get("only", []):
                measured[r["section"]] = {"machine": old["kept"]["machine"],
                                          "seconds": old["kept"]["seconds"]}
            else:
                measured[r["section"]] = old_run
        fresh = {r.section for r in rows}
        merged, placed = [], set()
        for r in old["rows"]:
            if r["section"] in fresh:
                if r["section"] not in placed:
                    merged += [x for x in rows if x.section == r["section"]]
                    placed.add(r["section"])
            else:
                merged.append(Row(**r))
        rows = merged + [x for x in rows if x.section not in placed]
    (out_dir / f"{stem}.md").write_text(markdown(rows, info, args.quick, seconds, kept,
                                                 measured))
    (out_dir / f"{stem}.json").write_text(json.dumps(
        {"machine": info, "quick": args.quick, "seconds": seconds, "kept": kept,
         "measured": measured, "rows": [r.to_dict() for r in rows],
         "script_outputs": outputs}, indent=2) + "\n")
    print(f"wrote {out_dir / stem}.md and .json ({seconds:.0f} s)")


if __name__ == "__main__":
    main()
