"""Planted twins of Zheng et al. 2020's LDP algorithms (Algorithms 1-3).

Each twin is the correct algorithm with one bug of a kind found in public code, written where
such code writes it: the noise scale computed inline in the user's ``report`` (so the declared
:class:`~dpaudit.algorithms.zheng_et_al_2020.ldp_reductions.GaussianRelease`, from which the
exact claims are computed, still describes the correct calibration), or the noise fed wrongly
while the algorithm runs. Every report is Gaussian, so a twin that only mis-scales the noise
has a report whose privacy loss is that of a unit Gaussian shift by
``mu_twin = mu * sigma / sigma_twin`` (Balle & Wang 2018, Thm 8), ``mu`` being the correct
report's worst-case Mahalanobis distance; :data:`NOISE_RATIO` gives ``sigma_twin / sigma`` as a
closed form of ``(eps, delta)`` and ``tests/test_twins_ldp.py`` checks it against the
twin's actual noise. Twins that send a report without noise, or reuse one noise draw, have an
infinite loss (their docstrings say why).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms.zheng_et_al_2020.ldp_contextual import (
    LDPGLMBandit,
    LDPLinUCB,
    _ut_noise,
    to_ball,
)
from dpaudit.algorithms.zheng_et_al_2020.ldp_reductions import OnePointUCB, TwoPointBCO

__all__ = [
    "NOISE_RATIO",
    "GLMMissingSplit",
    "GLMSplitInverted",
    "GLMSqrt2",
    "LinMissingSplit",
    "LinSplitInverted",
    "LinSqrt2",
    "OnePointFirstPullRaw",
    "OnePointSharedNoise",
    "OnePointSqrt2",
    "TwoPointHalfRange",
    "TwoPointSqrt2",
]


def _sqrt2_sigma(scale: float, delta: float, epsilon: float) -> float:
    """The classical calibration with the 2 under the square root dropped (the slip)."""
    return scale * math.sqrt(math.log(1.25 / delta)) / epsilon


# -- Algorithm 1, UCB black box ------------------------------------------------------------
class OnePointSqrt2(OnePointUCB):
    """sigma computed inline as 2B sqrt(ln(1.25/delta))/eps (the 2 under the square root of
    the classical calibration dropped): the noise is sqrt(2 ln(1.25/delta)/ln(1.25/delta)) =
    sqrt(2) times too small.

    Derivation: the report ``loss + N(0, s^2)`` with ``s = sigma/sqrt(2)``; the worst pair of
    losses ``(B, -B)`` is a shift by ``2B/s = sqrt(2) eps/sqrt(2 ln(1.25/delta))``: at the
    default ``(1, 1e-5)`` that is 0.29190, whose exact loss at ``delta = 1e-5`` is 1.0982
    (claim 1).
    """

    name = "ldp-one-point-ucb (sqrt(2) slip, faulty)"

    def report(self, losses: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        losses = np.clip(np.asarray(losses, float), -self.loss_bound, self.loss_bound)
        sigma = 2.0 * self.loss_bound * math.sqrt(math.log(1.25 / self.delta)) / self.epsilon
        return losses + sigma * rng.standard_normal(losses.shape)


class OnePointFirstPullRaw(OnePointUCB):
    """The initialisation round (each arm's first pull, t <= K) sends the user's loss without
    noise: the UCB index starts from the exact first loss.

    Derivation: the user pulled at step ``t <= K`` sends ``1/2 - r`` itself; rewards ``1`` and
    ``0`` give the reports ``-1/2`` and ``1/2`` with probability one, so the loss is infinite.
    """

    name = "ldp-one-point-ucb (raw first pull, faulty)"

    def _send(self, losses, t, rng, state):
        if t <= state["shape"][1]:
            return np.clip(np.asarray(losses, float), -self.loss_bound, self.loss_bound)
        return super()._send(losses, t, rng, state)


class OnePointSharedNoise(OnePointUCB):
    """One Gaussian draw per run, made at the first step and added to every user's loss (the
    noise is drawn outside the loop over users): all users share one noise value.

    Derivation: two users' reports differ by ``f_s - f_t`` exactly, without noise. For the
    neighbouring tables that differ in the first user's reward (1 against 0; the later users'
    rewards 0), the difference between the first and a later report is ``-1`` under one table
    and ``0`` under the other, with probability one: the loss is infinite.
    """

    name = "ldp-one-point-ucb (noise shared by users, faulty)"

    def _send(self, losses, t, rng, state):
        if "z" not in state:
            state["z"] = rng.standard_normal(state["shape"][0])
        losses = np.clip(np.asarray(losses, float), -self.loss_bound, self.loss_bound)
        return losses + self.sigma * state["z"]


# -- Algorithm 2 ---------------------------------------------------------------------------
class _TwoPointInline(TwoPointBCO):
    """Algorithm 2's report with the noise scale ``_inline_sigma()`` computed in the report."""

    def _inline_sigma(self) -> float:
        raise NotImplementedError

    def report(self, f1, f2, x1, x2, rng):
        x1, x2 = np.asarray(x1, float), np.asarray(x2, float)
        span = self.lipschitz * np.linalg.norm(x1 - x2, axis=-1)
        diff = np.clip(np.asarray(f1, float) - np.asarray(f2, float), -span, span)
        n = self._inline_sigma() * rng.standard_normal(x1.shape)
        return diff + np.sum(n * (x1 - x2), axis=-1)


