"""``python -m dpaudit reproduce NAME [--quick] [--horizon T] [--runs R] [--seed S] [--out DIR]
[--max-runs N] [--max-seconds S]``.

Run until decided: ``--runs`` (default: the paper's) is the first batch; while a cell on an
anytime-valid interval straddles the paper's value, the experiment runs again in doubling
batches with their own seeds, up to ``--max-runs`` (default: 4x the first batch, no more than
the 4x confirmation of the rule before) or ``--max-seconds`` (default: none, so a stored output
does not depend on the machine) (:func:`dpaudit.experiments.run_experiment`).

Re-runs a registered figure reproduction (declared in ``audits/fig_*.py``, found by the
registry) and writes ``<name>.png``, ``<name>.csv`` and ``<name>.md`` into ``--out`` (default:
the current folder; created if missing). ``--list`` prints the names. This command knows no
algorithm and no figure.

Every run saves each completed cell of the experiment (a grid point, a panel, an algorithm:
:meth:`~dpaudit.experiments.ExperimentSettings.cached`) under ``--out``'s ``.dpaudit-state/``
(or ``--state-dir``) and deletes them once its outputs are written; inside a cell, the finished
chunks of its runs and samples are saved too (:class:`~dpaudit.runtime.state.ExperimentCache`).
After an interruption the same command with ``--resume`` reads the completed cells and chunks
back and writes the same numbers.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

from dpaudit.commands.common import (
    add_run_caps,
    add_scheduler,
    add_state_options,
    check_state_options,
    int_arg,
    output_dir,
    prepare_output,
    resume_can_help,
    run_caps,
    scheduler_scope,
)
from dpaudit.commands.deadline import add_seconds, run_bounded
from dpaudit.engine import scheduled
from dpaudit.errors import UsageError
from dpaudit.experiments import RUN_CAP_FACTOR, run_experiment
from dpaudit.registry import all_experiments, get_experiment
from dpaudit.runtime import limits
from dpaudit.runtime.progress import Bar, enabled_for
from dpaudit.runtime.schedule import Piece, PieceResult, known_cost, run_graph
from dpaudit.runtime.state import ExperimentCache, run_key, state_folder
from dpaudit.stats.rng import DEFAULT_SEED
from dpaudit.validation import check_int


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reproduce", help="re-run a paper's figure (PNG + CSV + Markdown)")
    p.add_argument("name", nargs="?", default=None, help="experiment name (see --list)")
    p.add_argument("--list", action="store_true", help="list the registered experiments")
    p.add_argument("--all", action="store_true",
                   help="run every registered experiment (with --quick: their reduced "
                        "budgets) on --workers processes or the Dask --scheduler, longest "
                        "first; each writes its files into --out as it completes, the same "
                        "files for any number of workers")
    p.add_argument("--workers", type=int_arg, default=1,
                   help="worker processes for --all and for a cell's chunks of runs (results "
                        "do not depend on it)")
    add_scheduler(p)
    p.add_argument("--quick", action="store_true",
                   help="the experiment's reduced budget (seconds)")
    p.add_argument("--runs", type=int_arg, default=None, help="runs (default: the paper's)")
    p.add_argument("--horizon", type=int_arg, default=None,
                   help="horizon T (default: the paper's; 1e7 is accepted)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED,
                   help="root seed of every random draw: the same seed gives the same report")
    p.add_argument("--out", type=output_dir, default=Path("."),
                   help="output folder (default: current folder; created if missing)")
    add_run_caps(p, "--runs (counted in --runs: 4x the first batch by default)",
                 max_runs=None, max_seconds=None)
    add_state_options(p, where="$DPAUDIT_STATE_DIR, else .dpaudit-state/ in --out")
    add_seconds(p, "cells of the experiment (a figure needs all of them: a run cut by the "
                   "deadline writes no figure and keeps its finished cells for --resume)")


def run(args: argparse.Namespace) -> int:
    if args.list:
        table = all_experiments()
        width = max((len(n) for n in table), default=0)
        for exp in table.values():
            budget = _budget(exp)  # said once: some descriptions already say it
            note = "" if f"({budget})" in exp.description else f" ({budget})"
            print(f"{exp.name:<{width}}  {exp.paper}: {exp.description}{note}")
        return 0
    check_int("workers", args.workers, low=1)
    if args.all:
        if args.name is not None:
            raise UsageError("reproduce --all runs every experiment: give no NAME")
        check_state_options(args)
        return _run_all(args)
    if args.name is None:
        raise UsageError("reproduce needs a NAME (see `python -m dpaudit reproduce --list`)")
    check_state_options(args)
    experiment = get_experiment(args.name)
    settings = experiment.settings(horizon=args.horizon, runs=args.runs, seed=args.seed,
                                   quick=args.quick)
    if args.max_runs is None:
        args.max_runs = RUN_CAP_FACTOR * settings.runs
    max_runs, max_seconds = run_caps(args)
    reproduce_estimate(experiment.name, settings.horizon, settings.runs,  # exit 2 if too big
                       seconds=args.seconds)
    out = prepare_output(args.out, folder=True)
    cache = open_cache(args, experiment.name, experiment.stem, settings, out)
    settings = replace(settings, cache=cache)
    start = time.perf_counter()
    bar = Bar(None, desc=f"reproduce {experiment.name}", unit="cell", enabled=enabled_for(),
              poll=None if cache is None else (lambda: cache.hits + cache.misses))
    try:
        with scheduler_scope(args.scheduler), limits.deadline_scope(args.seconds) as deadline:
            paths = run_bounded(partial(_one, experiment, settings, out, max_runs,
                                        max_seconds, args.workers), deadline)
    except limits.DeadlineReached as exc:
        bar.close()
        return _cut(args, cache, exc)
    except BaseException as exc:
        bar.close()
        saved = (0, 0) if cache is None or not cache.write else cache.saved()
        if cache is not None and any(saved) and resume_can_help(exc):
            print(f"dpaudit: {_saved_text(saved)} saved in {cache.folder}; the same command "
                  "with --resume continues from them", file=sys.stderr)
        elif cache is not None:
            cache.discard()  # the same arguments would fail the same way: nothing to resume
        raise
    bar.close()
    for path in paths:
        print(f"wrote {path}")
    if cache is not None:
        cache.discard()
        if args.resume and args.seconds is None:  # under --seconds a child counted them
            print(f"dpaudit: resumed: {cache.hits} cell(s) read back, {cache.misses} computed "
                  f"({cache.chunks_restored} finished chunk(s) of them read back)",
                  file=sys.stderr)
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


def _one(experiment, settings, out: Path, max_runs: int, max_seconds: float | None,
         workers: int):
    """One reproduction; with several workers (or a scheduler) as one scheduled piece, so
    its cells' chunks of runs spread over the workers."""
    call = partial(run_experiment, experiment, settings, out, max_runs=max_runs,
                   max_seconds=max_seconds)
    if not scheduled(workers):
        return call()
    got = run_graph([Piece(f"reproduce:{experiment.name}", partial(_piece, call))],
                    workers=workers)
    return got[f"reproduce:{experiment.name}"].value


