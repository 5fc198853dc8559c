"""One usage error in two wordings: the Python API's keywords and the command line's flags.

The adapters are called from Python (``adapt(Policy, methods=("pick", "learn"))``) and from
``python -m dpaudit audit-policy`` (``--methods pick,learn``). An error that tells the user what
to change must name what they typed: :func:`usage_error` builds the message twice, once with
each renderer, and returns an ``InvalidParameterError`` whose message is the Python wording and
whose ``cli_message`` attribute the command line prints instead. The attribute is part of the
exception's state, so it survives the pickling that brings an error back from a worker process
or from the ``--seconds`` child.

    raise usage_error(lambda say: f"name its methods with {say('methods', ('pick', 'learn'))}")

gives ``methods=('pick', 'learn')`` in Python and ``--methods pick,learn`` on the command line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dpaudit.validation import InvalidParameterError

__all__ = ["Say", "cli_message", "extend", "usage_error"]

#: ``say(keyword, value)``: how one option is written for the audience of the message
Say = Callable[..., str]

_NO_VALUE = object()

#: keywords whose command-line spelling is not ``--`` plus the keyword with dashes
_FLAG = {"factory_kwargs": "--set", "settings": "--set", "factory": "MODULE:FACTORY",
         "n_arms": "--arms"}


def _python(name: str, value: Any = _NO_VALUE) -> str:
    if value is _NO_VALUE:
        return name
    if name == "factory_kwargs" and isinstance(value, str):  # "KEY=VALUE": a placeholder
        key, _, val = value.partition("=")
        return f"factory_kwargs={{{key!r}: {val}}}"
    return f"{name}={tuple(value) if isinstance(value, list) else value!r}"


def _cli(name: str, value: Any = _NO_VALUE) -> str:
    flag = _FLAG.get(name, "--" + name.replace("_", "-"))
    if value is _NO_VALUE:
        return flag
    if isinstance(value, tuple | list):
        value = ",".join(str(v) for v in value)
    return f"{flag} {value}"


def usage_error(build: Callable[[Say], str]) -> InvalidParameterError:
    """An ``InvalidParameterError`` worded for Python (its message) and for the command line
    (its ``cli_message``); ``build(say)`` writes the message, ``say(keyword[, value])`` an
    option."""
    err = InvalidParameterError(build(_python))
    err.cli_message = build(_cli)  # type: ignore[attr-defined]
    return err


def cli_message(exc: BaseException) -> str:
    """What the command line prints for ``exc``: its ``cli_message`` when it has one."""
    text = getattr(exc, "cli_message", None)
    if isinstance(text, str):
        return text
    return str(exc.args[0]) if exc.args else str(exc)


def extend(exc: InvalidParameterError, more: str) -> InvalidParameterError:
    """``exc`` with ``more`` appended to both of its wordings."""
    err = InvalidParameterError(f"{exc.args[0] if exc.args else exc}{more}")
    if hasattr(exc, "cli_message"):
        err.cli_message = f"{exc.cli_message}{more}"  # type: ignore[attr-defined]
    return err
