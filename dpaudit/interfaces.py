"""The interfaces dpaudit relies on, as structural ``typing.Protocol``s (one file, no base classes).

Concrete classes never inherit from these; any object with the right attributes works
(``isinstance`` checks attribute presence only, because the protocols are
``runtime_checkable``). After google/differential-privacy ``dp_auditorium/interfaces.py``.

* :class:`Mechanism`: a randomised procedure with a claim, sampled vectorised.
* :class:`AuditableMechanism`: a mechanism that also names the neighbouring inputs to attack;
  what ``python -m dpaudit audit MODULE:OBJECT`` accepts (see ``docs/auditor.md``).
* :class:`Policy` / :class:`RewardSource`: the one bandit-policy interface (see
  :mod:`dpaudit.sim.bandits`); :class:`NextActionPolicy`: the per-step-DP view
  :mod:`dpaudit.usercode.notions` needs.
* :class:`Audit`: the structural view of :class:`dpaudit.engine.AuditSpec` the registry reads.
* :class:`ClaimDescription` / :class:`ClaimContext`: what the decision rule
  (:func:`dpaudit.stats.evidence.decide`) reads from a claim and from the check's context.
* :class:`ReleaseSink` / :class:`RecordingPolicy`: the recording hook of a policy
  (:mod:`dpaudit.sim.releases`), the release samplers' input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

__all__ = [
    "Audit",
    "AuditableMechanism",
    "ClaimContext",
    "ClaimDescription",
    "Mechanism",
    "NextActionPolicy",
    "Policy",
    "RecordingPolicy",
    "ReleaseSink",
    "RewardSource",
]

#: the type of a claim's privacy notion (``dpaudit.stats.results.Notion`` where it is read;
#: a parameter here, so this file imports nothing of dpaudit)
NotionT_co = TypeVar("NotionT_co", covariant=True)


@runtime_checkable
class Mechanism(Protocol):
    """A randomised mapping ``data -> output`` claiming ``(epsilon, delta)``-DP.

    ``sample(data, size, rng)`` returns ``size`` independent outputs for the same input as an
    array whose first axis has length ``size`` (numbers or booleans; scalars give shape
    ``(size,)``, vectors ``(size, d)``, action sequences ``(size, T)``). It must use only
    ``rng`` (a ``numpy.random.Generator``) for randomness.
    """

    epsilon: float
    delta: float

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray: ...


@runtime_checkable
class AuditableMechanism(Mechanism, Protocol):
    """A mechanism plus the neighbouring inputs to try.

    Optional attributes the auditor uses when present: ``search_domain`` (more pairs, or a
    callable ``(rng, n) -> pairs`` proposing ``n`` of them), ``features`` (``outputs ->``
    a statistic of shape ``(size,)`` or features ``(size, d)``), ``n_outcomes`` (size of a
    small discrete output space) and ``notion`` (``"ldp"``, ``"per-step"`` or ``"global"``;
    without it a report labels the claim ``global``, central DP on the neighbouring inputs:
    :func:`dpaudit.stats.blackbox.mechanism_notion`).
    """

    @property
    def neighbours(self) -> Sequence[tuple[Any, Any]]: ...


@runtime_checkable
class NextActionPolicy(Protocol):
    """A bandit policy's next action given a history summary (per-step DP, Wang & Zhu 2023 Def. 1).

    ``sample_next_actions(sums, counts, size, rng)`` draws ``size`` independent next actions
    for the history with per-arm reward sums ``sums`` and pull counts ``counts``.
    """

    def sample_next_actions(self, sums: Sequence[float], counts: Sequence[int], size: int,
                            rng: np.random.Generator) -> np.ndarray: ...


@runtime_checkable
class Audit(Protocol):
    """What the registry reads from an audit file's ``AUDITS`` entries (``AuditSpec``)."""

    name: str
    description: str
    paper: str
    claims: Sequence[Any]
    default_epsilon: float
    default_delta: float
    faulty: bool


# -- the one bandit-policy interface ---------------------------------------------------------
# Conventions, everywhere in dpaudit: steps are 1-based (t = 1..T, as in the papers); a fixed
# reward table has shape (T, K) (row t-1 holds the rewards of every arm at step t); arrays of
# runs have the run on axis 0.


