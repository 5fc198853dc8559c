"""A group mean that is NaN when the group is empty.

The noisy mean of the values (in ``[0, 1]``) of one group: the mean of ``n`` values moves by at
most ``1 / (n + 1) <= 1/2`` when one record joins, so ``mean + Lap(1 / epsilon)`` is epsilon-DP
on neighbours where the group is not empty. When the group is empty the code divides 0 by 0
(with the warning silenced, as pipelines do) and the release is NaN on every draw: the data
set without the group's one record gives "output is NaN" with probability 1, the one with it
never. Cebere, Erb, Desfontaines, Bellet & Fitzsimons (2026) found a mean of an empty group
among the NaN injections of released libraries.
"""

import numpy as np

#: records ``(group, value)``; the neighbour drops the one record of group "a"
WITH_A = (("a", 0.3), ("b", 0.8), ("b", 0.1))
WITHOUT_A = (("b", 0.8), ("b", 0.1))


class EmptyGroupMean:
    """Broken: ``sum / count`` of group ``"a"``'s values plus ``Lap(1 / epsilon)``; 0 / 0 is
    NaN."""

    group = "a"

    def __init__(self, epsilon: float = 1.0) -> None:
        self.epsilon, self.delta = epsilon, 0.0
        self.neighbours = [(WITH_A, WITHOUT_A)]

    def values(self, data) -> np.ndarray:
        return np.array([v for g, v in data if g == self.group], dtype=float)

    def mean(self, data) -> float:
        v = self.values(data)
        with np.errstate(invalid="ignore"):
            return float(np.float64(v.sum()) / v.size)

    def sample(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.mean(data) + rng.laplace(0.0, 1.0 / self.epsilon, size)


class GroupMean(EmptyGroupMean):
    """Correct twin: an empty group's mean is the public value 1/2 (the middle of ``[0, 1]``,
    at most 1/2 from any one record's value), so the sensitivity stays at most 1/2."""

    def mean(self, data) -> float:
        v = self.values(data)
        return float(v.mean()) if v.size else 0.5
