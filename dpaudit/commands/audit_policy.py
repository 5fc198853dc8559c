"""``python -m dpaudit audit-policy MODULE:FACTORY --arms K --horizon T --epsilon E [...]``.

Audits bandit code that dpaudit did not write (a class with ``select``/``update`` or ``step``,
or a whole-run function; see :mod:`dpaudit.sim.adapters`) against an ``(epsilon, delta)`` claim:
global DP on reward tables (Azize & Basu 2022, Definition 2) or an instance with a revision
rule (Wang & Zhu 2023, Definition 3), or per-step DP. The neighbouring inputs are searched
automatically (:mod:`dpaudit.sim.neighbour_search`). The report, JSON and exit codes are those
of ``audit``: 0 not violated, 1 VIOLATED, 2 usage error, 3 an exception inside the user's code.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import traceback
from typing import Any

from dpaudit.commands.common import add_report_outputs, emit_reports, float_arg, int_arg
from dpaudit.errors import UsageError, UserCodeError
from dpaudit.registry import import_user_module
from dpaudit.reports.text import format_text
from dpaudit.sim import limits
from dpaudit.sim.adapters import INTERFACES, adapt, describe_user_error
from dpaudit.sim.policy_audit import audit_policy, parse_means
from dpaudit.stats.blackbox import to_claim_result
from dpaudit.stats.results import CheckReport, ClaimResult, Notion
from dpaudit.stats.rng import DEFAULT_SEED

EXIT_USER_CODE = 3

REFERENCES = {
    ("global", "table"): "Azize & Basu 2022, Definition 2 (reward tables differing in one step)",
    ("global", "instance"): "Wang & Zhu 2023, Definition 3 (an instance and the same instance "
                            "with one step's reward revised)",
    ("per-step", "table"): "Mishra & Thakurta 2015; Wang & Zhu 2023, Definition 1 (next action "
                           "on histories differing in one observation)",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit-policy", help="audit third-party bandit code (MODULE:FACTORY) "
                                            "with an automatic neighbour search")
    p.set_defaults(command="audit_policy")  # the module name, for the CLI's import
    p.add_argument("target", help="MODULE:FACTORY: a class or function building one policy "
                                  "per run, or a whole-run function (--interface run)")
    p.add_argument("--arms", type=int_arg, required=True, help="number of arms K")
    p.add_argument("--horizon", type=int_arg, required=True, help="steps per run T")
    p.add_argument("--epsilon", type=float_arg, required=True, help="claimed epsilon")
    p.add_argument("--delta", type=float_arg, default=0.0, help="claimed delta (default 0)")
    p.add_argument("--notion", choices=("global", "per-step"), default="global")
    p.add_argument("--rewards", choices=("table", "instance"), default="table",
                   help="global DP on fixed reward tables (default) or on a Bernoulli "
                        "instance with a revision rule (--means)")
    p.add_argument("--means", default=None, help="instance means, comma-separated "
                                                 "(--rewards instance; default all 0.5)")
    p.add_argument("--interface", choices=INTERFACES, default="auto")
    p.add_argument("--methods", default=None,
                   help="method names, comma-separated: 'select,update' or 'step'")
    p.add_argument("--feed", choices=("table", "reward-fn"), default="table",
                   help="what a whole-run function receives (default: the (T, K) table)")
    p.add_argument("--history-method", default=None,
                   help="per-step DP: a method (arms, rewards) that sets the history")
    p.add_argument("--samples", type=int_arg, default=20_000,
                   help="samples per side for the audited pair (default 20000)")
    p.add_argument("--selection-fraction", type=float_arg, default=0.2,
                   help="share of the samples that chooses the event (default 0.2)")
    p.add_argument("--search-budget", type=int_arg, default=16,
                   help="candidate neighbour pairs from the automatic search (default 16)")
    p.add_argument("--workers", type=int_arg, default=1, help="processes (same report for any)")
    p.add_argument("--seconds", type=float_arg, default=None,
                   help="deadline: sample sizes are cut, before sampling, to fit it, and the "
                        "audit is stopped when it passes (INCONCLUSIVE, saying what would "
                        "settle it)")
    p.add_argument("--memory", type=str, default=None, metavar="SIZE",
                   help="memory budget such as 512M or 4G (default: half the machine's); an "
                        "audit that would need more is refused before it starts (exit 2)")
    p.add_argument("--alpha", type=float_arg, default=0.05,
                   help="the bound holds with probability >= 1 - alpha (default 0.05)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED, help="root seed")
    add_report_outputs(p, checked="before any work",
                       html_help="write one self-contained HTML report")


def _load(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise UsageError(f"target {target!r} must be MODULE:FACTORY (e.g. my_pkg.ucb:MyUCB)")
    obj: Any = import_user_module(module_name)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except UserCodeError as exc:  # exit 3, one line; raised in a worker it has lost its
        # __cause__, so the message itself names the exception and the user's file and line
        print(f"dpaudit: error in user code: {describe_user_error(exc)}", file=sys.stderr)
        if getattr(args, "debug", False) and exc.__cause__ is not None:
            traceback.print_exception(exc.__cause__, file=sys.stderr)
        return EXIT_USER_CODE


def _run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    factory = _load(args.target)
    methods = None if args.methods is None else tuple(
        m.strip() for m in args.methods.split(",") if m.strip())
    code = adapt(factory, n_arms=args.arms, horizon=args.horizon, epsilon=args.epsilon,
                 delta=args.delta, interface=args.interface, methods=methods, feed=args.feed)
    means = parse_means(args.means, args.arms)
    limits.check_policy_audit(args)  # exit 2 with the size it would need, before any run
    try:
        left = None if args.seconds is None else args.seconds - (time.perf_counter() - start)
        audit = limits.run_with_deadline(lambda: _audit(args, code, means), left,
                                         total=args.seconds)
    except limits.DeadlineReached as exc:
        return _emit(args, code, limits.deadline_claim(args, code.name, exc), start)
    return _emit(args, code, audit, start)


def _audit(args: argparse.Namespace, code: Any, means: Any) -> Any:
    return audit_policy(code, epsilon=args.epsilon, delta=args.delta, notion=args.notion,
                         rewards=args.rewards, means=means, samples=args.samples,
                         alpha=args.alpha, seed=args.seed, workers=args.workers,
                         seconds=args.seconds, search_budget=args.search_budget,
                         history_method=args.history_method,
                         selection_fraction=args.selection_fraction,
                         progress=False if args.json == "-" else None)


def _emit(args: argparse.Namespace, code: Any, audit: Any, start: float) -> int:
    if isinstance(audit, ClaimResult):  # the deadline passed: no evidence, INCONCLUSIVE
        return _report(args, code, audit, start, samples_used=0)
    notion = Notion.GLOBAL if args.notion == "global" else Notion.PER_STEP
    ref = REFERENCES[(args.notion, "table" if args.notion == "per-step" else args.rewards)]
    what = "action sequence" if args.notion == "global" else "next action"
    claim = to_claim_result(
        audit.result, id=f"{args.notion}-dp", notion=notion, reference=ref,
        statement=f"{code.name} ({code.interface}) is ({args.epsilon:g}, {args.delta:g})-DP: "
                  f"its {what} on neighbouring inputs (K={args.arms}, T={args.horizon})")
    claim = dataclasses.replace(
        claim, details=claim.details + audit.details(),
        data={**claim.data, "samples": audit.samples, "rank_samples": audit.rank_samples,
              "runs": audit.runs, "runs_per_second": round(audit.runs_per_second, 1),
              "reproducible": audit.reproducible, "neighbour": repr(audit.result.data_prime)},
        seconds=time.perf_counter() - start)
    return _report(args, code, claim, start, samples_used=audit.samples)


def _report(args: argparse.Namespace, code: Any, claim: ClaimResult, start: float, *,
            samples_used: int) -> int:
    report = CheckReport(
        name=args.target, description=f"{code.name}, {code.interface} interface, "
                                      f"{args.notion} DP", paper="user code",
        parameters={"epsilon": args.epsilon, "delta": args.delta, "alpha": args.alpha,
                    "arms": args.arms, "horizon": args.horizon, "notion": args.notion,
                    "rewards": args.rewards, "samples": args.samples,
                    "samples_used": samples_used, "search_budget": args.search_budget,
                    "workers": args.workers, "seconds": args.seconds, "seed": args.seed},
        claims=(claim,), seconds=time.perf_counter() - start)
    emit_reports(args, report, command="audit-policy",
                 text=format_text(report).replace("dpaudit check", "dpaudit audit-policy", 1))
    return report.exit_code
