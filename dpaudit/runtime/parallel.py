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
  ``placement`` callback is told why (the results are the same either way). The same cost
  per item sets how many chunks go to a worker in one task (:func:`task_batches`: tasks of
  at least :data:`MIN_TASK_SECONDS`, at least two per process), so cheap chunks do not pay
  a round trip each; the chunks and their seeds do not change.
* a :class:`SharedPool` (``pool=``): one local pool, started on first use and reused by
  every map of a caller with several stages (a sampled audit's selection and measurement
  on both sides), so the start-up is paid once.

Resumable runs (:func:`dpaudit.runtime.state.chunk_scope`, opened by the commands): each
finished chunk's result is saved as it arrives, in chunk order, and a resumed call computes
only the chunks not saved (each still with its own child seed), so its results are the
uninterrupted call's.

The function must be picklable for the local pool; a closure (a ``lambda`` sampler) is sent
with ``cloudpickle`` when it is installed (it comes with ``dask``).

Inside a scheduled piece (:mod:`dpaudit.runtime.schedule`: a claim of ``check --workers N``, a
check of ``claims``, an experiment of ``reproduce --all``) the piece's own chunks share the
piece scheduler's workers instead of starting a pool of their own, so nested maps neither
deadlock nor oversubscribe the cores:

* local pool: there is one *token* per worker process (a semaphore shared by its
  processes); the scheduler holds one for each piece it hands out and gives a token to the
  semaphore only when no ready piece needs it. A piece's ``map_chunks`` computes the chunks
  in its own process, in order, and after its first chunk (when the rest is worth it) takes
  every token that is free at that moment or freed later: each becomes a helper process
  forked from the piece's process (it inherits ``fn``; nothing is pickled but the results)
  that claims chunks from the same counter and gives its token back when it has no chunk
  left to claim. The items of :func:`map_items` (each the caller's own unit of work, such as
  the two sides of a sampled attack) take a free token from the first item on, and one more
  helper waits for the next token freed while they run (a few milliseconds of forking per
  call). So at most N processes compute at once, a helper never delays a piece that is ready
  to start, and when no other piece is left to start, the last pieces' chunks spread over
  every worker.
* Dask: the piece runs as a task; its chunks are submitted from that task to the same
  cluster (``distributed.worker_client``: the task leaves its worker's thread pool while it
  waits, so a cluster of any size cannot deadlock).
* a ``map_chunks`` inside a chunk runs in that chunk's process, in order.

The chunks and their seeds do not change, so the results do not either.
"""

from __future__ import annotations

import gc
import os
import pickle
import queue
import time
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from functools import partial
from typing import Any, TypeVar

import numpy as np

from dpaudit.runtime.state import chunk_store, inside_chunk
from dpaudit.stats.rng import child_seed
from dpaudit.validation import InvalidParameterError, check_int

__all__ = ["MIN_TASK_SECONDS", "POOL_START_SECONDS", "SCHEDULER_ENV", "SharedPool",
           "chunk_runs", "chunk_sizes", "default_workers", "frozen_heap", "in_piece",
           "map_chunks", "map_items", "resolve_scheduler", "task_batches"]

T = TypeVar("T")

SCHEDULER_ENV = "DPAUDIT_SCHEDULER"

#: start-up of a local pool: processes, dpaudit's imports and the cached compiled kernels in
#: each (about 1-2 s on a 2-core machine); work that saves less stays in this process
POOL_START_SECONDS = 2.0
#: shortest task sent to a worker, by the measured cost per item (a task's round trip:
#: pickling the function and its arguments, about a millisecond)
MIN_TASK_SECONDS = 0.05
#: a piece's map shares the workers only when the chunks left, at its first chunk's cost,
#: would take longer than this (forking a helper costs a few milliseconds)
SHARE_SECONDS = 0.2
#: how often a helper waiting for a free worker looks again (and whether it is still needed)
WAIT_POLL_SECONDS = 0.01

#: the piece running in this context: ``None`` (not in a scheduled piece), ``"dask"`` (a task
#: of a Dask graph), ``"chunk"`` (inside one chunk: nested maps run in order, here) or the
#: local scheduler's token semaphore (see the module docstring)
_PIECE: ContextVar[Any] = ContextVar("dpaudit_scheduled_piece", default=None)


def in_piece() -> bool:
    """Whether the code running now is a scheduled piece (or a chunk of one): its maps share
    the scheduler's workers (see the module docstring), it starts no pool of its own."""
    return _PIECE.get() is not None


_frozen = 0


