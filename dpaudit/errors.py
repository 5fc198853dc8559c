"""Errors the command line maps to exit codes (see :mod:`dpaudit.cli`).

* :class:`UsageError` (exit 2): the user asked for something that cannot be done as asked: an
  unknown name, an unreadable or unwritable path, a module that does not import, an object
  that breaks the protocol. ``InvalidParameterError`` (a parameter outside its domain) is the
  other usage error.
* :class:`UserCodeError` (exit 3): an exception raised by the user's own code (an audit
  module's top level, a user sampler); the original exception is its ``__cause__``.

Anything else that escapes a command is an internal error (exit 3 as well): a crash never
exits 1, the code of VIOLATED.
"""

from __future__ import annotations

__all__ = ["UsageError", "UserCodeError"]


class UsageError(Exception):
    """A usage error detected after parsing (exit code 2); the message is one line."""


class UserCodeError(Exception):
    """An exception raised inside user code (exit code 3); ``__cause__`` is the original."""