class TwoPointSqrt2(_TwoPointInline):
    """sigma computed inline as 2G sqrt(ln(1.25/delta))/eps (the 2 under the square root
    dropped): the noise is sqrt(2) times too small.

    Derivation: the report's noise std is ``2 rho sigma/sqrt(2)`` on a difference ranging over
    ``[-2 rho G, 2 rho G]``: a shift by ``sqrt(2)`` times the correct ``mu = eps/sqrt(2
    ln(1.25/delta))``, 0.29190 at ``(1, 1e-5)``; exact loss 1.0982 at ``delta = 1e-5``.
    """

    name = "ldp-two-point-bco (sqrt(2) slip, faulty)"

    def _inline_sigma(self) -> float:
        return _sqrt2_sigma(2.0 * self.lipschitz, self.delta, self.epsilon)


class TwoPointHalfRange(_TwoPointInline):
    """sigma computed inline for the Lipschitz constant G instead of the range 2G of the
    clipped difference per unit of |x1 - x2|: the noise is 2 times too small.

    Derivation: a shift by ``2 mu``, ``mu = eps/sqrt(2 ln(1.25/delta))``: 0.41281 at ``(1,
    1e-5)``; exact loss 1.6103 at ``delta = 1e-5``.
    """

    name = "ldp-two-point-bco (half range, faulty)"

    def _inline_sigma(self) -> float:
        return self.lipschitz * math.sqrt(2.0 * math.log(1.25 / self.delta)) / self.epsilon


# -- Section 4: contextual linear and generalized linear bandits ----------------------------
def _split_inverted(k: int, delta: float, epsilon: float) -> float:
    return 2.0 * math.sqrt(2.0 * math.log(1.25 * k / delta)) / (k * epsilon)


def _missing_split(k: int, delta: float, epsilon: float) -> float:
    return 2.0 * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def _sqrt2_split(k: int, delta: float, epsilon: float) -> float:
    return 2.0 * k * math.sqrt(math.log(1.25 * k / delta)) / epsilon


class _LinInline(LDPLinUCB):
    """LinUCB's report with the noise scale ``_inline(k, delta, eps)`` computed in the report
    (the server's regularisation still uses the declared ``sigma``)."""

    _inline = staticmethod(_split_inverted)

    def report(self, x, y, rng):
        sigma = self._inline(self.releases, self.delta, self.epsilon)
        x, y = to_ball(x), np.clip(np.asarray(y, float), -1.0, 1.0)
        n, d = x.shape
        return (np.einsum("nd,ne->nde", x, x) + _ut_noise(n, d, sigma, rng),
                y[:, None] * x + sigma * rng.standard_normal((n, d)))


class LinSplitInverted(_LinInline):
    """The budget split of the two releases applied the wrong way round: sigma computed inline
    for eps * k (with delta / k) instead of eps / k, so the noise is k^2 = 4 times too small
    (up to the log factor, which is kept).

    Derivation: ``sigma_twin / sigma = 1/k^2`` exactly (the ``ln(1.25 k/delta)`` factors
    agree), so the report is a shift by ``4 mu``, ``mu = sqrt(4.5)/sigma = 0.10637`` at ``(1,
    1e-5)``: 0.42549; exact loss 1.6652 at ``delta = 1e-5`` (claim 1).
    """

    name = "ldp-linucb (budget split inverted, faulty)"
    _inline = staticmethod(_split_inverted)


