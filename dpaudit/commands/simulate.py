"""``python -m dpaudit simulate NAME --horizon T --runs R [--epsilon E] [--delta D] [--means M]
[--seed S] [--workers W] [--scheduler ADDR] [--json PATH]``.

Regret simulation of any registered policy (``python -m dpaudit list`` names the checks; the
policies are those of :func:`dpaudit.registry.all_policies`) on its paper instance or on
``--means``: mean pseudo-regret with its 95% confidence interval, the theorem's bound where
there is one, wall time and arm-pulls per second. Runs are cut into fixed chunks with spawned
seeds, so everything but the timing is identical for any ``--workers`` or cluster.
"""

from __future__ import annotations

import argparse
import json

from dpaudit.commands.common import (
    add_scheduler,
    float_arg,
    int_arg,
    output_file,
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


def run(args: argparse.Namespace) -> int:
    report = simulate_policy(
        args.name, horizon=args.horizon, runs=args.runs, epsilon=args.epsilon,
        delta=args.delta, means=_means(args.means), seed=args.seed, workers=args.workers,
        scheduler=args.scheduler)
    print(format_report(report))
    if args.json:
        write_text_output(args.json, json.dumps(report.to_dict(), indent=2) + "\n")
    return 0
