"""CLI subcommands. Each module defines ``add_parser(subparsers)`` and ``run(args) -> int``.

Keep them thin: parse, call engine functions, format. Exit codes: 0 ok, 1 a claim VIOLATED
(``run`` returns the report's code), 2 usage error (raise :class:`~dpaudit.errors.UsageError`
or ``InvalidParameterError``; output paths use the argparse types of :mod:`.common`, checked
before any work), 3 an exception in user code (raise :class:`~dpaudit.errors.UserCodeError`
from it) or anything else that escapes: :func:`dpaudit.cli.main` maps them.
"""
