"""The bandit side of the engine: reward sources, the one result type, shared machinery.

This module knows no algorithm. Every bandit policy (see :class:`dpaudit.interfaces.Policy`)
implements ``simulate(source, horizon, runs, *, rng, checkpoints=(), record=False)`` and
returns one :class:`SimulationResult`. Conventions, everywhere: steps are 1-based
(``t = 1..T``); a fixed reward table has shape ``(T, K)`` (row ``t - 1`` holds the reward of
every arm at step ``t``); arrays over runs have the run on axis 0.

Reward sources (:class:`dpaudit.interfaces.RewardSource`; defined in :mod:`dpaudit.sim.rewards`)
--------------------------------------------------------------------------------------------
* :class:`BernoulliRewards` -- Bernoulli arms, optionally with Wang & Zhu 2023's
  data-revision rule (Definition 3): "the reward at step ``t`` is set to ``v``" (``p_t(1 | a)
  = 1`` for every arm; the expected number of revisions is exactly 1). A block of steps is
  drawn as one ``Binomial(length, mu_a)`` per run (``Binomial(length - 1, mu_a) + v`` when it
  holds the revised step), so an episodic algorithm costs per episode, not per step.
* :class:`TableRewards` -- a fixed reward table (Azize & Basu 2022, Definition 2: the reward
  sequence ``r^T`` is fixed and the neighbour differs at one step). A 1-d sequence ``(T,)``
  with ``n_arms`` means every arm earns ``r_t`` at step ``t``. Block sums come from prefix
  sums (O(1) per block). Entries are rewards, not means: an algorithm that observes a
  Bernoulli draw of a reward in [0, 1] (DP-FTPL-New) does that draw itself.

``source.changed(t, value)`` is the neighbouring source that differs at step ``t``.

Writing a policy (for authors of new algorithm modules)
-------------------------------------------------------
1. A class with ``name``, parameters validated in ``__init__`` (``InvalidParameterError``),
   and ``simulate(source, horizon, runs, *, rng, checkpoints=(), record=False)`` that starts
   with ``horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)``,
   simulates all runs in lockstep (an episode in one ``source.block_sums`` call where the
   algorithm is episodic), accumulates regret in a :class:`RegretTracker` and returns
   ``tracker.result(...)``. Add ``simulate_per_step`` with the same signature: the plain
   one-run, one-step-at-a-time reference (``source.rewards(t, arm, rng)`` per step) that the
   conformance suite (``tests/test_policies.py``) checks against ``simulate`` for equal laws.
2. In the algorithm module, declare ``POLICIES = {name: PolicyEntry(...)}``: the factory with
   the paper's default parameters (keyword arguments override them), the paper instance the
   policy is checked on (an :class:`Instance` from the paper package's ``instances.py``), a
   small instance for the conformance suite, keyword sets the factory must reject, and the
   paper's regret bound (``bound``, from the paper package's ``bounds.py``) or
   ``no_bound_reason``. :func:`dpaudit.registry.all_policies` collects every module's
   ``POLICIES``; the conformance suite then covers the new policy without new test code.
3. A deliberately broken twin is a subclass in the paper package's ``_twins.py`` (its
   docstring says what is wrong, and derives its true privacy loss), registered there with
   :meth:`PolicyEntry.twin` (``faulty=True``); its audit is
   ``AuditSpec.twin(variant, bug=..., true_epsilon=...)``, named ``NAME-<bug>``.
   ``docs/adding-an-algorithm.md`` walks through a whole new paper.
4. The recording hook: accept ``releases=None`` in ``simulate`` and, wherever noise is added to
   a statistic of rewards, ``if releases is not None: releases.record(noisy, step=..,
   arm=.., active=.., label=..)`` with the values of all runs (``(runs,)`` or ``(runs, K)``).
   With ``None`` nothing else runs. Release-level audits
   (:func:`dpaudit.sim.releases.release_sampler`) then observe what the privacy proof is
   about; a user's policy takes the same keyword. Recording copies values the policy computes
   anyway, so it never changes the law (tested per policy).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from dpaudit.sim.rewards import BernoulliRewards, TableRewards, bernoulli_observation
from dpaudit.validation import InvalidParameterError, check_horizon, check_int, check_means

__all__ = [
    "BernoulliRewards",
    "Instance",
    "PolicyEntry",
    "RegretTracker",
    "SimulationResult",
    "TableRewards",
    "argmax_random_ties",
    "bernoulli_observation",
    "check_simulation",
    "checkpoint_grid",
    "pad_rows",
    "result_from_actions",
    "stack_results",
]


# -- the validation preamble of every simulate -----------------------------------------------
def check_simulation(source: object, horizon: object, runs: object, rng: object,
                     checkpoints: object = ()) -> tuple[int, int, np.ndarray]:
    """Validate ``simulate``'s arguments; return ``(horizon, runs, checkpoints)``.

    ``source`` must be a reward source (``n_arms``, ``gaps``, ``rewards``, ``block_sums``);
    ``horizon >= K`` (and at most a table's length); ``runs >= 1``; ``rng`` a
    ``numpy.random.Generator``; checkpoints integers in ``[1, horizon]`` (sorted, unique).
    """
    if not all(hasattr(source, a) for a in ("n_arms", "gaps", "rewards", "block_sums")):
        raise InvalidParameterError(
            f"source={source!r} must be a reward source (BernoulliRewards, TableRewards or "
            "an object with n_arms, gaps, rewards and block_sums)")
    k = int(getattr(source, "n_arms"))  # noqa: B009 - checked above; source is any object
    h = check_horizon(horizon, k)
    length = getattr(source, "length", None)
    if length is not None and h > length:
        raise InvalidParameterError(
            f"horizon={horizon!r} must be at most the reward table's length {length}")
    n = check_int("runs", runs, low=1)
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(f"rng={rng!r} must be a numpy.random.Generator")
    cps = [check_int("checkpoint", c, low=1, high=h) for c in np.asarray(
        checkpoints, dtype=object).ravel().tolist()]
    return h, n, np.unique(np.asarray(cps, dtype=np.int64))


# -- small shared helpers --------------------------------------------------------------------
def argmax_random_ties(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row-wise argmax with ties broken uniformly at random (KL-UCB indexes tie at 1)."""
    top = values >= values.max(axis=1, keepdims=True)
    return np.argmax(top * (1.0 + rng.random(values.shape)), axis=1)


def checkpoint_grid(horizon: int, n: int = 40) -> np.ndarray:
    """About ``n`` log-spaced checkpoints ``1 <= c <= horizon`` (always including ``horizon``)."""
    horizon = check_int("horizon", horizon, low=1)
    n = check_int("n", n, low=1)
    return np.unique(np.round(np.geomspace(1, horizon, n)).astype(np.int64))


# -- the one result type ---------------------------------------------------------------------
@dataclass(frozen=True, eq=False)  # arrays: compare fields explicitly, not with ==
class SimulationResult:
    """Outcome of ``runs`` simulated runs of one policy on one source.

    Attributes
    ----------
    regret:
        ``(runs,)`` pseudo-regret ``sum_t (mu* - mu_{A_t})`` (zero gaps on a fixed table).
    counts:
        ``(runs, K)`` pull counts; each row sums to the horizon.
    checkpoints, curve:
        The checkpoints (1-based steps) and ``(runs, C)`` pseudo-regret after each of them.
    actions:
        ``(runs, T)`` arms pulled at steps ``1..T`` when ``record=True``, else ``None``.
    decisions:
        A compact integer code per run that, with the horizon, determines the whole action
        sequence (episodic algorithms: what the global-DP audits compare), or ``None``.
    extra:
        Algorithm-specific outputs (read-only mapping), e.g. ``episodes`` or ``releases``.
    """

    regret: np.ndarray
    counts: np.ndarray
    checkpoints: np.ndarray
    curve: np.ndarray
    actions: np.ndarray | None = None
    decisions: np.ndarray | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))

    def __reduce__(self) -> tuple:
        # a mappingproxy does not pickle; results cross process pools (dpaudit.runtime.parallel)
        return (SimulationResult, (self.regret, self.counts, self.checkpoints, self.curve,
                                   self.actions, self.decisions, dict(self.extra)))


