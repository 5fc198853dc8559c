"""Run until decided: runs added in batches, each with its own seed, until the interval decides.

An experiment on sampled runs (a regret check, ``simulate``'s verdict, a reproduction's cells)
is decided by a confidence sequence (:mod:`dpaudit.stats.sequential`), valid at any stopping
time. So instead of stopping at a fixed number of runs and reporting "about N runs would settle
it", the runs are added in geometric batches and the interval is looked at after each:

* batch 0 has the first batch's runs (``--runs``, or the experiment's own count) and the
  command's seed, so a result decided at once is the one a single run gives;
* batch ``b >= 1`` has ``first * 2^(b-1)`` runs (the total doubles at each look) and its own
  seed, :func:`batch_seed`: child ``b - 1`` of ``SeedSequence((seed, key)).spawn(b)``. Each
  batch's runs are then cut into chunks with spawned seeds as before, so nothing depends on
  the number of workers;
* adding stops when the interval decides (``"decided"``), when the next batch would pass the
  run cap (it is cut to the cap, then ``"run cap"``), or when it would not finish within the
  time cap at the rate measured so far, or a ``--seconds`` deadline has passed (``"time
  cap"``); ``"single batch"`` when there is nothing to decide (no numeric bound, no known
  range).

Validity: the confidence sequence covers at every number of runs at once, so it covers at the
run count where adding stopped, whatever made it stop, the clock included. Reproducibility:
the batches and their seeds are a function of the seed, the first batch and the run cap, so
with the run cap alone the result is the same for any number of workers; a time cap reads the
clock, so it can change where the runs stop (and the report says it stopped on the clock).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from dpaudit.runtime import limits
from dpaudit.validation import InvalidParameterError, check_int

__all__ = [
    "DEFAULT_MAX_RUNS",
    "DEFAULT_MAX_SECONDS",
    "STOP_DECIDED",
    "STOP_RUN_CAP",
    "STOP_SINGLE",
    "STOP_TIME_CAP",
    "BatchPlan",
    "Batched",
    "batch_seed",
    "describe",
    "run_batches",
]

T = TypeVar("T")

#: the defaults of ``--max-runs`` and ``--max-seconds`` (``simulate`` and ``check``'s regret)
DEFAULT_MAX_RUNS = 10_000
DEFAULT_MAX_SECONDS = 60.0

STOP_DECIDED = "decided"
STOP_RUN_CAP = "run cap"
STOP_TIME_CAP = "time cap"
STOP_SINGLE = "single batch"


def batch_seed(seed: int, key: str, index: int) -> int:
    """The seed of batch ``index`` (``seed`` itself for batch 0): a 63-bit integer from child
    ``index - 1`` of ``SeedSequence((seed, *key's words)).spawn(index)``, so batches share no
    stream with each other or with other work of the same seed."""
    if index == 0:
        return int(seed)
    words = [int(b) for b in key.encode()]
    child = np.random.SeedSequence((int(seed), 0xBA7C4, *words)).spawn(index)[index - 1]
    state = child.generate_state(2, np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1]))


@dataclass(frozen=True)
class BatchPlan:
    """``first``: runs of batch 0; ``max_runs``: the run cap on all batches together (at least
    ``first``); ``max_seconds``: the time cap (``None``: none); ``unit``: every batch is a
    multiple of it (``check`` adds whole calls of its regret experiment)."""

    first: int
    max_runs: int
    max_seconds: float | None = None
    unit: int = 1

    def __post_init__(self) -> None:
        check_int("first", self.first, low=1)
        check_int("max_runs", self.max_runs, low=1)
        check_int("unit", self.unit, low=1)
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise InvalidParameterError(f"max_seconds={self.max_seconds!r} must be a number in "
                                        "(0, inf)")

    def size(self, index: int, done: int) -> int:
        """Runs of batch ``index`` after ``done`` runs (0: the run cap is reached)."""
        want = self.first if index <= 1 else self.first * 2 ** (index - 1)
        room = max(self.max_runs - done, 0)
        size = min(want, room)
        return size - size % self.unit

    def to_dict(self) -> dict[str, Any]:
        return {"first_batch_runs": self.first, "max_runs": self.max_runs,
                "max_seconds": self.max_seconds}


@dataclass(frozen=True)
class Batched(Generic[T]):
    """The batches run (``results``, one per batch, in order), their ``sizes``, the run counts
    at the looks (``looks``: the running totals), why adding stopped (``stopped``) and the
    plan."""

    results: tuple[T, ...]
    sizes: tuple[int, ...]
    stopped: str
    plan: BatchPlan

    @property
    def looks(self) -> tuple[int, ...]:
        return tuple(int(v) for v in np.cumsum(self.sizes))

    def to_dict(self) -> dict[str, Any]:
        """The report's ``batching`` section."""
        return {**self.plan.to_dict(), "batches": len(self.sizes),
                "batch_runs": list(self.sizes), "runs": int(sum(self.sizes)),
                "stopped": self.stopped}


def run_batches(run: Callable[[int, int, int], T], *, plan: BatchPlan, seed: int, key: str,
                decided: Callable[[Sequence[T], tuple[int, ...]], bool | None],
                clock: Callable[[], float] = time.monotonic, first: T | None = None,
                started: float | None = None) -> Batched[T]:
    """Run batches (``run(index, runs, seed)``) until ``decided(results, looks)`` is true,
    ``None`` (nothing to decide) or a cap stops it; see the module docstring. ``first``: batch
    0's result when the caller has run it already (``plan.first`` runs, with ``seed``), at
    ``started`` (a ``clock()`` time, for the time cap)."""
    start = clock() if started is None else started
    results: list[T] = []
    sizes: list[int] = []
    stopped = STOP_SINGLE
    while True:
        index, done = len(sizes), sum(sizes)
        size = plan.first if index == 0 else plan.size(index, done)
        if index == 0 and first is not None:
            results.append(first)
            sizes.append(size)
            verdict = decided(results, (size,))
            if verdict is None or verdict:
                stopped = STOP_SINGLE if verdict is None else STOP_DECIDED
                break
            continue
        if index > 0:
            if size <= 0:
                stopped = STOP_RUN_CAP
                break
            elapsed = clock() - start
            projected = elapsed / max(done, 1) * size
            if (plan.max_seconds is not None and elapsed + projected > plan.max_seconds) \
                    or limits.deadline_passed():
                stopped = STOP_TIME_CAP
                break
        results.append(run(index, size, batch_seed(seed, key, index)))
        sizes.append(size)
        looks = tuple(int(v) for v in np.cumsum(sizes))
        verdict = decided(results, looks)
        if verdict is None:
            stopped = STOP_SINGLE
            break
        if verdict:
            stopped = STOP_DECIDED
            break
    return Batched(tuple(results), tuple(sizes), stopped, plan)


def describe(batching: Mapping[str, Any] | None) -> str:
    """One line on how the runs were gathered (a report's ``batching`` section), or ``""``."""
    if not batching:
        return ""
    sizes = [int(n) for n in batching.get("batch_runs", ())]
    runs = int(batching.get("runs", sum(sizes)))
    stopped = str(batching.get("stopped", ""))
    cap_r = batching.get("max_runs")
    cap_s = batching.get("max_seconds")
    caps = f"run cap {cap_r}" + ("" if cap_s is None else f", time cap {cap_s:g} s")
    how = (f"{runs} = " + " + ".join(str(n) for n in sizes)
           + " (the first batch, then doubling batches with fresh seeds)"
           if len(sizes) > 1 else f"{runs} in one batch")
    why = {STOP_DECIDED: "stopped: decided",
           STOP_RUN_CAP: f"stopped: run cap ({caps}) reached before the interval decided",
           STOP_TIME_CAP: f"stopped: time cap ({caps}): the next batch would not have "
                          "finished in time; the confidence sequence is valid wherever the "
                          "runs stop, but the clock can change where",
           STOP_SINGLE: "nothing to decide, so no batch was added"}.get(stopped, stopped)
    return f"runs: {how}; {why}"
