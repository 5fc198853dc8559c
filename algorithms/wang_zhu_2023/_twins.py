"""Planted twins of Wang & Zhu 2023's perturbed-leader algorithms (Algorithms 1-3).

Each twin is the correct algorithm with one bug in the code that computes the perturbed scores
``theta`` while it runs (the value Lemma 8 and Lemma 15 are about), written as public code
writes it: the noise array drawn with one column and broadcast over the arms, or the first
leader step ranked before the noise is added. The exact next-action law the exact claims
compute (``next_action_law``) is inherited unchanged: it describes the algorithm as declared,
which is why an audit of the running code (the ``releases-sampled`` claim, through the
recording hook) is needed to see these bugs.

True loss at the defaults (``eps = 1``, ``delta = 0.01``), derived in each docstring and
checked in ``tests/test_twins_ftpl.py``: infinite for every planted twin here; 1.4585 for
:class:`DPFTPLGaussNoStartPhase` (``dp-ftpl-gauss-no-start-phase``, first registered as
``dp-ftpl-gauss-faulty``, an alias kept); infinite for :class:`DPFTPLNewFaultyPerturbation`
(``dp-ftpl-new-double-rate``, first registered as ``dp-ftpl-new-faulty``, an alias kept);
3.9065 for :class:`DPFTPLBetaUnpadded` (``dp-ftpl-beta-unpadded``, first registered as
``dp-ftpl-beta-faulty``, an alias kept).
Per-step DP
(Definition 1) fixes a history and changes one observation; in both bugs some output (the
release, and the next action at histories where the means' order flips) becomes a
deterministic function of the history.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from scipy import special

from dpaudit.algorithms.wang_zhu_2023._ftpl_engine import FTPLEngine
from dpaudit.algorithms.wang_zhu_2023.ftpl import POLICIES as _FTPL_POLICIES
from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import POLICIES as _GB_POLICIES
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta, DPFTPLGauss
from dpaudit.algorithms.wang_zhu_2023.gdp_elim import GDPElimNew
from dpaudit.mechanisms._twins import FaultyLemma15Perturbation

__all__ = [
    "NO_START_PHASE_TRUE_EPSILON",
    "UNPADDED_TRUE_EPSILON",
    "POLICIES",
    "BetaFirstReleaseRaw",
    "BetaSharedUniform",
    "DPFTPLBetaUnpadded",
    "DPFTPLGaussNoStartPhase",
    "DPFTPLNewFaultyPerturbation",
    "GaussFirstReleaseRaw",
    "GaussSharedNoise",
    "GDPFirstReleaseRaw",
    "GDPSharedNoise",
    "NewFirstReleaseRaw",
    "NewSharedNoise",
]

_SHARED = """

    Derivation: with ``theta_i = F_i^{-1}(U)`` for one uniform ``U`` per run and step (``F_i``
    the arm's declared law), ``F_1(theta_1) - F_0(theta_0) = 0`` exactly on a history, while
    on the neighbouring history (arm 0's first observation changed) ``F_0`` moves and the
    difference is non-zero almost surely: an event of probability 1 against 0, infinite
    loss. For the next action: right after the start phase every arm has the same count, so
    ``argmax_i theta_i`` is the arm with the largest empirical mean, deterministically, and
    on neighbouring histories whose means' order flips the loss is infinite as well.
    """

_RAW = """

    Derivation: the first leader release is ``theta = `` the arms' centres, a deterministic
    function of the history; neighbouring histories (arm 0's first observation changed) give
    different centres with probability one (infinite loss), and the first leader action is
    the arm with the largest centre, deterministically (infinite loss where the order flips).
    """


class _FirstRaw(FTPLEngine):
    """Mixin for the start-phase engine: the first leader release is the centre (the law's
    mean), unnoised. Listed before the algorithm (``class X(_FirstRaw, DPFTPLGauss)``), so
    ``super()`` is the algorithm's state."""

    #: the centres of the arms' laws from the algorithm's state (each twin defines it)
    _centre_of: Callable[[Any], np.ndarray]

    def init_state(self, sums, counts):
        return [*super().init_state(sums, counts), True]

    def update_state(self, state, rows, arm, sums, counts) -> None:
        super().update_state(state[:-1], rows, arm, sums, counts)

    def _first(self, state, noisy):
        if state[-1]:
            state[-1] = False
            return self._centre_of(state[:-1])
        return noisy(state[:-1])


class GaussSharedNoise(DPFTPLGauss):
    """One standard normal per run and step shared by every arm (the noise block drawn with
    one column and broadcast over the arms): theta_i = R_i/N_i + sqrt(2/N_i) Z."""

    __doc__ = __doc__ + _SHARED
    name = "DP-FTPL-Gauss (noise shared by arms, faulty)"

    def draw(self, state, rng):
        mean, sd = state
        return mean + sd * rng.standard_normal((mean.shape[0], 1))

    def draw_block(self, shape, rng):
        return rng.standard_normal((*shape[:-1], 1))


class GaussFirstReleaseRaw(_FirstRaw, DPFTPLGauss):
    """The first perturbed-leader step ranks the arms by their empirical means R_i/N_i (the
    noise is added from the second leader step on): the first release is unnoised."""

    __doc__ = __doc__ + _RAW
    name = "DP-FTPL-Gauss (unnoised first release, faulty)"

    @staticmethod
    def _centre_of(state):
        return state[0].copy()

    def draw(self, state, rng):
        return self._first(state, lambda s: DPFTPLGauss.draw(self, s, rng))

    def from_block(self, state, noise):
        return self._first(state, lambda s: DPFTPLGauss.from_block(self, s, noise))


class BetaSharedUniform(DPFTPLBeta):
    """One uniform per run and step shared by every arm, turned into each arm's Beta sample
    by its inverse CDF: theta_i = I^{-1}(U; a_i, b_i), comonotone across arms."""

    __doc__ = __doc__ + _SHARED
    name = "DP-FTPL-Beta (uniform shared by arms, faulty)"

    def draw(self, state, rng):
        a, b = state
        return special.betaincinv(a, b, rng.random((a.shape[0], 1)))


class BetaFirstReleaseRaw(_FirstRaw, DPFTPLBeta):
    """The first perturbed-leader step ranks the arms by their padded posterior means
    a_i/(a_i + b_i) (the Beta draw starts at the second leader step): the first release is
    unnoised."""

    __doc__ = __doc__ + _RAW
    name = "DP-FTPL-Beta (unnoised first release, faulty)"

    @staticmethod
    def _centre_of(state):
        a, b = state
        return a / (a + b)

    def draw(self, state, rng):
        return self._first(state, lambda s: DPFTPLBeta.draw(self, s, rng))


class NewSharedNoise(DPFTPLNew):
    """One Lemma-15 draw W ~ D(1, 0) per run and step shared by every arm, scaled by each
    arm's count: theta_i = x0_i + W / N_i (D(N, x0) is x0 + D(1, 0)/N, so each arm's marginal
    law is right; the arms are not independent)."""

    __doc__ = __doc__ + _SHARED
    name = "DP-FTPL-New (noise shared by arms, faulty)"

    def _perturbed(self, sums, counts, t, rng):
        runs = sums.shape[0]
        w = self.perturbation.sample(np.zeros((runs, 1)), np.ones((runs, 1)), rng=rng)
        return self.centre(sums, counts) + w / counts


class NewFirstReleaseRaw(DPFTPLNew):
    """The first perturbed-leader step (t = K + 1) ranks the arms by their centres x0_i (the
    perturbation is sampled from step K + 2 on): the first release is unnoised."""

    __doc__ = __doc__ + _RAW
    name = "DP-FTPL-New (unnoised first release, faulty)"

    def _perturbed(self, sums, counts, t, rng):
        if t == sums.shape[1] + 1:
            return self.centre(sums, counts)
        return super()._perturbed(sums, counts, t, rng)


class GDPSharedNoise(GDPElimNew):
    """One Lemma-15 draw W ~ D(1, 0) per run and phase shared by every arm: theta_i(k) =
    mu^_i(k) + W / N(k) (each marginal right, the arms comonotone)."""

    __doc__ = __doc__ + _SHARED.replace("For the next action: right after the start phase "
                                        "every arm has the same count, so", "The exploitation "
                                        "test then reads the means' gap without noise and")
    name = "GDP-Elim-New (noise shared by arms, faulty)"

    def _perturbed(self, means, n_k, k, rng):
        w = self.perturbation.sample(np.zeros((means.shape[0], 1)), 1.0, rng=rng)
        return means + w / n_k


class GDPFirstReleaseRaw(GDPElimNew):
    """Phase 1's exploitation test reads the phase means without the Lemma-15 draw (the
    perturbation starts at phase 2): the first release is unnoised."""

    __doc__ = __doc__ + _RAW
    name = "GDP-Elim-New (unnoised first phase, faulty)"

    def _perturbed(self, means, n_k, k, rng):
        return means.copy() if k == 1 else super()._perturbed(means, n_k, k, rng)


class DPFTPLGaussNoStartPhase(DPFTPLGauss):
    """DP-FTPL-Gauss without its start phase (every arm pulled once, then N(R/N, 2/N)). BROKEN.

    Everything else is Wang & Zhu 2023's Algorithm 1. What is wrong: Lemma 8 needs
    ``N >= N_G`` before the first perturbed step; at ``N = 1`` the Gaussian shift ``1/N`` with
    standard deviation ``sqrt(2)`` has exact ``delta(1) = 0.0396 > 0.01``, and with ten other
    arms at count 1 the next action itself is not (1, 0.01)-DP (Definition 1).

    Derivation of the true loss at the defaults (``eps = 1``, ``delta = 0.01``): per-step DP
    (Definition 1) fixes a history and changes one observation, which moves one arm's
    ``R/N`` by ``1/N``; that arm's ``theta ~ N(R/N, 2/N)`` is a Gaussian mechanism with
    ``mu = (1/N) / sqrt(2/N) = 1/sqrt(2 N)``, largest at the first perturbed step (``N =
    1``, no start phase): ``mu = 1/sqrt 2``. Its exact ``delta(eps) = Phi(-eps/mu + mu/2) -
    e^eps Phi(-eps/mu - mu/2)`` (Balle & Wang 2018) equals 0.01 at ``eps = 1.45854``
    (:data:`NO_START_PHASE_TRUE_EPSILON`); the other arms' scores and the next action are
    post-processing or independent of the change.
    """

    name = "DP-FTPL-Gauss (no start phase, faulty)"

    def __init__(self, epsilon: float, delta: float, **kwargs) -> None:
        super().__init__(epsilon, delta, **kwargs)
        self.start_phase = 1  # BROKEN: the start phase N_G is skipped


#: the true per-step loss of :class:`DPFTPLGaussNoStartPhase` at (1, 0.01): the ``eps`` at
#: which the Gaussian shift ``mu = 1/sqrt 2`` has exact ``delta(eps) = 0.01`` (docstring)
NO_START_PHASE_TRUE_EPSILON = 1.4585390046433722

_GAUSS = _GB_POLICIES["dp-ftpl-gauss"].twin(
    partial(DPFTPLGaussNoStartPhase, epsilon=1.0, delta=0.01, horizon=10**5),
    "Wang & Zhu 2023, Algorithm 1 without its start phase (broken)",
    true_epsilon=NO_START_PHASE_TRUE_EPSILON)


class DPFTPLNewFaultyPerturbation(DPFTPLNew):
    """DP-FTPL-New drawing from a Lemma-15 law that decays at rate ``2 N eps``. BROKEN.

    Everything else is Wang & Zhu 2023's Algorithm 3. What is wrong: the perturbation
    (:class:`~dpaudit.mechanisms._twins.FaultyLemma15Perturbation`) has the support and decay
    of a count ``2N`` while one changed observation still shifts the centre by up to ``1/N``,
    so Lemma 15's conditions (10)-(11) fail: the density ratio reaches ``e^(2 eps)`` and the
    next action is not ``(eps, delta)``-DP (Definition 1) on neighbouring histories.

    Derivation of the true loss at the defaults (``eps = 1``, ``delta = 0.01``): per-step DP
    fixes a history and changes one observation of an arm with count ``N``, which moves its
    centre ``x0`` by ``1/N`` (only ``R/N`` depends on the data). The twin's law has density
    ``(1/2 + k) 2N eps exp(-2N eps |x - x0|)`` on ``|x - x0| <= A'``, ``A' = ln c / (2N
    eps)``, with ``c = (e^eps - 1)/(2 delta) + 1`` and ``k = delta/(e^eps - 1)`` (so ``1/2 + k
    = k c``). At (1, 0.01) ``A' = 2.23/N > 1/N``, so the band ``[x0 - A', x0 - A' + 1/N)``
    lies in the support, and the law centred at ``x0 + 1/N`` vanishes on it. Its mass is
    ``F(x0 - A' + 1/N) = k c e^(-2N eps (A' - 1/N)) - k = k (e^(2 eps) - 1) = delta (e^eps +
    1)`` = 0.0372 at every ``N``. An event of that probability on one history and 0 on the
    other gives ``delta(eps') >= 0.0372 > 0.01`` at every ``eps'``: no finite ``eps'`` makes
    the released score ``(eps', 0.01)``-DP, true loss infinite at the claim's delta (finite
    only for ``delta >= delta (e^eps + 1)``). The other arms' scores are independent of the
    change.
    """

    name = "DP-FTPL-New (rate 2 N eps perturbation, faulty)"

    def make_perturbation(self) -> FaultyLemma15Perturbation:
        return FaultyLemma15Perturbation(self.epsilon, self.delta)


_NEW = _FTPL_POLICIES["dp-ftpl-new"].twin(
    partial(DPFTPLNewFaultyPerturbation, epsilon=1.0, delta=0.01, horizon=10**5),
    "Wang & Zhu 2023, Algorithm 3 with a Lemma-15 law of twice the rate (broken)",
    true_epsilon=float("inf"))


class DPFTPLBetaUnpadded(DPFTPLBeta):
    """DP-FTPL-Beta without the padding ``k = floor(N/8) + 1``: Thompson sampling. BROKEN.

    Everything else is Wang & Zhu 2023's Algorithm 2, start phase ``N_B`` included.
    What is wrong: Theorem 13's proof needs ``(a + k)(b + k) >= 0.09 (a + b + 2k)^2``; without
    ``k`` an arm with few successes has ``Beta(1, N + 1)`` vs ``Beta(2, N)`` and the exact
    divergence stays near ``0.16`` at ``eps = 1`` for every ``N`` (Fig. 2 d-f).

    Derivation of the true loss at the defaults (``eps = 1``, ``delta = 0.01``): per-step DP
    (Definition 1) fixes a history and changes one observation of an arm with count ``N``
    and ``R`` successes, so its score moves from ``Beta(R + 1, N - R + 1)`` to ``Beta(R + 2,
    N - R)``; after the start phase ``N >= N_B = 827``. The pair farthest apart is an
    extreme ``R`` (``R = 0``, or ``R = N - 1`` by symmetry): ``Beta(1, N + 1)`` vs ``Beta(2,
    N)``, whose scaled laws ``N theta`` tend to ``Exp(1)`` and ``Gamma(2, 1)`` (density ratio
    ``x``). The limit divergence is at the event ``{x < e^-eps}``: ``1 - e^eps (1 -
    exp(-e^-eps))``, which is 0.01 at ``eps = 3.9053``. At finite ``N`` the exact divergence
    (regularised incomplete Beta functions) is above the limit and decreases to it, so the
    supremum over the counts is at ``N = 827``, ``R = 0``, where ``delta(eps) = 0.01`` at
    ``eps = 3.90652`` (:data:`UNPADDED_TRUE_EPSILON`; the test checks every ``R`` at ``N =
    827`` and counts up to ``10^5``). The other arms' scores are independent of the change.
    """

    name = "DP-FTPL-Beta (no padding, faulty)"

    def __init__(self, epsilon: float, delta: float, **kwargs) -> None:
        super().__init__(epsilon, delta, **kwargs)
        self.padding = False  # BROKEN: Beta(a, b) instead of Beta(a + k, b + k)


#: the true per-step loss of :class:`DPFTPLBetaUnpadded` at (1, 0.01): the ``eps`` at which
#: ``Beta(1, 828)`` vs ``Beta(2, 827)`` (``N = N_B = 827``, ``R = 0``) has exact ``delta(eps) =
#: 0.01`` (docstring)
UNPADDED_TRUE_EPSILON = 3.9065231387961568

_BETA = _GB_POLICIES["dp-ftpl-beta"].twin(
    partial(DPFTPLBetaUnpadded, epsilon=1.0, delta=0.01, horizon=10**5),
    "Wang & Zhu 2023, Algorithm 2 without the padding k (broken)",
    small_overrides={"start_phase": 1}, true_epsilon=UNPADDED_TRUE_EPSILON)
#: the twins registered as policies: ``dp-ftpl-gauss-faulty``, ``dp-ftpl-new-faulty`` and
#: ``dp-ftpl-beta-faulty`` are the names the no-start-phase, double-rate and unpadded twins
#: were first registered under (README, tests, benchmark results), kept as aliases
POLICIES = {"dp-ftpl-gauss-no-start-phase": _GAUSS, "dp-ftpl-gauss-faulty": _GAUSS,
            "dp-ftpl-new-double-rate": _NEW, "dp-ftpl-new-faulty": _NEW,
            "dp-ftpl-beta-unpadded": _BETA, "dp-ftpl-beta-faulty": _BETA}
