"""The recording hook: every noisy value a policy computes from rewards, as it releases it.

The privacy proofs of the bandit papers are about *released statistics* (a private mean per
episode, the nodes of a continual counter, a perturbed index); the actions are
post-processing of them. An audit that only sees the actions loses power to the
post-processing; an audit that sees the releases tests what the lemma is about (as the tight
DP-SGD audits observe the intermediate model rather than the final one).

The hook
--------
``policy.simulate(source, horizon, runs, *, rng, ..., releases=None)``: when ``releases`` is a
:class:`ReleaseRecorder`, the policy calls ``releases.record(values, step=..., arm=...)`` at
every point where it adds noise to a statistic of rewards, with the noisy value(s) of all
lockstep runs at once: ``values`` of shape ``(runs,)`` (one release per run, e.g. the private
mean of the arm that just ended an episode) or ``(runs, K)`` (one per arm, e.g. every arm's
counter at a step). ``step`` and ``arm`` say which step and arm the release concerns (an int
or a ``(runs,)`` array: episodic runs are at different steps); ``active`` (``(runs,)``
booleans) marks the runs that really release (runs already at the horizon do not). With
``releases=None`` (the default) a policy does nothing extra: the hook costs one ``is None``
test per release point.

A user's own policy takes the same keyword and calls ``record`` the same way; it is then
auditable at the release level (:func:`release_sampler`). Recording must not change the
law of anything: it only copies values the policy computes anyway.

What the sampled engine sees
----------------------------
:func:`release_sampler` turns ``(policy, reward table, horizon, view)`` into a sampler of the
one sampled-bound engine (:func:`dpaudit.stats.sampled.sampled_audit`): ``n`` runs with a fresh
recorder, then ``view(recorder)`` -- an array ``(n, d)`` or a dict of named ``(n,)`` summaries.
The default view is :meth:`ReleaseRecorder.first`: each run's first ``width`` released
numbers in the order released. A view must be a function of the release transcript alone
(which release comes next is itself decided by earlier releases), so it is post-processing
and the lower bound it gives is a valid lower bound for the whole transcript.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.interfaces import RecordingPolicy, RewardSource
from dpaudit.runtime.state import partial_progress
from dpaudit.stats.results import OBSERVES
from dpaudit.validation import InvalidParameterError, check_int

__all__ = [
    "OBSERVES",
    "Release",
    "ReleaseRecorder",
    "records_releases",
    "release_sampler",
]



@dataclass(frozen=True, eq=False)
class Release:
    """One call of :meth:`ReleaseRecorder.record`: ``values`` ``(runs, w)``; ``step`` and
    ``arm`` ``(runs,)`` integer arrays (``-1``: every arm, for ``w = K``); ``active``
    ``(runs,)`` booleans; ``label`` what was released."""

    values: np.ndarray
    step: np.ndarray
    arm: np.ndarray
    active: np.ndarray
    label: str


class ReleaseRecorder:
    """Collects the releases of ``runs`` lockstep runs (see the module docstring).

    ``record`` copies what it is given, so a policy may keep updating its own arrays.
    """

    def __init__(self) -> None:
        self._releases: list[Release] = []
        self.runs: int | None = None

    def record(self, values: Any, *, step: Any, arm: Any = None, active: Any = None,
               label: str = "") -> None:
        """Record one release of every run: ``values`` ``(runs,)`` or ``(runs, K)``.

        ``step``/``arm``: int or ``(runs,)`` array (``arm=None``: the release concerns every
        arm, one column each); ``active``: ``(runs,)`` booleans, runs that release now.
        """
        v = np.array(values, dtype=float, copy=True)
        if v.ndim == 1:
            v = v[:, None]
        if v.ndim != 2:
            raise InvalidParameterError(
                f"releases.record(values) must have shape (runs,) or (runs, K); got {v.shape}")
        runs = v.shape[0]
        if self.runs is None:
            self.runs = runs
        elif runs != self.runs:
            raise InvalidParameterError(
                f"releases.record(values) has {runs} runs, earlier releases had {self.runs}")

        def per_run(x: Any, name: str, fill: int) -> np.ndarray:
            a = np.broadcast_to(np.asarray(fill if x is None else x), (runs,))
            if a.dtype.kind not in "biu":
                raise InvalidParameterError(f"releases.record({name}=...) must be integers")
            return np.array(a, dtype=np.int64)

        act = (np.ones(runs, dtype=bool) if active is None
               else np.array(np.broadcast_to(np.asarray(active, dtype=bool), (runs,))))
        self._releases.append(Release(v, per_run(step, "step", 0), per_run(arm, "arm", -1),
                                      act, str(label)))

    @property
    def releases(self) -> tuple[Release, ...]:
        return tuple(self._releases)

    def __len__(self) -> int:
        return len(self._releases)

    def counts(self) -> np.ndarray:
        """How many numbers each run released: ``(runs,)``."""
        if not self._releases:
            return np.zeros(0 if self.runs is None else self.runs, dtype=np.int64)
        return sum(r.active.astype(np.int64) * r.values.shape[1] for r in self._releases)

    def matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """``(values, active)``: every recorded number as columns ``(runs, m)`` in the order
        released, and which are real releases of each run."""
        if not self._releases:
            raise InvalidParameterError("the policy recorded no release (does its simulate "
                                        "call releases.record?)")
        vals = np.concatenate([r.values for r in self._releases], axis=1)
        act = np.concatenate([np.repeat(r.active[:, None], r.values.shape[1], axis=1)
                              for r in self._releases], axis=1)
        return vals, act

    def first(self, width: int) -> np.ndarray:
        """Each run's first ``width`` released numbers, in release order: ``(runs, width)``.

        A run that released fewer numbers is padded with zeros after its last release (the
        padding is a function of the transcript, so still post-processing)."""
        width = check_int("width", width, low=1)
        vals, act = self.matrix()
        order = np.argsort(~act, axis=1, kind="stable")[:, :width]
        out = np.take_along_axis(vals, order, axis=1)
        got = np.take_along_axis(act, order, axis=1)
        out = np.where(got, out, 0.0)
        if out.shape[1] < width:
            out = np.pad(out, ((0, 0), (0, width - out.shape[1])))
        return out

    def labelled(self, label: str) -> np.ndarray:
        """The values of every release recorded with ``label``, as columns ``(runs, m)``
        (inactive entries zero)."""
        parts = [np.where(r.active[:, None], r.values, 0.0) for r in self._releases
                 if r.label == label]
        if not parts:
            raise InvalidParameterError(f"no release was recorded with label={label!r}")
        return np.concatenate(parts, axis=1)


def records_releases(policy: object) -> bool:
    """Whether ``policy.simulate`` accepts the ``releases`` keyword (the recording hook)."""
    simulate = getattr(policy, "simulate", None)
    if simulate is None:
        return False
    try:
        params = inspect.signature(simulate).parameters
    except (TypeError, ValueError):
        return False
    return "releases" in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


View = Callable[[ReleaseRecorder], np.ndarray | dict[str, np.ndarray]]


#: cells (runs x steps) one call of a release sampler simulates at once (see release_sampler)
CHUNK_CELLS = 10_000_000


def release_sampler(policy: RecordingPolicy, source: RewardSource, horizon: int, *,
                    view: View | None = None, width: int = 8
                    ) -> Callable[[int, np.random.Generator], np.ndarray | dict[str, np.ndarray]]:
    """A sampler ``(n, rng) -> view(recorder)`` of ``n`` runs of ``policy`` on ``source``
    with the recording hook on (default view: each run's first ``width`` released numbers).

    Raises :class:`~dpaudit.validation.InvalidParameterError` (a usage error) when the policy
    has no ``releases`` keyword.
    """
    if not records_releases(policy):
        raise InvalidParameterError(
            f"{type(policy).__name__}.simulate has no 'releases' keyword: it cannot be audited "
            "at the release level (see dpaudit.sim.releases)")
    pick = view if view is not None else (lambda rec: rec.first(width))
    # runs simulated at once: the lockstep arrays grow with runs x horizon, so long horizons
    # (DP-UCB-Int's first release at small eps comes after ~1e4 pulls) are streamed in chunks
    # of at most CHUNK_CELLS cells, and the views concatenated (memory flat in the runs)
    per_chunk = max(1, CHUNK_CELLS // max(int(horizon), 1))

    def one(n: int, rng: np.random.Generator) -> np.ndarray | dict[str, np.ndarray]:
        rec = ReleaseRecorder()
        policy.simulate(source, horizon, n, rng=rng, releases=rec)
        return pick(rec)

    def sample(n: int, rng: np.random.Generator) -> np.ndarray | dict[str, np.ndarray]:
        if n <= per_chunk:
            return one(n, rng)
        parts, done = [], 0
        # in a resumable run, the runs finished inside this chunk are saved with the
        # generator's state, and a resumed chunk continues from them (the same numbers)
        progress = partial_progress()
        start = rng.bit_generator.state
        saved = None if progress is None else progress.load()
        if isinstance(saved, dict) and saved.get("n") == n and saved.get("start") == start:
            parts, done = list(saved["parts"]), int(saved["done"])
            rng.bit_generator.state = saved["rng"]
        for i in range(done, n, per_chunk):
            parts.append(one(min(per_chunk, n - i), rng))
            if progress is not None and i + per_chunk < n:
                progress.save({"n": n, "start": start, "done": i + per_chunk,
                               "parts": list(parts), "rng": rng.bit_generator.state})
        if isinstance(parts[0], dict):
            return {k: np.concatenate([p[k] for p in parts], axis=0) for k in parts[0]}
        return np.concatenate(parts, axis=0)

    return sample
