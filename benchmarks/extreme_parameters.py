"""Every registered name under extreme privacy parameters: a result or a clear exit 2.

``python benchmarks/extreme_parameters.py [--out FILE] [--names a,b] [--seconds S]`` runs
``check NAME --quick --no-regret`` and ``simulate NAME --horizon 200 --runs 4`` in-process for
epsilon in {700 (the end of the commands' range, four decades below float64's e^709.78),
701 and 1e308 (outside: exit 2 naming the range)} and delta in {1e-300, 1 - 1e-12}
(delta only where the name's default delta is positive), each case in a fresh state folder,
and records the exit code and the first line of standard error. Exit 3 (a crash) or a state
folder left behind is a defect; a case
still running after ``--seconds`` is recorded as ``slow`` (not a defect by itself).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpaudit.cli import main  # noqa: E402
from dpaudit.registry import all_audits, all_policies  # noqa: E402


class _Slow(BaseException):
    pass


def _alarm(signum, frame):  # noqa: ARG001
    raise _Slow


def cases(names: list[str] | None) -> list[tuple[str, list[str]]]:
    out = []
    audits, policies = all_audits(), all_policies()
    for name, spec in audits.items():
        if names and name not in names:
            continue
        grid = [["--epsilon", "700"], ["--epsilon", "701"], ["--epsilon", "1e308"]]
        if spec.default_delta > 0:
            grid += [["--delta", "1e-300"], ["--delta", "0.999999999999"]]
        out += [("check", ["check", name, "--quick", "--no-regret", *g]) for g in grid]
    for name in policies:
        if names and name not in names:
            continue
        for g in (["--epsilon", "700"], ["--epsilon", "701"], ["--epsilon", "1e308"]):
            out.append(("simulate", ["simulate", name, "--horizon", "200", "--runs", "4",
                                     "--workers", "1", *g]))
    return out


def run_case(argv: list[str], seconds: float) -> tuple[str, str, bool]:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        if argv[0] == "check":
            argv = [*argv, "--state-dir", str(state)]
        err = io.StringIO()
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                code = str(main(argv))
        except _Slow:
            code = "slow"
        except SystemExit as exc:
            code = str(exc.code)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        left = state.exists() and any(state.iterdir())
        first = (err.getvalue().strip().splitlines() or [""])[0]
        return code, first[:160], left and code != "slow"


def main_script() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    p.add_argument("--names", default=None)
    p.add_argument("--seconds", type=float, default=60.0)
    a = p.parse_args()
    names = a.names.split(",") if a.names else None
    lines, bad = [], 0
    for _kind, argv in cases(names):
        start = time.perf_counter()
        code, first, left = run_case(argv, a.seconds)
        defect = code == "3" or left
        bad += defect
        line = (f"{'DEFECT' if defect else 'ok':6} exit={code:4} "
                f"{time.perf_counter() - start:6.1f}s  {' '.join(argv)}"
                + (f"  | {first}" if first and code != "0" else "")
                + ("  | state folder left behind" if left else ""))
        print(line, flush=True)
        lines.append(line)
    summary = f"{len(lines)} cases, {bad} defects"
    print(summary)
    if a.out:
        Path(a.out).write_text("\n".join([*lines, summary]) + "\n")
    os.environ.pop("DPAUDIT_STATE_DIR", None)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main_script())
