"""Run one symbolic step under a wall-clock budget, abandoning it when the budget runs out.

sympy's simplification and factoring can run for minutes on an innocent-looking expression
(``factor`` of an ``erf`` expression with rational parameters such as ``exp(3/10)``), and a
pure-Python call cannot be interrupted from another thread. So a budgeted step runs in a
**forked child process** that the caller kills when the budget is spent:

* ``fork`` makes the child a copy of the caller (sympy already imported, the expression and
  the function inherited, nothing pickled on the way in), costing milliseconds;
* only the (small, picklable) result travels back, through a pipe;
* past the budget the child is killed (``SIGKILL``) and reaped, so an abandoned step costs
  nothing afterwards: no thread keeps burning a core.

Bounding the problem size before calling sympy was the alternative; it was rejected because no
size measure (operation count, degree, number of atoms) predicts which expressions make
``factor`` hang, so a size bound would either refuse easy proofs or let hangs through.

Where ``fork`` is unavailable (Windows, or a daemonic worker that may not have children) the
step runs in a daemon thread that is abandoned past the budget: the caller gets its answer on
time, the abandoned thread finishes (or not) in the background; this is stated in the reason.
Inside a budgeted step, nested budgeted steps run inline (the outer budget covers them).

The budget of the symbolic tier is :data:`DEFAULT_SYMBOLIC_BUDGET` (5 s) unless a caller passes
its own or a command sets another for its duration with :func:`symbolic_budget_scope`
(``python -m dpaudit check NAME --symbolic-budget SECONDS``); the provers take
``budget=CURRENT`` by default and read it with :func:`resolve_budget` when they run. The budget
is wall-clock time, so on a loaded machine a proof that needs a few seconds of sympy can run out
of it: a CDF condition (:func:`dpaudit.exact.conditions.lemma8_check`) then falls from PROVED to the
numeric tiers (its claim EXACT instead of PROVED), an obligation of
:func:`dpaudit.exact.symbolic.prove` to the witness search and UNKNOWN (its claim INCONCLUSIVE); a
larger budget restores the proof.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from dpaudit.validation import check_real

__all__ = ["CURRENT", "DEFAULT_SYMBOLIC_BUDGET", "Budgeted", "check_symbolic_budget",
           "current_symbolic_budget", "resolve_budget", "run_with_budget",
           "symbolic_budget_scope"]

#: default wall-clock budget of one symbolic obligation, in seconds
DEFAULT_SYMBOLIC_BUDGET = 5.0


class _Current:
    """The budget in force when the step runs (:func:`current_symbolic_budget`)."""

    def __repr__(self) -> str:
        return "CURRENT"


#: default of the provers' ``budget`` parameter: the budget in force when they run
CURRENT: Any = _Current()

_current = DEFAULT_SYMBOLIC_BUDGET  # set for a command by symbolic_budget_scope


def check_symbolic_budget(seconds: object) -> float:
    """A symbolic budget: a finite number of seconds above 0 (else ``InvalidParameterError``)."""
    return check_real("symbolic_budget", seconds, low=0.0, low_open=True)


def current_symbolic_budget() -> float:
    """The symbolic tier's budget in force: :data:`DEFAULT_SYMBOLIC_BUDGET` unless a
    :func:`symbolic_budget_scope` set another."""
    return _current


def resolve_budget(budget: float | None | _Current) -> float | None:
    """``budget`` itself, or the budget in force when it is :data:`CURRENT`."""
    return _current if isinstance(budget, _Current) else budget


@contextlib.contextmanager
def symbolic_budget_scope(seconds: float) -> Iterator[float]:
    """Make ``seconds`` the symbolic budget of every prover that uses the default, for the
    duration of the block (validated first; the previous budget is restored afterwards).
    Forked budgeted steps and worker processes started inside the block inherit it."""
    global _current
    value = check_symbolic_budget(seconds)
    before = _current
    _current = value
    try:
        yield value
    finally:
        _current = before

_INSIDE = False  # True in a budgeted child: nested steps run inline


@dataclass(frozen=True)
class Budgeted:
    """What a budgeted call gave: its ``value`` if ``finished``, and the time it took."""

    finished: bool
    value: Any
    seconds: float
    how: str  # "inline", "fork" or "thread"


def _child(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    global _INSIDE
    _INSIDE = True
    try:
        out: tuple[bool, Any] = (True, fn(*args))
    except BaseException as exc:  # noqa: BLE001 -- sent back and re-raised by the parent
        out = (False, exc)
    try:
        conn.send(out)
    except Exception as exc:  # noqa: BLE001 -- an unpicklable result is reported, not hung on
        conn.send((False, RuntimeError(f"budgeted step returned an unpicklable value: {exc}")))
    conn.close()


def _can_fork() -> bool:
    return hasattr(os, "fork") and not multiprocessing.current_process().daemon


def run_with_budget(fn: Callable[..., Any], args: tuple[Any, ...] = (), *,
                    seconds: float | None = DEFAULT_SYMBOLIC_BUDGET) -> Budgeted:
    """Call ``fn(*args)``; give up after ``seconds`` (``None``: no budget, run inline).

    An exception raised by ``fn`` is re-raised in the caller. A child that dies without an
    answer (killed by the system) counts as not finished.
    """
    start = time.perf_counter()
    if seconds is None or _INSIDE:
        return Budgeted(True, fn(*args), time.perf_counter() - start, "inline")
    if _can_fork():
        ctx = multiprocessing.get_context("fork")
        receiver, sender = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(sender, fn, args), daemon=True)
        proc.start()
        sender.close()
        try:
            ready = receiver.poll(seconds)
            answer = receiver.recv() if ready else None
        except EOFError:
            answer = None
        finally:
            if proc.is_alive():
                proc.kill()
            proc.join()
            receiver.close()
        elapsed = time.perf_counter() - start
        if answer is None:
            return Budgeted(False, None, elapsed, "fork")
        ok, value = answer
        if not ok:
            raise value
        return Budgeted(True, value, elapsed, "fork")
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 -- re-raised below
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    elapsed = time.perf_counter() - start
    if thread.is_alive():
        return Budgeted(False, None, elapsed, "thread")
    if "error" in box:
        raise box["error"]
    return Budgeted(True, box["value"], elapsed, "thread")