def _piece(call, imports: dict) -> tuple[object, dict]:
    return call(), {}


def _experiment_piece(args: argparse.Namespace, name: str, imports: dict
                      ) -> tuple[list[str], dict]:
    """One experiment of ``reproduce --all``, with its own saved cells (``--resume``)."""
    experiment = get_experiment(name)
    settings = experiment.settings(seed=args.seed, quick=args.quick)
    max_runs = RUN_CAP_FACTOR * settings.runs if args.max_runs is None else args.max_runs
    secs = args.max_seconds
    secs = None if secs is None or secs == float("inf") else float(secs)
    cache = open_cache(args, experiment.name, experiment.stem, settings, args.out)
    paths = run_experiment(experiment, replace(settings, cache=cache), args.out,
                           max_runs=max_runs, max_seconds=secs)
    if cache is not None:
        cache.discard()
    return [str(p) for p in paths], {}


def _run_all(args: argparse.Namespace) -> int:
    """``reproduce --all``: every experiment a piece of one graph (longest first)."""
    if args.runs is not None or args.horizon is not None:
        raise UsageError("reproduce --all runs each experiment at its own settings: "
                         "--runs and --horizon are for one NAME")
    if args.seconds is not None:
        raise UsageError("reproduce --all has no --seconds (give it one NAME at a time)")
    if args.max_runs is not None:
        run_caps(args)
    elif args.max_seconds is not None and not args.max_seconds > 0:
        raise UsageError(f"--max-seconds {args.max_seconds!r} must be a number in (0, inf]")
    args.out = prepare_output(args.out, folder=True)
    budget = "quick" if args.quick else "full"
    pieces = [Piece(f"reproduce:{name}", partial(_experiment_piece, args, name),
                    known_cost(f"reproduce:{name}:{budget}"), label=name)
              for name in all_experiments()]
    start = time.perf_counter()

    def done(res: PieceResult) -> None:
        for path in res.value:
            print(f"wrote {path}", flush=True)

    with scheduler_scope(args.scheduler):
        run_graph(pieces, workers=args.workers if scheduled(args.workers) else 1, done=done)
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