class LinMissingSplit(_LinInline):
    """Each of the two releases calibrated for the whole budget (eps, delta): no split, the
    noise about 2 times too small. Benign at the defaults: the classical calibration is so
    loose that the report still meets (1, 1e-5), so the check must stay CONSISTENT.

    Derivation: ``sigma_twin = 2 sqrt(2 ln(1.25/delta))/eps``, a shift by ``mu sigma /
    sigma_twin = 0.21889`` at ``(1, 1e-5)``; exact loss 0.8010 at ``delta = 1e-5`` (claim 1).
    """

    name = "ldp-linucb (no budget split, faulty)"
    _inline = staticmethod(_missing_split)


class LinSqrt2(_LinInline):
    """The 2 under the square root of the classical calibration dropped in the report: the
    noise sqrt(2) times too small. Benign at the defaults (the check must stay CONSISTENT).

    Derivation: a shift by ``sqrt(2) mu = 0.15043`` at ``(1, 1e-5)``; exact loss 0.5318 at
    ``delta = 1e-5`` (claim 1).
    """

    name = "ldp-linucb (sqrt(2) slip, faulty)"
    _inline = staticmethod(_sqrt2_split)


class _GLMInline(LDPGLMBandit):
    """Algorithm 3's three releases with the noise scale computed inline in the report."""

    _inline = staticmethod(_split_inverted)

    def report(self, x, y, theta_hat, rng):
        sigma = self._inline(self.releases, self.delta, self.epsilon)
        x, theta_hat = to_ball(x), to_ball(theta_hat)
        y = np.clip(np.asarray(y, float), 0.0, 1.0)
        n, d = x.shape
        a = np.einsum("nd,nd->n", x, theta_hat)
        grad = (1.0 / (1.0 + np.exp(-a)) - y)[:, None] * x
        return (np.einsum("nd,ne->nde", x, x) + _ut_noise(n, d, sigma, rng),
                a[:, None] * x + sigma * rng.standard_normal((n, d)),
                grad + self.link_bound * sigma * rng.standard_normal((n, d)))


class GLMSplitInverted(_GLMInline):
    """The budget split of the three releases applied the wrong way round: sigma computed
    inline for eps * k (with delta / k), the noise k^2 = 9 times too small.

    Derivation: ``sigma_twin / sigma = 1/9``; the report is a shift by at most ``9 mu``,
    ``mu = 0.074564`` (the supremum bound of :meth:`LDPGLMBandit.release`) at ``(1, 1e-5)``:
    0.67108; exact loss at most 2.7740 at ``delta = 1e-5`` (claim 1).
    """

    name = "ldp-glm-bandit (budget split inverted, faulty)"
    _inline = staticmethod(_split_inverted)


class GLMMissingSplit(_GLMInline):
    """Each of the three releases calibrated for the whole budget (eps, delta): no split, the
    noise about 3 times too small. Benign at the defaults (exact loss just below 1): the
    check must stay CONSISTENT.

    Derivation: a shift by at most ``mu sigma / sigma_twin = 0.26590`` at ``(1, 1e-5)``;
    exact loss at most 0.9911 at ``delta = 1e-5`` (claim 1).
    """

    name = "ldp-glm-bandit (no budget split, faulty)"
    _inline = staticmethod(_missing_split)


class GLMSqrt2(_GLMInline):
    """The 2 under the square root of the classical calibration dropped in the report: the
    noise sqrt(2) times too small. Benign at the defaults (the check must stay CONSISTENT).

    Derivation: a shift by at most ``sqrt(2) mu = 0.11987`` at ``(1, 1e-5)``; exact loss at
    most 0.4150 at ``delta = 1e-5`` (claim 1).
    """

    name = "ldp-glm-bandit (sqrt(2) slip, faulty)"
    _inline = staticmethod(_sqrt2_split)


#: ``sigma_twin / sigma`` of each noise-scale twin, as a closed form of ``(eps, delta)``
NOISE_RATIO = {
    OnePointSqrt2: lambda eps, delta: 1.0 / math.sqrt(2.0),
    TwoPointSqrt2: lambda eps, delta: 1.0 / math.sqrt(2.0),
    TwoPointHalfRange: lambda eps, delta: 0.5,
    LinSplitInverted: lambda eps, delta: 1.0 / 4.0,
    LinMissingSplit: lambda eps, delta: math.sqrt(math.log(1.25 / delta))
    / (2.0 * math.sqrt(math.log(2.5 / delta))),
    LinSqrt2: lambda eps, delta: 1.0 / math.sqrt(2.0),
    GLMSplitInverted: lambda eps, delta: 1.0 / 9.0,
    GLMMissingSplit: lambda eps, delta: math.sqrt(math.log(1.25 / delta))
    / (3.0 * math.sqrt(math.log(3.75 / delta))),
    GLMSqrt2: lambda eps, delta: 1.0 / math.sqrt(2.0),
}
