"""Shared machinery of the episodic global-DP algorithms (AdaP-*, DP-SE, GDP-Elim-New).

Reward sources
--------------
An episodic algorithm asks for the *sum* of the rewards of one arm over a block of
consecutive steps ``[start, start + length)`` (0-based step indices) in every run at once.

* :class:`BernoulliRewards` draws the sum as one ``Binomial(length, mu_a)`` per run and block
  (the cost of a run grows with its number of episodes, not with ``T``). With a *revision*
  (seed 003, Definition 2-3: the data-revision rule "change the reward at step ``t`` to
  ``v``", ``p_t(1 | a) = 1`` for every arm), a block that contains the revised step draws
  ``Binomial(length - 1, mu_a) + v``: the other rewards keep their law, the revised one is ``v``.
* :class:`TableRewards` is a fixed reward sequence (seed 000, Definition 2: ``r^T`` indexed by
  time, ``r_t`` is observed whichever arm is pulled at ``t``), or a ``(K, T)`` table of
  rewards per arm and step; sums come from prefix sums, so a block is O(1) as well.
  :meth:`TableRewards.changed` gives the neighbouring sequence that differs at one step.

Runs in lockstep
----------------
:class:`RegretTracker` accumulates pseudo-regret ``sum_t (mu* - mu_{A_t})`` and its value at
checkpoints (linear inside a block), and :class:`EpisodicResult` is what every simulator
returns: per-run regret and pull counts, and ``decisions``, a small integer array per run that
determines the whole action sequence (the quantity the global-DP audits compare).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpaudit.validation import (
    InvalidParameterError,
    check_int,
    check_means,
    check_real,
    check_rewards,
)

__all__ = [
    "BernoulliRewards",
    "EpisodicResult",
    "RegretTracker",
    "TableRewards",
    "argmax_random_ties",
    "checkpoint_grid",
]


class BernoulliRewards:
    """Bernoulli arms with means ``means``; optionally one revised step (seed 003, Def. 3).

    Parameters
    ----------
    means:
        Arm means in ``[0, 1]``.
    revision_step:
        1-based step ``t`` whose reward is replaced by ``revision_value`` (``None``: no revision).
    revision_value:
        The revised reward, in ``[0, 1]``.
    """

    def __init__(self, means: object, *, revision_step: int | None = None,
                 revision_value: float = 0.0) -> None:
        self.means = check_means(means)
        self.n_arms = int(self.means.size)
        self.gaps = self.means.max() - self.means
        self.revision_step = None if revision_step is None else check_int(
            "revision_step", revision_step, low=1)
        self.revision_value = check_real("revision_value", revision_value, low=0.0, high=1.0)

    def revised(self, step: int, value: float = 0.0) -> BernoulliRewards:
        """The same instance with the reward at ``step`` revised to ``value``."""
        return BernoulliRewards(self.means, revision_step=step, revision_value=value)

    def block_sums(self, arm: np.ndarray, start: np.ndarray, length: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
        """Reward sum of ``arm`` over steps ``[start, start + length)`` in every run."""
        p = self.means[arm]
        if self.revision_step is None:
            return rng.binomial(length, p).astype(float)
        s = self.revision_step - 1
        inside = (start <= s) & (s < start + length)
        n = np.where(inside, length - 1, length)
        return rng.binomial(n, p) + np.where(inside, self.revision_value, 0.0)


class TableRewards:
    """A fixed reward sequence ``r_1..r_T`` (shape ``(T,)``) or table (shape ``(K, T)``).

    ``n_arms`` is required for a 1-d sequence. Pseudo-regret is not defined for a fixed
    table; ``gaps`` are zero unless ``means`` is given for bookkeeping.
    """

    def __init__(self, table: object, *, n_arms: int | None = None,
                 means: object | None = None) -> None:
        arr = check_rewards(table, name="table")
        if arr.ndim == 1:
            if n_arms is None:
                raise InvalidParameterError("n_arms=None must be an integer >= 1 for a 1-d table")
            k = check_int("n_arms", n_arms, low=1)
            arr2 = np.broadcast_to(arr, (k, arr.size))
        elif arr.ndim == 2:
            k = arr.shape[0]
            arr2 = arr
        else:
            raise InvalidParameterError(f"table with shape {arr.shape} must be 1-d or 2-d")
        if arr2.shape[1] < 1:
            raise InvalidParameterError("table must hold at least one step")
        self.table = arr
        self.n_arms = int(k)
        self.length = int(arr2.shape[1])
        self._prefix = np.concatenate([np.zeros((k, 1)), np.cumsum(arr2, axis=1)], axis=1)
        self.means = None if means is None else check_means(means)
        self.gaps = np.zeros(k) if self.means is None else self.means.max() - self.means

    def changed(self, step: int, value: float | np.ndarray) -> TableRewards:
        """The neighbouring table: the reward(s) at 1-based ``step`` set to ``value``."""
        s = check_int("step", step, low=1, high=self.length) - 1
        new = np.array(self.table, dtype=float, copy=True)
        if new.ndim == 1:
            new[s] = check_real("value", value, low=0.0, high=1.0)
        else:
            new[:, s] = check_rewards(value, name="value")
        return TableRewards(new, n_arms=self.n_arms, means=self.means)

    def block_sums(self, arm: np.ndarray, start: np.ndarray, length: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
        end = start + length
        if np.any(end > self.length):
            raise InvalidParameterError(
                f"horizon exceeds the reward table's {self.length} steps")
        return self._prefix[arm, end] - self._prefix[arm, start]


def check_source(rewards: object, horizon: int) -> None:
    if not isinstance(rewards, BernoulliRewards | TableRewards):
        raise InvalidParameterError(
            f"rewards={rewards!r} must be a BernoulliRewards or TableRewards")
    if isinstance(rewards, TableRewards) and rewards.length < horizon:
        raise InvalidParameterError(
            f"horizon={horizon} must be at most the reward table's length {rewards.length}")


def argmax_random_ties(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row-wise argmax with ties broken uniformly at random (KL-UCB indexes tie at 1)."""
    top = values >= values.max(axis=1, keepdims=True)
    return np.argmax(top * (1.0 + rng.random(values.shape)), axis=1)