class RegretTracker:
    """Pseudo-regret, pull counts, checkpoint curve and (optionally) actions of lockstep runs.

    ``add(arms, first, length)`` records that run ``r`` pulled ``arms[r]`` at steps
    ``first[r] .. first[r] + length[r] - 1`` (1-based; ``length`` may be 0). Regret at a
    checkpoint inside a block is interpolated exactly (it is linear there). ``step(arms, t)``
    is the cheaper form for policies that move one step at a time.
    """

    def __init__(self, runs: int, gaps: np.ndarray, checkpoints: np.ndarray, *,
                 horizon: int, record: bool = False) -> None:
        self.gaps = np.asarray(gaps, dtype=float)
        self.regret = np.zeros(runs)
        self.counts = np.zeros((runs, self.gaps.size), dtype=np.int64)
        self.checkpoints = np.asarray(checkpoints, dtype=np.int64)
        self.curve = np.zeros((runs, self.checkpoints.size))
        self.horizon = int(horizon)
        self._rows = np.arange(runs)
        # with record, the arm that starts a block at each step (-1: no block starts there)
        self._starts = np.full((runs, self.horizon), -1, dtype=np.int64) if record else None
        self._cp_index = ({int(c): j for j, c in enumerate(self.checkpoints)}
                          if self.checkpoints.size else None)

    def add(self, arms: np.ndarray, first: np.ndarray | int, length: np.ndarray | int) -> None:
        arms = np.broadcast_to(np.asarray(arms, dtype=np.int64), self.regret.shape)
        first = np.broadcast_to(np.asarray(first, dtype=np.int64), self.regret.shape)
        length = np.broadcast_to(np.asarray(length, dtype=np.int64), self.regret.shape)
        gap = self.gaps[arms]
        if self.checkpoints.size:
            cp = self.checkpoints[None, :]
            inside = (cp >= first[:, None]) & (cp < (first + length)[:, None])
            value = self.regret[:, None] + gap[:, None] * (cp - first[:, None] + 1)
            self.curve = np.where(inside, value, self.curve)
        self.regret += gap * length
        self.counts[self._rows, arms] += length
        if self._starts is not None:
            on = length > 0
            self._starts[self._rows[on], first[on] - 1] = arms[on]

    def step(self, arms: np.ndarray, t: int) -> None:
        """Record that run ``r`` pulled ``arms[r]`` at step ``t`` (the per-step fast path)."""
        self.regret += self.gaps[arms]
        self.counts[self._rows, arms] += 1
        if self._cp_index is not None:
            j = self._cp_index.get(t)
            if j is not None:
                self.curve[:, j] = self.regret
        if self._starts is not None:
            self._starts[:, t - 1] = arms

    def actions(self) -> np.ndarray | None:
        """The ``(runs, T)`` action sequences (``None`` without ``record``)."""
        if self._starts is None:
            return None
        steps = np.arange(self.horizon)
        last = np.maximum.accumulate(np.where(self._starts >= 0, steps, 0), axis=1)
        return np.take_along_axis(self._starts, last, axis=1)

    def result(self, *, decisions: np.ndarray | None = None,
               extra: Mapping[str, Any] | None = None) -> SimulationResult:
        return SimulationResult(
            regret=self.regret, counts=self.counts, checkpoints=self.checkpoints,
            curve=self.curve, actions=self.actions(), decisions=decisions,
            extra=MappingProxyType(dict(extra or {})))


