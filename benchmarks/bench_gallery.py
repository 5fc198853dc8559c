"""examples/gallery through ``audit-policy`` with the default budget: each planted bug and its
correct twin, the glue each needs, verdict, epsilon lower bound and seconds.

    python benchmarks/bench_gallery.py [--samples N] [--out benchmarks/results/gallery.md]

Every audit is the command line alone (the glue column counts lines a user had to write
around the code: none), the default ``--samples 20000``, ``--search-budget 16``,
``--alpha 0.05`` and seed; the seconds are wall-clock seconds of the whole command on this
machine (2 cores shared with other jobs), start-up included.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (bug, target, arguments); the correct twin follows each broken target
CASES = [
    ("shared noise across arms", "dpse:SharedNoiseDPSE", "dpse:DPSE",
     "--arms 2 --horizon 64 --epsilon 1"),
    ("unnoised first pull", "env_ucb:RawFirstPullUCB", "env_ucb:EnvEpisodeUCB",
     "--arms 2 --horizon 32 --epsilon 1"),
    ("noise in the wrong argument (laplace(scale))", "local_laplace:WrongArgumentLaplaceUCB",
     "local_laplace:LocalLaplaceUCB", "--arms 2 --horizon 32 --epsilon 0.5 --notion ldp"),
    ("reward reused across releases beyond its budget", "twice:ReusedBudget",
     "twice:TwiceReported", "--arms 2 --horizon 32 --epsilon 1 --notion ldp"),
    ("sqrt(2) calibration error", "local_gaussian:SqrtTwoGaussian",
     "local_gaussian:GaussianReports",
     "--arms 2 --horizon 32 --epsilon 0.9 --delta 1e-5 --notion ldp"),
    ("(none: numba-compiled whole-run function)", None, "numba_run:play",
     "--arms 2 --horizon 32 --epsilon 1"),
]


def audit(target: str, args: str, samples: int | None, seed: int | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        cmd = [sys.executable, "-m", "dpaudit", "audit-policy", f"examples.gallery.{target}",
               *args.split(), "--json", str(out)]
        if samples is not None:
            cmd += ["--samples", str(samples)]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        seconds = time.perf_counter() - start
        claim = json.loads(out.read_text())["claims"][0]
    return {"exit": proc.returncode, "verdict": claim["verdict"], "method": claim["method"],
            "bound": claim["epsilon_lower_bound"], "seconds": seconds,
            "neighbour": claim["data"].get("neighbour", "")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=None, help="default: the command's")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "gallery.md"))
    ap.add_argument("--false-alarms", type=int, default=0, metavar="S",
                    help="instead: audit the correct global-DP twins with seeds 1..S at 2000 "
                         "samples and count VIOLATED verdicts (alpha = 0.05 each)")
    a = ap.parse_args()
    if a.false_alarms:
        false_alarms(a.false_alarms, a.out)
        return
    rows = ["| bug | target | glue lines | verdict (exit) | method | epsilon >= | seconds |",
            "|---|---|---|---|---|---|---|"]
    for bug, broken, correct, args in CASES:
        twin = "correct twin" if broken is not None else bug
        for name, what in ((broken, bug), (correct, twin)):
            if name is None:
                continue
            r = audit(name, args, a.samples)
            bound = "-" if r["bound"] is None else f"{r['bound']:.3g}"
            rows.append(f"| {what} | `{name}` | 0 | {r['verdict']} ({r['exit']}) | "
                        f"{r['method']} | {bound} | {r['seconds']:.1f} |")
            print(rows[-1], flush=True)
    text = (f"`python benchmarks/bench_gallery.py` (samples: "
            f"{a.samples or 'default 20000'}); arguments per row in the script.\n\n"
            + "\n".join(rows) + "\n")
    Path(a.out).write_text(text)


def false_alarms(seeds: int, out: str) -> None:
    """Correct twins over seeds: VIOLATED count and its exact 95% upper limit."""
    from scipy import stats

    lines = ["| correct twin | seeds | VIOLATED | 95% upper limit on the rate | largest bound |",
             "|---|---|---|---|---|"]
    for _, _, correct, args in CASES:
        if "--notion" in args:
            continue
        runs = [audit(correct, args, 2000, seed) for seed in range(1, seeds + 1)]
        bad = sum(r["verdict"] == "VIOLATED" for r in runs)
        upper = stats.beta.ppf(0.95, bad + 1, seeds - bad) if bad < seeds else 1.0
        lines.append(f"| `{correct}` | {seeds} | {bad} | {upper:.3f} | "
                     f"{max(r['bound'] for r in runs):.3f} |")
        print(lines[-1], flush=True)
    Path(out).write_text(f"`python benchmarks/bench_gallery.py --false-alarms {seeds}` "
                         "(2000 samples, alpha = 0.05 per audit)\n\n" + "\n".join(lines)
                         + "\n")


if __name__ == "__main__":
    main()
