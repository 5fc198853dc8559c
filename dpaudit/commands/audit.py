"""``python -m dpaudit audit TARGET [--samples N] [--alpha A] [--seed S] [--json PATH]``.

``TARGET`` is ``MODULE:OBJECT`` (any object with a vectorised ``sample(data, size, rng)``,
``epsilon``, ``delta`` and ``neighbours``; or a zero-argument factory returning one) or a
built-in reference name (``laplace``, ``gaussian``, ``gaussian-classical``, ``privbern``,
``randomized-response`` and their ``-faulty`` variants), built for ``--epsilon``/``--delta``.
The report has the shape of ``check``'s; exit 1 when the claim is VIOLATED.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import time
from typing import Any

from ..blackbox import AuditBudget, audit_mechanism, to_claim_result
from ..report import format_text, write_json
from ..results import CheckReport, Notion
from ..rng import DEFAULT_SEED
from .common import float_arg, int_arg


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="black-box epsilon lower bound for MODULE:OBJECT or a "
                                     "built-in reference mechanism")
    p.add_argument("target", nargs="?", default=None,
                   help="MODULE:OBJECT, or a built-in name (laplace, gaussian, "
                        "gaussian-classical, privbern, randomized-response, *-faulty)")
    p.add_argument("--list", action="store_true", help="list the built-in reference names")
    p.add_argument("--epsilon", type=float_arg, default=None,
                   help="claimed epsilon (default: the object's, or the built-in's 1.0)")
    p.add_argument("--delta", type=float_arg, default=None,
                   help="claimed delta (default: the object's, or the built-in's)")
    p.add_argument("--samples", type=int_arg, default=AuditBudget.samples,
                   help="samples per input, selection + measurement (default 1000000)")
    p.add_argument("--selection-fraction", type=float_arg, default=AuditBudget.selection_fraction,
                   help="share of the samples that chooses the event (default 0.2)")
    p.add_argument("--alpha", type=float_arg, default=0.05,
                   help="the bound holds with probability >= 1 - alpha (default 0.05)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED, help="root seed")
    p.add_argument("--json", metavar="PATH", default=None, help="also write the report as JSON")


def _references() -> dict[str, Any]:
    from dpaudit.audits._references import REFERENCES

    return REFERENCES


def _load_object(target: str) -> Any:
    from ..cli import UsageError

    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise UsageError(f"target {target!r} must be MODULE:OBJECT (e.g. my_pkg.mech:MECH)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import module {module_name!r}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not hasattr(obj, "sample") and callable(obj):
        obj = obj()  # a zero-argument factory
    return obj


def _resolve(args: argparse.Namespace) -> tuple[Any, str, str, float | None, float | None]:
    """``(mechanism, description, paper, epsilon override, delta override)``."""
    from ..cli import UsageError

    if ":" in args.target:
        obj = _load_object(args.target)
        doc = (type(obj).__doc__ or "").strip().splitlines()
        return obj, doc[0] if doc else type(obj).__name__, "user mechanism", args.epsilon, \
            args.delta
    refs = _references()
    if args.target not in refs:
        close = difflib.get_close_matches(args.target, list(refs), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"unknown audit target {args.target!r}{hint} (built-ins: "
                         f"{', '.join(refs)}; or MODULE:OBJECT)")
    ref = refs[args.target]
    eps = ref.default_epsilon if args.epsilon is None else args.epsilon
    dlt = ref.default_delta if args.delta is None else args.delta
    return ref.build(eps, dlt), ref.description, ref.paper, eps, dlt


def run(args: argparse.Namespace) -> int:
    from ..cli import UsageError

    if args.list:
        refs = _references()
        width = max(len(n) for n in refs)
        for ref in refs.values():
            print(f"{ref.name:<{width}}  eps={ref.default_epsilon:g} delta={ref.default_delta:g}"
                  f"  {ref.description}")
        return 0
    if args.target is None:
        raise UsageError("audit needs a TARGET (MODULE:OBJECT or a built-in; see --list)")
    start = time.perf_counter()
    mech, description, paper, eps, dlt = _resolve(args)
    budget = AuditBudget(samples=args.samples, selection_fraction=args.selection_fraction)
    result = audit_mechanism(mech, epsilon=eps, delta=dlt, alpha=args.alpha, budget=budget,
                             seed=args.seed, key=f"audit:{args.target}")
    notion_value = getattr(mech, "notion", "ldp")
    notion = Notion(notion_value) if notion_value in {n.value for n in Notion} else Notion.LDP
    claim = to_claim_result(
        result, id="dp-claim", notion=notion, reference=paper,
        statement=f"{type(mech).__name__} is ({result.epsilon:g}, {result.delta:g})-DP on its "
                  "neighbouring inputs (black-box sampling audit)")
    report = CheckReport(
        name=args.target, description=description, paper=paper,
        parameters={"epsilon": result.epsilon, "delta": result.delta, "alpha": args.alpha,
                    "samples": args.samples, "selection_fraction": args.selection_fraction,
                    "seed": args.seed},
        claims=(claim,), seconds=time.perf_counter() - start)
    print(format_text(report).replace("dpaudit check", "dpaudit audit", 1))
    if args.json:
        write_json(report, args.json)
    return report.exit_code