@runtime_checkable
class RewardSource(Protocol):
    """Where the rewards of ``runs`` lockstep runs come from (see ``dpaudit.sim.bandits``).

    An instance of Bernoulli arms (optionally with Wang & Zhu 2023's data-revision rule,
    Definition 3), or a fixed reward table (Azize & Basu 2022, Definition 2).
    ``rewards(t, arms, rng)`` gives the reward each run observes for the arm it pulls at
    step ``t``; ``block_sums(arms, first, length, rng)`` the sum of an arm's rewards over steps
    ``first .. first + length - 1`` in each run (episodic algorithms draw it in one call);
    ``changed(t, value)`` is the neighbouring source that differs at step ``t``.
    ``gaps`` (``mu* - mu_a``) define pseudo-regret (zeros for a table without means).
    """

    n_arms: int
    gaps: np.ndarray

    def rewards(self, step: int, arms: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...

    def block_sums(self, arms: np.ndarray, first: np.ndarray, length: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray: ...

    def changed(self, step: int, value: Any) -> RewardSource: ...


@runtime_checkable
class Policy(Protocol):
    """Every bandit algorithm: ``runs`` runs in lockstep on a reward source.

    ``simulate(source, horizon, runs, *, rng, checkpoints=(), record=False)`` returns a
    ``dpaudit.sim.bandits.SimulationResult``: per-run pseudo-regret, pull counts, regret at the
    checkpoints and, with ``record=True``, the ``(runs, T)`` action sequences (or a compact
    code that determines them, ``decisions``). Randomness only from ``rng``. Parameters are
    validated at construction (``InvalidParameterError``). Optional: ``simulate_per_step``
    with the same signature (the plain one-step-at-a-time reference with the same law), and,
    for per-step DP, ``next_action_law(sums, counts)`` / ``sample_next_actions(sums, counts,
    size, rng)``.

    The recording hook (optional; see :mod:`dpaudit.sim.releases`): a ``releases=None``
    keyword of ``simulate``. Given a :class:`dpaudit.sim.releases.ReleaseRecorder`, the policy
    calls ``releases.record(values, step=..., arm=..., active=..., label=...)`` wherever it
    adds noise to a statistic of rewards, with the noisy values of all lockstep runs
    (``(runs,)`` or ``(runs, K)``); ``None`` costs nothing. A policy with the hook can be
    audited at the release level (the statistics its privacy proof is about).
    """

    name: str

    def simulate(self, source: RewardSource, horizon: int, runs: int, *,
                 rng: np.random.Generator, checkpoints: Sequence[int] = (),
                 record: bool = False) -> Any: ...


# -- the decision rule's view of a claim and of its check ------------------------------------


@runtime_checkable
class ClaimDescription(Protocol[NotionT_co]):
    """A claim as the decision rule reads it (``dpaudit.engine.ClaimSpec``): its ``id``, the
    privacy ``notion`` it is about, the ``statement`` and the paper's ``reference``."""

    @property
    def id(self) -> str: ...

    @property
    def notion(self) -> NotionT_co: ...

    @property
    def statement(self) -> str: ...

    @property
    def reference(self) -> str: ...


@runtime_checkable
class ClaimContext(Protocol):
    """The check's claimed ``(epsilon, delta)`` (``dpaudit.engine.CheckContext``). Sampled
    evidence also needs the level: ``ctx.alpha`` when the context has one (a check's does),
    else the ``alpha`` the caller passes."""

    @property
    def epsilon(self) -> float: ...

    @property
    def delta(self) -> float: ...


# -- the recording hook (release-level audits) ------------------------------------------------


@runtime_checkable
class ReleaseSink(Protocol):
    """Where a policy's recording hook sends each release (``ReleaseRecorder``):
    ``values`` of all lockstep runs, ``(runs,)`` or ``(runs, K)``."""

    def record(self, values: Any, *, step: Any, arm: Any = None, active: Any = None,
               label: str = "") -> None: ...


@runtime_checkable
class RecordingPolicy(Protocol):
    """A policy whose ``simulate`` has the recording hook: a ``releases`` keyword that, given a
    :class:`ReleaseSink`, receives every noisy statistic of rewards as it is released."""

    def simulate(self, source: RewardSource, horizon: int, runs: int, *,
                 rng: np.random.Generator, releases: ReleaseSink | None = None) -> Any: ...
