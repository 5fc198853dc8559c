"""Command line: ``python -m dpaudit {list,check,audit,reproduce,plot}``. Thin: it calls the engine.

Exit codes mean one thing each:

* **0**: no claim VIOLATED;
* **1**: a claim VIOLATED (only a report's verdict ever returns 1);
* **2**: usage error: a bad option or parameter, an unknown name (close matches suggested), an
  unreadable or unwritable path (output paths are checked before any work starts), a user
  module that does not import, a user object that breaks the protocol;
* **3**: an exception raised inside user code, or an internal error: one line on stderr saying
  which and where; ``--debug`` adds the full traceback;
* **4**: only with ``--fail-on-inconclusive`` (``check``, ``audit``, ``audit-policy``): no
  claim VIOLATED, but one INCONCLUSIVE (a CI gate that must not pass without evidence);
* **130**: interrupted (Ctrl-C), quietly;
* **141**: standard output was closed by its reader (``python -m dpaudit list | head -1``):
  the command stops quietly, as Unix tools do. 141 is what a shell reports for a tool killed by
  ``SIGPIPE`` (128 + 13), so ``set -o pipefail`` scripts see it as they see ``yes | head``; it
  is not 0 because the output (and any ``--json``/``--junit`` file written after it) was not
  delivered in full, so "nothing violated" cannot be claimed.
"""

from __future__ import annotations

import argparse
import importlib
import os
import select
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from dpaudit import __version__
from dpaudit.commands import helptext
from dpaudit.errors import UsageError, UserCodeError
from dpaudit.errors import origin as _origin
from dpaudit.registry import UnknownNameError
from dpaudit.runtime import limits
from dpaudit.validation import InvalidParameterError

__all__ = ["COMMANDS", "EXIT_BROKEN_PIPE", "EXIT_INCONCLUSIVE", "EXIT_INTERNAL",
           "EXIT_INTERRUPTED", "EXIT_USAGE",
           "UsageError", "main"]

# subcommand name -> module in dpaudit.commands (each has add_parser and run)
COMMANDS = ("list", "check", "audit", "audit_policy", "claims", "reproduce", "plot",
            "simulate")
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INCONCLUSIVE = 4  # --fail-on-inconclusive: nothing VIOLATED, something INCONCLUSIVE
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: standard output's reader went away (| head)
_USAGE_ERRORS = (InvalidParameterError, UnknownNameError, UsageError)


def version() -> str:
    """The installed distribution's version (package metadata; see ``dpaudit.__version__``)."""
    return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dpaudit",
        description="Executable privacy and regret claims for differentially private bandits.\n"
                    "Exit codes: 0 no claim violated, 1 a claim VIOLATED, 2 usage error, 3\n"
                    "exception in user code or internal error, 4 (with --fail-on-inconclusive)\n"
                    "a claim INCONCLUSIVE and none violated, 130 interrupted, 141 standard\n"
                    "output closed by its reader (| head).",
        epilog=helptext.epilog(None), formatter_class=helptext.HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dpaudit {version()}")
    parser.add_argument("--debug", action="store_true",
                        help="print the full traceback of an error (exit codes unchanged)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"dpaudit.commands.{name}").add_parser(sub)
    for name, subparser in sub.choices.items():  # --debug also after the subcommand
        subparser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                               help="print the full traceback of an error")
        # every help shows the defaults and ends with examples and its docs page
        subparser.formatter_class = helptext.HelpFormatter
        subparser.epilog = helptext.epilog(name)
        for action in subparser._actions:  # an option given twice is a usage error
            if type(action) is argparse._StoreAction and action.option_strings:
                action.__class__ = _StoreOnce
    return parser


