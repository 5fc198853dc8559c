"""Seeded generators, all derived from :class:`numpy.random.SeedSequence`.

No code in dpaudit touches the global ``np.random`` state. A check gets one root seed; every
independent piece of work (a claim, a sample split, a chunk of simulated runs) gets a child
sequence keyed by a stable path, so adding a claim or changing the number of workers never
changes the random numbers another piece sees.
"""

from __future__ import annotations

import hashlib

import numpy as np

from dpaudit.validation import check_int

__all__ = ["DEFAULT_SEED", "child_seed", "generator", "spawn_generators"]

DEFAULT_SEED = 20221122


def _key_words(key: str) -> list[int]:
    digest = hashlib.sha256(key.encode()).digest()
    return [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]


def child_seed(seed: int | np.random.SeedSequence, *keys: str | int) -> np.random.SeedSequence:
    """A seed sequence for the named piece of work under ``seed``.

    The same ``(seed, keys)`` always gives the same stream; different keys give independent
    streams (the keys are hashed into the sequence's spawn key).
    """
    if isinstance(seed, np.random.SeedSequence):
        root_entropy, root_key = seed.entropy, tuple(seed.spawn_key)
    else:
        root_entropy, root_key = check_int("seed", seed, low=0), ()
    words: list[int] = list(root_key)
    for k in keys:
        words.extend(_key_words(str(k)))
    return np.random.SeedSequence(root_entropy, spawn_key=tuple(words))


def generator(seed: int | np.random.SeedSequence, *keys: str | int) -> np.random.Generator:
    """A PCG64 generator for the named piece of work (see :func:`child_seed`)."""
    return np.random.Generator(np.random.PCG64(child_seed(seed, *keys)))


def spawn_generators(seq: np.random.SeedSequence, n: int) -> list[np.random.Generator]:
    """``n`` independent generators from ``seq.spawn`` (chunk ``i`` always gets child ``i``)."""
    return [np.random.Generator(np.random.PCG64(s)) for s in seq.spawn(n)]
