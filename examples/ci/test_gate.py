"""The privacy gate in pytest: ``python -m pytest test_gate.py --dpaudit-scale 0.25``.

``assert_private`` fails the test when the claim is VIOLATED, and also when it is INCONCLUSIVE
(too few samples to decide), so the gate never passes on "not enough evidence".
"""

from mechanism import ClippedLaplaceSum

from dpaudit.testing import assert_private


def test_clipped_laplace_sum_is_private():
    assert_private(ClippedLaplaceSum(0.5), samples=200_000, alpha=0.01)