class _StoreOnce(argparse._StoreAction):
    """A value option that refuses a second occurrence (``--json a --json b``): argparse would
    keep the last one silently, and one of the two outputs the user asked for would not exist."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_options_given", set())
        if self.dest in given:
            parser.error(f"argument {'/'.join(self.option_strings)}: given twice; give it "
                         "once")
        given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


def _cwd_importable() -> None:
    """User audit modules in the current folder import, as under ``python -m``."""
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _report_crash(exc: BaseException, debug: bool) -> int:
    cause = exc.__cause__ if isinstance(exc, UserCodeError) and exc.__cause__ else exc
    if isinstance(exc, UserCodeError):
        who, where = "user code", _origin(cause)[1]
        context = f"{exc}: "
    else:
        who, where = _origin(cause)
        context = ""
    if isinstance(cause, SystemExit):
        what = f"sys.exit({cause.code!r}) was called"
    else:
        what = _one_line(cause)
    if who == "user code":
        head = f"dpaudit: error in user code: {context}{what} (at {where})"
    else:
        head = (f"dpaudit: internal error: {what} (at {where}); please report it with the "
                "command line")
    hint = "" if debug else "; rerun with --debug for the traceback"
    print(head + hint, file=sys.stderr)
    if debug:
        carried = getattr(exc, "dpaudit_traceback", None)  # a forked child's (--seconds)
        if isinstance(carried, str):
            print(carried, end="", file=sys.stderr)
        else:
            traceback.print_exception(cause, file=sys.stderr)
    return EXIT_INTERNAL


def _stdout_reader_gone() -> bool:
    """Whether standard output is a pipe whose reader has closed it.

    A ``BrokenPipeError`` can also come from a worker's or a Dask connection's pipe; that one
    is an internal error, not a quiet exit, so the standard output itself is asked (``poll``
    reports ``POLLERR`` on a pipe without readers). Where ``poll`` is unavailable (Windows)
    every broken pipe is taken to be the standard output's.
    """
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by an object without a file
        return False
    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _quiet_broken_pipe() -> int:
    """Exit quietly when the reader of standard output has gone (Python's documented recipe:
    point the standard output at ``os.devnull`` so the final flush at exit cannot fail)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


def _flush_stdout() -> None:
    """Flush now, so a reader that has gone is noticed here and not in the exit handler."""
    stream = sys.stdout
    if stream is not None:
        stream.flush()


def main(argv: Sequence[str] | None = None, *, started: float | None = None) -> int:
    """Run one command; return its exit code (argparse itself exits 2 on a malformed line).

    ``started``: when the command started (``time.monotonic()``; ``python -m dpaudit`` passes
    the process's start), which ``--seconds`` counts from; default: now.
    """
    import time


    limits.command_started(time.monotonic() if started is None else started)
    try:
        return _main(argv)
    finally:
        limits.command_started(None)


def _main(argv: Sequence[str] | None) -> int:
    debug = "--debug" in (sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        args = parser.parse_args(argv)  # exits 2 on malformed arguments or bad output paths
        debug = bool(getattr(args, "debug", False))
        _cwd_importable()
        module = importlib.import_module(f"dpaudit.commands.{args.command}")
        code = int(module.run(args))
        if (code == 0 and getattr(args, "fail_on_inconclusive", False)
                and getattr(args, "_inconclusive", False)):
            code = EXIT_INCONCLUSIVE
        _flush_stdout()
        return code
    except BrokenPipeError as exc:
        if _stdout_reader_gone():
            return _quiet_broken_pipe()
        return _report_crash(exc, debug)
    except KeyboardInterrupt:
        print("dpaudit: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except _USAGE_ERRORS as exc:
        # a usage error worded for the Python API also carries its command-line wording
        # (dpaudit.usercode.wording): the flags the user typed, not the keywords
        msg = getattr(exc, "cli_message", None) or (exc.args[0] if exc.args else str(exc))
        print(f"dpaudit: error: {msg}", file=sys.stderr)
        if debug:
            traceback.print_exception(exc, file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:
        if exc.code in (0, 2, None) and _from_argparse(exc):
            try:
                _flush_stdout()  # --help | head
            except BrokenPipeError:
                return _quiet_broken_pipe()
            raise  # --help, --version and malformed arguments keep argparse's exit
        return _report_crash(exc, debug)  # user code called sys.exit: never exit 1
    except Exception as exc:  # noqa: BLE001 - the one place every crash becomes exit 3
        return _report_crash(exc, debug)


def _from_argparse(exc: SystemExit) -> bool:
    frames = traceback.extract_tb(exc.__traceback__)
    return any(Path(f.filename).name == "argparse.py" for f in frames[-3:])
