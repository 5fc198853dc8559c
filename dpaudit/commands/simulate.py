"""``python -m dpaudit simulate NAME --horizon T --runs R [--epsilon E] [--delta D] [--means M]
[--seed S] [--workers W] [--scheduler ADDR] [--json PATH]``.

Regret simulation of any registered policy (``python -m dpaudit list`` names the checks; the
policies are those of :func:`dpaudit.registry.all_policies`) on its paper instance or on
``--means``: mean pseudo-regret with its 95% confidence interval, the theorem's bound where
there is one, wall time and arm-pulls per second. Runs are cut into fixed chunks with spawned
seeds, so everything but the timing is identical for any ``--workers`` or cluster.

Every run saves each finished chunk of runs (its sufficient statistics: regret moments, summed
curve and pulls; :mod:`dpaudit.reports.state`, ``--state-dir``, default ``.dpaudit-state/``);
after an interruption the same command with ``--resume`` computes only the chunks not saved
and prints the report an uninterrupted run prints (the wall time adds the saved chunks' own).
A completed run deletes its state.
"""

from __future__ import annotations

import argparse
import dataclasses
import json

from dpaudit.commands.common import (
    add_scheduler,
    add_state_options,
    check_state_options,
    float_arg,
    int_arg,
    output_file,
    resume_can_help,
    write_text_output,
)
from dpaudit.errors import UsageError
from dpaudit.sim.simulation import SimulationReport, simulate_policy
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
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED, help="root seed")
    p.add_argument("--workers", type=int_arg, default=None,
                   help="local worker processes (default: one per core; results do not "
                        "depend on it)")
    add_scheduler(p)
    p.add_argument("--json", metavar="PATH", type=output_file, default=None,
                   help="also write the report as JSON (checked before the run; folders are "
                        "created)")
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
        f"  mean pseudo-regret: {r.mean:.6g}  ({r.confidence:.0%} CI [{r.ci_low:.6g}, "
        f"{r.ci_high:.6g}], sd {r.std:.4g})",
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
    lines.append("  mean regret at T = " + ", ".join(
        f"{c}: {v:.4g}" for c, v in zip(r.checkpoints, r.mean_curve, strict=True)))
    where = f"Dask scheduler {r.scheduler}" if r.scheduler else f"{r.workers} worker(s)"
    lines.append(f"  wall time: {r.seconds:.3f} s on {where}; "
                 f"{r.pulls_per_second:.4g} arm-pulls per second")
    if r.placement:
        lines.append(f"  note: {r.placement}")
    return "\n".join(lines)


def open_state(args: argparse.Namespace):
    """The state of this run (``None`` under ``--no-state``), keyed by the policy, horizon,
    runs, epsilon, delta, means and seed as given and dpaudit's code (not the workers or the
    scheduler: results do not depend on them)."""
    from dpaudit.reports.state import open_run_state

    fields = {"horizon": args.horizon, "runs": args.runs, "epsilon": args.epsilon,
              "delta": args.delta, "means": _means(args.means), "seed": args.seed}
    return open_run_state("simulate", args.name, fields, resume=args.resume,
                          no_state=args.no_state, state_dir=args.state_dir)


def run(args: argparse.Namespace) -> int:
    from dpaudit.reports.state import after_failure, chunk_scope

    check_state_options(args)
    means = _means(args.means)
    state = open_state(args)
    try:
        with chunk_scope(state, piece="simulate"):
            report = simulate_policy(
                args.name, horizon=args.horizon, runs=args.runs, epsilon=args.epsilon,
                delta=args.delta, means=means, seed=args.seed, workers=args.workers,
                scheduler=args.scheduler)
    except BaseException as exc:
        after_failure(state, resume_can_help(exc))
        raise
    if state is not None and state.chunks_restored:
        # the saved chunks' own wall time counts, so pulls per second stays this run's rate
        seconds = report.seconds + state.restored_seconds
        report = dataclasses.replace(report, seconds=seconds, pulls_per_second=report.runs
                                     * report.horizon / max(seconds, 1e-9))
    print(format_report(report))
    if args.json:
        write_text_output(args.json, json.dumps(report.to_dict(), indent=2) + "\n")
    if state is not None:
        state.discard()
    return 0
