"""Chunked, seeded parallel map: results never depend on the number of workers or machines.

Work is cut into fixed chunks *before* any worker is involved; chunk ``i`` always gets child
``i`` of the task's :class:`~numpy.random.SeedSequence` (``spawn``), so one worker, a local
process pool or a Dask cluster produce bit-identical results, returned in chunk order.

One backend switch, in :func:`map_chunks`:

* ``scheduler`` (an address such as ``tcp://10.0.0.5:8786``, or the ``DPAUDIT_SCHEDULER``
  environment variable when ``scheduler`` is ``None``): the chunks go to that Dask cluster
  through ``dask.distributed`` (install with ``pip install dpaudit[dask]``);
* otherwise ``workers`` local processes (``None``: one per core; ``1``: in this process).
  Before starting a pool, ``fn`` runs once here on one item with a throwaway generator and is
  timed: when the whole work, at that cost per item, would save less than
  :data:`POOL_START_SECONDS` on ``workers`` processes, the chunks run here and the
  ``placement`` callback is told why (the results are the same either way).

The function must be picklable for the local pool; a closure (a ``lambda`` sampler) is sent
with ``cloudpickle`` when it is installed (it comes with ``dask``).
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, TypeVar

import numpy as np

from dpaudit.stats.rng import child_seed
from dpaudit.validation import InvalidParameterError, check_int

__all__ = ["POOL_START_SECONDS", "SCHEDULER_ENV", "chunk_runs", "chunk_sizes",
           "default_workers", "map_chunks", "resolve_scheduler"]

T = TypeVar("T")

SCHEDULER_ENV = "DPAUDIT_SCHEDULER"

#: start-up of a local pool: processes, dpaudit's imports and the cached compiled kernels in
#: each (about 1-2 s on a 2-core machine); work that saves less stays in this process
POOL_START_SECONDS = 2.0


def chunk_sizes(total: int, chunk: int) -> list[int]:
    """Split ``total`` items into chunks of ``chunk`` (the last may be smaller)."""
    full, rest = divmod(total, chunk)
    return [chunk] * full + ([rest] if rest else [])


def chunk_runs(runs: int) -> int:
    """Runs per chunk for simulated runs: a function of ``runs`` only (at most 16 chunks, at
    least 10 runs each, so lockstep simulators keep their vector width; never the workers)."""
    runs = check_int("runs", runs, low=1)
    return max(min(runs, 10), -(-runs // 16))


def default_workers() -> int:
    """Local worker processes by default: one per core."""
    return max(1, os.cpu_count() or 1)


def resolve_scheduler(scheduler: object = None) -> Any:
    """The Dask scheduler to use: ``scheduler``, else ``$DPAUDIT_SCHEDULER``, else ``None``.

    A string must be an address with a scheme (``tcp://HOST:PORT``); a
    ``distributed.Client`` is used as it is.
    """
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None
    if scheduler is None or not isinstance(scheduler, str):
        return scheduler
    if "://" not in scheduler or scheduler.endswith("://"):
        raise InvalidParameterError(
            f"scheduler={scheduler!r} must be a Dask scheduler address such as "
            "tcp://HOST:PORT")
    return scheduler


def _call(fn: Callable[[int, np.random.Generator], T], size: int,
          seq: np.random.SeedSequence) -> T:
    return fn(size, np.random.Generator(np.random.PCG64(seq)))


def _probe_seconds(fn: Callable[[int, np.random.Generator], object]) -> float:
    """Seconds of ``fn`` on one item with a throwaway generator (results discarded, so the
    chunks' numbers do not depend on it), timed on a second call (the first loads compiled
    kernels); a per-call overhead makes it an overestimate."""
    fn(1, np.random.Generator(np.random.PCG64(0)))
    start = time.perf_counter()
    fn(1, np.random.Generator(np.random.PCG64(1)))
    return time.perf_counter() - start


def _call_blob(blob: bytes, size: int, seq: np.random.SeedSequence) -> Any:
    return _call(pickle.loads(blob), size, seq)


def _portable(fn: Callable) -> tuple[Callable, Callable | bytes]:
    """``(caller, payload)`` for a process pool: plain pickle, else cloudpickle bytes."""
    try:
        pickle.dumps(fn)
        return _call, fn
    except (pickle.PicklingError, AttributeError, TypeError):
        try:
            import cloudpickle
        except ImportError:
            raise InvalidParameterError(
                f"fn={fn!r} cannot be pickled for worker processes; use a module-level "
                "function (or functools.partial of one), or install cloudpickle") from None
        return _call_blob, cloudpickle.dumps(fn)


def _map_dask(fn: Callable, sizes: list[int], seqs: list, scheduler: Any) -> list:
    try:
        from distributed import Client
    except ImportError:
        raise InvalidParameterError(
            f"scheduler={scheduler!r} needs dask.distributed: pip install 'dpaudit[dask]'"
        ) from None
    if not isinstance(scheduler, str):  # a Client the caller manages
        futures = scheduler.map(_call, [fn] * len(sizes), sizes, seqs, pure=False)
        return scheduler.gather(futures)
    try:
        client = Client(scheduler, timeout="20s", set_as_default=False)
    except OSError as exc:
        raise InvalidParameterError(
            f"scheduler={scheduler!r} cannot be reached ({exc}); start one with "
            "`dask scheduler` and workers with `dask worker ADDRESS`") from None
    with client:
        futures = client.map(_call, [fn] * len(sizes), sizes, seqs, pure=False)
        return client.gather(futures)


def map_chunks(
    fn: Callable[[int, np.random.Generator], T],
    total: int,
    *,
    seed: int | np.random.SeedSequence,
    key: str,
    chunk: int,
    workers: int | None = 1,
    scheduler: object = None,
    executor: Executor | None = None,
    placement: Callable[[str], None] | None = None,
    deadline: float | None = None,
) -> list[T]:
    """Call ``fn(size, rng)`` on each chunk of ``total`` items; results in chunk order.

    With ``deadline`` (a ``time.monotonic()`` time, see :func:`dpaudit.sim.limits.deadline_scope`)
    the result may be a *prefix*: chunks are started only before the deadline, and a local
    pool's chunks not finished by then are dropped (its processes are stopped), so
    ``len(result)`` chunks of :func:`chunk_sizes` were done. The cut is a chunk boundary chosen
    by the clock alone. A Dask cluster's chunks are not cut (the command's hard kill is the
    backstop there).

    Parameters
    ----------
    fn:
        ``fn(size, rng)`` for one chunk of ``size`` items with its own generator.
    total, chunk:
        Items in all and per chunk (fixed: they alone decide the chunks and their seeds).
    seed, key:
        Chunk ``i`` gets child ``i`` of ``child_seed(seed, key).spawn(n_chunks)``.
    workers:
        Local processes (``None``: one per core); ignored when a scheduler or an executor
        is in use.
    scheduler:
        A Dask scheduler address or ``distributed.Client``; ``None`` reads
        ``$DPAUDIT_SCHEDULER`` (unset or empty: no cluster). It takes precedence.
    executor:
        An open pool to reuse (callers that map many times, e.g. a sampler called once per
        audit stage, avoid starting a pool per call); otherwise one is started for this call
        when ``workers > 1`` and the work is worth it (see the module docstring).
    placement:
        Called with one line saying where the chunks ran when a planned pool was not used.
    """
    total = check_int("total", total, low=0)
    chunk = check_int("chunk", chunk, low=1)
    workers = default_workers() if workers is None else check_int("workers", workers, low=1)
    sizes = chunk_sizes(total, chunk)
    seqs = child_seed(seed, key).spawn(len(sizes))
    if not sizes:
        return []
    address = resolve_scheduler(scheduler)
    if address is not None:
        return _map_dask(fn, sizes, seqs, address)
    if executor is not None and len(sizes) > 1:
        caller, payload = _portable(fn)
        if deadline is not None:
            return _until(executor, caller, payload, sizes, seqs, deadline, own=False)
        return list(executor.map(caller, [payload] * len(sizes), sizes, seqs))
    if workers <= 1 or len(sizes) <= 1:
        return _serial(fn, sizes, seqs, deadline)
    procs = min(workers, len(sizes))
    probe = _probe_seconds(fn) * total  # the whole work's estimated serial seconds
    if probe * (1.0 - 1.0 / procs) < POOL_START_SECONDS:
        if placement is not None:
            placement(f"ran in one process: the work (about {probe:.2g} s, timed on one item) "
                      f"would save less than a {procs}-process pool's start-up "
                      f"(~{POOL_START_SECONDS:g} s)")
        return _serial(fn, sizes, seqs, deadline)
    caller, payload = _portable(fn)
    if deadline is not None:
        return _until(ProcessPoolExecutor(max_workers=procs), caller, payload, sizes, seqs,
                      deadline, own=True)
    with ProcessPoolExecutor(max_workers=procs) as pool:
        return list(pool.map(caller, [payload] * len(sizes), sizes, seqs))


def _serial(fn: Callable[[int, np.random.Generator], T], sizes: list[int], seqs: list,
            deadline: float | None) -> list[T]:
    """The chunks in this process; with a deadline, each is started only before it."""
    out: list[T] = []
    for s, q in zip(sizes, seqs, strict=True):
        if deadline is not None and time.monotonic() >= deadline:
            break
        out.append(_call(fn, s, q))
    return out


def _until(pool: Executor, caller: Callable, payload: Any, sizes: list[int], seqs: list,
           deadline: float, *, own: bool) -> list:
    """The chunks finished by ``deadline``, in chunk order up to the first unfinished one
    (later finished chunks are dropped too: the result is a prefix). ``own``: the pool was
    started here, and its processes are stopped at the deadline."""
    from concurrent.futures import TimeoutError as FutureTimeout

    futures = [pool.submit(caller, payload, s, q) for s, q in zip(sizes, seqs, strict=True)]
    out: list = []
    try:
        for fut in futures:
            left = deadline - time.monotonic()
            try:
                out.append(fut.result(timeout=max(left, 0.0)))
            except FutureTimeout:
                break
    finally:
        for fut in futures:
            fut.cancel()
        if own:
            procs = list(getattr(pool, "_processes", {}).values())
            if len(out) < len(futures):
                for proc in procs:  # a chunk still running past the deadline is not waited for
                    proc.kill()
            pool.shutdown(wait=True, cancel_futures=True)
    return out