@contextmanager
def frozen_heap() -> Iterator[None]:
    """While processes forked from this one run: the objects alive now are left out of the
    garbage collector's passes (:func:`gc.freeze`), here and in the children.

    A forked child shares its parent's memory until it writes to a page; a full collection in
    the child writes to the header of every object it tracks, so without this each worker
    of a pool copies the parent's whole heap (imports of scipy, sympy, numba: hundreds of
    megabytes) page by page, on the clock of its first pieces. Nested uses count; the last
    one out gives the objects back to the collector (:func:`gc.unfreeze`)."""
    global _frozen
    if _frozen == 0:
        gc.freeze()
    _frozen += 1
    try:
        yield
    finally:
        _frozen -= 1
        if _frozen == 0:
            gc.unfreeze()


class SharedPool:
    """``workers`` local processes, started on first use and shut down by :meth:`close` (or
    the ``with`` block): several :func:`map_chunks` calls of one caller share them."""

    def __init__(self, workers: int) -> None:
        self.workers = check_int("workers", workers, low=1)
        self._pool: ProcessPoolExecutor | None = None
        self._frozen: ExitStack | None = None

    @property
    def started(self) -> bool:
        return self._pool is not None

    def executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._frozen = ExitStack()
            self._frozen.enter_context(frozen_heap())
            self._pool = ProcessPoolExecutor(max_workers=self.workers)
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        if self._frozen is not None:
            self._frozen.close()
            self._frozen = None

    def __enter__(self) -> SharedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def task_batches(n_chunks: int, seconds_per_chunk: float, procs: int) -> int:
    """Chunks per task: enough for :data:`MIN_TASK_SECONDS` at the measured cost per chunk,
    but at least two tasks per process while there are chunks for them (load balance)."""
    if n_chunks <= 0:
        return 1
    want = max(1, int(np.ceil(MIN_TASK_SECONDS / max(seconds_per_chunk, 1e-9))))
    return max(1, min(want, n_chunks // (2 * max(1, procs)) or 1))


def chunk_sizes(total: int, chunk: int) -> list[int]:
    """Split ``total`` items into chunks of ``chunk`` (the last may be smaller)."""
    full, rest = divmod(total, chunk)
    return [chunk] * full + ([rest] if rest else [])


def chunk_runs(runs: int, *, most: int | None = None) -> int:
    """Runs per chunk for simulated runs: a function of ``runs`` (and ``most``) only, never of
    the workers: at most 16 chunks, at least 10 runs each, so lockstep simulators keep their
    vector width; and at most ``most`` runs per chunk (``simulate`` caps a chunk's memory so,
    and then has more chunks: memory does not grow with the number of runs)."""
    runs = check_int("runs", runs, low=1)
    size = max(min(runs, 10), -(-runs // 16))
    if most is not None:
        size = min(size, max(check_int("most", most, low=1), 10))
    return size


def _item_call(fn: Callable[[Any], T], items: list, index: int,
               rng: np.random.Generator) -> T:
    return fn(items[index - 1])


def map_items(fn: Callable[[Any], T], items: Any, *, workers: int = 1) -> list[T]:
    """``[fn(item) for item in items]`` for deterministic work (no generator), placed as
    :func:`map_chunks` places chunks: inside a scheduled piece the items share the
    scheduler's workers (an exact search's independent evaluations), else ``workers`` local
    processes. Results in item order, the same wherever they ran; never saved for
    ``--resume`` (the piece is)."""
    items = list(items)
    if not items:
        return []
    workers = check_int("workers", workers, low=1)
    if _PIECE.get() is None and workers <= 1:
        return [fn(x) for x in items]
    # chunk i's "size" is i + 1: the item's position (the generator is not used)
    sizes = list(range(1, len(items) + 1))
    seqs = [np.random.SeedSequence(0)] * len(items)
    return list(_execute(partial(_item_call, fn, items), sizes, seqs, None, None, workers,
                         None, eager=True))


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


def _call_batch(caller: Callable, payload: Any, sizes: list[int], seqs: list) -> list:
    """Several chunks in one task, each with its own seed (results as if sent one by one)."""
    return [caller(payload, s, q) for s, q in zip(sizes, seqs, strict=True)]


def _batched(pool: Executor, caller: Callable, payload: Any, sizes: list[int], seqs: list,
             batch: int) -> Iterator:
    """The chunks' results in chunk order, each batch's as soon as it (and those before it)
    is done, so a resumable caller saves them as they arrive."""
    if batch <= 1:
        yield from pool.map(caller, [payload] * len(sizes), sizes, seqs)
        return
    starts = range(0, len(sizes), batch)
    parts = pool.map(_call_batch, [caller] * len(starts), [payload] * len(starts),
                     [sizes[i:i + batch] for i in starts], [seqs[i:i + batch] for i in starts])
    for part in parts:
        yield from part


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
    pool: SharedPool | None = None,
    deadline: float | None = None,
    resumable: bool = True,
) -> list[T]:
    """Call ``fn(size, rng)`` on each chunk of ``total`` items; results in chunk order.

    With ``deadline`` (a ``time.monotonic()`` time, see
    :func:`dpaudit.runtime.limits.deadline_scope`) the result may be a *prefix*: chunks are
    started only before the deadline, and a local pool's chunks not finished by then are
    dropped (its processes are stopped), so ``len(result)`` chunks of :func:`chunk_sizes` were
    done. The cut is a chunk boundary chosen by the clock alone. A Dask cluster's chunks are
    not cut (the command's hard kill is the backstop there).

    Parameters
    ----------
    fn:
        ``fn(size, rng)`` for one chunk of ``size`` items with its own generator.
    total, chunk:
        Items in all and per chunk (fixed: they alone decide the chunks and their seeds).
    seed, key:
        Chunk ``i`` gets child ``i`` of ``child_seed(seed, key).spawn(n_chunks)``.
    workers:
        Local processes (``None``: one per core); ignored when a scheduler, an executor or
        a shared pool is in use.
    scheduler:
        A Dask scheduler address or ``distributed.Client``; ``None`` reads
        ``$DPAUDIT_SCHEDULER`` (unset or empty: no cluster). It takes precedence.
    executor:
        An open pool to reuse (callers that map many times, e.g. a sampler called once per
        audit stage, avoid starting a pool per call); otherwise one is started for this call
        when ``workers > 1`` and the work is worth it (see the module docstring).
    placement:
        Called with one line saying where the chunks ran when a planned pool was not used.
    pool:
        A :class:`SharedPool`: its processes run the chunks (started here if the work is
        worth the start-up, as for ``workers``; once started, always used).
    resumable:
        ``False``: the chunks are never saved for ``--resume`` (results too large for the
        state file, such as a sampled audit's selection sample: recomputed on resume).
    """
    total = check_int("total", total, low=0)
    chunk = check_int("chunk", chunk, low=1)
    workers = default_workers() if workers is None else check_int("workers", workers, low=1)
    if pool is not None:
        workers = pool.workers
    sizes = chunk_sizes(total, chunk)
    seqs = child_seed(seed, key).spawn(len(sizes))
    if not sizes:
        return []
    address = resolve_scheduler(scheduler)
    store = chunk_store(fn, child_seed(seed, key), total, chunk, len(sizes)) if resumable \
        else None
    if store is None:
        return list(_execute(fn, sizes, seqs, address, executor, workers, placement, pool,
                             deadline))
    done: dict[int, T] = store.load()
    todo = [i for i in range(len(sizes)) if i not in done]
    results = _execute(fn, [sizes[i] for i in todo], [seqs[i] for i in todo], address,
                       executor, workers, placement, pool, deadline)
    try:
        with inside_chunk():  # a map_chunks inside fn is part of its chunk
            for i in todo:
                with store.computing(i):  # in this process, fn may save progress inside i
                    out = next(results, _CUT)
                if out is _CUT:  # the deadline passed: the chunks from i on were not run
                    break
                done[i] = out
                store.save(i, out)
    finally:
        results.close()
        store.flush()
    prefix: list[T] = []  # chunk order up to the first chunk not done (all of them, unless cut)
    for i in range(len(sizes)):
        if i not in done:
            break
        prefix.append(done[i])
    return prefix


#: the end of a deadline-cut chunk stream
_CUT: Any = object()


def _execute(fn: Callable[[int, np.random.Generator], T], sizes: list[int], seqs: list,
             address: Any, executor: Executor | None, workers: int,
             placement: Callable[[str], None] | None, pool: SharedPool | None = None,
             deadline: float | None = None, eager: bool = False) -> Generator[T, None, None]:
    """The chunks' results in chunk order, each as soon as it (and those before it) is done."""
    if not sizes:
        return
    mode = _PIECE.get()
    if mode is not None:  # a scheduled piece: share its scheduler's workers
        if mode == "chunk" or len(sizes) <= 1:
            yield from _serial(fn, sizes, seqs, deadline)
        elif mode == "dask":
            yield from _map_dask_nested(fn, sizes, seqs)
        else:
            yield from _shared_chunks(fn, sizes, seqs, deadline, mode, eager=eager)
        return
    if address is not None:
        yield from _map_dask(fn, sizes, seqs, address)
        return
    if executor is not None and len(sizes) > 1:
        caller, payload = _portable(fn)
        if deadline is not None:
            yield from _until(executor, caller, payload, sizes, seqs, deadline, own=False)
            return
        yield from executor.map(caller, [payload] * len(sizes), sizes, seqs)
        return
    if workers <= 1 or len(sizes) <= 1:
        yield from _serial(fn, sizes, seqs, deadline)
        return
    procs = min(workers, len(sizes))
    per_item = _probe_seconds(fn)
    probe = per_item * sum(sizes)  # the whole work's estimated serial seconds
    started = pool is not None and pool.started
    if not started and probe * (1.0 - 1.0 / procs) < POOL_START_SECONDS:
        if placement is not None:
            placement(f"ran in one process: the work (about {probe:.2g} s, timed on one item) "
                      f"would save less than a {procs}-process pool's start-up "
                      f"(~{POOL_START_SECONDS:g} s)")
        yield from _serial(fn, sizes, seqs, deadline)
        return
    caller, payload = _portable(fn)
    if deadline is not None:
        if pool is not None:
            yield from _until(pool.executor(), caller, payload, sizes, seqs, deadline,
                              own=False)
        else:
            with frozen_heap():
                yield from _until(ProcessPoolExecutor(max_workers=procs), caller, payload,
                                  sizes, seqs, deadline, own=True)
        return
    batch = task_batches(len(sizes), per_item * max(sizes), procs)
    if pool is not None:
        yield from _batched(pool.executor(), caller, payload, sizes, seqs, batch)
        return
    with frozen_heap(), ProcessPoolExecutor(max_workers=procs) as own:
        yield from _batched(own, caller, payload, sizes, seqs, batch)


def _serial(fn: Callable[[int, np.random.Generator], T], sizes: list[int], seqs: list,
            deadline: float | None) -> Iterator[T]:
    """The chunks in this process; with a deadline, each is started only before it."""
    for s, q in zip(sizes, seqs, strict=True):
        if deadline is not None and time.monotonic() >= deadline:
            return
        yield _in_chunk(fn, s, q)


def _in_chunk(fn: Callable[[int, np.random.Generator], T], size: int,
              seq: np.random.SeedSequence) -> T:
    """One chunk; inside a scheduled piece, its own maps run here, in order."""
    if _PIECE.get() is None:
        return _call(fn, size, seq)
    token = _PIECE.set("chunk")
    try:
        return _call(fn, size, seq)
    finally:
        _PIECE.reset(token)


def _dask_chunk(fn: Callable, size: int, seq: np.random.SeedSequence) -> Any:
    token = _PIECE.set("chunk")
    try:
        return _call(fn, size, seq)
    finally:
        _PIECE.reset(token)


#: Dask priority of a piece's chunks: above every piece, so started pieces finish first
CHUNK_PRIORITY = 1_000_000


def _map_dask_nested(fn: Callable, sizes: list[int], seqs: list) -> Iterator:
    """A Dask piece's chunks, submitted from its task to the same cluster (the task secedes
    from its worker's thread pool while it waits: no deadlock on a cluster of any size)."""
    from distributed import worker_client

    with worker_client() as client:
        # the function (a sampler, an exact search's policy with its items) travels once to
        # each worker that needs it, not once per chunk
        shared = client.scatter(fn, hash=False)
        futures = client.map(_dask_chunk, [shared] * len(sizes), sizes, seqs, pure=False,
                             priority=CHUNK_PRIORITY)
        yield from client.gather(futures)


def _helper(fn: Callable, sizes: list[int], seqs: list, claim: Any, out: Any, me: int,
            tokens: Any, holding: Any, wait: bool) -> None:
    """A forked helper of a piece: claim chunks from the shared counter until none is left,
    sending ``(index, ok, result or error)``, then give its token back and send ``(-1, me)``.

    It was forked holding a token the piece took for it, or (``wait``) it first waits for one
    to become free, giving up as soon as every chunk is claimed. ``holding[me]`` says whether
    it holds a token (the piece gives it back for a helper it had to stop)."""
    _PIECE.set("chunk")
    piece = os.getppid()
    try:
        while wait:
            with claim.get_lock():
                if claim.value >= len(sizes) or os.getppid() != piece:
                    return  # every chunk claimed, or the piece was stopped
            # the flag is up before the token is taken and down after it is given back: a
            # helper stopped in between gives one back too many (one process more computes),
            # never one too few (which could leave a ready piece waiting for ever)
            holding[me] = 1
            if tokens.acquire(timeout=WAIT_POLL_SECONDS):
                break
            holding[me] = 0
        while True:
            with claim.get_lock():
                i = claim.value
                if i >= len(sizes):
                    break
                claim.value = i + 1
            try:
                got = _call(fn, sizes[i], seqs[i])
            except BaseException as exc:  # sent to the piece, which raises it
                try:
                    pickle.dumps(exc)
                except Exception:
                    exc = RuntimeError(f"{type(exc).__name__}: {exc}")
                out.put((i, False, exc))
                break
            out.put((i, True, got))
    finally:
        if holding[me]:
            tokens.release()
            holding[me] = 0
        out.put((-1, me))


def _shared_chunks(fn: Callable[[int, np.random.Generator], T], sizes: list[int], seqs: list,
                   deadline: float | None, tokens: Any, *, eager: bool = False
                   ) -> Iterator[T]:
    """A local piece's chunks, in chunk order: computed here, and by a helper for every
    scheduler token free after the first chunk (see the module docstring). ``eager`` (the
    items of :func:`map_items`, each the caller's own unit of work): helpers from the start,
    and one that waits for the next worker to become free."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - Windows
        yield from _serial(fn, sizes, seqs, deadline)
        return
    with frozen_heap():  # the helpers fork from here
        yield from _shared_forked(fn, sizes, seqs, deadline, tokens, eager)


def _shared_forked(fn: Callable[[int, np.random.Generator], T], sizes: list[int], seqs: list,
                   deadline: float | None, tokens: Any, eager: bool) -> Iterator[T]:
    import multiprocessing

    mp = multiprocessing.get_context("fork")
    n = len(sizes)
    claim = mp.Value("q", 0)
    out = mp.Queue()
    holding = mp.RawArray("b", n + 1)  # helper i holds a token (at most n helpers start)
    helpers: dict[int, Any] = {}  # live helper processes
    done: dict[int, T] = {}
    started: list[Any] = []
    first_cost: float | None = None
    waiting = False  # a helper waiting for a token was started
    nxt = 0

    def collect(block: bool) -> None:
        while helpers:
            try:
                item = out.get(block=block, timeout=1.0 if block else None)
            except queue.Empty:
                if block and not any(h.is_alive() for h in helpers.values()):
                    raise RuntimeError("a helper process of a scheduled piece died") from None
                if block:
                    continue
                return
            if item[0] == -1:
                helpers.pop(item[1]).join()
            else:
                i, ok, got = item
                if not ok:
                    raise got
                done[i] = got
            block = False

    def start(wait: bool) -> None:
        me = len(started)
        holding[me] = 0 if wait else 1
        h = mp.Process(target=_helper,
                       args=(fn, sizes, seqs, claim, out, me, tokens, holding, wait))
        h.start()
        started.append(h)
        helpers[me] = h

    def recruit() -> None:
        nonlocal waiting
        left = n - claim.value
        if left < 2 or (not eager and (first_cost is None or first_cost * left < SHARE_SECONDS)):
            return
        while len(helpers) < left - 1 and len(started) < n and tokens.acquire(False):
            start(wait=False)
        if eager and not waiting and len(helpers) < left - 1 and len(started) < n:
            # the items are each worth a process: a worker that becomes free while they
            # run (a piece ending elsewhere) takes the ones not started yet
            waiting = True
            start(wait=True)

    try:
        while nxt < n:
            if nxt in done:
                yield done.pop(nxt)
                nxt += 1
                continue
            collect(block=False)
            recruit()
            if deadline is not None and time.monotonic() >= deadline:
                with claim.get_lock():
                    claim.value = n  # no chunk is started after the deadline
            with claim.get_lock():
                i = claim.value
                if i < n:
                    claim.value = i + 1
            if i < n:
                begin = time.perf_counter()
                done[i] = _in_chunk(fn, sizes[i], seqs[i])
                if first_cost is None:
                    first_cost = time.perf_counter() - begin
            elif helpers:
                collect(block=True)
            elif nxt not in done:
                return  # cut by the deadline: the prefix done so far
    finally:
        with claim.get_lock():
            claim.value = n
        for me, h in helpers.items():  # a helper still waiting for a token, or an error
            h.join(timeout=max(0.1, 4 * WAIT_POLL_SECONDS))
            if h.is_alive():
                h.kill()
                h.join()
                if holding[me]:
                    holding[me] = 0
                    tokens.release()
        out.close()


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