def reproduce_estimate(name: str, horizon: int, runs: int, *, seconds: float | None = None):
    """A lower bound on a reproduction's memory (each run keeps its regret, pull counts and
    curve: 512 bytes) from its settings alone; what does not fit is refused (exit 2). Its time
    is not bounded from below by ``runs x horizon`` (episodic algorithms cost per episode)."""
    # no time bound from T x runs: episodic algorithms (AdaP, DP-SE, GDP-Elim-New) cost per
    # episode, not per arm-pull, and exact experiments ignore both, so it would refuse work
    # that takes seconds; --seconds bounds the time instead
    est = limits.Estimate(f"reproduce {name} at T={horizon}, {runs} runs", 512 * runs, 0.0,
                          "time not estimated: an episodic algorithm costs per episode, not "
                          "per arm-pull (give --seconds to bound it)")
    return limits.check_estimate(est, seconds=seconds, advice="lower --runs or --horizon")


def _cut(args: argparse.Namespace, cache, exc: limits.DeadlineReached) -> int:
    """The deadline came before every cell was done: no figure (it needs them all); the
    finished cells stay saved for ``--resume`` (exit 0, as ``simulate`` cut by its deadline)."""
    saved = (0, 0) if cache is None else cache.saved()
    how = ("killed: code did not return to a cell boundary" if exc.where == "hard kill"
           else "a cell was not started")
    keep = (f"{_saved_text(saved)} saved in {cache.folder}: the same command with "
            "--resume and a longer --seconds continues from them" if any(saved) else
            "no cell or chunk finished; a longer --seconds (or --quick) would")
    print(f"dpaudit reproduce {args.name}: deadline of {args.seconds:g} s reached ({how}); no "
          f"figure written; {keep}")
    return 0


def _saved_text(saved: tuple[int, int]) -> str:
    """What an interrupted run left for ``--resume`` (``ExperimentCache.saved()``): finished
    cells and finished chunks of the cells in progress."""
    cells, chunks = saved
    more = f" and {chunks} finished chunk(s) of cells in progress" if chunks else ""
    return f"{cells} completed cell(s){more}"


def _budget(exp) -> str:
    """The budgets ``--list`` prints. An experiment declared with one step and one run for both
    budgets does not use them (a grid of exact computations, which its --quick may shrink):
    printing "--quick: T = 1, 1 runs" beside "T = 1, 1 runs" read as a budget of one run."""
    if exp.horizon == exp.runs == exp.quick_horizon == exp.quick_runs == 1:
        return "horizon and runs unused"
    return (f"T = {exp.horizon}, {exp.runs} runs; --quick: T = {exp.quick_horizon}, "
            f"{exp.quick_runs} runs")


def open_cache(args: argparse.Namespace, name: str, stem: str, settings, out: Path):
    """The :class:`~dpaudit.runtime.state.ExperimentCache` of this run (``None``: ``--no-state``),
    keyed by the experiment, its validated settings and dpaudit's code."""
    if args.no_state:
        return None
    key = run_key({"command": "reproduce", "name": name, "horizon": settings.horizon,
                   "runs": settings.runs, "seed": settings.seed, "quick": settings.quick})
    folder = state_folder(args.state_dir, out)
    cache = ExperimentCache(folder, stem, key, resume=args.resume)
    if args.resume:
        saved = cache.saved()
        if any(saved):
            print(f"dpaudit: resuming from {cache.folder} ({_saved_text(saved)} saved)",
                  file=sys.stderr)
        else:
            print(f"dpaudit: --resume: no saved cells for these arguments in {str(folder)!r}; "
                  "running everything", file=sys.stderr)
    return cache
