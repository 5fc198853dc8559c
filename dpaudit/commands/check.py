"""``python -m dpaudit check NAME [--epsilon E] [--delta D] [--seed S] [--scheduler ADDR]
[--symbolic-budget SECONDS] [--max-runs N] [--max-seconds S] [--seconds S] [--json PATH]
[--resume]``.

``--max-runs``/``--max-seconds``: while the regret verdict is undecided, the regret experiment
runs again with fresh seeds in doubling batches up to these caps (:mod:`dpaudit.runtime.batches`;
its interval is a confidence sequence, valid wherever that stops).

``--seconds`` is a deadline (:mod:`dpaudit.commands.deadline`): sampled claims stop drawing at
it and are decided on what they drew, work not started is INCONCLUSIVE "not run: deadline".

Every run saves each completed claim's evidence (and each finding, and the regret experiment)
in a state file (:mod:`dpaudit.runtime.state`; ``--state-dir``, default ``.dpaudit-state/``),
deleted
when the run completes. After an interruption (Ctrl-C: exit 130; a kill; an exception in user
code) the same command with ``--resume`` reads that work back instead of recomputing it and
prints the report an uninterrupted run prints (only wall-clock fields differ).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from dpaudit.commands.common import (
    ProgressLine,
    add_report_outputs,
    add_run_caps,
    add_scheduler,
    add_state_options,
    check_state_options,
    emit_reports,
    float_arg,
    gated,
    int_arg,
    resume_can_help,
    run_caps,
    scheduler_scope,
)
from dpaudit.commands.deadline import (
    add_seconds,
    bounded_spec,
    deadline_line,
    deadline_report,
    killed_check_report,
    run_bounded,
    skipping_store,
)
from dpaudit.engine import AuditSpec, run_check
from dpaudit.exact.budget import DEFAULT_SYMBOLIC_BUDGET, symbolic_budget_scope
from dpaudit.registry import get_audit
from dpaudit.reports.text import format_text
from dpaudit.runtime import limits
from dpaudit.runtime.state import CheckState, chunk_scope, run_key, spec_code_files, state_folder
from dpaudit.stats.rng import DEFAULT_SEED


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="run every claim of a registered name (or MODULE[:NAME])")
    p.add_argument("name", help="registered name (see `list`), or a user audit module: "
                                "my_audit, my_pkg.my_audit or MODULE:NAME")
    p.add_argument("--epsilon", type=float_arg, default=None,
                   help="claimed epsilon (default: the paper's)")
    p.add_argument("--delta", type=float_arg, default=None,
                   help="claimed delta (default: the paper's)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED,
                   help="root seed of every random draw: the same seed gives the same report")
    p.add_argument("--alpha", type=float_arg, default=0.05,
                   help="significance of sampled lower bounds (default 0.05)")
    p.add_argument("--workers", type=int_arg, default=1,
                   help="worker processes: the report does not depend on their number")
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
    add_run_caps(p, "the regret experiment's own runs")
    add_report_outputs(p)
    add_state_options(p, where="$DPAUDIT_STATE_DIR, else .dpaudit-state/ in the current folder")
    add_seconds(p, "sampled claims")


def open_state(args: argparse.Namespace, spec: AuditSpec):
    """The :class:`~dpaudit.runtime.state.CheckState` of this run (``None`` under ``--no-state``).

    Its key holds everything that changes a piece's result: the name, the claimed epsilon and
    delta (the paper's when not given), the seed, alpha (sampled claims choose their event at
    it), ``--quick``, the symbolic time budget (it can change a proof's tier), dpaudit's
    version and code, and the user's audit module. Not the number of workers (results do not
    depend on it) nor ``--no-regret`` (it only skips a piece).
    """
    if args.no_state:
        return None
    eps = spec.default_epsilon if args.epsilon is None else args.epsilon
    dlt = spec.default_delta if args.delta is None else args.delta
    fields = {"command": "check", "name": args.name, "audit": spec.name,
              "epsilon": float(eps), "delta": float(dlt), "seed": args.seed,
              "alpha": float(args.alpha), "quick": bool(args.quick),
              "symbolic_budget": float(args.symbolic_budget)}
    key = run_key(fields, spec_code_files(spec))
    folder = state_folder(args.state_dir)
    state = CheckState(folder, spec.name, key, resume=args.resume)
    if args.resume:
        if state.found:
            chunks = sum(len(c) for c in state.chunks.values())
            more = f", {chunks} finished chunk(s)" if chunks else ""
            print(f"dpaudit: resuming from {state.path} ({len(state.pieces)} completed "
                  f"piece(s){more} saved)", file=sys.stderr)
        else:
            print(f"dpaudit: --resume: no saved state for these arguments in {str(folder)!r}; "
                  "running everything", file=sys.stderr)
    return state


def _after_kill(args: argparse.Namespace, spec: AuditSpec, exc: limits.DeadlineReached):
    """The report of a run killed at the hard deadline: the pieces the killed process had
    completed (saved in the state as they completed) are read back, the piece it was running
    and those after it are INCONCLUSIVE; with no saved state every claim is."""
    import contextlib
    import io

    saved = None
    if not args.no_state:
        with contextlib.redirect_stderr(io.StringIO()):  # no "resuming from" line here
            saved = open_state(argparse.Namespace(**{**vars(args), "resume": True}), spec)
    if saved is None or not saved.pieces:
        return killed_check_report(
            spec, epsilon=spec.default_epsilon if args.epsilon is None else args.epsilon,
            delta=spec.default_delta if args.delta is None else args.delta, alpha=args.alpha,
            exc=exc, parameters={"seed": args.seed, "alpha": args.alpha, "quick": args.quick,
                                 "workers": args.workers})
    return run_check(bounded_spec(spec, killed=exc), epsilon=args.epsilon, delta=args.delta,
                     seed=args.seed, alpha=args.alpha, quick=args.quick, workers=args.workers,
                     regret=not args.no_regret, state=skipping_store(saved))


def run(args: argparse.Namespace) -> int:
    check_state_options(args)
    max_runs, max_seconds = run_caps(args)
    spec = get_audit(args.name)
    state = open_state(args, spec)
    line = ProgressLine(args, f"check {spec.name}")
    seconds = getattr(args, "seconds", None)
    try:
        with scheduler_scope(args.scheduler), chunk_scope(state), \
                symbolic_budget_scope(args.symbolic_budget) as budget, \
                limits.deadline_scope(seconds) as deadline:
            bounded = spec if deadline is None else bounded_spec(spec)
            store = state if deadline is None or state is None else skipping_store(state)

            def go():
                return run_check(
                    bounded, epsilon=args.epsilon, delta=args.delta, seed=args.seed,
                    alpha=args.alpha, quick=args.quick, workers=args.workers,
                    regret=not args.no_regret, progress=line, state=store,
                    regret_max_runs=max_runs, regret_max_seconds=max_seconds,
                )
            killed: limits.DeadlineReached | None = None
            try:
                report = run_bounded(go, deadline)
            except limits.DeadlineReached as exc:  # the hard kill: the killed piece is lost
                killed = exc
                report = _after_kill(args, spec, exc)
        report = deadline_report(report, seconds, regret_planned=not args.no_regret
                                 and spec.regret is not None)
        if report.deadline is not None and killed is not None:
            report = replace(report, deadline={**report.deadline, "hard_kill": True,
                                               "killed_after_seconds": round(killed.elapsed, 3)})
    except BaseException as exc:
        line.close()
        if state is not None and state.write and state.saved_work and resume_can_help(exc):
            chunks = sum(len(c) for c in state.chunks.values())
            more = f" and {chunks} finished chunk(s) of the piece in progress" if chunks else ""
            print(f"dpaudit: {len(state.pieces)} completed piece(s){more} saved in "
                  f"{state.path}; the same command with --resume continues from them",
                  file=sys.stderr)
        elif state is not None:
            state.discard()  # the same arguments would fail the same way: nothing to resume
        raise
    line.close()
    report = gated(replace(report, parameters={
        **report.parameters, "symbolic_budget": budget,
        **({} if seconds is None else {"seconds": seconds})}), args)
    text = format_text(report)
    emit_reports(args, report, command="check",
                 text=text if report.deadline is None else f"{text}\n{deadline_line(report)}")
    if state is not None and report.deadline and report.deadline["hit"] and state.path.exists():
        print(f"dpaudit: the deadline cut this run; the pieces it completed are saved in "
              f"{state.path}: the same command with --resume (and a longer --seconds) "
              "continues from them", file=sys.stderr)
    elif state is not None:
        state.discard()
    return report.exit_code
