"""Memory budgets and deadlines: a command estimates what it will hold before it starts, and
a time limit is a wall-clock deadline, not a hint.

Memory. ``audit-policy`` keeps the selection sample of the audited pair in memory (the event
search needs all of it: ``2 x n_select`` action sequences of ``T`` int64), and each worker
holds a chunk of runs while they are simulated; everything else streams.
:func:`policy_audit_bytes` adds these up and :func:`check_memory` refuses, with exit 2 and the
size it would need, an audit that does not fit ``--memory`` (default: half the machine's
memory), before any user code runs. A horizon of 1e9 is refused in milliseconds instead of
being killed by the kernel after taking 24 GB.

Deadline. :func:`run_with_deadline` runs the whole audit in a forked child (its own process
group, so the pool workers it starts go with it) and kills the group when the deadline
passes. Nothing the child measured is used then: a measurement cut short by the clock would
let run times (which may depend on the outputs) choose its sample size, and the bound would
not be valid. The command reports INCONCLUSIVE with how long it ran and what would settle it.

Cooperative deadline (``check``, ``audit``, ``simulate --seconds``). :func:`deadline_scope`
sets one wall-clock deadline for the command; the chunk loops that honour it
(:func:`dpaudit.runtime.parallel.map_chunks` given ``deadline=``, the measurement of
:func:`dpaudit.stats.sampled.sampled_audit`, the runs of ``simulate``) check it *between*
chunks and stop drawing there, returning the chunks done. The chunks are fixed before any
draw (their sizes depend on the sample size only), so the cut is a chunk boundary chosen by the
clock alone, never by looking at counts: a Clopper-Pearson bound on the measured prefix is
valid at its level as long as the sampler's run time does not depend on its outputs (true of
every vectorised sampler here; a sampler slow exactly when it outputs the event could bias
the prefix, which is why audit-policy's user code is never cut this way). A deadline reached
while an event is being *selected* makes the claim INCONCLUSIVE (the selection would no
longer be the one planned); exact and symbolic claims keep their own budgets; a claim not
started by the deadline is INCONCLUSIVE "not run: deadline". :func:`run_with_deadline`, at
the deadline plus :data:`HARD_KILL_GRACE` seconds, is the backstop for code that never
returns to a chunk boundary.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from dpaudit.errors import origin
from dpaudit.validation import InvalidParameterError, check_real

__all__ = ["FAST_PULLS_PER_SECOND", "FAST_SAMPLES_PER_SECOND", "FAST_USER_STEPS_PER_SECOND",
           "HARD_KILL_GRACE", "TIME_LIMIT_ENV", "DeadlineReached", "Estimate", "check_estimate",
           "check_memory", "check_seconds", "command_elapsed", "command_started",
           "current_deadline", "deadline_passed", "deadline_reached", "deadline_scope",
           "deadline_seconds", "default_memory", "format_bytes", "format_seconds", "parse_memory",
           "policy_audit_bytes", "process_start", "run_with_deadline", "time_limit"]

#: seconds past a cooperative deadline before the command's process group is killed: code in
#: the middle of a chunk at the deadline may finish it, code that never returns is stopped
HARD_KILL_GRACE = 3.0

_deadline: float | None = None  # time.monotonic() at which drawing stops (None: no deadline)
_deadline_seconds: float | None = None
# time.monotonic() at which the command started (``--seconds`` counts from it; None: from the
# opening of each deadline scope, as for library calls)
_command_start: float | None = None


def process_start() -> float:
    """When this process started, in ``time.monotonic()`` units.

    Read from ``/proc/self/stat`` (start time in clock ticks since boot) against
    ``CLOCK_BOOTTIME``; where that is unavailable, now. ``python -m dpaudit ... --seconds S``
    counts its deadline from here, so the interpreter's start, imports and loading the user's
    module are inside the ``S`` seconds, not added to them.
    """
    now = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        ticks = int(fields[19])  # field 22 of stat(5); fields[0] is field 3
        elapsed = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError, AttributeError):
        return now
    return now - elapsed if 0.0 <= elapsed < 3600.0 else now


def command_elapsed() -> float:
    """Seconds since the command started (0 when no command start is set)."""
    return 0.0 if _command_start is None else max(time.monotonic() - _command_start, 0.0)


def command_started(at: float | None) -> None:
    """Set (``None``: clear) the start of the command that ``--seconds`` counts from."""
    global _command_start
    _command_start = at


@contextlib.contextmanager
def deadline_scope(seconds: float | None) -> Iterator[float | None]:
    """Within the block, :func:`current_deadline` is ``seconds`` from now (``None``: none).

    "Now" is the command's start when one is set (:func:`command_started`: the CLI sets
    it to the process's start), so the deadline holds for the whole command. Yields the
    absolute deadline (``time.monotonic()`` units). A non-positive or non-finite
    ``seconds`` is a usage error (exit 2). Nested scopes restore the outer one on exit.
    """
    global _deadline, _deadline_seconds
    if seconds is not None:
        seconds = check_seconds(seconds)
    before = _deadline, _deadline_seconds
    origin = time.monotonic() if _command_start is None else _command_start
    _deadline = None if seconds is None else origin + seconds
    _deadline_seconds = seconds
    try:
        yield _deadline
    finally:
        _deadline, _deadline_seconds = before


def check_seconds(seconds: float) -> float:
    """``--seconds``: a finite number above 0 (else exit 2)."""
    return float(check_real("seconds", seconds, low=0.0, low_open=True))


def current_deadline() -> float | None:
    """The deadline of the enclosing :func:`deadline_scope` (``time.monotonic()``), or ``None``."""
    return _deadline


def deadline_seconds() -> float | None:
    """The ``seconds`` the enclosing :func:`deadline_scope` was given, or ``None``."""
    return _deadline_seconds


def deadline_passed(deadline: float | None = None) -> bool:
    """Whether ``deadline`` (default: the current scope's) has passed; never without one."""
    d = _deadline if deadline is None else deadline
    return d is not None and time.monotonic() >= d

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def format_bytes(n: float) -> str:
    """``1536`` -> ``1.5 KiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def default_memory() -> int:
    """Half of the machine's physical memory (4 GiB where it cannot be read), and no more
    than the address space this process may still take under ``ulimit -v`` (its soft
    ``RLIMIT_AS`` less what it has mapped already)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        budget = max(int(total) // 2, 256 << 20)
    except (AttributeError, ValueError, OSError):
        budget = 4 << 30
    room = _address_space_left()
    return budget if room is None else max(min(budget, room), 1 << 20)


def _address_space_left() -> int | None:
    """Bytes of address space left under ``RLIMIT_AS`` (``None``: no limit, or unknown)."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError, AttributeError):
        return None
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return None
    mapped = 0
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    mapped = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    return max(int(soft) - mapped, 0)


def _memory_source() -> str:
    room = _address_space_left()
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (AttributeError, ValueError, OSError):
        total = 4 << 30
    if room is not None and room < total:
        return "the address space left under the process's limit (ulimit -v)"
    return "half the machine's memory"


#: Optimistic rates, so that an estimate at them is a *lower* bound on the time: arm-pulls per
#: second per worker of dpaudit's per-step simulators (the fastest measured, KL-UCB's certified
#: windows, about 2.4e8 per CPU second; UCB about 1e8: 1e9 keeps a fourfold margin; episodic
#: simulators are estimated per episode, see dpaudit.sim.simulation.simulation_estimate), draws
#: per second per worker of a sampled audit (Laplace: about 1e7), and steps per second of
#: third-party code run one step at a time (Python: about 1e6; numba: more).
FAST_PULLS_PER_SECOND = 1e9
FAST_SAMPLES_PER_SECOND = 1e8
FAST_USER_STEPS_PER_SECOND = 1e8
#: the environment variable holding the seconds a command without ``--seconds`` may be
#: estimated to take (default :data:`DEFAULT_TIME_LIMIT`)
TIME_LIMIT_ENV = "DPAUDIT_TIME_LIMIT"
DEFAULT_TIME_LIMIT = 3600.0


def time_limit() -> float:
    """Seconds a command without ``--seconds`` may be estimated to need
    (``$DPAUDIT_TIME_LIMIT``, default 1 hour); a malformed value is a usage error."""
    text = os.environ.get(TIME_LIMIT_ENV, "").strip()
    if not text:
        return DEFAULT_TIME_LIMIT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value > 0 and value != float("inf")):
        raise InvalidParameterError(
            f"{TIME_LIMIT_ENV}={text!r} must be a finite number of seconds above 0")
    return value


def format_seconds(s: float) -> str:
    """``93784`` -> ``26.1 h``."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if s >= size:
            return f"{s / size:.3g} {unit}"
    return f"{s:.3g} s"


@dataclass(frozen=True)
class Estimate:
    """What a command will hold and how long it will take at the least, computed from its
    arguments alone before any work (:func:`check_estimate`).

    ``what``: the work (``"simulate ucb at T=1000, 10^9 runs"``); ``memory``: bytes at the
    peak; ``seconds``: a lower bound on the wall time (the work at the optimistic rates
    above); ``basis``: how ``seconds`` was computed, for the message."""

    what: str
    memory: int
    seconds: float
    basis: str

    def text(self) -> str:
        return (f"about {format_bytes(self.memory)} of memory and at least "
                f"{format_seconds(self.seconds)} ({self.basis})")


def check_estimate(est: Estimate, *, seconds: float | None, advice: str,
                   memory: int | None = None) -> Estimate:
    """Refuse (exit 2, with the estimate) what does not fit; return ``est`` otherwise.

    Memory must fit ``memory`` (default :func:`default_memory`). Time: under ``--seconds``
    the deadline cuts the work, so no time is refused; without it the lower bound must fit
    :func:`time_limit`. Called before anything of the work's size is allocated.
    """
    budget = default_memory() if memory is None else memory
    if est.memory > budget:
        than = (f"the --memory budget of {format_bytes(budget)}" if memory is not None
                else f"{format_bytes(budget)} ({_memory_source()})")
        raise InvalidParameterError(
            f"{est.what} would need {est.text()}: more memory than {than}; refused before "
            f"any work; {advice}")
    if seconds is None:
        limit = time_limit()
        if est.seconds > limit:
            raise InvalidParameterError(
                f"{est.what} would need {est.text()}: longer than the {format_seconds(limit)} a "
                f"command without --seconds may be estimated to take (${TIME_LIMIT_ENV}); "
                f"refused before any work; {advice}, or give --seconds S to stop at S seconds "
                "and report what finished")
    return est


def parse_memory(text: str) -> int:
    """``"512M"``, ``"4G"``, ``"4GiB"``, ``"1e9"`` (bytes) -> bytes; a bad size is exit 2."""
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1] if t and t[-1] in _UNITS else ""
    try:
        value = float(t[:-1] if unit else t) * _UNITS[unit]
    except ValueError:
        raise InvalidParameterError(
            f"memory={text!r} must be a size such as 512M, 4G or 2.5GiB") from None
    if not (value >= 1 << 20) or value == float("inf"):
        raise InvalidParameterError(f"memory={text!r} must be a finite size of at least 1M")
    return int(value)


def policy_audit_bytes(*, horizon: int, n_arms: int, samples: int, selection_fraction: float,
                       max_select: int | None, chunk: int, workers: int) -> int:
    """What ``audit-policy`` holds at its peak: the selection sample of both sides (int64
    actions of ``T`` steps, plus its learned-score features when ``T K <= 4096``) and one
    chunk of runs per worker (actions and a reward table of ``T x K`` float64 each)."""
    n_select = max(1, round(samples * selection_fraction))
    if max_select is not None:
        n_select = min(n_select, max_select)
    per_run = 8 * horizon + (8 * horizon * n_arms if horizon * n_arms <= 4096 else 0)
    per_chunk_run = 8 * horizon + 8 * horizon * n_arms
    return 2 * n_select * per_run + max(workers, 1) * chunk * per_chunk_run


def check_memory(what: str, needed: int, budget: int, *, advice: str) -> None:
    """Exit 2 (``InvalidParameterError``) when ``needed`` bytes exceed ``budget``."""
    if needed > budget:
        raise InvalidParameterError(
            f"{what} would need about {format_bytes(needed)} of memory, more than the --memory "
            f"budget of {format_bytes(budget)}; {advice}, or raise --memory")


class DeadlineReached(Exception):
    """The deadline passed before the work finished; nothing of it is used.

    ``where``: the stage it stopped (e.g. ``"event selection"``), for the report."""

    def __init__(self, seconds: float, elapsed: float, where: str = "") -> None:
        at = f" during the {where}" if where else ""
        super().__init__(f"deadline of {seconds:g} s reached{at} after {elapsed:.1f} s")
        self.seconds, self.elapsed, self.where = seconds, elapsed, where

    def __reduce__(self) -> Any:  # picklable with its fields (it crosses run_with_deadline)
        return (DeadlineReached, (self.seconds, self.elapsed, self.where))


def deadline_reached(where: str) -> DeadlineReached:
    """The :class:`DeadlineReached` of the current scope, stopped in ``where``."""
    total = _deadline_seconds or 0.0
    left = 0.0 if _deadline is None else _deadline - time.monotonic()
    return DeadlineReached(total, total - left, where)


@dataclass(frozen=True)
class _Failed:
    """An exception raised in the child, carried back with its picklable form."""

    exc: BaseException


def _mark_origin(exc: BaseException) -> None:
    """Keep, on ``exc`` itself, what pickling to the parent loses: where it was raised (user
    code or dpaudit, the CLI's one-line report) and its traceback text (``--debug``). Pickling
    keeps an exception's ``__dict__`` but drops ``__traceback__`` and ``__cause__``; a wrapped
    exception (``UserCodeError`` from ``ValueError``) is placed where its cause was raised."""
    import traceback

    try:
        exc.dpaudit_origin = origin(exc.__cause__ or exc)  # type: ignore[attr-defined]
        exc.dpaudit_traceback = "".join(  # type: ignore[attr-defined]
            traceback.format_exception(exc))
    except Exception:  # noqa: BLE001 - an exception that takes no attributes: as it is
        pass


def _child(fn: Callable[[], Any], conn: Any) -> None:
    os.setsid()  # own process group: its pool workers are killed with it
    try:
        out: Any = fn()
    except BaseException as exc:  # noqa: BLE001 - carried to the parent, re-raised there
        _mark_origin(exc)
        try:
            out = _Failed(exc)
            conn.send(out)
        except Exception:  # noqa: BLE001 - an unpicklable exception: its text only
            conn.send(_Failed(RuntimeError(f"{type(exc).__name__}: {exc}")))
        return
    conn.send(out)


def run_with_deadline(fn: Callable[[], Any], seconds: float | None, *,
                      total: float | None = None) -> Any:
    """``fn()``, or :class:`DeadlineReached` once ``seconds`` of wall clock have passed.

    ``total``: the whole deadline, when part of it was spent before (reported). ``seconds is
    None`` or a platform without ``fork``: ``fn()`` in this process. An exception raised by
    ``fn`` is re-raised here (exit codes unchanged).
    """
    if seconds is None:
        return fn()
    whole = seconds if total is None else total
    if seconds <= 0:
        raise DeadlineReached(whole, whole - seconds)
    if "fork" not in multiprocessing.get_all_start_methods():
        return fn()
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    start = time.monotonic()
    proc = ctx.Process(target=_child, args=(fn, send), daemon=False)
    proc.start()
    send.close()
    try:
        if not recv.poll(seconds):
            raise DeadlineReached(whole, whole - seconds + time.monotonic() - start)
        try:
            out = recv.recv()
        except EOFError:  # the child died without a word (killed, out of memory)
            raise RuntimeError(f"the audit's process ended with exit code "
                               f"{proc.exitcode}") from None
    finally:
        if (proc.is_alive() or proc.exitcode is None) and proc.pid is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
        proc.join()
        recv.close()
    if isinstance(out, _Failed):
        raise out.exc
    return out
