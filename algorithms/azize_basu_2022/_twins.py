"""Planted twins of AdaP-UCB and AdaP-KLUCB (Azize & Basu 2022, Alg. 1): real-looking bugs.

Each twin overrides one line of the code path (the noise scale of an episode's private mean,
computed inline as buggy code would compute it); its docstring says what is wrong and derives
its true privacy loss exactly. "True loss" is the exact pure-DP loss of the release transcript
(every private mean the code releases) over all pairs of reward tables differing at one
step; by Theorem 6's argument (a changed reward lies in one episode of one arm, so it enters
one release) it is the largest loss of a single release, ``sensitivity / scale``. The actions
are post-processing, so their loss is at most this. ``tests/test_twins_release.py`` computes
each value from the code's own scale function.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms.azize_basu_2022.adap import AdaPKLUCB, AdaPUCB

__all__ = ["AdaPKLUCBHalfScale", "AdaPKLUCBSqrt2Scale", "AdaPKLUCBUnnoisedFirst",
           "AdaPUCBHalfScale", "AdaPUCBSqrt2Scale", "AdaPUCBUnnoisedFirst", "TRUE_EPSILON"]


class _Sqrt2Scale:
    """Episode noise ``Lap(sqrt(2)/(eps N_a))``: the scale divided by sqrt(2). BROKEN.

    The code treats ``2/(eps N_a)`` as the noise's standard deviation and converts it to a
    Laplace scale (``std / sqrt 2``), inline. What is wrong: Lemma 1 needs the *scale*
    ``2/(eps N_a)`` for a mean of the last episode's ``N_a/2`` rewards (sensitivity
    ``2/N_a``). True loss: ``(2/N_a) / (sqrt(2)/(eps N_a)) = sqrt(2) eps`` per episode
    release (the initial releases keep ``Lap(2/eps)``, loss ``eps/2``), one release per
    reward: ``sqrt(2) eps`` = 1.414 at the default eps = 1.
    """

    def _noise_scale(self, n: np.ndarray) -> np.ndarray:
        return 2.0 / (self.epsilon * n) / math.sqrt(2.0)  # BROKEN: std -> scale, inline


class _HalfScale:
    """Episode noise ``Lap(1/(eps N_a))``: Lemma 1's ``1/(eps samples)`` with ``samples =
    N_a``. BROKEN.

    The code counts all ``N_a`` pulls of the arm as the samples of the release, inline. What
    is wrong: the release averages only the last episode's ``N_a/2`` rewards, so its
    sensitivity is ``2/N_a``, twice what the scale assumes. True loss: ``(2/N_a) / (1/(eps
    N_a)) = 2 eps`` per episode release, one release per reward: ``2 eps`` = 2 at eps = 1.
    """

    def _noise_scale(self, n: np.ndarray) -> np.ndarray:
        return 1.0 / (self.epsilon * n)  # BROKEN: N_a samples, the episode holds N_a / 2


class _UnnoisedFirst:
    """The initial pull of every arm is released without noise. BROKEN.

    Algorithm 1 pulls every arm once before its first episode; the code stores that one
    reward as the arm's private mean as it is (the Laplace draw is skipped, scale 0, inline).
    What is wrong: that release is the reward itself. True loss: infinite. Changing arm 0's
    initial reward (step 1) from 0 to 1 moves the first release from exactly 0 to exactly 1:
    the event ``{release 1 = 1}`` has probability 1 on one table and 0 on the other (no
    finite eps, any delta < 1).
    """

    def _initial_scale(self) -> float:
        return 0.0  # BROKEN: the initial one-sample mean is released as it is


class AdaPUCBUnnoisedFirst(_UnnoisedFirst, AdaPUCB):
    __doc__ = _UnnoisedFirst.__doc__
    name = "AdaP-UCB (initial pull released without noise, twin)"


class AdaPKLUCBUnnoisedFirst(_UnnoisedFirst, AdaPKLUCB):
    __doc__ = _UnnoisedFirst.__doc__
    name = "AdaP-KLUCB (initial pull released without noise, twin)"


class AdaPUCBSqrt2Scale(_Sqrt2Scale, AdaPUCB):
    __doc__ = _Sqrt2Scale.__doc__
    name = "AdaP-UCB (sqrt 2 too little noise, twin)"


class AdaPUCBHalfScale(_HalfScale, AdaPUCB):
    __doc__ = _HalfScale.__doc__
    name = "AdaP-UCB (half the noise, twin)"


class AdaPKLUCBSqrt2Scale(_Sqrt2Scale, AdaPKLUCB):
    __doc__ = _Sqrt2Scale.__doc__
    name = "AdaP-KLUCB (sqrt 2 too little noise, twin)"


class AdaPKLUCBHalfScale(_HalfScale, AdaPKLUCB):
    __doc__ = _HalfScale.__doc__
    name = "AdaP-KLUCB (half the noise, twin)"


#: exact true loss at the default eps = 1 (derivations in the docstrings; checked in a test)
TRUE_EPSILON = {"sqrt2-scale": math.sqrt(2.0), "half-scale": 2.0, "unnoised-first": math.inf}
