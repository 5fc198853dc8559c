"""Command line: ``python -m dpaudit {list,check,...}``. Thin: it only calls the engine.

Exit codes: 0 no claim violated, 1 a claim VIOLATED, 2 usage error (bad parameter, unknown
name with close matches suggested, malformed arguments).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .registry import UnknownNameError
from .validation import InvalidParameterError

__all__ = ["COMMANDS", "UsageError", "main"]

# subcommand name -> module in dpaudit.commands (each has add_parser and run)
COMMANDS = ("list", "check", "audit", "audit_policy", "reproduce", "plot")


class UsageError(Exception):
    """A usage error detected after parsing (exit code 2)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dpaudit",
        description="Executable privacy and regret claims for differentially private bandits.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"dpaudit.commands.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # exits 2 on malformed arguments
    module = importlib.import_module(f"dpaudit.commands.{args.command}")
    try:
        return int(module.run(args))
    except (InvalidParameterError, UnknownNameError, UsageError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        print(f"dpaudit: error: {msg}", file=sys.stderr)
        return 2
