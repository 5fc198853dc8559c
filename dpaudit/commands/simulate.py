"""``python -m dpaudit simulate NAME --horizon T --runs R [--epsilon E] [--delta D] [--means M]
[--seed S] [--workers W] [--scheduler ADDR] [--max-runs N] [--max-seconds S] [--seconds S]
[--json PATH]``.

Run until decided: ``--runs`` is the first batch; while the verdict on the paper's bound is
undecided, runs are added in doubling batches with their own seeds up to ``--max-runs`` runs
in all (default 10^4) or ``--max-seconds`` (default 60) (:mod:`dpaudit.runtime.batches`). The
verdict's interval is the betting confidence sequence of all the runs
(:mod:`dpaudit.stats.sequential`), valid wherever they stop; the report says how many runs it
took and why it stopped. With the run cap alone the report does not depend on ``--workers``;
a time cap reads the clock, so it can change where the runs stop.

``--seconds`` is a deadline: no chunk of runs starts after it, and the report is on the runs
of the chunks done (``runs_planned``, ``deadline_hit``). Before any run the memory and time are
estimated from the arguments (:func:`dpaudit.sim.simulation.simulation_estimate`); what does
not fit is refused with exit 2 and the estimate.

Regret simulation of any registered policy (``python -m dpaudit list`` names the checks; the
policies are those of :func:`dpaudit.registry.all_policies`) on its paper instance or on
``--means``: mean pseudo-regret with its 95% confidence interval, the theorem's bound where
there is one, wall time and arm-pulls per second. Runs are cut into fixed chunks with spawned
seeds, so everything but the timing is identical for any ``--workers`` or cluster.

Every run saves each finished chunk of runs (its sufficient statistics: regret moments, summed
curve and pulls; :mod:`dpaudit.runtime.state`, ``--state-dir``, default ``.dpaudit-state/``);
after an interruption the same command with ``--resume`` computes only the chunks not saved
and prints the report an uninterrupted run prints (the wall time adds the saved chunks' own).
A completed run deletes its state.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from functools import partial

from dpaudit.commands.common import (
    add_run_caps,
    add_scheduler,
    add_state_options,
    check_state_options,
    float_arg,
    int_arg,
    output_file,
    resume_can_help,
    run_caps,
    write_text_output,
)
from dpaudit.commands.deadline import add_seconds, run_bounded
from dpaudit.errors import UsageError
from dpaudit.runtime import limits
from dpaudit.runtime.batches import describe
from dpaudit.runtime.state import after_failure, chunk_scope, open_run_state
from dpaudit.sim.simulation import SimulationReport, simulate_policy, simulation_estimate
from dpaudit.stats.rng import DEFAULT_SEED


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="regret simulation of a registered policy (mean "
                                        "regret, CI, bound, pulls per second)")
    p.add_argument("name", help="registered policy name (e.g. adap-ucb, dp-ftpl-new)")
    p.add_argument("--horizon", type=int_arg, required=True, help="steps per run (T)")
    p.add_argument("--runs", type=int_arg, required=True, help="independent runs (R)")
    p.add_argument("--epsilon", type=float_arg, default=None,
                   help="privacy parameter (default: the paper's)")
    p.add_argument("--delta", type=float_arg, default=None,
                   help="privacy parameter delta (default: the paper's)")
    p.add_argument("--means", default=None, metavar="M1,M2,...",
                   help="Bernoulli arm means (default: the policy's paper instance)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED,
                   help="root seed of every random draw: the same seed gives the same report")
    p.add_argument("--workers", type=int_arg, default=None,
                   help="local worker processes (default: one per core; results do not "
                        "depend on it)")
    add_scheduler(p)
    add_run_caps(p, "--runs")
    add_seconds(p, "chunks of runs")
    p.add_argument("--json", metavar="PATH", type=output_file, default=None,
                   help="also write the report as JSON (checked before the run; folders are "
                        "created; default: not written)")
    add_state_options(p, where="$DPAUDIT_STATE_DIR, else .dpaudit-state/ in the current folder")


def _means(text: str | None) -> tuple[float, ...] | None:
    if text is None:
        return None
    try:
        return tuple(float_arg(part) for part in text.split(","))
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"--means {text!r}: {exc}") from None


def format_report(r: SimulationReport) -> str:
    params = ", ".join(f"{k}={v:g}" for k, v in r.parameters.items()) or "no privacy parameter"
    lines = [
        f"dpaudit simulate {r.policy}  ({r.paper})",
        f"  instance: {r.instance} {r.means}",
        f"  {params}; T={r.horizon}, runs={r.runs}, seed={r.seed}, {r.chunks} chunk(s)",
        f"  mean pseudo-regret: {r.mean:.6g}  (Student-t {r.confidence:.0%} interval "
        f"[{r.ci_low:.6g}, {r.ci_high:.6g}], sd {r.std:.4g}; for comparison only, not valid "
        "for heavy-tailed regret: a bound is decided on the distribution-free interval)",
    ]
    if r.bound is None:
        lines.append(f"  bound: none ({r.no_bound_reason})" if r.no_bound_reason
                     else "  bound: none evaluated for this policy")
    else:
        d = r.decision
        lines.append(f"  bound: {r.bound:.6g} ({r.bound_name})")
        lines.append(f"  verdict: {d.verdict.value} at alpha = {d.alpha:.3g} (lower limit "
                     f"{d.lower_limit:.6g} by {d.lower_method}, upper {d.ci_high:.6g}); "
                     f"{d.reason}")
    if r.batching:
        lines.append(f"  {describe(r.batching)}")
    lines.append("  mean regret at T = " + ", ".join(
        f"{c}: {v:.4g}" for c, v in zip(r.checkpoints, r.mean_curve, strict=True)))
    if r.scheduler:
        where = f"Dask scheduler {r.scheduler}"
    else:
        used = r.workers if r.workers_used is None else r.workers_used
        asked = "" if r.workers is None or used == r.workers else f" (of {r.workers} asked)"
        where = f"{used} worker(s){asked}"
    if r.blocks_per_second is not None:
        unit = r.block_unit or "blocks"
        rate = (f"{r.blocks_per_second:.4g} {unit} per second (episodic: rewards "
                f"drawn as sums per {unit[:-1]}, never pull by pull; equivalent to "
                f"{r.pulls_per_second:.4g} arm-pulls per second)")
    else:
        rate = f"{r.pulls_per_second:.4g} arm-pulls per second"
    lines.append(f"  wall time: {r.seconds:.3f} s on {where}; {rate}")
    if r.placement:
        lines.append(f"  note: {r.placement}")
    if r.deadline_hit:
        lines.append(f"  deadline: reached; {r.runs} of the {r.runs_planned} runs asked for "
                     "finished (chunks cut by the clock alone); more --seconds runs them all")
    return "\n".join(lines)


def open_state(args: argparse.Namespace):
    """The state of this run (``None`` under ``--no-state``), keyed by the policy, horizon,
    runs, epsilon, delta, means and seed as given and dpaudit's code (not the workers or the
    scheduler: results do not depend on them)."""
    fields = {"horizon": args.horizon, "runs": args.runs, "epsilon": args.epsilon,
              "delta": args.delta, "means": _means(args.means), "seed": args.seed}
    return open_run_state("simulate", args.name, fields, resume=args.resume,
                          no_state=args.no_state, state_dir=args.state_dir)


def run(args: argparse.Namespace) -> int:
    check_state_options(args)
    max_runs, max_seconds = run_caps(args)
    means = _means(args.means)
    limits.check_estimate(  # exit 2 with the estimate, before any run
        simulation_estimate(args.name, horizon=args.horizon, runs=args.runs, means=means,
                            workers=args.workers),
        seconds=args.seconds, advice="lower --runs or --horizon")
    state = open_state(args)
    with limits.deadline_scope(args.seconds) as deadline:
        try:
            with chunk_scope(state, piece="simulate"):
                report = run_bounded(partial(
                    simulate_policy, args.name, horizon=args.horizon, runs=args.runs,
                    epsilon=args.epsilon, delta=args.delta, means=means, seed=args.seed,
                    workers=args.workers, scheduler=args.scheduler, deadline=deadline,
                    max_runs=max_runs, max_seconds=max_seconds),
                    deadline)
        except limits.DeadlineReached as exc:
            return _nothing(args, exc)
        except BaseException as exc:
            after_failure(state, resume_can_help(exc))
            raise
    if state is not None and state.chunks_restored:
        # the saved chunks' own wall time counts, so pulls per second stays this run's rate
        seconds = report.seconds + state.restored_seconds
        blocks = None if report.blocks_per_second is None else \
            report.blocks_per_second * report.seconds / max(seconds, 1e-9)
        report = dataclasses.replace(report, seconds=seconds, pulls_per_second=report.runs
                                     * report.horizon / max(seconds, 1e-9),
                                     blocks_per_second=blocks)
    print(format_report(report))
    if args.json:
        write_text_output(args.json, json.dumps(report.to_dict(), indent=2) + "\n")
    if state is not None and not getattr(report, "deadline_hit", False):
        state.discard()  # a run cut by its deadline keeps its chunks for --resume
    return 0


def _nothing(args: argparse.Namespace, exc: limits.DeadlineReached) -> int:
    """No chunk of runs finished by the deadline: nothing to report but that (exit 0, as a
    simulation with no verdict; the JSON says ``deadline_hit`` with 0 runs)."""
    how = ("killed: the code did not return to a chunk boundary"
           if exc.where == "hard kill" else "no chunk of runs finished")
    print(f"dpaudit simulate {args.name}\n  deadline: {args.seconds:g} s reached, {how}; 0 of "
          f"the {args.runs} runs asked for are reported. More --seconds, or fewer --runs or a "
          "shorter --horizon, would settle it")
    if args.json:
        doc = {"policy": args.name, "horizon": args.horizon, "runs": 0,
               "runs_planned": args.runs, "seed": args.seed, "deadline_hit": True,
               "deadline_seconds": args.seconds, "hard_kill": exc.where == "hard kill"}
        write_text_output(args.json, json.dumps(doc, indent=2) + "\n")
    return 0
