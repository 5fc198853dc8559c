"""``python -m dpaudit check NAME [--epsilon E] [--delta D] [--seed S] [--scheduler ADDR]
[--symbolic-budget SECONDS] [--json PATH]``."""

from __future__ import annotations

import argparse
from dataclasses import replace

from ..budget import DEFAULT_SYMBOLIC_BUDGET, symbolic_budget_scope
from ..engine import run_check
from ..registry import get_audit
from ..report import format_text
from ..rng import DEFAULT_SEED
from .common import (
    ProgressLine,
    add_report_outputs,
    add_scheduler,
    emit_reports,
    float_arg,
    int_arg,
    scheduler_scope,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="run every claim of a registered name (or MODULE[:NAME])")
    p.add_argument("name", help="registered name (see `list`), or a user audit module: "
                                "my_audit, my_pkg.my_audit or MODULE:NAME")
    p.add_argument("--epsilon", type=float_arg, default=None,
                   help="claimed epsilon (default: the paper's)")
    p.add_argument("--delta", type=float_arg, default=None,
                   help="claimed delta (default: the paper's)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED, help="root seed")
    p.add_argument("--alpha", type=float_arg, default=0.05,
                   help="significance of sampled lower bounds (default 0.05)")
    p.add_argument("--workers", type=int_arg, default=1,
                   help="worker processes (results do not depend on it)")
    p.add_argument("--quick", action="store_true", help="reduced budgets (seconds)")
    p.add_argument("--no-regret", action="store_true", help="skip the regret experiment")
    add_scheduler(p)
    p.add_argument("--symbolic-budget", metavar="SECONDS", type=float_arg,
                   default=DEFAULT_SYMBOLIC_BUDGET,
                   help="wall-clock seconds sympy may spend on each symbolic step before it is "
                        f"abandoned (default {DEFAULT_SYMBOLIC_BUDGET:g}; recorded in the "
                        "report's parameters). On a loaded machine a step can run out of it: a "
                        "CDF condition then falls from PROVED to the numeric tiers (the claim "
                        "EXACT), another obligation to UNKNOWN (the claim INCONCLUSIVE); a "
                        "larger budget restores the proof")
    add_report_outputs(p)


def run(args: argparse.Namespace) -> int:
    spec = get_audit(args.name)
    line = ProgressLine(args, f"check {spec.name}")
    try:
        with scheduler_scope(args.scheduler), \
                symbolic_budget_scope(args.symbolic_budget) as budget:
            report = run_check(
                spec, epsilon=args.epsilon, delta=args.delta, seed=args.seed,
                alpha=args.alpha, quick=args.quick, workers=args.workers,
                regret=not args.no_regret, progress=line,
            )
    finally:
        line.close()
    report = replace(report, parameters={**report.parameters, "symbolic_budget": budget})
    emit_reports(args, report, command="check", text=format_text(report))
    return report.exit_code
