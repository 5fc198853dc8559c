"""Argument types shared by subcommands: numbers and output paths, checked before any work.

Numbers are parsed here and their *domain* is checked by :mod:`dpaudit.validation`, so each
parameter has one wording everywhere (``epsilon=inf must be a finite number in (0, inf)``,
whether it came from ``check``, ``audit`` or ``plot``). Output paths are checked at parse
time (so a typo costs nothing, not the run's work) and their folders are created only when
the file is written.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path

from dpaudit.errors import UsageError, UserCodeError, origin
from dpaudit.reports.html import to_html
from dpaudit.reports.junit import to_junit
from dpaudit.reports.text import to_json
from dpaudit.runtime.batches import DEFAULT_MAX_RUNS, DEFAULT_MAX_SECONDS
from dpaudit.runtime.parallel import SCHEDULER_ENV, resolve_scheduler
from dpaudit.runtime.progress import Bar, enabled_for
from dpaudit.stats.results import Verdict
from dpaudit.validation import InvalidParameterError

__all__ = ["ProgressLine", "add_report_outputs", "add_scheduler", "add_state_options",
           "check_state_options", "emit_reports", "float_arg", "gated", "int_arg",
           "json_output",
           "output_dir", "output_file", "prepare_output", "resume_can_help", "scheduler_scope",
           "write_text_output"]


def float_arg(text: str) -> float:
    """Any number Python reads as a float; the parameter's validator then checks its domain.

    ``inf`` and ``nan`` parse here on purpose: they are refused by the validator with the
    parameter's one domain message instead of a second, parse-time wording.
    """
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def int_arg(text: str) -> int:
    """An integer, also written in scientific notation (``1e6``, ``2.5e3``; not ``1.5e0``)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not value.is_finite() or value != value.to_integral_value():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an integer (scientific notation such as 1e6 is accepted when "
            "its value is whole)")
    return int(value)


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(".")


def _check_creatable_folder(folder: Path, text: str) -> None:
    base = _nearest_existing(folder)
    if not base.is_dir():
        raise argparse.ArgumentTypeError(
            f"{text!r}: cannot create a folder under {str(base)!r}, which is a file")
    if not os.access(base, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text!r}: folder {str(base)!r} is not writable")
    _probe_mkdir(folder, base, text)


def _probe_mkdir(folder: Path, base: Path, text: str) -> None:
    """Create the missing folders now and remove them again, so a folder the kernel refuses
    (``/proc/no-such-dir``: ``os.access`` says yes to root) fails before the run."""
    missing = []
    for candidate in (folder, *folder.parents):
        if candidate == base or candidate.exists():
            break
        missing.append(candidate)
    made = []
    try:
        for candidate in reversed(missing):
            candidate.mkdir()
            made.append(candidate)
    except OSError as exc:
        raise argparse.ArgumentTypeError(
            f"{text!r}: cannot create folder {str(candidate)!r}: "
            f"{exc.strerror or exc}") from None
    finally:
        for candidate in reversed(made):
            with contextlib.suppress(OSError):
                candidate.rmdir()


def output_file(text: str) -> Path:
    """A file we can write: not empty, not a folder, in an existing or creatable folder."""
    if not text or not text.strip():
        raise argparse.ArgumentTypeError("an output path must not be empty")
    path = Path(text).expanduser()
    if path.is_dir() or text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file name")
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not writable")
    _check_creatable_folder(path.parent, text)
    _probe_write(path, text)
    return path


def _probe_write(path: Path, text: str) -> None:
    """Try the write now, so a path the kernel refuses fails before the run, not after it.

    ``os.access`` says yes to root for ``/proc/x.json`` (a file that cannot be created) and to
    everyone for ``/dev/full`` (a device every write to fails with ENOSPC). A missing file in
    an existing folder is created and removed again; an existing character device or pipe
    gets the newline the report ends with anyway (``/dev/null`` swallows it); an existing
    regular file is left untouched (``os.access`` above decided it).
    """
    import stat

    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc.strerror or exc}") from None
    try:
        if mode is None:
            if not path.parent.is_dir():
                return  # its folder is created when the report is written
            with open(path, "x"):
                pass
            path.unlink()
        elif stat.S_ISCHR(mode) and os.path.realpath(path) != os.devnull:
            with open(path, "a") as stream:
                if not stream.isatty():
                    stream.write("\n")
    except OSError as exc:
        raise argparse.ArgumentTypeError(
            f"{text!r} cannot be written: {exc.strerror or exc}") from None


def output_dir(text: str) -> Path:
    """A folder we can write into: existing, or creatable (it is created before writing)."""
    if not text or not text.strip():
        raise argparse.ArgumentTypeError("an output folder must not be empty")
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file, not a folder")
    _check_creatable_folder(path, text)
    return path


def prepare_output(path: Path, *, folder: bool = False) -> Path:
    """Create the folder of ``path`` (or ``path`` itself when ``folder``); return ``path``."""
    target = path if folder else path.parent
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create folder {str(target)!r}: {exc.strerror or exc}") from None
    return path


