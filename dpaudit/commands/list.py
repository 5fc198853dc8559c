"""``python -m dpaudit list [--json]``: every registered name with a one-line description.

``--json`` rows: ``name``, ``description``, ``paper``, ``faulty`` (a deliberately broken
twin), ``default_epsilon``, ``default_delta``, ``mechanism``, ``true_epsilon`` (a twin's
exact privacy loss at the defaults, or null) and ``original`` (the name a twin breaks, or
null).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from dpaudit.registry import all_audits


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list every registered check name")
    p.add_argument("--json", action="store_true", help="print a JSON list of objects")


def run(args: argparse.Namespace) -> int:
    rows: list[dict[str, Any]] = [
        {"name": s.name, "description": s.description, "paper": s.paper, "faulty": s.faulty,
         "default_epsilon": s.default_epsilon, "default_delta": s.default_delta,
         "mechanism": s.mechanism is not None,
         "true_epsilon": None if s.true_epsilon is None or math.isinf(s.true_epsilon)
         else s.true_epsilon,
         "true_epsilon_infinite": s.true_epsilon is not None and math.isinf(s.true_epsilon),
         "original": s.original or None}
        for s in all_audits().values()
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        width = max((len(r["name"]) for r in rows), default=0)
        for r in rows:
            print(f"{r['name']:<{width}}  {r['description']}")
    return 0
