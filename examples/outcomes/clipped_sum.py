"""A bounded sum whose clipping lets NaN through (NaN injection).

A bounded sum clips each record to ``[0, 1]`` and adds ``Lap(1 / epsilon)``: one record moves
the sum by at most 1, so the release is epsilon-DP (Dwork & Roth 2014, Theorem 3.6). Records
with a missing value arrive as NaN, and ``np.clip(nan, 0, 1)`` is NaN: on the neighbour that
holds such a record the sum, and so the release, is NaN on every draw, and on the other never.
The event "output is NaN" then has probability 1 against 0, an unbounded privacy loss; Cebere,
Erb, Desfontaines, Bellet & Fitzsimons (2026) found this in released libraries.
"""

import numpy as np

#: the neighbouring data sets: three records, and the same with one record whose value is
#: missing (NaN)
RECORDS = (0.2, 0.5, 0.9)


class NaNClippedSum:
    """Broken: ``sum(np.clip(records, 0, 1)) + Lap(1 / epsilon)``; a NaN record survives the
    clip and makes the release NaN."""

    def __init__(self, epsilon: float = 1.0) -> None:
        self.epsilon, self.delta = epsilon, 0.0
        self.neighbours = [(RECORDS, (*RECORDS, float("nan")))]

    def total(self, data) -> float:
        return float(np.clip(np.asarray(data, dtype=float), 0.0, 1.0).sum())

    def sample(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.total(data) + rng.laplace(0.0, 1.0 / self.epsilon, size)


class ClippedSum(NaNClippedSum):
    """Correct twin: a record with a missing value contributes 0 (``[0, 1]`` still bounds every
    record's contribution, so the sensitivity stays 1)."""

    def total(self, data) -> float:
        x = np.asarray(data, dtype=float)
        return float(np.clip(np.where(np.isnan(x), 0.0, x), 0.0, 1.0).sum())
