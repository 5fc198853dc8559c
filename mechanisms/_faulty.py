"""Deliberately broken mechanisms, kept beside the correct ones so audits can be shown to fail.

Never use these for anything but testing the auditor. Each docstring says what is wrong.
"""

from __future__ import annotations

from .lemma15 import Lemma15Perturbation

__all__ = ["FaultyLemma15Perturbation"]


class FaultyLemma15Perturbation(Lemma15Perturbation):
    """Lemma-15 perturbation whose density decays at rate ``2 N eps`` instead of ``N eps``.

    What is wrong: the support and decay are those of a count ``2N``, but neighbouring
    histories still shift the centre by up to ``1/N``. A shift of ``1/N`` therefore moves the
    density ratio to ``e^(2 eps)`` and the edge band where the shifted density vanishes holds
    mass ``delta (e^eps + 1) > delta``: the claimed ``(eps, delta)`` fails.
    """

    def __init__(self, epsilon: float, delta: float) -> None:
        super().__init__(epsilon, delta, rate_multiplier=2.0)
