"""``python -m dpaudit reproduce NAME [--quick] [--horizon T] [--runs R] [--seed S] [--out DIR]``.

Re-runs a registered figure reproduction (declared in ``audits/fig_*.py``, found by the
registry) and writes ``<name>.png``, ``<name>.csv`` and ``<name>.md`` into ``--out`` (default:
the current folder; created if missing). ``--list`` prints the names. This command knows no
algorithm and no figure.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ..errors import UsageError
from ..experiments import run_experiment
from ..registry import all_experiments, get_experiment
from ..rng import DEFAULT_SEED
from .common import int_arg, output_dir, prepare_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reproduce", help="re-run a paper's figure (PNG + CSV + Markdown)")
    p.add_argument("name", nargs="?", default=None, help="experiment name (see --list)")
    p.add_argument("--list", action="store_true", help="list the registered experiments")
    p.add_argument("--quick", action="store_true",
                   help="the experiment's reduced budget (seconds)")
    p.add_argument("--runs", type=int_arg, default=None, help="runs (default: the paper's)")
    p.add_argument("--horizon", type=int_arg, default=None,
                   help="horizon T (default: the paper's; 1e7 is accepted)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED, help="root seed")
    p.add_argument("--out", type=output_dir, default=Path("."),
                   help="output folder (default: current folder; created if missing)")


def run(args: argparse.Namespace) -> int:
    if args.list:
        table = all_experiments()
        width = max((len(n) for n in table), default=0)
        for exp in table.values():
            print(f"{exp.name:<{width}}  {exp.paper}: {exp.description} (T = {exp.horizon}, "
                  f"{exp.runs} runs; --quick: T = {exp.quick_horizon}, {exp.quick_runs} runs)")
        return 0
    if args.name is None:
        raise UsageError("reproduce needs a NAME (see `python -m dpaudit reproduce --list`)")
    experiment = get_experiment(args.name)
    settings = experiment.settings(horizon=args.horizon, runs=args.runs, seed=args.seed,
                                   quick=args.quick)
    out = prepare_output(args.out, folder=True)
    start = time.perf_counter()
    for path in run_experiment(experiment, settings, out):
        print(f"wrote {path}")
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0
