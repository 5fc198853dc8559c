"""Chunked, seeded parallel map: results never depend on the number of workers.

Work is cut into fixed chunks *before* any worker is involved; chunk ``i`` always gets child
``i`` of the task's :class:`~numpy.random.SeedSequence` (``spawn``), so one worker or many
produce bit-identical results. ``workers > 1`` uses a local process pool; the function must
be picklable (a module-level function or a ``functools.partial`` of one).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import TypeVar

import numpy as np

from .rng import child_seed

__all__ = ["chunk_sizes", "map_chunks"]

T = TypeVar("T")


def chunk_sizes(total: int, chunk: int) -> list[int]:
    """Split ``total`` items into chunks of ``chunk`` (the last may be smaller)."""
    full, rest = divmod(total, chunk)
    return [chunk] * full + ([rest] if rest else [])


def _call(fn: Callable[[int, np.random.Generator], T], size: int,
          seq: np.random.SeedSequence) -> T:
    return fn(size, np.random.Generator(np.random.PCG64(seq)))


def map_chunks(
    fn: Callable[[int, np.random.Generator], T],
    total: int,
    *,
    seed: int,
    key: str,
    chunk: int,
    workers: int = 1,
    executor: Executor | None = None,
) -> list[T]:
    """Call ``fn(size, rng)`` on each chunk of ``total`` items; results in chunk order.

    ``executor``: an open pool to reuse (callers that map many times, e.g. a sampler called
    once per audit stage, avoid starting a pool per call); otherwise one is started for this
    call when ``workers > 1``.
    """
    sizes = chunk_sizes(total, chunk)
    seqs = child_seed(seed, key).spawn(len(sizes))
    if executor is not None and len(sizes) > 1:
        return list(executor.map(_call, [fn] * len(sizes), sizes, seqs))
    if workers <= 1 or len(sizes) <= 1:
        return [_call(fn, s, q) for s, q in zip(sizes, seqs, strict=True)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_call, [fn] * len(sizes), sizes, seqs))
