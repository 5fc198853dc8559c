"""One scheduler for the pieces of a command: every worker busy while work remains.

A command made of independent pieces (the claims, findings and regret experiment of
``check``; the checks and experiments of ``claims``; the experiments of ``reproduce --all``)
hands them to :func:`run_graph` as :class:`Piece` objects. Each piece keeps its own seeded
generators (its results are a function of its key and the command's seed, never of where or
when it runs), so the results are the same for any number of workers, on a local pool or on a
Dask cluster; only wall-clock fields differ.

* Order: the pieces are started longest path first: a piece's rank is its own cost
  (:attr:`Piece.cost`, seconds measured on one worker and shipped with dpaudit, see
  :func:`known_cost`) plus the largest rank of the pieces that wait for it (the classic
  upward rank of list scheduling); unknown pieces keep their declared order after the known
  ones. A local worker is handed a piece only when it is free, so a piece that becomes ready
  late (one waiting for an exact search) starts before the short ones already ready, and a
  long chain does not start last and keep one worker busy while the others wait.
* Dependencies: a piece that reuses the work of others (``ctx.shared`` of a check: an exact
  search whose worst pair a sampled claim attacks) names them in :attr:`Piece.after`; it is
  submitted once they are done and receives what they exported (:attr:`PieceResult.exports`),
  so the shared work is done once, as in a serial run.
* Local: ``workers`` processes forked from this one (they inherit the pieces: nothing is
  pickled but the results and the work one piece hands to the next, pickled once on its
  way), each piece in one process, this process's heap frozen for the collector meanwhile
  (:func:`~dpaudit.runtime.parallel.frozen_heap`: the workers do not copy it page by page).
  A piece's own ``map_chunks`` calls share these processes through tokens
  (:mod:`dpaudit.runtime.parallel`, "Inside a scheduled piece"; :class:`_Tokens`): a worker
  that no ready piece needs computes the chunks of the pieces still running, and at most
  ``workers`` processes compute at once.
* Dask (``scheduler``: an address or ``distributed.Client``, or ``$DPAUDIT_SCHEDULER``): each
  piece is a task with its priority by rank, handed out only while the cluster has a thread
  no piece holds. The maps of the pieces handed out while others wait to start run in the
  piece's task, in order; those of the last pieces (or of a single one) send their chunks to
  the same cluster as tasks. (A task waiting for its chunks leaves its worker's thread, and a
  piece started in it would share one process, and its interpreter lock, with the chunks:
  ``check dp-ftpl-gauss`` on a cluster of 2 took about half as long again as on a pool of 2.)
* ``done(result)`` is called in this process as each piece completes (``check`` saves it for
  ``--resume`` there), in completion order.

With one worker and no scheduler the pieces run here, one after the other, in their declared
order: exactly the serial run (and a piece's chunks are saved for ``--resume`` as before).
A single piece on several workers runs here too, its chunks spread over helper processes
(and still saved here for ``--resume``: ``reproduce NAME --workers N``).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from dpaudit.runtime.parallel import _PIECE, frozen_heap, resolve_scheduler
from dpaudit.validation import InvalidParameterError, check_int

__all__ = ["COSTS_FILE", "Piece", "PieceResult", "known_cost", "run_graph", "upward_ranks"]

#: seconds per piece measured on one worker (``benchmarks/bench_schedule.py --write-costs``
#: writes those of the two FTPL checks)
COSTS_FILE = Path(__file__).with_name("piece_costs.json")


@cache
def _costs() -> dict[str, float]:
    try:
        data = json.loads(COSTS_FILE.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.get("seconds", {}).items()}


def known_cost(key: str, default: float = 0.0) -> float:
    """The seconds piece ``key`` took on one worker when the table was made (``default``
    when it is not in the table). Only the order of submission depends on it."""
    return _costs().get(key, default)


@dataclass(frozen=True)
class Piece:
    """One piece of work: ``run(imports)`` returns ``(value, exports)``.

    ``imports`` holds the exports of the pieces named in ``after`` (merged in their declared
    order); ``exports`` is what this piece offers to the pieces after it (values that cannot
    be pickled are left out: those pieces then compute them again, with the same result).
    """

    key: str
    run: Callable[[dict[Hashable, Any]], tuple[Any, dict[Hashable, Any]]]
    cost: float = 0.0
    after: tuple[str, ...] = ()
    label: str = ""


@dataclass(frozen=True)
class PieceResult:
    """A piece's value, its seconds and ``exports``: the work it offers to the pieces after it
    (from a local pool's worker, each value still pickled: it is unpickled by the piece that
    imports it)."""

    key: str
    value: Any
    seconds: float
    exports: dict[Hashable, Any] = field(default_factory=dict)


def _pickler() -> Any:
    """cloudpickle when installed (it comes with dask: closures travel), else pickle."""
    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - dask's extra not installed
        import pickle as cloudpickle
    return cloudpickle


def _portable_exports(exports: dict[Hashable, Any]) -> dict[Hashable, Any]:
    """The exports that can travel (a Dask task's result; the others are left out)."""
    blobs = _pickled_exports(exports)
    return {k: v for k, v in exports.items() if k in blobs}


def _pickled_exports(exports: dict[Hashable, Any]) -> dict[Hashable, bytes]:
    """Each export that can travel, pickled once (those that cannot are left out: the pieces
    after compute them again). A local graph keeps them pickled until the piece that imports
    them unpickles them: a large export (an exact search's table of laws) is not pickled
    again on its way through this process."""
    cloudpickle = _pickler()
    out = {}
    for k, v in exports.items():
        try:
            cloudpickle.dumps(k)
            out[k] = cloudpickle.dumps(v)
        except Exception:  # noqa: BLE001 - anything that cannot travel is recomputed there
            continue
    return out


def _timed(piece: Piece, imports: dict[Hashable, Any]) -> tuple[Any, float, dict]:
    start = time.perf_counter()
    value, exports = piece.run(imports)
    return value, time.perf_counter() - start, exports


# -- local processes -------------------------------------------------------------------------
#: the graphs being run, by id: worker processes forked from this one inherit them
_GRAPHS: dict[int, Sequence[Piece]] = {}
_TOKENS: Any = None
_graph_ids = itertools.count()


def _init_worker(tokens: Any) -> None:
    global _TOKENS
    _TOKENS = tokens


def _local_piece(graph: int, index: int, imports: dict[Hashable, bytes]) -> bytes:
    """Piece ``index`` of graph ``graph`` in a worker process, on the token the scheduler
    holds for it (:class:`_Tokens`). Its imports and exports travel pickled
    (:func:`_pickled_exports`)."""
    cloudpickle = _pickler()
    token = _PIECE.set(_TOKENS)
    try:
        value, seconds, exports = _timed(_GRAPHS[graph][index],
                                         {k: cloudpickle.loads(b) for k, b in imports.items()})
    finally:
        _PIECE.reset(token)
    return cloudpickle.dumps((value, seconds, _pickled_exports(exports)))


def _dask_piece(piece: Piece, imports: dict[Hashable, Any], spread: bool = True
                ) -> tuple[Any, float, dict]:
    """Piece ``piece`` as a task of a Dask cluster. ``spread``: its maps submit their chunks
    to the cluster (a task waiting for them leaves its worker's thread); otherwise they run in
    this task, in order, as a chunk's own maps do (:func:`_run_dask` says which)."""
    token = _PIECE.set("dask" if spread else "chunk")
    try:
        value, seconds, exports = _timed(piece, imports)
    finally:
        _PIECE.reset(token)
    return value, seconds, _portable_exports(exports)


def _needs(pieces: Sequence[Piece]) -> dict[str, tuple[str, ...]]:
    """Each piece's :attr:`Piece.after` among the pieces given (others are not waited for)."""
    present = {p.key for p in pieces}
    return {p.key: tuple(a for a in p.after if a in present) for p in pieces}


def upward_ranks(pieces: Sequence[Piece]) -> dict[str, float]:
    """Each piece's cost plus the largest rank among the pieces that wait for it: the seconds
    from its start to the end of the longest chain through it. A cycle of dependencies is a
    usage error."""
    cost = {p.key: p.cost for p in pieces}
    waiting: dict[str, list[str]] = {p.key: [] for p in pieces}
    for k, ns in _needs(pieces).items():
        for a in ns:
            waiting[a].append(k)
    rank: dict[str, float] = {}

    def of(k: str, seen: frozenset[str] = frozenset()) -> float:
        if k not in rank:
            if k in seen:
                raise InvalidParameterError(f"pieces depend on each other in a cycle at {k!r}")
            rank[k] = cost[k] + max((of(d, seen | {k}) for d in waiting[k]), default=0.0)
        return rank[k]

    for p in pieces:
        of(p.key)
    return rank


class _Graph:
    """The bookkeeping shared by both backends: readiness, imports, results."""

    def __init__(self, pieces: Sequence[Piece]) -> None:
        keys = [p.key for p in pieces]
        if len(set(keys)) != len(keys):
            raise InvalidParameterError(f"piece keys must be unique, got {keys!r}")
        self.pieces = pieces
        self.needs = _needs(pieces)
        # longest path first; the declared order among equals (sorted() is stable)
        rank = upward_ranks(pieces)
        self.order = sorted(range(len(pieces)), key=lambda i: -rank[pieces[i].key])
        self.results: dict[str, PieceResult] = {}
        self.submitted: set[str] = set()

    def _ready_now(self, p: Piece) -> bool:
        """Not handed out yet, and its dependencies done."""
        return p.key not in self.submitted and all(a in self.results for a in self.needs[p.key])

    def has_ready(self) -> bool:
        """Whether a piece not handed out yet has its dependencies done."""
        return any(self._ready_now(p) for p in self.pieces)

    def ready(self, most: int | None = None) -> list[int]:
        """The pieces whose dependencies are done and not yet handed out, best first (at most
        ``most``), marked as handed out."""
        out: list[int] = []
        for i in self.order:
            if most is not None and len(out) >= most:
                break
            p = self.pieces[i]
            if self._ready_now(p):
                self.submitted.add(p.key)
                out.append(i)
        return out

    def imports(self, i: int) -> dict[Hashable, Any]:
        """The exports of every piece piece ``i`` comes after, directly or through others
        (each piece exports only what it added: what it received is not sent back)."""
        merged: dict[Hashable, Any] = {}
        seen: set[str] = set()

        def add(key: str) -> None:
            for a in self.needs[key]:
                if a not in seen:
                    seen.add(a)
                    add(a)
                    merged.update(self.results[a].exports)

        add(self.pieces[i].key)
        return merged

    def finish(self, i: int, value: Any, seconds: float, exports: dict,
               done: Callable[[PieceResult], None] | None) -> None:
        res = PieceResult(self.pieces[i].key, value, seconds, exports)
        self.results[res.key] = res
        if done is not None:
            done(res)


def run_graph(pieces: Sequence[Piece], *, workers: int = 1, scheduler: object = None,
              done: Callable[[PieceResult], None] | None = None) -> dict[str, PieceResult]:
    """Run ``pieces`` (see the module docstring); their results by key."""
    workers = check_int("workers", workers, low=1)
    address = resolve_scheduler(scheduler)
    graph = _Graph(pieces)
    if not pieces:
        return {}
    if address is not None:
        _run_dask(graph, address, done)
    elif workers <= 1 or _PIECE.get() is not None or not _can_fork():
        _run_here(graph, done)
    elif len(pieces) == 1:
        _run_here(graph, done, tokens=workers)
    else:
        _run_local(graph, min(workers, len(pieces)), done)
    return graph.results


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _run_here(graph: _Graph, done: Callable[[PieceResult], None] | None, *,
              tokens: int = 0) -> None:
    """One after the other in this process, in the declared order (a serial run). With
    ``tokens`` (one piece on several workers) the piece holds one of that many tokens and its
    chunks take the others (helper processes forked from this one): its chunks are still
    saved here for ``--resume``."""
    import multiprocessing

    sem = None
    if tokens > 1:
        sem = multiprocessing.get_context("fork").Semaphore(tokens)
        sem.acquire()
    exports: dict[Hashable, Any] = {}
    for i, piece in enumerate(graph.pieces):
        token = None if sem is None else _PIECE.set(sem)
        try:
            value, seconds, new = _timed(piece, dict(exports))
        finally:
            if token is not None:
                _PIECE.reset(token)
        exports.update(new)
        graph.finish(i, value, seconds, new, done)


#: how often the scheduler looks for a token while a ready piece waits for one
TOKEN_POLL_SECONDS = 0.01
#: how long it waits for one when no piece runs (only a helper still exiting holds it)
TOKEN_LOST_SECONDS = 5.0


class _Tokens:
    """The scheduler's side of the token semaphore (see the module docstring): it holds the
    token of every piece it hands out, takes it back when the piece ends and hands it straight
    to the next ready piece; only a token no ready piece needs is given back to the semaphore,
    where the helpers of the running pieces' maps take it. So a helper never delays a ready
    piece: the pieces run in the order of their ranks, and the workers that would be idle
    compute the chunks of the maps still running."""

    def __init__(self, sem: Any, workers: int) -> None:
        self.sem = sem
        self.held = 0
        while self.held < workers and sem.acquire(False):
            self.held += 1

    def take(self, running: bool) -> bool:
        """One for the next piece: ``False`` while the helpers of running pieces hold them
        all. With no piece running, a token not back within :data:`TOKEN_LOST_SECONDS` was
        lost with a helper stopped by force: the piece goes on without it (one process more
        may then compute; one too few could stop the graph)."""
        if not self.held:
            if self.sem.acquire(False):
                self.held += 1
            elif running:
                return False
            else:
                self.sem.acquire(timeout=TOKEN_LOST_SECONDS)
                self.held += 1
        self.held -= 1
        return True

    def back(self) -> None:
        """A piece ended: its token is the scheduler's again."""
        self.held += 1

    def free(self) -> None:
        """No ready piece needs the tokens held: the helpers may take them."""
        for _ in range(self.held):
            self.sem.release()
        self.held = 0


def _run_local(graph: _Graph, workers: int, done: Callable[[PieceResult], None] | None
               ) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    cloudpickle = _pickler()
    mp = multiprocessing.get_context("fork")
    tokens = mp.Semaphore(workers)
    own = _Tokens(tokens, workers)
    gid = next(_graph_ids)
    _GRAPHS[gid] = graph.pieces  # before the first submit: the workers fork with it
    with frozen_heap():  # the workers do not copy this process's heap (see there)
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp, initializer=_init_worker,
                                   initargs=(tokens,))
        running: dict[Any, int] = {}
        clean = False
        try:
            while True:
                # a worker is handed the best ready piece only when it is free (a piece queued
                # early would otherwise run before a longer one that becomes ready later), and
                # with a token taken here, so a map of a piece already running recruits only
                # the workers that no piece was handed; while the helpers of such a map hold
                # every token, the ready piece waits for one
                short = False
                while len(running) < workers and graph.has_ready():
                    if not own.take(bool(running)):
                        short = True
                        break
                    i = graph.ready(most=1)[0]
                    running[pool.submit(_local_piece, gid, i, graph.imports(i))] = i
                if not graph.has_ready():
                    own.free()
                if not running:
                    break
                finished, _ = wait(list(running), return_when=FIRST_COMPLETED,
                                   timeout=TOKEN_POLL_SECONDS if short else None)
                for fut in finished:
                    own.back()
                    i = running.pop(fut)
                    value, seconds, exports = cloudpickle.loads(fut.result())
                    graph.finish(i, value, seconds, exports, done)
            clean = True
        finally:
            _GRAPHS.pop(gid, None)
            if clean:
                pool.shutdown(wait=True)
            else:  # an error or an interruption: stop the pieces still running
                procs = list(getattr(pool, "_processes", {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                for proc in procs:
                    if proc.is_alive():
                        proc.kill()


def _run_dask(graph: _Graph, address: Any, done: Callable[[PieceResult], None] | None
              ) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise InvalidParameterError(
            f"scheduler={address!r} needs dask.distributed: pip install 'dpaudit[dask]'"
        ) from None
    if isinstance(address, str):
        try:
            client = Client(address, timeout="20s", set_as_default=False)
        except OSError as exc:
            raise InvalidParameterError(
                f"scheduler={address!r} cannot be reached ({exc}); start one with "
                "`dask scheduler` and workers with `dask worker ADDRESS`") from None
        own = True
    else:
        client, own = address, False
    tag = f"dpaudit-{os.getpid()}-{time.time_ns()}"
    rank = {i: len(graph.order) - r for r, i in enumerate(graph.order)}
    try:
        running: dict[str, int] = {}

        def submit() -> list:
            # as on a local pool, a piece is handed out only while the cluster has a thread
            # no piece holds, and its maps spread their chunks over the cluster only when no
            # other piece is left to start (the last pieces): a piece waiting for its chunks
            # leaves its thread, and a piece started there would share one process, and its
            # interpreter lock, with the chunks while another worker computes only chunks
            threads = max(1, sum(client.nthreads().values()))
            handed = graph.ready(most=max(0, threads - len(running)))
            spread = not graph.has_ready()
            futures = []
            for i in handed:
                fut = client.submit(_dask_piece, graph.pieces[i], graph.imports(i), spread,
                                    key=f"{tag}-{i}", priority=rank[i], pure=False)
                running[str(fut.key)] = i
                futures.append(fut)
            return futures

        with client.as_current():  # as_completed finds its client so
            ready = as_completed(submit())
            for fut in ready:
                i = running.pop(str(fut.key))
                value, seconds, exports = fut.result()
                graph.finish(i, value, seconds, exports, done)
                for more in submit():
                    ready.add(more)
    finally:
        if own:
            client.close()
