"""``python -m dpaudit list [--json] [--aliases]``: every registered check once, with a one-line
description; an alias (a second name of a check, such as the older ``NAME-faulty`` names of the
twins) is shown on its check's line, never as a check of its own.

``--aliases`` prints only the aliases, each with the name it stands for.

``--json`` rows (one per registered name, aliases included): ``name``, ``description``,
``paper``, ``faulty`` (a deliberately broken twin), ``default_epsilon``, ``default_delta``,
``mechanism``, ``true_epsilon`` (a twin's exact privacy loss at the defaults, or null),
``original`` (the name a twin breaks, or null), ``alias`` (true for a second name of a check),
``alias_of`` (the check an alias stands for, or null) and ``aliases`` (a check's other names).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from dpaudit.registry import all_aliases, all_audits


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list every registered check once (aliases on their "
                                    "check's line)")
    p.add_argument("--json", action="store_true",
                   help="print a JSON list of objects, one per registered name (aliases "
                        "marked by 'alias' and 'alias_of')")
    p.add_argument("--aliases", action="store_true",
                   help="print only the aliases, each with the check it stands for")


def run(args: argparse.Namespace) -> int:
    alias_of = all_aliases()
    others: dict[str, list[str]] = {}
    for alias, name in alias_of.items():
        others.setdefault(name, []).append(alias)
    rows: list[dict[str, Any]] = [
        {"name": s.name, "description": s.description, "paper": s.paper, "faulty": s.faulty,
         "default_epsilon": s.default_epsilon, "default_delta": s.default_delta,
         "mechanism": s.mechanism is not None,
         "true_epsilon": None if s.true_epsilon is None or math.isinf(s.true_epsilon)
         else s.true_epsilon,
         "true_epsilon_infinite": s.true_epsilon is not None and math.isinf(s.true_epsilon),
         "original": s.original or None,
         "alias": s.name in alias_of, "alias_of": alias_of.get(s.name),
         "aliases": others.get(s.name, [])}
        for s in all_audits().values()
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
    elif args.aliases:
        width = max((len(a) for a in alias_of), default=0)
        for alias, name in alias_of.items():
            print(f"{alias:<{width}}  alias of {name}")
    else:
        checks = [r for r in rows if not r["alias"]]
        width = max((len(r["name"]) for r in checks), default=0)
        for r in checks:
            also = f" (alias: {', '.join(r['aliases'])})" if r["aliases"] else ""
            print(f"{r['name']:<{width}}  {r['description']}{also}")
    return 0
