"""The CI gate in pytest: ``python -m pytest examples/test_privacy_gate.py --dpaudit-scale 0.25``.

``assert_private`` attacks a mechanism on its neighbouring inputs and fails the test when a
claimed (epsilon, delta) is VIOLATED, with the witness and the bound in the message. A correct
mechanism fails with probability at most ``alpha``; ``--dpaudit-scale`` (or
``DPAUDIT_SAMPLE_SCALE``) shrinks every sample budget for a fast CI job, which only makes small
violations undetectable, never a correct mechanism fail more often.
"""

import numpy as np
import pytest
from minimal_audit import RandomizedResponse

from dpaudit.testing import PrivacyAssertionError, assert_private


class ClippedLaplaceSum:
    """Your mechanism: the sum of values clipped to [0, 1], plus Laplace(1/eps) noise."""

    def __init__(self, epsilon: float, *, noise_scale: float | None = None) -> None:
        self.epsilon, self.delta = epsilon, 0.0
        self.scale = 1.0 / epsilon if noise_scale is None else noise_scale
        # neighbouring datasets: one record changes from 0 to 1
        self.neighbours = [((0.2, 0.0), (0.2, 1.0))]

    def sample(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        total = float(np.clip(np.asarray(data, dtype=float), 0.0, 1.0).sum())
        return total + rng.laplace(0.0, self.scale, size)


def test_randomized_response_is_private():
    assert_private(RandomizedResponse(1.0), epsilon=1.0, samples=200_000, alpha=0.01)


def test_clipped_laplace_sum_is_private():
    assert_private(ClippedLaplaceSum(0.5), samples=200_000, alpha=0.01)


def test_the_gate_catches_half_the_noise():
    # a regression the gate must stop: the noise scale halved (true epsilon 2 x 0.5 = 1)
    with pytest.raises(PrivacyAssertionError, match="VIOLATED"):
        assert_private(ClippedLaplaceSum(0.5, noise_scale=1.0), samples=200_000, alpha=0.01)
