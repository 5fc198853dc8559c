"""The worst pair of neighbouring reward tables for a trajectory policy.

Neighbouring tables differ at one step (one row of the ``(T, K)`` table: Azize & Basu 2022,
Definition 2). The exact loss of *one* pair is :func:`dpaudit.exact.trajectory.sequence_loss`;
the largest over all pairs is what a policy's whole trajectory leaks. This module searches for
it and says how much of the space it covered.

**Binary tables suffice.** For a policy that observes a bit with ``P(1) = g(r)``, ``g`` affine
(the Bernoulli observation ``g(r) = r``, PrivBern), the sequence law is affine in every single
table entry, so a pair ``(P, Q)`` is affine in each entry (the shared ones move both laws
alike; the changed row moves one). The hockey-stick divergence is jointly convex in ``(P, Q)``,
so, one entry at a time, its maximum over ``[0, 1]`` sits at ``0`` or ``1``: the worst pair over
all tables in ``[0, 1]`` is a pair of ``{0, 1}`` tables. (The same holds for ``eps(delta)``,
which is non-decreasing in each ``H_eps``.)

**Exhaustive or searched.** There are ``2^(KT)`` binary tables, ``T (2^K - 1)`` neighbours of
each: for ``K = 2`` and ``T <= EXHAUSTIVE_HORIZON`` all are evaluated and the maximum is the
policy's exact trajectory loss. Beyond, the search evaluates the *structured* pairs (every
table whose rows are all equal, changed at every step to every other row) and then climbs
greedily (flip one entry of both tables, or change the changed row; keep an improvement)
within a budget. The result then is a lower bound on the policy's loss, and says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from dpaudit.exact.trajectory import (
    Prefixes,
    SequenceLaw,
    SequenceLoss,
    TrajectoryPolicy,
    sequence_law,
    sequence_loss,
)
from dpaudit.validation import check_int

__all__ = ["EXHAUSTIVE_HORIZON", "TrajectorySearch", "search_tables"]

#: largest horizon whose binary neighbouring tables (K = 2) are all evaluated by default
EXHAUSTIVE_HORIZON = 4


@dataclass(frozen=True)
class TrajectorySearch:
    """The worst neighbouring pair found, its exact loss, and the search's coverage.

    ``exhaustive`` is true when every binary neighbouring pair was evaluated: only then is
    ``loss`` the policy's trajectory loss; otherwise it is a lower bound on it.
    """

    table: np.ndarray
    table_prime: np.ndarray
    changed_step: int
    loss: SequenceLoss
    evaluated: int
    total: int
    exhaustive: bool
    horizon: int
    nodes: int
    law_p: SequenceLaw | None = None  # the two sequence laws of the worst pair
    law_q: SequenceLaw | None = None

    @property
    def coverage(self) -> str:
        if self.exhaustive:
            return (f"exhaustive: all {self.total} neighbouring pairs of {{0,1}} tables "
                    f"(T={self.horizon}); binary tables attain the maximum over [0,1]")
        return (f"searched {self.evaluated} of {self.total} neighbouring pairs of {{0,1}} "
                f"tables (T={self.horizon}): structured tables and a greedy climb; a lower "
                "bound on the policy's trajectory loss")

    def to_dict(self) -> dict[str, Any]:
        return {"horizon": self.horizon, "changed_step": self.changed_step,
                "table": self.table.tolist(), "table_prime": self.table_prime.tolist(),
                "epsilon_at_delta": self.loss.epsilon_at_delta,
                "epsilon_interval": [self.loss.epsilon_low, self.loss.epsilon_high],
                "delta_at_epsilon": float(self.loss.delta_at_epsilon.value),
                "delta_error": float(self.loss.delta_at_epsilon.error),
                "evaluated": self.evaluated, "total": self.total,
                "exhaustive": self.exhaustive, "coverage": self.coverage}


def _rows(k: int) -> np.ndarray:
    return np.array(list(itertools.product((0.0, 1.0), repeat=k)))


#: the pairs to score are split into this many chunks for a parallel map
SCORE_CHUNKS = 16


def _changed(table: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
    """``table`` with one step changed to another row, for every step and row (the structured
    pairs; those equal to ``table`` are left out)."""
    out = []
    for step in range(table.shape[0]):
        for row in rows:
            prime = table.copy()
            prime[step] = row
            if not np.array_equal(prime, table):
                out.append(prime)
    return out


class _Evaluator:
    def __init__(self, policy: TrajectoryPolicy, *, epsilon: float, delta: float) -> None:
        self.policy, self.epsilon, self.delta = policy, epsilon, delta
        self.prefixes = Prefixes()  # the tables share prefixes: resumed, not recomputed
        self.laws: dict[bytes, SequenceLaw] = {}
        self.seen: set[bytes] = set()
        self.scores: dict[bytes, tuple[tuple[float, float], SequenceLoss]] = {}
        self.nodes = 0

    def prefetch(self, tables: Iterable[np.ndarray],
                 map_laws: Callable[[Callable[[np.ndarray], SequenceLaw], list[np.ndarray]],
                                    list[SequenceLaw]] | None) -> None:
        """The laws of ``tables`` not known yet, computed by ``map_laws(fn, tables)`` (a
        parallel map; each law is the one :meth:`law` computes, so nothing else changes)."""
        if map_laws is None:
            return
        todo: dict[bytes, np.ndarray] = {}
        for t in tables:
            key = t.tobytes()
            if key not in self.laws and key not in todo:
                todo[key] = t
        if len(todo) < 2:
            return
        for key, law in zip(todo, map_laws(partial(sequence_law, self.policy,
                                                   prefixes=self.prefixes),
                                           list(todo.values())), strict=True):
            self.nodes = max(self.nodes, law.nodes)
            self.laws[key] = law

    def law(self, table: np.ndarray) -> SequenceLaw:
        key = table.tobytes()
        if key not in self.laws:
            law = sequence_law(self.policy, table, prefixes=self.prefixes)
            self.nodes = max(self.nodes, law.nodes)
            self.laws[key] = law
        return self.laws[key]

    def prescore(self, pairs: list[tuple[np.ndarray, np.ndarray]],
                 map_laws: Callable[[Callable[[Any], Any], list[Any]], list[Any]] | None
                 ) -> None:
        """The scores of ``pairs`` (whose laws are known), computed by ``map_laws`` over
        chunks of pairs (a parallel map) and kept for :meth:`score`, which then returns them:
        the same numbers as computing each when it is scored, so the search is unchanged."""
        if map_laws is None or len(pairs) < 2:
            return
        todo: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        for table, prime in pairs:
            key = b"".join(sorted((table.tobytes(), prime.tobytes())))
            if key not in self.scores and key not in todo:
                todo[key] = (table, prime)
        keys = list(todo)
        size = max(1, -(-len(keys) // SCORE_CHUNKS))
        chunks = [[(self.law(t), self.law(p)) for t, p in (todo[k] for k in keys[i:i + size])]
                  for i in range(0, len(keys), size)]
        done = map_laws(partial(_scores, self.epsilon, self.delta), chunks)
        for key, got in zip(keys, (g for chunk in done for g in chunk), strict=True):
            self.scores[key] = got

    def score(self, table: np.ndarray, prime: np.ndarray) -> tuple[tuple[float, float],
                                                                  SequenceLoss]:
        a, b = sorted((table.tobytes(), prime.tobytes()))
        self.seen.add(a + b)
        hit = self.scores.get(a + b)
        if hit is not None:
            return hit
        return _scores(self.epsilon, self.delta, [(self.law(table), self.law(prime))])[0]


def _scores(epsilon: float, delta: float, pairs: list[tuple[SequenceLaw, SequenceLaw]]
            ) -> list[tuple[tuple[float, float], SequenceLoss]]:
    """The search's key (``eps(delta)``, then ``delta(eps)``) and the loss of each pair."""
    out = []
    for law, law_prime in pairs:
        loss = sequence_loss(law, law_prime, epsilon=epsilon, delta=delta)
        out.append(((loss.epsilon_at_delta, float(loss.delta_at_epsilon.value)), loss))
    return out


