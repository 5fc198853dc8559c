"""Acceptance of the planted twins (issue 22): ``check NAME`` at the default (full) budget.

For every name given (twins ``NAME-<bug>`` and their originals), for every seed, run the
check's claims at the default ``(eps, delta)`` and full budget and write one JSON line per
(name, seed): the overall verdict and each claim's verdict, lower bound and the level it
observes. Originals are run on their claims only (findings and the regret experiment do not
change the verdict and are slow); twins have neither. The summary table (twins: how many
seeds VIOLATED; originals: how many stayed within the claim, and the release/report-level
bounds) is ``--summary``.

    python benchmarks/twins_acceptance.py --seeds 1-10 --out benchmarks/results/twins.jsonl \
        ldp-tbp-fixed-budget ldp-tbp-fixed-budget-tanh-slip ...
    python benchmarks/twins_acceptance.py --summary benchmarks/results/twins.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from dataclasses import replace

from dpaudit.engine import run_check
from dpaudit.registry import all_audits


def _seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def run(names: list[str], seeds: list[int], out: str) -> None:
    audits = all_audits()
    with open(out, "a") as fh:
        for name in names:
            spec = audits[name]
            if not spec.faulty:
                spec = replace(spec, findings=[], regret=None)
            for seed in seeds:
                t0 = time.perf_counter()
                rep = run_check(spec, seed=seed, regret=False)
                row = {"name": name, "seed": seed, "verdict": rep.verdict.value,
                       "faulty": spec.faulty, "true_epsilon": spec.true_epsilon,
                       "seconds": round(time.perf_counter() - t0, 1),
                       "claims": [{"id": c.id, "verdict": c.verdict.value,
                                   "observes": c.observes,
                                   "bound": c.epsilon_lower_bound} for c in rep.claims]}
                fh.write(json.dumps(row) + "\n")
                fh.flush()


def summary(path: str) -> str:
    rows = [json.loads(line) for line in open(path)]
    by = defaultdict(list)
    for r in rows:
        by[r["name"]].append(r)
    lines = ["| name | true eps | seeds | VIOLATED | catching claim(s) | s/check |",
             "|---|---|---|---|---|---|"]
    for name, rs in by.items():
        te = rs[0]["true_epsilon"]
        catching = sorted({c["id"] for r in rs for c in r["claims"]
                           if c["verdict"] == "VIOLATED"})
        viol = sum(r["verdict"] == "VIOLATED" for r in rs)
        lines.append(f"| {name} | {'-' if te is None else f'{te:.4g}'} | {len(rs)} | {viol} | "
                     f"{', '.join(catching) or '-'} | "
                     f"{sum(r['seconds'] for r in rs) / len(rs):.0f} |")
    lines += ["", "| original | claim | observes | min bound | mean bound | max bound |",
              "|---|---|---|---|---|---|"]
    for name, rs in by.items():
        if rs[0]["faulty"]:
            continue
        for cid in [c["id"] for c in rs[0]["claims"]]:
            got = [c for r in rs for c in r["claims"] if c["id"] == cid]
            bounds = [c["bound"] for c in got if c["bound"] is not None]
            if not bounds or not any(c["observes"] in ("releases", "reports") for c in got):
                continue
            lines.append(f"| {name} | {cid} | {got[0]['observes']} | {min(bounds):.3f} | "
                         f"{sum(bounds) / len(bounds):.3f} | {max(bounds):.3f} |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*")
    p.add_argument("--seeds", default="1-10")
    p.add_argument("--out", default="benchmarks/results/twins.jsonl")
    p.add_argument("--summary", metavar="JSONL")
    a = p.parse_args()
    if a.summary:
        print(summary(a.summary))
    else:
        run(a.names, _seeds(a.seeds), a.out)


if __name__ == "__main__":
    main()
