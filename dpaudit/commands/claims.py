"""``python -m dpaudit claims [PAPER] [--markdown] [--json PATH|-] [--from DIR] [--stored DIR]
[--referee [PATH]]``: the ledger, and the referee's report built from it.

Every declared statement of the papers (each paper package's ``STATEMENTS``, collected by
the registry: :func:`dpaudit.registry.all_statements`) with its location,
how the paper states it, what tests it and its status, computed by running each test with
``--quick`` budgets, or by reading ``check --json`` reports (``<audit>.json``) from ``--from``.
"""

from __future__ import annotations

import argparse

from dpaudit.commands.common import (
    ProgressLine,
    add_scheduler,
    int_arg,
    json_output,
    output_dir,
    scheduler_scope,
    write_text_output,
)
from dpaudit.engine import scheduled
from dpaudit.errors import UsageError
from dpaudit.registry import UnknownNameError, all_experiments, all_papers, all_statements, suggest
from dpaudit.reports.findings_page import findings_page
from dpaudit.reports.ledger import (
    Runner,
    build_ledger,
    format_markdown,
    format_text,
    ledger_json,
    quick_check,
    quick_experiment,
)
from dpaudit.reports.referee import referee_report
from dpaudit.runtime.schedule import Piece, PieceResult, known_cost, run_graph
from dpaudit.schema import envelope, to_json_text
from dpaudit.stats.rng import DEFAULT_SEED
from dpaudit.validation import check_int

#: wall seconds of ``claims`` (all papers, ``--quick`` tests) on 1 and 2 workers on the 2-core
#: machine, rounded to 10 s (benchmarks/bench_schedule.py; benchmarks/results/schedule-scaling.json)
LEDGER_SECONDS = {1: 270, 2: 140}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("claims", help="the reviewer's ledger: every paper statement, what "
                                      "tests it and its status")
    p.add_argument("paper", nargs="?", default=None,
                   help="one paper (e.g. azize-basu-2022, wang-zhu-2023); default: every paper "
                        "(--list-papers)")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    p.add_argument("--json", metavar="PATH", type=json_output, default=None,
                   help="write the ledger as JSON (schema dpaudit/schema/report-v1.json); "
                        "'-' for stdout (default: not written)")
    p.add_argument("--from", dest="source", metavar="DIR", type=_existing_dir, default=None,
                   help="read `check NAME --json` reports named NAME.json from DIR instead "
                        "of running those checks (default: run them)")
    p.add_argument("--save", metavar="DIR", type=output_dir, default=None,
                   help="write each check run as DIR/NAME.json when it completes (resume an "
                        "interrupted ledger with --from DIR --save DIR; default: not saved)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED,
                   help="root seed of every random draw: the same seed gives the same report")
    p.add_argument("--list-papers", action="store_true", help="print the paper keys")
    p.add_argument("--referee", metavar="PATH", nargs="?", const="-", type=json_output,
                   default=None,
                   help="write the referee's report (Markdown: per statement the paper's "
                        "words, verdict, evidence, reproduce command and a review comment) "
                        "to PATH, or to stdout without PATH (default: not written)")
    p.add_argument("--stored", metavar="DIR", type=_existing_dir, default=None,
                   help="decide each experiment from its reproduction stored under DIR (e.g. "
                        "docs/, at the paper's settings) when the code that made it is "
                        "unchanged (default: run each experiment with --quick budgets)")
    p.add_argument("--findings-page", metavar="PATH", default=None,
                   help="write the findings page (docs/findings.md) from the ledger and the "
                        "reproductions stored beside it under docs/; runs nothing (default: "
                        "not written)")
    p.add_argument("--workers", type=int_arg, default=1,
                   help="worker processes: the quick checks and experiments run on them at "
                        "once, longest first (the ledger is the same for any number). All "
                        f"the papers take about {LEDGER_SECONDS[1]} s on one worker and "
                        f"{LEDGER_SECONDS[2]} s on two on the 2-core machine "
                        "(benchmarks/results/schedule-scaling.json)")
    add_scheduler(p)


def _existing_dir(text: str):
    from pathlib import Path

    path = Path(text).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not an existing folder")
    return path


