"""Your mechanism (the file the privacy gate protects): the sum of values clipped to [0, 1],
released with Laplace noise of scale 1/epsilon (sensitivity 1: one record moves the sum by at
most 1)."""

import numpy as np


class ClippedLaplaceSum:
    """Sum of the values clipped to [0, 1], plus Laplace(1/epsilon) noise: epsilon-DP."""

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        self.epsilon, self.delta = epsilon, delta
        self.scale = 1.0 / epsilon
        # neighbouring datasets an attacker compares: one record changes from 0 to 1
        self.neighbours = [((0.2, 0.0), (0.2, 1.0))]

    def sample(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        total = float(np.clip(np.asarray(data, dtype=float), 0.0, 1.0).sum())
        return total + rng.laplace(0.0, self.scale, size)
