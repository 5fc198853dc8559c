"""Noisy counts of labels: ``data`` is a list of labels.

Correct: the classes are a public list, every class gets a count (zero if absent) plus
Lap(1 / epsilon); a changed label moves two counts by 1 each, so the scale is 2 / epsilon.
The planted bug counts only the classes found in the data: the number of outputs reveals
whether a class is present (domain inference, after Cebere et al. 2026).
"""

import numpy as np

CLASSES = ("a", "b", "c")


class PublicClassCounts:
    """Correct: one count per public class."""

    epsilon, delta = 1.0, 0.0
    neighbours = [(("a", "a", "b"), ("a", "a", "a")), (("a", "a", "b"), ("a", "a", "c"))]

    def sample(self, data, size, rng):
        counts = np.array([sum(x == c for x in data) for c in CLASSES], dtype=float)
        return counts + rng.laplace(0.0, 2.0 / self.epsilon, (size, len(CLASSES)))


class FoundClassCounts(PublicClassCounts):
    """Broken: one count per class *found in the data* (a list per output, ragged)."""

    def sample(self, data, size, rng):
        found = sorted(set(data))
        counts = np.array([sum(x == c for x in data) for c in found], dtype=float)
        noisy = counts + rng.laplace(0.0, 2.0 / self.epsilon, (size, len(found)))
        return [list(row) for row in noisy]