def search_tables(policy: TrajectoryPolicy, horizon: int, *, epsilon: float, delta: float,
                  exhaustive_horizon: int = EXHAUSTIVE_HORIZON, climb: int = 0,
                  map_laws: Callable[[Callable[[np.ndarray], SequenceLaw], list[np.ndarray]],
                                     list[SequenceLaw]] | None = None) -> TrajectorySearch:
    """The worst neighbouring pair of ``{0, 1}`` tables for ``policy`` at ``horizon``.

    Exhaustive when ``horizon <= exhaustive_horizon``; otherwise structured pairs and at most
    ``climb`` further pair evaluations of a greedy climb (module docstring). The objective is
    ``eps(delta)``, ties broken by ``delta(eps)``.

    ``map_laws(fn, tables)`` (e.g. :func:`dpaudit.runtime.parallel.map_items`), when given,
    computes the sequence laws of the exhaustive or structured tables before they are
    compared (they are independent); the search and its result are the same.
    """
    horizon = check_int("horizon", horizon, low=1)
    climb = check_int("climb", climb, low=0)
    k = int(policy.n_arms)
    rows = _rows(k)
    total = (2 ** (k * horizon)) * horizon * (rows.shape[0] - 1) // 2
    ev = _Evaluator(policy, epsilon=epsilon, delta=delta)
    best: tuple[Any, ...] | None = None

    def consider(table: np.ndarray, step: int, row: np.ndarray) -> bool:
        nonlocal best
        prime = table.copy()
        prime[step] = row
        if np.array_equal(prime, table):
            return False
        key, loss = ev.score(table, prime)
        if best is None or key > best[0]:
            best = (key, table.copy(), prime, step, loss)
            return True
        return False

    exhaustive = horizon <= exhaustive_horizon
    if exhaustive:
        ev.prefetch((np.array(flat).reshape(horizon, k)
                     for flat in itertools.product((0.0, 1.0), repeat=k * horizon)), map_laws)
        pairs = []
        for flat in itertools.product((0.0, 1.0), repeat=k * horizon):
            table = np.array(flat).reshape(horizon, k)
            for step in range(horizon):
                for row in rows:
                    if tuple(row) > tuple(table[step]):
                        prime = table.copy()
                        prime[step] = row
                        pairs.append((table, prime))
        ev.prescore(pairs, map_laws)
        for flat in itertools.product((0.0, 1.0), repeat=k * horizon):
            table = np.array(flat).reshape(horizon, k)
            for step in range(horizon):
                for row in rows:
                    # each unordered pair once: the changed row sorts after the table's row
                    if tuple(row) > tuple(table[step]):
                        consider(table, step, row)
    else:
        structured = []
        for base in rows:
            table = np.tile(base, (horizon, 1))
            structured.append(table)
            for step in range(horizon):
                for row in rows:
                    prime = table.copy()
                    prime[step] = row
                    structured.append(prime)
        ev.prefetch(structured, map_laws)
        ev.prescore([(np.tile(base, (horizon, 1)), prime) for base in rows
                     for prime in _changed(np.tile(base, (horizon, 1)), rows)], map_laws)
        for base in rows:
            table = np.tile(base, (horizon, 1))
            for step in range(horizon):
                for row in rows:
                    consider(table, step, row)
        budget = len(ev.seen) + climb
        improved = True
        while improved and len(ev.seen) < budget and best is not None:
            improved = False
            _, table, prime, step, _ = best
            moves = [(t, a) for t in range(horizon) for a in range(k)]
            for t, a in moves:
                if len(ev.seen) >= budget:
                    break
                cand = table.copy()
                if t == step:
                    row = prime[step].copy()
                    row[a] = 1.0 - row[a]
                    improved |= consider(cand, step, row)
                else:
                    cand[t, a] = 1.0 - cand[t, a]
                    improved |= consider(cand, step, prime[step])
                if improved:
                    break
    if best is None:  # only when every pair was identical, which K >= 2 rules out
        raise ValueError("no neighbouring pair of distinct tables was evaluated")
    key, table, prime, step, loss = best
    evaluated = total if exhaustive else len(ev.seen)
    return TrajectorySearch(table, prime, step + 1, loss, evaluated, total, exhaustive,
                            horizon, ev.nodes, ev.law(table), ev.law(prime))

