"""Noisy counts per class, released for the classes found in the data (domain inference).

A histogram with ``Lap(1 / epsilon)`` on each count is epsilon-DP when its bins are fixed in
advance: one record moves one count by 1 (Dwork & Roth 2014, Theorem 3.6). Code that takes its
bins from the private data ("one count per class in ``np.unique(labels)``") releases which
classes occur: the data set with a record of class ``"c"`` gets three counts, the one without
it two, on every draw. ``CountsOfClassesFound`` returns that variable-length release
(``output length in {2}`` has probability 1 against 0); ``NaNPaddedCounts`` pads it to the
public classes with NaN where a class was not found ("coordinate 2 is NaN"). Cebere, Erb,
Desfontaines, Bellet & Fitzsimons (2026) found both in released libraries.
"""

import numpy as np

#: the public list of classes
CLASSES = ("a", "b", "c")
#: labels of the records; the neighbour adds one record of class "c"
LABELS = ("a", "a", "b")


class CountsOfClassesFound:
    """Broken: one noisy count per class in ``np.unique(labels)`` (the bins are data)."""

    def __init__(self, epsilon: float = 1.0) -> None:
        self.epsilon, self.delta = epsilon, 0.0
        self.neighbours = [(LABELS, (*LABELS, "c"))]

    def sample(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        found, counts = np.unique(np.asarray(data), return_counts=True)
        return counts + rng.laplace(0.0, 1.0 / self.epsilon, (size, len(found)))


class NaNPaddedCounts(CountsOfClassesFound):
    """Broken: the counts of the classes found, placed on the public classes, NaN where a
    class was not found (its group was missing, as a group-by leaves it)."""

    def sample(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        found, counts = np.unique(np.asarray(data), return_counts=True)
        out = np.full((size, len(CLASSES)), np.nan)
        for name, count in zip(found, counts, strict=True):
            out[:, CLASSES.index(str(name))] = count + rng.laplace(0.0, 1.0 / self.epsilon,
                                                                   size)
        return out


class PublicClassCounts(CountsOfClassesFound):
    """Correct twin: one noisy count per public class (0 for a class not found)."""

    def sample(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        labels = list(data)
        counts = np.array([labels.count(c) for c in CLASSES], dtype=float)
        return counts + rng.laplace(0.0, 1.0 / self.epsilon, (size, len(CLASSES)))