def write_text_output(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, creating its folder (a failure is a usage error)."""
    try:
        prepare_output(path).write_text(text)
    except OSError as exc:
        raise UsageError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None


def json_output(text: str) -> Path | str:
    """``-`` (standard output: the text report is then not printed) or a writable file."""
    return "-" if text == "-" else output_file(text)


def gated(report, args: argparse.Namespace):
    """``report`` under the command's ``--fail-on-inconclusive``: its ``exit_code`` (the text
    report's "exit code", the JSON's ``exit_code``) is then the one the process returns, 4
    when no claim is VIOLATED but one is INCONCLUSIVE. Format the text from this report."""
    import dataclasses

    flag = bool(getattr(args, "fail_on_inconclusive", False))
    if getattr(report, "fail_on_inconclusive", flag) == flag:
        return report
    return dataclasses.replace(report, fail_on_inconclusive=flag)


def emit_reports(args: argparse.Namespace, report, *, command: str, text: str) -> None:
    """Print ``text`` (unless ``--json -``), then write ``--json`` and ``--junit`` outputs.

    ``text`` must have been formatted from :func:`gated` ``(report, args)``: the outputs
    written here are, so every one of them states the exit code the process returns."""
    report = gated(report, args)
    args._inconclusive = any(c.verdict is Verdict.INCONCLUSIVE for c in report.claims)
    json_target = getattr(args, "json", None)
    if json_target == "-":
        print(to_json(report, command=command))
    else:
        print(text)
        if json_target is not None:
            write_text_output(json_target, to_json(report, command=command) + "\n")
    if getattr(args, "junit", None) is not None:
        write_text_output(args.junit, to_junit(report, command=command))
    if getattr(args, "html", None) is not None:
        write_text_output(args.html, to_html(report, command=command))


class ProgressLine:
    """The progress of ``check``: a live tqdm bar on standard error with the pieces done,
    elapsed time and ETA (:mod:`dpaudit.runtime.progress`), drawn only on a terminal and
    never under ``--json -`` (standard output is then a JSON document for a program).

    Called with each piece's label (``claim 2/5: c2``); the count in the label moves the bar
    (the pieces finished before this one), the label is shown after it.
    """

    def __init__(self, args: argparse.Namespace, prefix: str, *, stream=None) -> None:
        self.prefix = prefix
        self.active = enabled_for(args, stream)
        self.bar = Bar(None, desc=prefix, unit="piece", enabled=self.active, stream=stream)

    def __call__(self, label: str) -> None:
        if self.active:
            done, total = self._count(label)
            if done is None and self.bar.total:  # a finding or the regret experiment: every
                done = int(self.bar.total)       # claim is finished by then
            self.bar.set(done=done, total=total, label=label)

    @staticmethod
    def _count(label: str) -> tuple[int | None, int | None]:
        import re

        m = re.search(r"\b(\d+)/(\d+)\b", label)
        if m and 0 < int(m.group(1)) <= int(m.group(2)):
            return int(m.group(1)) - 1, int(m.group(2))
        return None, None

    def render(self, label: str) -> str:
        """What the terminal shows after ``self(label)``."""
        self(label)
        return self.bar.render()

    def close(self) -> None:
        self.bar.close()


def add_report_outputs(p: argparse.ArgumentParser, *, checked: str = "before the run",
                       html_help: str = ("write one self-contained HTML report (verdicts, "
                                         "proofs, witnesses, plots)")) -> None:
    """``--json``, ``--junit`` and ``--html``: the report outputs of ``check``, ``audit`` and
    ``audit-policy``, declared once so their names, types and wording cannot drift apart."""
    p.add_argument("--json", metavar="PATH", type=json_output, default=None,
                   help="also write the report as JSON (schema dpaudit/schema/report-v1.json; "
                        f"'-': to stdout instead of the text report; checked {checked}; "
                        "default: not written)")
    p.add_argument("--junit", metavar="PATH", type=output_file, default=None,
                   help="write JUnit XML: each claim a test case (VIOLATED fails, "
                        "INCONCLUSIVE is skipped; default: not written)")
    p.add_argument("--html", metavar="PATH", type=output_file, default=None,
                   help=f"{html_help} (default: not written)")
    p.add_argument("--fail-on-inconclusive", action="store_true",
                   help="exit 4 when no claim is VIOLATED but one is INCONCLUSIVE (for CI "
                        "gates; a VIOLATED claim still exits 1)")


def add_state_options(p: argparse.ArgumentParser, *, where: str) -> None:
    """``--resume``, ``--state-dir`` and ``--no-state``: saved work of ``check`` and
    ``reproduce`` (see :mod:`dpaudit.runtime.state`); ``where`` names the default state folder."""
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run with the same arguments: work it completed "
                        "is read back, not recomputed (no saved state: everything runs)")
    p.add_argument("--state-dir", metavar="DIR", type=output_dir, default=None,
                   help=f"folder of saved work (default: {where}); every run saves each piece "
                        "as it completes and deletes its state when it completes")
    p.add_argument("--no-state", action="store_true",
                   help="neither save nor read work (a run that is interrupted then restarts "
                        "from scratch)")


def check_state_options(args: argparse.Namespace) -> None:
    """Refuse contradictory state options (a usage error, exit 2)."""
    if getattr(args, "no_state", False) and getattr(args, "resume", False):
        raise UsageError("--resume reads saved state and --no-state forbids it: give one")
    if getattr(args, "no_state", False) and getattr(args, "state_dir", None) is not None:
        raise UsageError("--state-dir names where state is saved and --no-state forbids "
                         "saving: give one")


def resume_can_help(exc: BaseException) -> bool:
    """Whether work saved before ``exc`` is worth keeping for ``--resume``.

    Yes after an interruption (Ctrl-C), a lack of memory or an operating-system error, and
    after an exception in the user's code (it may be transient; a changed file changes the
    run's key anyway). No after a usage error (the same arguments fail the same way) or an
    internal error (the same code fails the same way, and a fixed dpaudit has another key):
    there the state is deleted and no ``--resume`` is suggested.
    """
    if isinstance(exc, KeyboardInterrupt | MemoryError | OSError | UserCodeError):
        return True
    # a usage error: InvalidParameterError or a UsageError (the registry's UnknownNameError
    # is one), the errors the command line maps to exit 2
    if isinstance(exc, InvalidParameterError | UsageError) or not isinstance(exc, Exception):
        return False
    return origin(exc)[0] == "user code"


def add_run_caps(p: argparse.ArgumentParser, first: str, *,
                 max_runs: int | None = DEFAULT_MAX_RUNS,
                 max_seconds: float | None = DEFAULT_MAX_SECONDS) -> None:
    """``--max-runs`` and ``--max-seconds``: the caps on running until decided
    (:mod:`dpaudit.runtime.batches`), worded once for ``simulate``, ``check`` and
    ``reproduce``; ``first`` names the first batch. ``max_runs=None``: the default cap is
    stated in ``first``'s terms by the command."""
    default_runs = ("a multiple of the first batch, see the command" if max_runs is None
                    else f"{max_runs:g}")
    default_secs = "none" if max_seconds is None else f"{max_seconds:g}"
    p.add_argument("--max-runs", metavar="N", type=int_arg, default=max_runs,
                   help=f"run until decided: while the interval contains the value it is "
                        f"compared with, add runs in doubling batches after {first}, each with "
                        f"its own seed, up to N runs in all (default {default_runs}; at most "
                        "the first batch: no batch is added). With this cap alone the report "
                        "is the same for any --workers")
    p.add_argument("--max-seconds", metavar="S", type=float_arg, default=max_seconds,
                   help="...and add no batch that would end more than S seconds after the "
                        f"first started, at the rate measured so far (default {default_secs}; "
                        "inf: no time cap). The interval is a confidence sequence, valid "
                        "wherever the runs stop, the clock included; but a time cap can change "
                        "where they stop, hence the numbers")


