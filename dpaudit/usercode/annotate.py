"""Declarations for code whose noise the gray-box stage cannot see.

Plain numpy and ``random`` code needs nothing: the gray-box stage
(:mod:`dpaudit.usercode.graybox`) reads its draws itself. Code that draws its noise out of
sight -- inside a numba-compiled helper, a C extension, torch, a service -- can say two things,
after the *Re:cord-play* design of Cebere, Erb, Desfontaines, Bellet & Fitzsimons (2026):

* :func:`noise_primitive` marks the function that adds the noise and states the sensitivity
  of the statistic it is given (and, optionally, its law and scale). On the recorded run of
  ``D`` the primitive runs; on ``D'`` its output is *frozen* to ``D``'s, so the code after it
  takes the same path whenever the data reach it only through the primitive, and the stage
  measures the distance between the two statistics: above the declared sensitivity is a
  falsification of the declaration at its line, found in one pair of runs.
* :func:`equal_on_neighbours` states that a value (a count of public size, a chosen
  threshold, the number of releases) does not depend on the private data; a value that differs
  between ``D`` and ``D'`` on the recorded runs is reported at its line.

Outside a recorded run both are plain calls (one check of the active recorder).

Example::

    from dpaudit import equal_on_neighbours, noise_primitive

    @noise_primitive(sensitivity=1.0, law="laplace", scale="scale")
    def privatize(total, scale):
        return total + compiled_laplace(scale)   # noise the stage cannot see

    def release(data, epsilon):
        equal_on_neighbours(len(CLASSES), "number of classes")
        return privatize(np.clip(data, 0, 1).sum(), 1 / epsilon)
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from dpaudit.usercode.recorder import active
from dpaudit.validation import InvalidParameterError, check_choice, check_real

__all__ = ["equal_on_neighbours", "noise_primitive"]

F = TypeVar("F", bound=Callable[..., Any])

NORMS = ("l1", "l2", "linf")
LAWS = ("laplace", "gaussian")


def noise_primitive(fn: F | None = None, *, sensitivity: float, argument: int | str = 0,
                    norm: str = "l1", law: str | None = None,
                    scale: float | str | None = None, name: str | None = None) -> Any:
    """Mark ``fn`` as a noise primitive (module docstring).

    ``sensitivity``: the largest distance (``norm``: ``"l1"``, ``"l2"`` or ``"linf"``) its
    statistic may move between neighbouring inputs; ``argument``: which argument is the
    statistic (position or name, default the first); ``law`` (``"laplace"`` or
    ``"gaussian"``) and ``scale`` (a number, or the name of the argument holding it), when
    given, let the stage state the release's loss (``distance / scale`` for Laplace with the L1
    norm, the Gaussian ``mu = distance / sigma`` with L2). Usable as ``@noise_primitive(...)``.
    """
    sens = check_real("sensitivity", sensitivity, low=0.0)
    norm = check_choice("norm", norm, NORMS)
    if law is not None:
        law = check_choice("law", law, LAWS)
    if isinstance(scale, int | float) and not isinstance(scale, bool):
        check_real("scale", float(scale), low=0.0, low_open=True)

    def decorate(func: F) -> F:
        sig = inspect.signature(func)
        label = str(name or getattr(func, "__qualname__", "noise primitive"))
        params = list(sig.parameters)
        if isinstance(argument, int) and not 0 <= argument < max(len(params), 1):
            raise InvalidParameterError(f"argument={argument} is not a parameter position of "
                                        f"{label} ({', '.join(params)})")
        if isinstance(argument, str) and argument not in params:
            raise InvalidParameterError(f"argument={argument!r} is not a parameter of {label}")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            rec = active()
            if rec is None:
                return func(*args, **kwargs)
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            key = argument if isinstance(argument, str) else params[argument]
            value = bound.arguments[key]
            b = float(bound.arguments[scale]) if isinstance(scale, str) else (
                None if scale is None else float(scale))
            return rec.primitive(label, value, sens, norm, law, b,
                                 lambda: func(*args, **kwargs))
        return wrapper  # type: ignore[return-value]

    return decorate(fn) if fn is not None else decorate


def equal_on_neighbours(value: Any, name: str | None = None) -> Any:
    """Declare that ``value`` does not depend on the private data (module docstring); returns
    ``value`` unchanged."""
    rec = active()
    if rec is not None:
        rec.equality(name or "a value", value)
    return value