def stack_results(parts: Sequence[SimulationResult]) -> SimulationResult:
    """Concatenate results of the same policy, source and horizon over their runs.

    ``extra`` entries that are arrays with a run axis are concatenated; others are taken from
    the first part. Decisions of different widths are padded with -1.
    """
    if not parts:
        raise InvalidParameterError("parts=[] must hold at least one result")

    def cat(maybe: list[np.ndarray | None]) -> np.ndarray | None:
        arrays = [a for a in maybe if a is not None]
        if len(arrays) < len(maybe):
            return None
        width = max(a.shape[1] if a.ndim > 1 else 0 for a in arrays)
        if width:
            arrays = [np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=-1)
                      if a.ndim > 1 else a for a in arrays]
        return np.concatenate(arrays, axis=0)

    first = parts[0]
    extra = {}
    for key, value in first.extra.items():
        if isinstance(value, np.ndarray) and value.shape[:1] == first.regret.shape:
            extra[key] = np.concatenate([p.extra[key] for p in parts], axis=0)
        else:
            extra[key] = value
    return SimulationResult(
        regret=np.concatenate([p.regret for p in parts]),
        counts=np.concatenate([p.counts for p in parts]),
        checkpoints=first.checkpoints,
        curve=np.concatenate([p.curve for p in parts]),
        actions=cat([p.actions for p in parts]),
        decisions=cat([p.decisions for p in parts]),
        extra=MappingProxyType(extra))


