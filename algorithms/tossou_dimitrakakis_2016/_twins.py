"""Planted twins of DP-UCB and DP-UCB-Bound (Tossou & Dimitrakakis 2016, Algs. 1-2).

Each twin changes one inline computation of the hybrid counter's noise (Sec. 2.3); its
docstring says what is wrong and derives its true privacy loss exactly: the pure-DP loss of
every counter output the code releases, over reward tables differing at one step, at the
default eps = 1. By the vector Laplace mechanism it is the largest sum, over the nodes one
element lies in, of ``1/scale`` (:func:`dpaudit.algorithms._counters.loss_per_element`),
and the actions are post-processing. ``tests/test_twins_release.py`` recomputes each value
from the twin's own parameters.

The DP-UCB-Int twins (Alg. 3) change its interval release instead: :class:`DPUCBIntSqrt2Scale`
its scale (benign at the default target), :class:`DPUCBIntEveryPull` its schedule
(``dp-ucb-int-every-pull``, first registered as ``dp-ucb-int-faulty``, an alias kept); their
true loss is a composition of Laplace releases, bracketed with dp-accounting's
privacy-loss distributions.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCB, DPUCBBound
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import POLICIES as _INT_POLICIES
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import DPUCBInt, policy_factory

__all__ = ["EVERY_PULL_RELEASES", "EVERY_PULL_TRUE_EPSILON", "INT_TRUE_EPSILON", "POLICIES",
           "DPUCBBoundNoSplit", "DPUCBBoundSqrt2Scale", "DPUCBIntEveryPull",
           "DPUCBIntSqrt2Scale", "DPUCBNoSplit", "DPUCBSharedDraw", "DPUCBSqrt2Scale",
           "TRUE_EPSILON"]


class _Sqrt2Scale:
    """Hybrid counter nodes with ``1/sqrt(2)`` of their Laplace scale. BROKEN.

    The node scales ``1/eps_log`` and ``k/eps_bin`` are read as standard deviations and
    converted to Laplace scales (``std / sqrt 2``), inline. What is wrong: Thm 3.1's
    counter needs those scales. True loss: every node's ``1/scale`` grows by ``sqrt 2``, so
    the largest per-element sum (``eps_log + eps_bin = eps``, reached by element 3: nodes
    ``T3`` and ``L4``) becomes ``sqrt(2) eps`` = 1.414.
    """

    eps_log: float  # the counter's budgets, set by the algorithm (this mixin precedes it)
    eps_bin: float

    def _break(self) -> None:
        # BROKEN: std -> Laplace scale, inline (scale / sqrt 2 means eps * sqrt 2)
        self.eps_log, self.eps_bin = (e * math.sqrt(2.0) for e in (self.eps_log, self.eps_bin))


class _NoSplit:
    """Hybrid counter whose logarithmic part and block trees each get the whole eps.
    BROKEN.

    The budget split of the hybrid mechanism (``eps/2`` to each part) is missing, inline.
    What is wrong: an element lies in one logarithmic node and in up to ``k`` nodes of its
    block tree, so the parts compose. True loss: element 3 lies in ``L4`` (``1/scale =
    eps``) and ``T3`` (block ``k = 1``, ``1/scale = eps``): ``2 eps`` = 2, the largest over
    elements (every element costs at most ``eps_log + eps_bin``).
    """

    epsilon: float  # the algorithm's (this mixin precedes it)
    eps_log: float
    eps_bin: float

    def _break(self) -> None:
        self.eps_log = self.eps_bin = self.epsilon  # BROKEN: no split between the parts


class DPUCBSqrt2Scale(_Sqrt2Scale, DPUCB):
    __doc__ = _Sqrt2Scale.__doc__
    name = "DP-UCB (sqrt 2 too little noise, twin)"

    def __init__(self, epsilon: float, **kwargs) -> None:
        super().__init__(epsilon, **kwargs)
        self._break()


class DPUCBNoSplit(_NoSplit, DPUCB):
    __doc__ = _NoSplit.__doc__
    name = "DP-UCB (no budget split in the counter, twin)"

    def __init__(self, epsilon: float, **kwargs) -> None:
        super().__init__(epsilon, **kwargs)
        self._break()


class DPUCBSharedDraw(DPUCB):
    """DP-UCB drawing one Laplace value per step for all K counters. BROKEN.

    Alg. 2 feeds every arm's counter at every step; the code draws the new node's noise once
    per step and gives it to every counter (one draw per step, not per counter, inline).
    What is wrong: the K counters then carry identical noise, so the difference of two arms'
    outputs is the exact difference of their reward sums. True loss: infinite. Changing the
    reward at step 3 moves ``S~_A(3) - S~_B(3)`` (``A`` the arm played there) by exactly 1:
    an event of probability 1 on one table and 0 on the other. (The shared draw is laid out
    for the numpy lockstep path, which this twin always uses.)
    """

    name = "DP-UCB (one noise draw shared by the counters, twin)"

    def constants(self, n_arms: int, horizon: int):
        prm, table, _ = super().constants(n_arms, horizon)
        return prm, table, 1  # BROKEN: one node draw per step, broadcast to every counter

    def simulate(self, source, horizon, runs, *, rng, checkpoints=(), record=False,
                 backend="auto", releases=None):
        return super().simulate(source, horizon, runs, rng=rng, checkpoints=checkpoints,
                                record=record, backend="numpy", releases=releases)


class DPUCBBoundSqrt2Scale(_Sqrt2Scale, DPUCBBound):
    __doc__ = _Sqrt2Scale.__doc__
    name = "DP-UCB-Bound (sqrt 2 too little noise, twin)"

    def __init__(self, epsilon: float, **kwargs) -> None:
        super().__init__(epsilon, **kwargs)
        self._break()


class DPUCBBoundNoSplit(_NoSplit, DPUCBBound):
    __doc__ = _NoSplit.__doc__
    name = "DP-UCB-Bound (no budget split in the counter, twin)"

    def __init__(self, epsilon: float, **kwargs) -> None:
        super().__init__(epsilon, **kwargs)
        self._break()


#: exact true loss at eps = 1 (derivations in the docstrings; checked in a test)
TRUE_EPSILON = {"sqrt2-scale": math.sqrt(2.0), "no-split": 2.0, "shared-draw": math.inf}


class DPUCBIntSqrt2Scale(DPUCBInt):
    """DP-UCB-Int whose interval releases get ``Lap(n^(v/2 - 1) / sqrt 2)``. BENIGN at the
    default (1, 1e-5).

    The release scale of Lemma 3.1 is read as a standard deviation and converted to a
    Laplace scale inline. What is wrong: each release is ``sqrt(2) n^(-v/2)``-DP instead of
    ``n^(-v/2)``. True loss: one arm's releases at ``n = f, 2f, ..`` compose (a reward among
    the arm's first ``f`` enters all of them, sensitivity ``1/n`` each); at the default target
    (1, 1e-5) (input eps from Corollary 3.2, ``f = 168``, ``v = 1.1``) and ``10^5`` pulls of
    one arm, the exact ``eps(delta = 1e-5)`` of that composition lies in [0.636, 0.666]
    (dp-accounting privacy-loss distributions, optimistic and pessimistic, discretisation
    1e-4; the correct algorithm's is [0.428, 0.458]). Within the claim's epsilon = 1: a
    benign bug there (Theorem 3.4's composition bound has that much slack), expected
    CONSISTENT; registered with the upper end 0.666. (It grows with the pulls: the claim is
    for every T.)
    """

    name = "DP-UCB-Int (sqrt 2 too little noise, twin)"

    def constants(self, n_arms: int, horizon: int) -> tuple[np.ndarray, np.ndarray, int]:
        prm, scales, nz = super().constants(n_arms, horizon)
        return prm, scales / math.sqrt(2.0), nz  # BROKEN: std -> Laplace scale, inline


#: the bracket of the exact eps(1e-5) of :class:`DPUCBIntSqrt2Scale` at 10^5 pulls of one arm
INT_TRUE_EPSILON = (0.636, 0.666)


class DPUCBIntEveryPull(DPUCBInt):
    """DP-UCB-Int releasing a fresh noisy mean at every pull. BROKEN.

    Everything else is Tossou & Dimitrakakis 2016's Algorithm 3. What is wrong: the pulled
    arm's mean is released (``Lap(n^(v/2 - 1))``, Lemma 3.1) after *every* pull, while the
    interval ``f`` and the claimed target of Theorem 3.4 are kept: the budget is not
    recomputed for ``f`` times more releases. The release at ``n = 1`` alone (sensitivity 1,
    scale 1) is 1-DP, so every target below the composition is exceeded.

    True loss at the check's instance: the default target ``(1, 1e-5)`` (input eps from
    Corollary 3.2, so ``f = 168``; ``v = 1.1``), ``K = 2``, ``T = K f + 16 = 352`` (the
    global-dp claim's tables). The release at count ``n`` moves by exactly ``1/n`` when one
    reward of the arm changes (rewards in [0, 1]) and has scale ``n^(v/2 - 1)``: a Laplace
    mechanism with noise multiplier ``n^(v/2)``, ``n^(-v/2)``-DP. A reward changed at step 1
    (arm 0's first pull) enters every release of arm 0; one changed at an arm's ``m``-th pull
    enters its releases ``n >= m`` only, release ``n`` more private than release ``n - m + 1``
    (a larger multiplier), so step 1 is the worst. The round robin gives each arm ``f`` pulls
    whatever the data, the 16 adaptive steps at most 16 more, so arm 0 releases between 168
    and 184 times (:data:`EVERY_PULL_RELEASES`).

    * Lower bound: releases ``n = 1..168`` are in every transcript (dropping the others is
      post-processing), a composition of the Laplace mechanisms with multipliers
      ``n^(v/2)``; its optimistic PLD gives ``eps(1e-5) >= 9.0923``.
    * Upper bound: grouping each arm-0 release with the arm-1 releases before it (their law
      given the past is the same on both tables), the transcript is an adaptive composition
      of at most 184 steps, the ``n``-th dominated by the Laplace pair of multiplier
      ``n^(v/2)`` (missing steps: a null mechanism); its pessimistic PLD gives
      ``eps(1e-5) <= 9.1952``.

    Both from dp-accounting (``from_laplace_mechanism`` per release, composed; discretisation
    1e-4; :func:`~dpaudit.mechanisms.interval_release.pld_bracket`). So the true loss lies in
    [9.092, 9.196] (:data:`EVERY_PULL_TRUE_EPSILON`), nine times the claim's epsilon = 1:
    VIOLATED; registered with the lower end 9.092. The actions are post-processing.
    """

    name = "DP-UCB-Int (fresh mean every pull, faulty)"
    _every_pull = True


#: the fewest and most releases of the arm whose first reward changed, at the check's instance
#: (``f = 168`` round-robin pulls, then 16 adaptive steps; :class:`DPUCBIntEveryPull`)
EVERY_PULL_RELEASES = (168, 184)
#: the bracket of the exact eps(1e-5) of :class:`DPUCBIntEveryPull` at ``K = 2``, ``T = 352``
EVERY_PULL_TRUE_EPSILON = (9.092, 9.196)

_INT = _INT_POLICIES["dp-ucb-int"]
_EVERY_PULL = _INT.twin(
    policy_factory(DPUCBIntEveryPull),
    "Tossou & Dimitrakakis 2016, Algorithm 3 releasing at every pull (broken)",
    small_overrides=_INT.small_overrides, true_epsilon=EVERY_PULL_TRUE_EPSILON[0])
#: the twins registered as policies: ``dp-ucb-int-faulty`` is the name the every-pull twin was
#: first registered under (docs, benchmark results), kept as an alias
POLICIES = {"dp-ucb-int-every-pull": _EVERY_PULL, "dp-ucb-int-faulty": _EVERY_PULL}
