"""Where a bandit policy's decisions are: a pilot for the automatic neighbour search.

A change to one reward can only move the output of a policy if the policy's actions depend on
its rewards at all. An elimination policy (DP-SE; Sajed & Sheffet 2019) never eliminates on a
table where every arm pays the same, and a policy with a long warm-up decides nothing before
it: every neighbour tried there gives identical action sequences, and a power statement about
them would be empty. This module finds, with **coupled runs** (the same seeds on two inputs,
so that any difference in actions is caused by the rewards, not by the policy's noise):

* :func:`gap_table` -- tables where the arms differ: arm ``best`` pays ``(1 + g) / 2`` at
  every step and every other arm ``(1 - g) / 2`` (a gap ``g`` in ``[0, 1]``);
* :func:`decision_boundary` -- a gap at which the policy's decision turns: bisection on ``g``
  between a gap where the actions are those of equal arms and one where they differ, down to
  a width far below one reward's weight, so that one changed reward just before the
  *decision step* (the first step where the actions differ) crosses the boundary;
* :func:`depends_on_rewards` and :func:`suggest_horizon` -- whether the actions at horizon
  ``T`` depend on the rewards at all, and else the smallest doubled horizon at which they do
  (the report says "the actions did not depend on the rewards at this horizon; try T >= ...").

Everything here uses the caller's search generator only, never the selection or measurement
samples of the audit, so the pilot costs runs but never validity.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.validation import check_int, check_real

__all__ = ["Boundary", "decision_boundary", "depends_on_rewards", "gap_table",
           "steps_before", "suggest_horizon"]

#: ``run(table, n, seed) -> (n, T)`` actions of ``n`` runs seeded from ``seed`` (coupled: the
#: same ``seed`` gives run ``i`` the same randomness on any table)
Runner = Callable[[np.ndarray, int, int], np.ndarray]


def gap_table(horizon: int, n_arms: int, gap: float, *, best: int = 0) -> np.ndarray:
    """``(T, K)`` table: arm ``best`` pays ``(1 + gap) / 2``, every other arm ``(1 - gap) / 2``."""
    t = check_int("horizon", horizon, low=1)
    k = check_int("n_arms", n_arms, low=1)
    g = check_real("gap", gap, low=0.0, high=1.0)
    row = np.full(k, (1.0 - g) / 2.0)
    row[check_int("best", best, low=0, high=k - 1)] = (1.0 + g) / 2.0
    return np.tile(row, (t, 1))


def _first_difference(a: np.ndarray, b: np.ndarray) -> int | None:
    """1-based first step where any coupled run's actions differ (``None``: identical)."""
    diff = np.flatnonzero((np.asarray(a) != np.asarray(b)).any(axis=0))
    return int(diff[0]) + 1 if diff.size else None


def depends_on_rewards(run: Runner, horizon: int, n_arms: int, *, runs: int = 4,
                       seed: int = 0) -> int | None:
    """The first step at which the actions on coupled runs differ between the equal-arm table
    (all ``1/2``) and a gap-1 table with any arm best; ``None`` when they never do."""
    base = run(gap_table(horizon, n_arms, 0.0), runs, seed)
    steps = [_first_difference(base, run(gap_table(horizon, n_arms, 1.0, best=b), runs, seed))
             for b in range(n_arms)]
    found = [s for s in steps if s is not None]
    return min(found) if found else None


def suggest_horizon(run_at: Callable[[int], Runner], horizon: int, n_arms: int, *,
                    factor: int = 64, runs: int = 2, seed: int = 0) -> int | None:
    """Smallest ``T * 2^j <= factor * T`` at which :func:`depends_on_rewards` finds a
    dependence (``run_at(T)`` runs the code at horizon ``T``); ``None`` when none does."""
    t = 2 * horizon
    while t <= factor * horizon:
        if depends_on_rewards(run_at(t), t, n_arms, runs=runs, seed=seed) is not None:
            return t
        t *= 2
    return None


@dataclass(frozen=True)
class Boundary:
    """A gap at which the policy's decision turns (seen on one coupled run).

    ``low``/``high``: gaps less than ``width`` apart whose action sequences differ;
    ``step``: the first step (1-based) where they differ (the decision); ``actions``: the
    actions on the ``high`` table (which arm was pulled before the decision); ``best``: the
    arm with the higher reward.
    """

    low: float
    high: float
    step: int
    actions: tuple[int, ...]
    best: int = 0

    @property
    def width(self) -> float:
        return self.high - self.low


def decision_boundary(run: Runner, horizon: int, n_arms: int, *, best: int = 0,
                      seed: int = 0, tol: float = 1e-4, max_iter: int = 24
                      ) -> Boundary | None:
    """Bisection on the gap between ``0`` and ``1`` for the run seeded by ``seed``.

    Returns ``None`` when the gap-0 and gap-1 tables give the same actions (no decision turns
    on the gap at this horizon). Every step of the bisection keeps ``f(low) != f(high)``,
    where ``f(g)`` is the action sequence on :func:`gap_table` ``(g)``, so it ends at a point
    where the actions jump: one reward of the better arm moved by more than ``n * width`` just
    before :attr:`Boundary.step` (``n`` its pulls so far) moves its mean across it.
    """
    def f(g: float) -> np.ndarray:
        return run(gap_table(horizon, n_arms, g, best=best), 1, seed)[0]

    lo, hi = 0.0, 1.0
    a_lo, a_hi = f(lo), f(hi)
    if np.array_equal(a_lo, a_hi):
        return None
    for _ in range(max_iter):
        if hi - lo <= tol:
            break
        mid = (lo + hi) / 2.0
        a_mid = f(mid)
        if np.array_equal(a_mid, a_lo):
            lo = mid
        else:
            hi, a_hi = mid, a_mid
    step = _first_difference(a_lo[None, :], a_hi[None, :])
    return Boundary(lo, hi, int(step or 1), tuple(int(x) for x in a_hi), best)


def steps_before(actions: Any, step: int, n_arms: int, *, per_arm: int = 2) -> list[int]:
    """Steps (1-based) before ``step`` where each arm was last pulled, ``per_arm`` per arm,
    nearest the decision first: the rewards the decision at ``step`` was computed from."""
    acts = np.asarray(actions)[: max(step - 1, 0)]
    out: list[int] = []
    for arm in range(n_arms):
        pulls = np.flatnonzero(acts == arm)[::-1][:per_arm] + 1
        out += [int(s) for s in pulls]
    return sorted(set(out), key=lambda s: (-s, s))