def checkpoint_grid(horizon: int, n: int = 40) -> np.ndarray:
    """Log-spaced checkpoints ``1 <= c <= horizon`` (always including ``horizon``)."""
    grid = np.unique(np.round(np.geomspace(1, horizon, n)).astype(np.int64))
    return grid


class RegretTracker:
    """Pseudo-regret of many runs in lockstep, with its value at checkpoints."""

    def __init__(self, runs: int, gaps: np.ndarray, checkpoints: np.ndarray) -> None:
        self.gaps = np.asarray(gaps, dtype=float)
        self.regret = np.zeros(runs)
        self.counts = np.zeros((runs, self.gaps.size), dtype=np.int64)
        self.checkpoints = np.asarray(checkpoints, dtype=np.int64)
        self.curve = np.zeros((runs, self.checkpoints.size))
        self._rows = np.arange(runs)

    def add(self, arm: np.ndarray, start: np.ndarray, length: np.ndarray) -> None:
        """Record that each run played ``arm`` on ``[start, start + length)`` (0-based)."""
        gap = self.gaps[arm]
        if self.checkpoints.size:
            cp = self.checkpoints[None, :]
            inside = (cp > start[:, None]) & (cp <= (start + length)[:, None])
            value = self.regret[:, None] + gap[:, None] * (cp - start[:, None])
            self.curve = np.where(inside, value, self.curve)
        self.regret += gap * length
        self.counts[self._rows, arm] += length


@dataclass(frozen=True)
class EpisodicResult:
    """Outcome of ``runs`` simulated runs.

    ``decisions[r]`` (padded with -1) determines run ``r``'s whole action sequence; ``curve``
    holds pseudo-regret at ``checkpoints``; ``releases`` (only when asked for) holds the
    pre-noise statistic of every release, in release order (NaN-padded).
    """

    regret: np.ndarray
    counts: np.ndarray
    decisions: np.ndarray
    episodes: np.ndarray
    checkpoints: np.ndarray
    curve: np.ndarray
    releases: np.ndarray | None = None