def run_caps(args: argparse.Namespace) -> tuple[int, float | None]:
    """``(max_runs, max_seconds)`` of :func:`add_run_caps` (``inf`` seconds: ``None``), with a
    usage error (exit 2) for a cap that is not positive."""
    max_runs = args.max_runs
    if max_runs is None or isinstance(max_runs, bool) or max_runs < 1:
        raise UsageError(f"--max-runs {max_runs!r} must be an integer in [1, inf)")
    secs = args.max_seconds
    if secs is not None and not secs > 0:  # NaN fails too
        raise UsageError(f"--max-seconds {secs!r} must be a number in (0, inf]")
    return int(max_runs), None if secs is None or secs == float("inf") else float(secs)


def add_scheduler(p: argparse.ArgumentParser) -> None:
    """``--scheduler ADDR``: the Dask cluster of ``check``, ``audit`` and ``simulate``, declared
    once so its name, default and wording cannot drift apart."""
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help=f"Dask scheduler address tcp://HOST:PORT (default: ${SCHEDULER_ENV})")


@contextlib.contextmanager
def scheduler_scope(address: str | None) -> Iterator[None]:
    """Send every :func:`dpaudit.runtime.parallel.map_chunks` of the command to ``address``.

    The chunked work of a check runs deep inside audit files that pass no scheduler, so
    ``map_chunks`` reads ``$DPAUDIT_SCHEDULER``; the flag therefore sets that variable for the
    command and restores it afterwards. Same semantics as ``simulate --scheduler``: the flag
    takes precedence over the variable, a malformed address is a usage error (exit 2) before
    any work, ``None`` leaves the variable as it is. Results do not depend on it.
    """
    if address is None:
        yield
        return
    resolve_scheduler(address)  # InvalidParameterError (exit 2) for a malformed address
    before = os.environ.get(SCHEDULER_ENV)
    os.environ[SCHEDULER_ENV] = address
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(SCHEDULER_ENV, None)
        else:
            os.environ[SCHEDULER_ENV] = before
