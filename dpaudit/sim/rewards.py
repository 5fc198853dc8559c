"""Reward sources of the bandit engine (re-exported by :mod:`dpaudit.sim.bandits`; see there).

Steps are 1-based; a fixed table has shape ``(T, K)``; arrays over runs have the run on axis 0.

* :class:`BernoulliRewards` -- Bernoulli arms, optionally with Wang & Zhu 2023's
  data-revision rule (Definition 3); a block of steps is one binomial draw per run.
* :class:`TableRewards` -- a fixed reward table (Azize & Basu 2022, Definition 2); block sums
  from prefix sums.
"""

from __future__ import annotations

import numpy as np

from dpaudit.validation import (
    InvalidParameterError,
    check_int,
    check_means,
    check_real,
    check_rewards,
)

__all__ = ["BernoulliRewards", "TableRewards", "bernoulli_observation"]


class BernoulliRewards:
    """Bernoulli arms with means ``means``; optionally one revised step (Wang & Zhu 2023, Def. 3).

    Parameters
    ----------
    means:
        Arm means in ``[0, 1]``.
    revision_step:
        1-based step ``t`` whose reward is replaced by ``revision_value`` (``None``: none).
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

    def __repr__(self) -> str:
        rev = ("" if self.revision_step is None
               else f", revision_step={self.revision_step}, revision_value={self.revision_value}")
        return f"BernoulliRewards({self.means.tolist()}{rev})"

    def changed(self, step: int, value: float = 0.0) -> BernoulliRewards:
        """The same instance with the reward at 1-based ``step`` revised to ``value``."""
        return BernoulliRewards(self.means, revision_step=step, revision_value=value)

    def rewards(self, step: int, arms: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The reward of ``arms[r]`` at 1-based ``step`` in every run ``r`` (one draw each)."""
        arms = np.asarray(arms)
        # drawn even at the revised step, so a source and its revision consume the generator
        # alike (coupled runs stay coupled after the revised step)
        drawn = (rng.random(arms.shape) < self.means[arms]).astype(float)
        if step == self.revision_step:
            return np.full(arms.shape, self.revision_value)
        return drawn

    def block_sums(self, arms: np.ndarray, first: np.ndarray, length: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
        """Reward sum of ``arms`` over steps ``first .. first + length - 1`` (1-based)."""
        p = self.means[arms]
        if self.revision_step is None:
            return rng.binomial(length, p).astype(float)
        inside = (first <= self.revision_step) & (self.revision_step < first + length)
        n = np.where(inside, length - 1, length)
        return rng.binomial(n, p) + np.where(inside, self.revision_value, 0.0)


class TableRewards:
    """A fixed reward table ``(T, K)``, or a sequence ``(T,)`` that every arm earns.

    Parameters
    ----------
    table:
        Rewards in ``[0, 1]``; ``table[t - 1, a]`` is arm ``a``'s reward at step ``t``.
    n_arms:
        Required for a 1-d sequence; must match ``K`` for a table when given.
    means:
        Optional arm means, used only for pseudo-regret bookkeeping (``gaps``); without them
        ``gaps`` are zero (pseudo-regret is undefined on a fixed table).
    """

    def __init__(self, table: object, *, n_arms: int | None = None,
                 means: object | None = None) -> None:
        arr = check_rewards(table, name="table")
        if arr.ndim == 1:
            if n_arms is None:
                raise InvalidParameterError(
                    "n_arms=None must be an integer >= 1 for a 1-d reward sequence")
            k = check_int("n_arms", n_arms, low=1)
            full = np.broadcast_to(arr[:, None], (arr.size, k))
        elif arr.ndim == 2:
            k = arr.shape[1]
            if n_arms is not None and check_int("n_arms", n_arms, low=1) != k:
                raise InvalidParameterError(
                    f"n_arms={n_arms!r} must equal the table's {k} columns")
            full = arr
        else:
            raise InvalidParameterError(f"table with shape {arr.shape} must be (T,) or (T, K)")
        if full.shape[0] < 1 or k < 1:
            raise InvalidParameterError(f"table with shape {arr.shape} must hold a step and an arm")
        self.table = arr
        self.n_arms = int(k)
        self.length = int(full.shape[0])
        self._full = full
        self._prefix = np.concatenate([np.zeros((1, k)), np.cumsum(full, axis=0)], axis=0)
        self.means = None if means is None else check_means(means)
        if self.means is not None and self.means.size != k:
            raise InvalidParameterError(f"means={means!r} must have one entry per arm ({k})")
        self.gaps = np.zeros(k) if self.means is None else self.means.max() - self.means

    def __repr__(self) -> str:
        return f"TableRewards(shape={self.table.shape}, n_arms={self.n_arms})"

    def changed(self, step: int, value: float | np.ndarray) -> TableRewards:
        """The neighbouring table: the reward(s) at 1-based ``step`` set to ``value``.

        ``value`` is a number (every arm) or one reward per arm (a ``(K,)`` table only).
        """
        s = check_int("step", step, low=1, high=self.length) - 1
        new = np.array(self.table, dtype=float, copy=True)
        if new.ndim == 1:
            new[s] = check_real("value", value, low=0.0, high=1.0)
        else:
            v = check_rewards(value, name="value")
            if v.ndim > 1 or (v.ndim == 1 and v.size != self.n_arms):
                raise InvalidParameterError(
                    f"value={value!r} must be a number or one reward per arm")
            new[s, :] = v
        return TableRewards(new, n_arms=self.n_arms, means=self.means)

    def rewards(self, step: int, arms: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``table[step - 1, arms]`` (no randomness)."""
        return self._full[step - 1, np.asarray(arms)]

    def block_sums(self, arms: np.ndarray, first: np.ndarray, length: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
        """Sum of ``arms``' rewards over steps ``first .. first + length - 1`` (prefix sums)."""
        start = np.asarray(first) - 1
        end = start + np.asarray(length)
        if np.any(end > self.length):
            raise InvalidParameterError(
                f"horizon exceeds the reward table's {self.length} steps")
        return self._prefix[end, arms] - self._prefix[start, arms]


def bernoulli_observation(rewards: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A Bernoulli draw of rewards in [0, 1] (rewards already 0/1 are returned as they are).

    The trick of Agrawal & Goyal that Wang & Zhu 2023 (Sec. 3.1) use for rewards in [0, 1]:
    the algorithm observes ``Bernoulli(r)`` instead of ``r``.
    """
    rewards = np.asarray(rewards, dtype=float)
    if np.all((rewards == 0.0) | (rewards == 1.0)):
        return rewards
    return (rng.random(rewards.shape) < rewards).astype(float)
