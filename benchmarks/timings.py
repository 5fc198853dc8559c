"""The wall-clock times the README quotes, measured and stored (``results/timings.json``).

``python benchmarks/timings.py [KEY ...]`` runs each command of :data:`COMMANDS` (all, or the
keys given) from the repository root in a fresh folder, times it end to end (start-up
included: what a user waits) and writes the seconds with the date, the machine's core count
and load average, and the Python version. The README shows a time only between
``<!-- timings: KEY -->`` and ``<!-- /timings -->``, written as :func:`shown` formats the stored
figure; ``tests/test_readme_names.py`` compares the two, so a re-measurement means re-running
this script and copying the new text, never typing a number. The seconds move with the
machine's load (recorded beside them), which is why they are stored, not asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "benchmarks" / "results" / "timings.json"

#: key -> the command the README times (run with ``python -m dpaudit``)
COMMANDS: dict[str, list[str]] = {
    "check-dp-ftpl-new": ["check", "dp-ftpl-new", "--no-state"],
    # the same command measured while the shared machine was loaded (the load it ran under is
    # stored beside it): what to expect when other work competes for the two cores
    "check-dp-ftpl-new-loaded": ["check", "dp-ftpl-new", "--no-state"],
    "reproduce-azize-basu-fig2": ["reproduce", "azize-basu-fig2", "--no-state", "--out", "."],
    "reproduce-azize-basu-fig3": ["reproduce", "azize-basu-fig3", "--no-state", "--out", "."],
}


#: key -> a shell command the README times, run from the repository root (the test suite: the
#: README's second command, which CI runs)
SHELL_COMMANDS: dict[str, str] = {
    "test-suite": "python -m pytest -q -n auto --durations=20",
    # measured (2026-11) while the command still ran mypy before pytest, rather than as the
    # suite's first test: the same work, in sequence
    "test-suite-loaded": "python -m mypy && python -m pytest -q -n auto --durations=20",
}


def shown(seconds: float) -> str:
    """How the README writes a stored time: whole seconds from 10 s, else one decimal."""
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


def measure(key: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "MPLBACKEND": "Agg"}
    if key in SHELL_COMMANDS:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        proc = subprocess.run(["bash", "-c", SHELL_COMMANDS[key]], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - start
        # pytest's exit 1 (some test failed) still times the suite; the record says so
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{key}: exit {proc.returncode}\n{proc.stdout[-3000:]}")
        lines = proc.stdout.strip().splitlines()
        # the slowest tests, as --durations names them
        slowest = next((i for i, ln in enumerate(lines) if "slowest" in ln and "durations" in ln),
                       None)
        durations = [] if slowest is None else [
            " ".join(ln.split()) for ln in lines[slowest + 1:slowest + 21]
            if ln[:1].isdigit()]
        # pytest's short summary (-ra): what failed or errored, with its message
        failures = [ln for ln in lines if ln.startswith(("FAILED ", "ERROR "))]
        return {"command": SHELL_COMMANDS[key], "seconds": round(seconds, 2),
                "exit_code": proc.returncode, "summary": (lines[-1:] or [""])[0].strip("= "),
                "failures": failures, "durations": durations,
                "measured": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                "cores": os.cpu_count(), "load_average_at_start": round(load, 2),
                "load_average_at_end": round(os.getloadavg()[0], 2),
                "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory() as folder:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "dpaudit", *COMMANDS[key]], cwd=folder,
                              env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{key}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return {"command": "python -m dpaudit " + " ".join(COMMANDS[key]),
            "seconds": round(seconds, 2),
            "measured": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cores": os.cpu_count(), "load_average_at_start": round(load, 2),
            "load_average_at_end": round(os.getloadavg()[0], 2),
            "python": sys.version.split()[0]}


def main(argv: list[str]) -> int:
    keys = argv or [k for k in COMMANDS if not k.endswith("-loaded")]
    unknown = [k for k in keys if k not in COMMANDS and k not in SHELL_COMMANDS]
    if unknown:
        print(f"unknown key(s) {unknown}; known: {', '.join([*COMMANDS, *SHELL_COMMANDS])}",
              file=sys.stderr)
        return 2
    stored = json.loads(STORE.read_text()) if STORE.exists() else {}
    for key in keys:
        stored[key] = measure(key)
        print(f"{key}: {shown(float(stored[key]['seconds']))} (load "
              f"{stored[key]['load_average_at_start']})")
    STORE.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
