"""Errors the command line maps to exit codes (see :mod:`dpaudit.cli`).

* :class:`UsageError` (exit 2): the user asked for something that cannot be done as asked: an
  unknown name, an unreadable or unwritable path, a module that does not import, an object
  that breaks the protocol. ``InvalidParameterError`` (a parameter outside its domain) is the
  other usage error.
* :class:`UserCodeError` (exit 3): an exception raised by the user's own code (an audit
  module's top level, a user sampler); the original exception is its ``__cause__``.

Anything else that escapes a command is an internal error (exit 3 as well): a crash never
exits 1, the code of VIOLATED. :func:`origin` tells the two apart (user code or dpaudit's own),
for the command line's one-line report and for the runtime, which records it on an exception
raised in a forked child before pickling loses the traceback.
"""

from __future__ import annotations

import importlib
import sysconfig
import traceback
from pathlib import Path

__all__ = ["UsageError", "UserCodeError", "origin"]


class UsageError(Exception):
    """A usage error detected after parsing (exit code 2); the message is one line."""


class UserCodeError(Exception):
    """An exception raised inside user code (exit code 3); ``__cause__`` is the original."""


def _source_roots() -> tuple[Path, ...]:
    """Folders holding dpaudit's own code (the engine, mechanisms, algorithms, audits)."""
    roots = [Path(__file__).resolve().parent]
    for sub in ("mechanisms", "algorithms", "audits"):
        try:
            module = importlib.import_module(f"dpaudit.{sub}")
        except ImportError:  # pragma: no cover - a broken install
            continue
        roots += [Path(p).resolve() for p in getattr(module, "__path__", ())]
    return tuple(roots)


# third-party packages dpaudit calls into: an exception raised inside them during a check is
# attributed to the nearest caller outside them (dpaudit's code or the user's)
_DEPENDENCIES = frozenset({
    "numpy", "scipy", "sympy", "statsmodels", "mpmath", "matplotlib", "dp_accounting",
    "pandas", "patsy", "concurrent", "multiprocessing", "dask", "distributed", "cloudpickle"})


def _is_library(path: Path) -> bool:
    """The standard library, or a dependency installed in site-packages (not user code)."""
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib"):
        root = Path(paths[key]).resolve()
        if root in path.parents and "site-packages" not in path.parts:
            return True
    for key in ("purelib", "platlib"):
        root = Path(paths[key]).resolve()
        if root in path.parents:
            top = path.relative_to(root).parts[0]
            return top.split(".")[0].split("-")[0] in _DEPENDENCIES
    return False


def _within(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def origin(exc: BaseException) -> tuple[str, str]:
    """``(who, where)``: ``"user code"`` or ``"internal"``, and ``file:line in function``.

    The innermost frame outside the standard library and dpaudit's dependencies decides: inside
    dpaudit's own folders it is an internal error, anywhere else (a user's file, or a user's
    package installed in site-packages) it is the user's code.
    """
    carried = getattr(exc, "dpaudit_origin", None)  # raised in a forked child (--seconds)
    if isinstance(carried, tuple) and len(carried) == 2:
        return carried
    frames = traceback.extract_tb(exc.__traceback__)
    own = _source_roots()
    for frame in reversed(frames):
        if frame.filename.startswith("<"):  # <frozen ...>, <string>: not a source file
            continue
        path = Path(frame.filename).resolve()
        if _within(path, own):
            return "internal", f"{path.name}:{frame.lineno} in {frame.name}"
        if not _is_library(path):
            return "user code", f"{frame.filename}:{frame.lineno} in {frame.name}"
    if frames:
        last = frames[-1]
        return "internal", f"{Path(last.filename).name}:{last.lineno} in {last.name}"
    return "internal", "unknown location"
