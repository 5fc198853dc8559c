"""Candidate neighbouring inputs for auditing bandit code: which step to change, to what.

A global-DP claim (Azize & Basu 2022, Definition 2: two fixed reward tables that differ in one
step's row; Wang & Zhu 2023, Definition 3: an instance versus the same instance with one
step's reward revised) is violated by *some* pair, and a sampled audit only sees the pairs it
tries. This module proposes them; the auditor (:mod:`dpaudit.stats.blackbox`) ranks every proposal
on fresh ranking samples, then chooses the event on a fresh selection sample and measures it
on fresh samples, so proposing many pairs costs samples but never validity.

Before these proposals the target runs the decision pilot of :mod:`dpaudit.usercode.decisions`
(gap tables where the arms differ, bisected to the gap where the policy's decision turns, with
one reward just before the decision changed), since a policy that eliminates or commits never
acts on tables where every arm pays the same. Then, where leaks hide, hence what is proposed
for each base input (the all-0, all-1 and gap-1 tables, or the instance): first

1. the **first pull of each arm** (initial means are released on one reward); then, round
   robin,
2. the **first step of an episode or phase** (a policy reveals its episodes in a pilot run
   where its action switches; a stopping rule computed on raw rewards moves these
   boundaries), most frequent first;
3. **early steps** (``1 .. 4K``): a change early has the whole run to propagate, and the first
   episodes of a doubling schedule end there whether or not the arm switches;
4. the **last step before a switch**.

Each step gets an **extreme** value: the all-zero table a row of ones, the all-one table a
row of zeros; an instance's step is revised to 0 and to 1. Bases alternate. The target
(:class:`dpaudit.usercode.policy_audit.GlobalPolicyTarget`) proposes three times its budget
and keeps the pairs whose change moves the most actions on coupled runs. Pilot and screening
runs use the search generator, never the selection or measurement samples.

Per-step DP (Mishra & Thakurta 2015; Wang & Zhu 2023, Definition 1): a history of
``(arm, reward)`` pairs and the same history with one reward changed; proposed histories have
equal means across arms (the most sensitive case for an argmax) and few pulls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.sim.rewards import BernoulliRewards, TableRewards
from dpaudit.usercode.decisions import (
    Boundary,
    Runner,
    decision_boundary,
    gap_table,
    steps_before,
)
from dpaudit.usercode.wording import usage_error
from dpaudit.validation import InvalidParameterError, check_int, check_means

__all__ = [
    "HistoryInput",
    "RewardInput",
    "boundary_pairs",
    "context_pairs",
    "first_pair",
    "global_bases",
    "per_step_pairs",
    "propose_pairs",
    "random_history_pairs",
    "table_source",
]


@dataclass(frozen=True, repr=False)
class RewardInput:
    """One reward input of a global-DP audit: a reward source and how it was built.

    ``source`` is a :class:`~dpaudit.interfaces.RewardSource`; ``base`` names the base input,
    ``step``/``value`` the changed step (1-based) and its value (``None`` for the base),
    ``reason`` why the step was proposed. For a contextual policy ``contexts`` is a changed
    context stream (``None``: the audit's stream) and ``context_step`` the changed step.
    ``repr`` is the one-line label reports print.
    """

    source: Any
    base: str
    step: int | None = None
    value: float | None = None
    reason: str = ""
    contexts: np.ndarray | None = None
    context_step: int | None = None

    def __repr__(self) -> str:
        if self.context_step is not None:
            return f"{self.base} with the context at step {self.context_step} changed"
        if self.step is None:
            return self.base
        why = f" ({self.reason})" if self.reason else ""
        return f"{self.base} with step {self.step} := {self.value:g}{why}"


@dataclass(frozen=True, repr=False)
class HistoryInput:
    """A per-step-DP input: the history ``(arms, rewards)`` the next action is drawn after."""

    arms: tuple[int, ...]
    rewards: tuple[float, ...]
    label: str = ""

    def __repr__(self) -> str:
        return self.label or f"history of {len(self.arms)} pulls"


def table_source(table: np.ndarray) -> TableRewards:
    """A fixed-table reward source from a ``(T, K)`` table."""
    return TableRewards(np.asarray(table, dtype=float))


@dataclass(frozen=True)
class _Base:
    name: str
    values: tuple[float, ...]
    table: np.ndarray | None = None
    means: np.ndarray | None = None

    def input(self) -> RewardInput:
        src = table_source(self.table) if self.table is not None else BernoulliRewards(self.means)
        return RewardInput(src, self.name)

    def changed(self, step: int, value: float, reason: str) -> RewardInput:
        return RewardInput(self.input().source.changed(step, value), self.name, step, value,
                           reason)


def global_bases(horizon: int, n_arms: int, *, rewards: str = "table",
                 means: object | None = None) -> list[_Base]:
    """Base inputs: extreme fixed tables, or a Bernoulli instance with revisions.

    ``rewards="table"`` (Azize & Basu 2022, Definition 2): the all-zero table (its neighbour
    gets a row of ones), the all-one table (a row of zeros) and, for ``K > 1``, the gap-1
    table where arm 0 pays 1 and the others 0 (a row of zeros or ones), on which a policy that
    eliminates or commits acts. ``rewards="instance"`` (Wang
    & Zhu 2023, Definition 3): Bernoulli arms with ``means`` (default all 0.5), the neighbour
    revising one step's reward to 0 or to 1.
    """
    t = check_int("horizon", horizon, low=1)
    k = check_int("n_arms", n_arms, low=1)
    if rewards == "table":
        gap = np.zeros((t, k))
        gap[:, 0] = 1.0
        bases = [_Base(f"all-0 table ({t}x{k})", (1.0,), table=np.zeros((t, k))),
                 _Base(f"all-1 table ({t}x{k})", (0.0,), table=np.ones((t, k)))]
        if k > 1:  # arms that differ: a policy that eliminates or commits acts on these
            bases.append(_Base(f"gap-1 table ({t}x{k}, arm 0 pays 1, others 0)", (0.0, 1.0),
                               table=gap))
        return bases
    if rewards == "instance":
        mu = np.full(k, 0.5) if means is None else check_means(means)
        if mu.size != k:
            raise usage_error(lambda say: f"{say('means', list(mu))} must have "
                                          f"{say('n_arms', k)} entries")
        text = ", ".join(f"{m:g}" for m in mu)
        return [_Base(f"Bernoulli instance ({text})", (0.0, 1.0), means=mu)]
    raise InvalidParameterError(f"rewards={rewards!r} must be one of 'table', 'instance'")


def context_pairs(bases: Sequence[_Base], contexts: np.ndarray, steps: Sequence[int]
                  ) -> list[tuple[RewardInput, RewardInput]]:
    """Pairs that change one step's context (and no reward): the context at step ``s`` is
    replaced by the stream's context farthest from it (a change inside the stream's domain)
    and by its negation (a sign a linear policy reads). On the bases in turn."""
    c = np.asarray(contexts, dtype=float)
    pairs = []
    for i, s in enumerate(dict.fromkeys(int(x) for x in steps)):
        if not 1 <= s <= len(c):
            continue
        far = c[int(np.argmax(np.sum((c - c[s - 1]) ** 2, axis=1)))]
        base = bases[i % len(bases)].input()
        for new in (far, -c[s - 1]):
            if np.array_equal(new, c[s - 1]):
                continue
            changed = c.copy()
            changed[s - 1] = new
            pairs.append((base, RewardInput(base.source, base.base, contexts=changed,
                                            context_step=s, reason="context")))
    return pairs


def boundary_pairs(run: Runner, horizon: int, n_arms: int, *, seed: int
                   ) -> tuple[list[tuple[RewardInput, RewardInput]], list[Boundary]]:
    """Pairs at the gaps where the policy's decision turns (:mod:`dpaudit.usercode.decisions`):
    for the first and the last arm best, the gap tables just above and just below the
    boundary, each with one step before the decision changed to 0 and to 1 (Azize & Basu
    2022, Definition 2); and the boundaries found. ``run(table, n, seed)`` runs the code
    (coupled: the same seed gives the same randomness on every table)."""
    pairs: list[tuple[RewardInput, RewardInput]] = []
    found = []
    for best in sorted({0, n_arms - 1}):
        b = decision_boundary(run, horizon, n_arms, best=best, seed=seed)
        if b is None:
            continue
        found.append(b)
        for g in (b.high, b.low):
            base = _Base(f"gap {g:.6g} table ({horizon}x{n_arms}, arm {best} pays "
                         f"{(1 + g) / 2:.6g}, others {(1 - g) / 2:.6g})", (0.0, 1.0),
                         table=gap_table(horizon, n_arms, g, best=best))
            why = f"before the decision at step {b.step}"
            pairs += [(base.input(), base.changed(st, v, why))
                      for st in steps_before(b.actions, b.step, n_arms) for v in (0.0, 1.0)]
    return pairs, found


def first_pair(bases: Sequence[_Base]) -> tuple[RewardInput, RewardInput]:
    """The pair tried without a pilot: step 1 of the first base at its first extreme value."""
    b = bases[0]
    return b.input(), b.changed(1, b.values[0], "first step")


def _ranked(counter: Counter, n_runs: int) -> list[int]:
    """Steps by how many pilot runs showed them (most first), earliest first among ties."""
    return [s for s, _ in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
            if s >= 1][: 4 * max(n_runs, 1)]


def _steps(actions: np.ndarray, n_arms: int) -> list[tuple[int, str]]:
    """Candidate steps (1-based) with reasons: first pulls, then round robin over the rest."""
    acts = np.asarray(actions).reshape(-1, actions.shape[-1])
    horizon = acts.shape[1]
    first: list[tuple[int, str]] = []
    for arm in range(n_arms):
        hit = acts == arm
        steps = [int(np.argmax(row)) + 1 for row in hit if row.any()]
        if steps:
            first.append((Counter(steps).most_common(1)[0][0], f"first pull of arm {arm}"))
    ends: Counter = Counter()
    starts: Counter = Counter()
    for row in acts:
        switch = np.flatnonzero(row[1:] != row[:-1]) + 2  # 1-based step of a new episode
        starts.update(switch.tolist())
        ends.update((switch - 1).tolist())
    cats = [[(s, "first step after a switch") for s in _ranked(starts, len(acts))],
            [(s, "early step") for s in range(1, min(4 * n_arms, horizon) + 1)],
            [(s, "last step before a switch") for s in _ranked(ends, len(acts))]]
    out = list(dict(first[::-1]).items())[::-1]  # first pulls first (one per step)
    seen = {s for s, _ in out}
    queues = [[c for c in cat if c[0] not in seen] for cat in cats]
    while any(queues):
        for q in queues:  # round robin; each category moves on to its next unseen step
            while q and q[0][0] in seen:
                q.pop(0)
            if q:
                seen.add(q[0][0])
                out.append(q.pop(0))
    return out


def propose_pairs(bases: Sequence[_Base], pilots: Sequence[np.ndarray], n: int, *,
                  n_arms: int, exclude: Sequence[tuple[Any, Any]] = ()
                  ) -> list[tuple[RewardInput, RewardInput]]:
    """Up to ``n`` pairs ``(base, base changed at one step)`` from pilot action sequences.

    ``pilots[i]`` holds the ``(runs, T)`` pilot actions on ``bases[i]``; bases and values
    alternate so that every base and value is represented in a small budget.
    """
    skip = {(p[1].base, p[1].step, p[1].value) for p in exclude if isinstance(p[1],
                                                                              RewardInput)}
    per_base = []
    for base, acts in zip(bases, pilots, strict=True):
        steps = _steps(np.asarray(acts), n_arms)
        per_base.append([(base, s, v, why) for s, why in steps for v in base.values])
    pairs: list[tuple[RewardInput, RewardInput]] = []
    for i in range(max((len(c) for c in per_base), default=0)):
        for cands in per_base:
            if i < len(cands) and len(pairs) < n:
                base, s, v, why = cands[i]
                if (base.name, s, v) not in skip:
                    skip.add((base.name, s, v))
                    pairs.append((base.input(), base.changed(s, v, why)))
    return pairs


# -- per-step DP -----------------------------------------------------------------------------
def _flip(h: HistoryInput, pos: int, what: str) -> HistoryInput:
    rewards = list(h.rewards)
    rewards[pos] = 1.0 - rewards[pos]
    return HistoryInput(h.arms, tuple(rewards), f"{h.label}, reward {pos + 1} flipped "
                                                f"({what})")


def per_step_pairs(n_arms: int, *, counts: Sequence[int] = (1, 2, 4)
                   ) -> list[tuple[HistoryInput, HistoryInput]]:
    """Round-robin histories with equal means across arms, one reward flipped.

    For each count ``c`` every arm is pulled ``c`` times with rewards all 0 (and all 1); the
    neighbour flips arm 0's last reward, so arm 0's mean moves by ``1/c``.
    """
    k = check_int("n_arms", n_arms, low=2)
    pairs = []
    for c in counts:
        c = check_int("count", c, low=1)
        arms = tuple(a for _ in range(c) for a in range(k))
        for r in (0.0, 1.0):
            h = HistoryInput(arms, tuple(r for _ in arms),
                             f"{c} pull(s) per arm, all rewards {r:g}")
            pairs.append((h, _flip(h, len(arms) - k, "arm 0's last")))
    return pairs


def random_history_pairs(n_arms: int, max_pulls: int, rng: np.random.Generator, n: int
                         ) -> list[tuple[HistoryInput, HistoryInput]]:
    """``n`` random histories (every arm pulled at least once) with one reward flipped."""
    k = check_int("n_arms", n_arms, low=2)
    top = check_int("max_pulls", max_pulls, low=1)
    pairs = []
    for _ in range(n):
        counts = rng.integers(1, top + 1, size=k)
        arms = rng.permutation(np.repeat(np.arange(k), counts))
        rewards = (rng.random(arms.size) < rng.random()).astype(float)
        h = HistoryInput(tuple(int(a) for a in arms), tuple(float(r) for r in rewards),
                         f"random history of {arms.size} pulls")
        pairs.append((h, _flip(h, int(rng.integers(arms.size)), "random position")))
    return pairs
