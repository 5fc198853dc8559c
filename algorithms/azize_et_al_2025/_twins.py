"""Planted twins of DP-KLUCB and DP-IMED (Azize, Wu, Honda, Orabona, Ito & Basu 2025):
real-looking bugs in the noise of a phase's sum.

Each twin overrides one line (the Laplace scale of a phase's release, computed inline as buggy
code would compute it); its docstring says what is wrong and derives its true privacy loss
exactly. "True loss" is the exact pure-DP loss of the release transcript (every noisy phase sum
the code releases) over all pairs of reward tables differing at one step: a changed reward lies
in one phase of one arm (the phases are disjoint), so it enters one release, and the loss is the
largest ``sensitivity / scale`` of a single release (sensitivity 1: a sum of rewards in [0, 1]).
The actions are post-processing, so their loss is at most this. The paper's algorithm has
``1 / (1/eps) = eps``.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms.azize_et_al_2025.dp_phased import DPIMED, DPKLUCB

__all__ = ["DPIMEDHalfScale", "DPIMEDMeanScale", "DPKLUCBHalfScale", "DPKLUCBMeanScale",
           "TRUE_EPSILON"]


class _HalfScale:
    """Phase noise ``Lap(1/(2 eps))``: half the scale Proposition 2 needs. BROKEN.

    The code takes the Laplace width ``2 b`` for its scale ``b`` and halves ``1/eps``, inline.
    What is wrong: a phase sum has sensitivity 1 and must get ``Lap(1/eps)``. True loss:
    ``1 / (1/(2 eps)) = 2 eps`` per release, one release per reward: ``2 eps`` = 2 at the
    default eps = 1.
    """

    epsilon: float  # the algorithm's (this mixin precedes it)

    def noise_scale(self, length: np.ndarray) -> np.ndarray:
        return np.full(np.shape(length), 0.5 / self.epsilon)  # BROKEN: the scale of 2 eps


class _MeanScale:
    """Phase noise ``Lap(1/(eps L))`` on the sum of a phase of ``L`` rewards: noise calibrated for
    the phase's mean, added to its sum. BROKEN.

    The code computes the scale of the mean (sensitivity ``1/L``) and adds it to the sum
    (sensitivity 1), inline. What is wrong: Proposition 2's release is the sum, whose scale
    must be ``1/eps``. True loss: a reward in a phase of length ``L`` moves that release by 1
    against a scale ``1/(eps L)``: loss ``eps L``. Phases grow geometrically (``L = n`` at
    ``alpha = 2``), so over all horizons the loss is unbounded: infinite. At the attack's
    canary (step 5 of ``K = 2``, always in a phase of length 2 at ``alpha = 2``) it is ``2
    eps``.
    """

    epsilon: float  # the algorithm's (this mixin precedes it)

    def noise_scale(self, length: np.ndarray) -> np.ndarray:
        return 1.0 / (self.epsilon * np.asarray(length, dtype=float))  # BROKEN: mean's scale


class DPKLUCBHalfScale(_HalfScale, DPKLUCB):
    __doc__ = _HalfScale.__doc__
    name = "DP-KLUCB (half the noise, twin)"


class DPIMEDHalfScale(_HalfScale, DPIMED):
    __doc__ = _HalfScale.__doc__
    name = "DP-IMED (half the noise, twin)"


class DPKLUCBMeanScale(_MeanScale, DPKLUCB):
    __doc__ = _MeanScale.__doc__
    name = "DP-KLUCB (noise of the mean on the sum, twin)"


class DPIMEDMeanScale(_MeanScale, DPIMED):
    __doc__ = _MeanScale.__doc__
    name = "DP-IMED (noise of the mean on the sum, twin)"


#: exact true loss at the default eps = 1 (derivations in the docstrings; checked in a test)
TRUE_EPSILON = {"half-scale": 2.0, "mean-scale": math.inf}