# -- declaring policies and paper instances --------------------------------------------------
@dataclass(frozen=True)
class Instance:
    """A Bernoulli bandit instance from a paper, with the paper's experiment settings.

    ``citation`` names the paper by authors and year and the figure or section;
    ``horizon`` and ``runs`` are the paper's (``None`` where the paper does not state them).
    """

    name: str
    means: tuple[float, ...]
    citation: str
    horizon: int | None = None
    runs: int | None = None
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}),
                                        hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "means", tuple(float(m) for m in check_means(self.means)))
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))

    def __reduce__(self) -> tuple:
        return (Instance, (self.name, self.means, self.citation, self.horizon, self.runs,
                           dict(self.settings)))

    @property
    def n_arms(self) -> int:
        return len(self.means)

    def source(self) -> BernoulliRewards:
        return BernoulliRewards(self.means)


@dataclass(frozen=True)
class PolicyEntry:
    """What an algorithm module declares in ``POLICIES`` (see the module docstring).

    Attributes
    ----------
    factory:
        ``factory(**overrides)`` builds the policy with the paper's default parameters.
    instance:
        The paper instance the policy is checked on (regret, reproduction).
    paper:
        The paper, by authors and year, with the algorithm's number.
    small_instance, small_horizon, small_overrides:
        A small instance, horizon and parameter overrides on which the conformance suite
        compares ``simulate`` with ``simulate_per_step`` (a few hundred per-step runs must
        take about a second; the law of the decisions should not be degenerate there).
    invalid:
        Keyword sets ``factory`` must reject with ``InvalidParameterError``.
    faulty:
        True for a deliberately broken twin.
    bound:
        ``bound(means, horizon, epsilon, delta) -> (value, name)``: the paper's regret upper
        bound for the policy with its default parameters at ``(epsilon, delta)`` (``delta``
        is 0 for a pure-DP or non-private policy), the one ``simulate``, ``check`` and
        ``claims`` compare with. ``None`` when no bound applies; then ``no_bound_reason``.
    no_bound_reason:
        Why no bound can be evaluated (constants not printed, orders only, a broken twin...);
        every registered policy declares ``bound`` or this (``tests/test_policies.py``).
    """

    factory: Callable[..., Any]
    instance: Instance
    paper: str
    small_instance: tuple[float, ...] = (0.7, 0.3)
    small_horizon: int = 60
    small_overrides: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    invalid: tuple[Mapping[str, Any], ...] = ()
    faulty: bool = False
    bound: Callable[[tuple[float, ...], int, float, float], tuple[float, str]] | None = None
    no_bound_reason: str | None = None
    #: a broken twin's exact privacy loss at its default parameters (derived in its docstring)
    true_epsilon: float | None = None

    def twin(self, factory: Callable[..., Any], paper: str, **changes: Any) -> PolicyEntry:
        """A broken twin's entry (``faulty=True``, no bound): checked on this policy's
        instances, with the same invalid parameter sets unless ``changes`` says otherwise."""
        fields: dict[str, Any] = {
            "small_instance": self.small_instance, "small_horizon": self.small_horizon,
            "small_overrides": self.small_overrides, "invalid": self.invalid,
            "no_bound_reason": "a deliberately broken twin: no theorem covers it", **changes}
        return PolicyEntry(factory, self.instance, paper, faulty=True, **fields)


def result_from_actions(actions: np.ndarray, gaps: np.ndarray, checkpoints: np.ndarray, *,
                        record: bool, decisions: np.ndarray | None = None,
                        extra: Mapping[str, Any] | None = None) -> SimulationResult:
    """The result of plain per-step runs from their ``(runs, T)`` action sequences.

    Per-step references use this (a direct cumulative sum, independent of
    :class:`RegretTracker`, so the conformance suite compares two computations).
    """
    actions = np.asarray(actions, dtype=np.int64)
    gaps = np.asarray(gaps, dtype=float)
    per_step = np.cumsum(gaps[actions], axis=1)
    k = gaps.size
    counts = np.stack([np.bincount(row, minlength=k) for row in actions]).astype(np.int64)
    cps = np.asarray(checkpoints, dtype=np.int64)
    return SimulationResult(
        regret=per_step[:, -1].copy(), counts=counts, checkpoints=cps,
        curve=per_step[:, cps - 1] if cps.size else np.zeros((actions.shape[0], 0)),
        actions=actions if record else None, decisions=decisions,
        extra=MappingProxyType(dict(extra or {})))


def pad_rows(rows: Sequence[Sequence[int]], width: int, fill: int = -1) -> np.ndarray:
    """Integer rows of unequal length padded with ``fill`` to ``width`` columns."""
    out = np.full((len(rows), width), fill, dtype=np.int64)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out
