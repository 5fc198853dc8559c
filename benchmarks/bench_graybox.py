"""The gray-box stage against the sampled route, on code of the shapes public DP-bandit code
takes (``examples/gallery``, ``examples/privbandits``) and on small mechanisms
(``examples/graybox``): for each planted bug and its correct twin, the verdict, the line the
report names, and the seconds, with the stage on (the default) and off (``--no-graybox``, the
sampled route alone), both run in this one process, alternating, on one core (``--workers 1``).

    python benchmarks/bench_graybox.py [--out benchmarks/results/graybox.md]

What a row says: the planted row's "line" is the first site a proof or pointer names (the
target's own file must appear there: ``names its file``); a correct row must have no proof or
pointer (``false finding: no``). The seconds are wall seconds of the whole command in this
process (imports warm), under the machine's load at the time (printed with the table): the
ratio sampled / gray-box is the comparison, measured in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
G = "examples.gallery"
P = "examples.privbandits"
M = "examples.graybox"

#: (bug, command, broken target, correct target or None, arguments)
CASES = [
    ("one noise draw shared by the arms (successive elimination)", "audit-policy",
     f"{G}.dpse:SharedNoiseDPSE", f"{G}.dpse:DPSE", "--arms 2 --horizon 64 --epsilon 1"),
    ("unnoised first pull (env-based, module generator)", "audit-policy",
     f"{G}.env_ucb:RawFirstPullUCB", f"{G}.env_ucb:EnvEpisodeUCB",
     "--arms 2 --horizon 32 --epsilon 1"),
    ("noise on a statistic of twice its sensitivity (numba whole-run)", "audit-policy",
     f"{G}.numba_run:play_two_pulls_sum", f"{G}.numba_run:play_two_pulls",
     "--arms 2 --horizon 16 --epsilon 1"),
    ("noise in the wrong argument (laplace(scale)), local randomiser", "audit-policy",
     f"{G}.local_laplace:WrongArgumentLaplaceUCB", f"{G}.local_laplace:LocalLaplaceUCB",
     "--arms 2 --horizon 16 --epsilon 0.5 --notion ldp"),
    ("reward reused in two releases", "audit-policy", f"{G}.twice:ReusedBudget",
     f"{G}.twice:TwiceReported", "--arms 2 --horizon 16 --epsilon 1 --notion ldp"),
    ("mean's noise scale on a sum (time index from 1)", "audit-policy",
     f"{G}.one_based:MeanScaleETC", f"{G}.one_based:OneBasedETC",
     "--arms 2 --horizon 24 --epsilon 1"),
    ("mean's noise scale on a sum (whole run through a module-level numba pull)",
     "audit-policy", f"{G}.module_reward:run_etc_mean_scale", f"{G}.module_reward:run_etc",
     f"--arms 2 --horizon 24 --epsilon 1 --reward-fn {G}.module_reward:pull"),
    ("mean's noise scale on a sum (ETC(env, n, params))", "audit-policy",
     f"{G}.params_dict:MeanScaleETC", f"{G}.params_dict:ETC",
     "--arms 2 --horizon 24 --epsilon 1 --set n=24"),
    ("mean's noise scale on a sum (reward function passed the mean)", "audit-policy",
     f"{G}.mean_reward:run_etc_mean_scale", f"{G}.mean_reward:run_etc",
     f"--arms 2 --horizon 24 --epsilon 1 --reward-fn {G}.mean_reward:bernoulli"),
    ("mean's noise scale on a sum (claim read from the environment)", "audit-policy",
     f"{G}.env_params:EnvMeanScaleETC", f"{G}.env_params:EnvETC",
     "--arms 2 --horizon 24 --epsilon 1"),
    ("mean's noise scale on a sum, committing after 1000 steps", "audit-policy",
     f"{G}.late_commit:LateCommitMeanScale", f"{G}.late_commit:LateCommitETC",
     "--arms 2 --horizon 1024 --epsilon 1 --samples 1000 --search-budget 4"),
    ("sigma / sqrt(2), local Gaussian reports", "audit-policy",
     f"{G}.local_gaussian:SqrtTwoGaussian", f"{G}.local_gaussian:GaussianReports",
     "--arms 2 --horizon 16 --epsilon 0.9 --delta 1e-5 --notion ldp"),
    ("Lap(1/(2 eps)), a report method alone", "audit-policy",
     f"{G}.report_only:HalfScaleReporter", f"{G}.report_only:LaplaceReporter",
     "--arms 2 --horizon 16 --epsilon 1 --notion ldp"),
    ("cumulative mean re-released each episode", "audit-policy",
     f"{P}.broken:CumulativeMeanUCB", f"{P}.ucb:EpisodeLaplaceUCB",
     "--arms 2 --horizon 32 --epsilon 1"),
    ("episode stopped early on raw rewards", "audit-policy", f"{P}.broken:EarlyStopUCB", None,
     "--arms 2 --horizon 32 --epsilon 1"),
    ("one noise draw for every release", "audit-policy", f"{P}.broken:SharedNoiseUCB", None,
     "--arms 2 --horizon 32 --epsilon 1"),
    ("raw initial means", "audit-policy", f"{P}.broken:RawInitialMeansUCB", None,
     "--arms 2 --horizon 32 --epsilon 1"),
    ("sum over the unclipped copy", "audit", f"{M}.unclipped_sum:UnclippedSum",
     f"{M}.unclipped_sum:ClippedSum", ""),
    ("two releases at the full epsilon", "audit", f"{M}.two_releases:TwiceReleasedCount",
     f"{M}.two_releases:NoisyCount", ""),
    ("noise scale read from len(data)", "audit", f"{M}.scale_from_len:LenScaledMean",
     f"{M}.scale_from_len:PublicSizeMean", ""),
    ("branch on the raw sum", "audit", f"{M}.private_branch:BranchingSum",
     f"{M}.private_branch:NoisySum", ""),
    ("Gaussian noise through random.gauss, sigma for half the sensitivity", "audit",
     f"{M}.python_random:DoubledGaussSum", f"{M}.python_random:GaussSum", ""),
    ("a declared primitive's input beyond its sensitivity", "audit",
     f"{M}.declared:WideClipSum", f"{M}.declared:DeclaredSum", ""),
]


def run(command: str, target: str, args: str, graybox: bool) -> dict:
    from dpaudit.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        argv = [command, target, *args.split(), "--no-state", "--seed", "3",
                "--json", str(out), *([] if graybox else ["--no-graybox"])]
        t = time.perf_counter()
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(argv)
        seconds = time.perf_counter() - t
        doc = json.loads(out.read_text()) if out.exists() else {}
    claim = (doc.get("claims") or [{}])[0]
    strong = [f for f in doc.get("findings", [])
              if (f.get("data") or {}).get("level") in ("proof", "pointer")]
    site = next((f["data"].get("site") for f in strong if f["data"].get("site")), None)
    if site is None and strong:  # a finding without a site names its lines in the text
        site = next((d for f in strong for d in [f["summary"], *f["details"]]
                     if ".py:" in d), None)
    return {"exit": code, "verdict": claim.get("verdict"), "method": claim.get("method"),
            "bound": claim.get("epsilon_lower_bound"), "seconds": round(seconds, 2),
            "strong": len(strong), "site": site,
            "error": err.getvalue().strip().splitlines()[-1] if code >= 2 and err.getvalue()
            else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "graybox.md"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    run("audit", f"{M}.two_releases:NoisyCount", "", True)  # warm imports and caches
    load = os.getloadavg()
    rows = []
    for bug, command, broken, correct, extra in CASES:
        for kind, target in (("planted", broken), ("correct", correct)):
            if target is None:
                continue
            on = run(command, target, extra, True)
            off = run(command, target, extra, False)
            module = target.split(":")[0].split(".")[-1] + ".py"
            rows.append({"bug": bug if kind == "planted" else "correct twin", "kind": kind,
                         "command": command, "target": target, "graybox": on, "sampled": off,
                         "names_its_file": bool(on["site"] and module in on["site"]),
                         "false_finding": kind == "correct" and on["strong"] > 0})
            print(rows[-1], flush=True)
    after = os.getloadavg()
    lines = [f"`python benchmarks/bench_graybox.py`: every row run with the gray-box stage "
             "(default) and without it (`--no-graybox`), in one process, on one core, seed 3; "
             f"load average {load[0]:.2f} before, {after[0]:.2f} after.", "",
             "| bug | command | target | gray-box: verdict (exit) | line named | seconds | "
             "sampled route: verdict (exit) | epsilon >= | seconds | ratio |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        on, off = r["graybox"], r["sampled"]
        named = (f"`{on['site']}`" if r["kind"] == "planted" and on["site"] else
                 ("no false finding" if not r["false_finding"] else "FALSE FINDING"))
        ratio = off["seconds"] / max(on["seconds"], 1e-9)
        lines.append(f"| {r['bug']} | {r['command']} | `{r['target'].split('.', 1)[1]}` | "
                     f"{on['verdict']} ({on['exit']}) | {named} | {on['seconds']:.1f} | "
                     f"{off['verdict']} ({off['exit']}) | {_num(off['bound'])} | "
                     f"{off['seconds']:.1f} | {ratio:.1f}x |")
    planted = [r for r in rows if r["kind"] == "planted"]
    lines += ["", f"planted: {sum(r['graybox']['exit'] == 1 for r in planted)} of "
              f"{len(planted)} VIOLATED with the stage, "
              f"{sum(r['names_its_file'] for r in planted)} naming a line of their own file, "
              f"the slowest in {max(r['graybox']['seconds'] for r in planted):.1f} s; correct: "
              f"{sum(r['false_finding'] for r in rows)} false finding(s), "
              f"{sum(r['graybox']['exit'] == 1 for r in rows if r['kind'] == 'correct')} "
              "VIOLATED."]
    Path(args.out).write_text("\n".join(lines) + "\n")
    Path(args.out).with_suffix(".json").write_text(json.dumps(
        {"load_before": load, "load_after": after, "rows": rows}, indent=1) + "\n")
    print("\n".join(lines))


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


if __name__ == "__main__":
    main()
