"""CLI subcommands. Each module defines ``add_parser(subparsers)`` and ``run(args) -> int``.

Keep them thin: parse, call engine functions, format. Exit codes: 0 ok, 1 a claim VIOLATED,
2 usage error (raised as :class:`~dpaudit.cli.UsageError` or ``InvalidParameterError``).
"""
