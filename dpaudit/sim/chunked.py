"""A reproduction cell's runs in chunks of runs with their own seeds.

A cell that simulated all its runs in one lockstep call (``policy.simulate(source, T, runs,
rng=...)``) ran for minutes on one core, could not resume inside and kept one worker busy.
:func:`simulate_runs` cuts the runs into fixed chunks (:func:`~dpaudit.runtime.parallel.
chunk_runs`: a function of the runs only) drawn from children of the cell's seed sequence
(:func:`~dpaudit.runtime.parallel.map_chunks`), so:

* inside a cell of ``reproduce`` each finished chunk is saved, and an interrupted cell
  resumes at its last saved chunk (:mod:`dpaudit.runtime.state`);
* with ``reproduce --workers N`` (or ``--all``, or the ledger on several workers) the chunks
  spread over the workers (:mod:`dpaudit.runtime.schedule`);
* the numbers are the same for any number of workers, but not those of the single call of
  before (other seeds: the stored outputs made that way were regenerated).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from dpaudit.runtime.parallel import chunk_runs, map_chunks
from dpaudit.stats.rng import child_seed

__all__ = ["Runs", "simulate_runs"]


@dataclass(frozen=True)
class Runs:
    """The runs of a cell, in run order: final regrets ``(runs,)``, the regret curves at the
    checkpoints ``(runs, C)`` and the pull counts ``(runs, K)``."""

    regret: np.ndarray
    curve: np.ndarray
    counts: np.ndarray


def _chunk(policy: Any, source: Any, horizon: int, checkpoints: tuple[int, ...], size: int,
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    res = policy.simulate(source, horizon, size, rng=rng, checkpoints=checkpoints)
    return (np.asarray(res.regret, dtype=float), np.asarray(res.curve, dtype=float),
            np.asarray(res.counts))


def simulate_runs(policy: Any, source: Any, horizon: int, runs: int, *, seed: int,
                  key: Sequence[str | int | float], checkpoints: Sequence[int] | np.ndarray = ()
                  ) -> Runs:
    """``runs`` runs of ``policy`` on ``source`` for ``horizon`` steps, in chunks of
    :func:`chunk_runs` runs; chunk ``i`` draws from child ``i`` of ``child_seed(seed, *key)``
    (the cell's key), so each chunk's runs are the same wherever and whenever it runs."""
    parts = map_chunks(partial(_chunk, policy, source, int(horizon),
                               tuple(int(c) for c in checkpoints)),
                       int(runs), seed=child_seed(seed, *(str(k) for k in key)), key="runs",
                       chunk=chunk_runs(int(runs)))
    return Runs(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                np.concatenate([p[2] for p in parts]))
