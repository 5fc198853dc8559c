"""Planted twins of AdaP-UCB and AdaP-KLUCB (Azize & Basu 2022, Alg. 1): real-looking bugs.

Each twin overrides one line of the code path (the noise scale of an episode's private mean,
computed inline as buggy code would compute it); its docstring says what is wrong and derives
its true privacy loss exactly. "True loss" is the exact pure-DP loss of the release transcript
(every private mean the code releases) over all pairs of reward tables differing at one
step; by Theorem 6's argument (a changed reward lies in one episode of one arm, so it enters
one release) it is the largest loss of a single release, ``sensitivity / scale``. The actions
are post-processing, so their loss is at most this. ``tests/test_twins_release.py`` computes
each value from the code's own scale function.

:class:`AdaPUCBAllRewards` (``adap-ucb-all-rewards``, first registered as ``adap-ucb-faulty``,
an alias kept) breaks Theorem 6's premise instead: one reward enters many releases, so its
true loss is a composition, derived at the horizon its audit runs.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from dpaudit.algorithms.azize_basu_2022.adap import POLICIES as _ADAP_POLICIES
from dpaudit.algorithms.azize_basu_2022.adap import AdaPKLUCB, AdaPUCB

__all__ = ["ALL_REWARDS_HORIZON", "ALL_REWARDS_TRUE_EPSILON", "POLICIES", "AdaPKLUCBHalfScale",
           "AdaPKLUCBSqrt2Scale", "AdaPKLUCBUnnoisedFirst", "AdaPUCBAllRewards",
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

    epsilon: float  # the algorithm's (this mixin precedes it)

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

    epsilon: float  # the algorithm's (this mixin precedes it)

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


class AdaPUCBAllRewards(AdaPUCB):
    """AdaP-UCB whose private mean averages *all* past rewards of the arm. BROKEN.

    Everything else is Azize & Basu 2022's Algorithm 1 with Eq. (7), including the noise
    ``Lap(2/(eps N_a))``. What is wrong: Theorem 6 needs each release to use only the last
    episode's rewards, so a changed reward touches one release. Here one reward (say the
    arm's initial pull) enters every later release of that arm; each release is
    ``eps/2``-DP in it (sensitivity ``1/N_a``, scale ``2/(eps N_a)``), and the ``~log2 T``
    releases compose to about ``(eps/2) log2 N_a(T)``, not ``eps``.

    Derivation of the true loss at the tables its audit runs (``K = 2`` arms, ``T = 32``,
    :data:`ALL_REWARDS_HORIZON`; default eps = 1). The worst reward is an arm's initial pull
    (arm 0's, step 1): it enters arm 0's initial release (a one-reward mean with
    ``Lap(2/eps)``: loss ``eps/2``) and every episode release of arm 0 (``total/N_a``:
    sensitivity ``1/N_a``, noise ``Lap(2/(eps N_a))`` with the same ``N_a``, the truncated
    last episode included: loss ``eps/2`` each); a later reward enters only the releases from
    its own episode on. Arm 0 has the most episodes when it wins every one: after the two
    initial pulls its episodes have lengths 1, 2, 4, 8 and 15 (the last cut at ``T``), five
    releases. The noises are independent and the schedule is a function of the earlier
    releases, so the transcript's density ratio is the product of the releases' ratios, at
    most ``e^(eps/2)`` each, and exactly that on the positive-probability transcripts where
    arm 0's releases lie beyond both neighbours' means (it then wins every episode): true
    loss ``6 eps/2 = 3 eps`` = 3 (:data:`ALL_REWARDS_TRUE_EPSILON`). The actions are
    post-processing.
    """

    name = "AdaP-UCB (all-rewards mean, faulty)"
    mean_window = "all"

    def release_mean(self, total: np.ndarray | float, episode_sum: np.ndarray | float,
                     episode_length: np.ndarray | float, count: np.ndarray | float
                     ) -> np.ndarray | float:
        return total / count  # BROKEN: every past reward of the arm enters the release


#: the horizon of the tables the ``adap-ucb-all-rewards`` audit simulates (``K = 2``)
ALL_REWARDS_HORIZON = 32
#: exact true loss of :class:`AdaPUCBAllRewards` at eps = 1, ``K = 2``, ``T = 32``: six
#: releases of ``eps/2`` each (docstring)
ALL_REWARDS_TRUE_EPSILON = 3.0

_ALL_REWARDS = _ADAP_POLICIES["adap-ucb"].twin(
    partial(AdaPUCBAllRewards, epsilon=1.0),
    "Azize & Basu 2022, Algorithm 1 with Eq. (7), release over all rewards (broken)",
    true_epsilon=ALL_REWARDS_TRUE_EPSILON)
#: the twins registered as policies: ``adap-ucb-faulty`` is the name the all-rewards twin was
#: first registered under (README, docs, benchmark results), kept as an alias
POLICIES = {"adap-ucb-all-rewards": _ALL_REWARDS, "adap-ucb-faulty": _ALL_REWARDS}