def select(paper: str | None):
    """The statements of ``paper`` (a key or the paper's name), or all of them."""
    statements = all_statements()
    if paper is None:
        return statements
    keys = {k: name for name, ks in all_papers().items() for k in (*ks, name.lower())}
    chosen = keys.get(paper.lower())
    if chosen is None:
        raise UnknownNameError(paper, suggest(paper.lower(), list(keys)), what="paper",
                               listing="python -m dpaudit claims --list-papers")
    return tuple(s for s in statements if s.paper == chosen)


def run(args: argparse.Namespace) -> int:
    if args.list_papers:
        for name, keys in all_papers().items():
            print(f"{keys[0]:<34} {name}")
        return 0
    statements = select(args.paper)
    if args.findings_page is not None:
        return _write_findings_page(args.findings_page, statements)
    if not statements:  # pragma: no cover - every declared paper has statements
        raise UsageError(f"no statements declared for {args.paper!r}")
    quiet = args.json is not None and str(args.json) == "-"
    line = ProgressLine(args, "claims")
    check_int("workers", args.workers, low=1)
    try:
        runner = Runner(source=args.source, seed=args.seed, save=args.save,
                        stored=args.stored)
        with scheduler_scope(args.scheduler):
            schedule_tests(statements, runner, workers=args.workers, progress=line)
        rows = build_ledger(statements, runner=runner, progress=line)
    finally:
        line.close()
    code = 1 if any(r.status == "VIOLATED" for r in rows) else 0
    if args.json is not None:
        text = to_json_text(envelope("claims", code, {"statements": ledger_json(rows)}))
        if quiet:
            print(text)
        else:
            write_text_output(args.json, text + "\n")
    if args.referee is not None:
        report = referee_report(rows)
        if args.referee == "-":
            print(report, end="")
        else:
            write_text_output(args.referee, report)
            if not quiet:
                print(f"wrote {args.referee}")
        return code
    if not quiet:
        print(format_markdown(rows) if args.markdown else format_text(rows))
    return code


def _test_piece(kind: str, name: str, seed: int, imports: dict) -> tuple[object, dict]:
    if kind == "experiment":
        return quick_experiment(name, seed), {}
    return quick_check(name, seed), {}


def schedule_tests(statements, runner: Runner, *, workers: int, progress=None) -> None:
    """Run every quick check and experiment the ledger of ``statements`` needs on ``workers``
    processes or the Dask scheduler (:func:`~dpaudit.runtime.schedule.run_graph`, longest
    first), handing each result to ``runner`` as it completes (``--save`` writes it then).
    Each test keeps its own seeds: the ledger is the one a serial run builds. With one worker
    and no scheduler nothing runs here (the ledger runs each test when it reaches it)."""
    from functools import partial

    if not scheduled(workers):
        return
    pieces, seen = [], set()
    for st in statements:
        for ref in st.tests:
            kind = "experiment" if ref.kind == "experiment" else "check"
            if (kind, ref.name) in seen or not runner.to_run(ref):
                continue
            seen.add((kind, ref.name))
            key = f"claims:{kind}:{ref.name}"
            pieces.append(Piece(key, partial(_test_piece, kind, ref.name, runner.seed),
                                known_cost(key), label=f"{kind} {ref.name}"))
    total = len(pieces)
    count = 0

    def done(res: PieceResult) -> None:
        nonlocal count
        count += 1
        kind, name = res.key.split(":", 2)[1:]
        if progress is not None:
            progress(f"{count}/{total} {kind} {name} (done)")
        if kind == "experiment":
            runner.keep_experiment(name, res.value)
        else:
            runner.keep_check(name, *res.value)

    run_graph(pieces, workers=workers, done=done)


def _write_findings_page(target: str, statements) -> int:
    """``--findings-page PATH``: build the page from stored outputs under PATH's folder."""
    from pathlib import Path

    path = Path(target).expanduser()
    if not path.parent.is_dir():
        raise UsageError(f"--findings-page {target!r}: folder {str(path.parent)!r} does not "
                         "exist")
    text = findings_page(statements, all_experiments(), root=path.parent, docs=path.parent)
    write_text_output(path, text)
    print(f"wrote {path}")
    return 0
