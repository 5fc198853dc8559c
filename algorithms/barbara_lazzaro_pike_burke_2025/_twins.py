"""Planted twins of the LDP thresholding algorithms (Barbara, Lazzaro & Pike-Burke 2025).

Each twin is the correct algorithm with one bug of the kind found in public code, written in
the report path as such code is written (inline arithmetic, a cached draw), not as a declared
parameter. Each docstring derives the twin's true loss at the default ``eps = 1`` (the claim
is ``eps``-LDP with ``delta = 0``, Lemma 2.1); ``tests/test_twins_ldp.py`` recomputes it.
A bug is written once as a mixin and applied to both Algorithm 1 (:class:`PrivateAPT`) and
Algorithm 2 (:class:`PrivateThresholdLUCB`), which share the report path.
"""

from __future__ import annotations

import numpy as np

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding import (
    PrivateAPT,
    PrivateThresholdLUCB,
    _PrivBernPolicy,
)

__all__ = [
    "APTFirstPullRaw",
    "APTSharedUniform",
    "APTTanhSlip",
    "LUCBFirstPullRaw",
    "LUCBSharedUniform",
    "LUCBTanhSlip",
    "tanh_slip_epsilon",
]


def tanh_slip_epsilon(epsilon: float) -> float:
    """True loss of the tanh slip: its report is exactly PrivBern(2 eps) (see
    :class:`TanhSlip`), whose loss is ``2 eps`` (Lemma 2.1)."""
    return 2.0 * epsilon


class TanhSlip(_PrivBernPolicy):
    """PrivBern's bias computed inline with tanh(eps) for kappa = (e^eps - 1)/(e^eps + 1)
    (the identity needs tanh(eps/2)): the report is PrivBern(2 eps).

    Derivation: the code sends ``Y ~ Bernoulli((1 - k)/2 + k r)`` with ``k = tanh(eps)``.
    Since ``tanh(eps) = (e^(2 eps) - 1)/(e^(2 eps) + 1)``, this is PrivBern's law at ``2 eps``:
    ``P(Y = 1 | r = 1)/P(Y = 1 | r = 0) = ((1 + k)/2)/((1 - k)/2) = e^(2 eps)`` (and the same
    for ``Y = 0``), the largest ratio over ``r, r' in [0, 1]`` because the law is affine in
    ``r``. True loss at the default ``eps = 1``: exactly 2 (claim 1).
    """

    def report(self, rewards: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        kappa = np.tanh(self.epsilon)
        p1 = (1.0 - kappa) / 2.0 + kappa * np.clip(np.asarray(rewards, float), 0.0, 1.0)
        return (rng.random(p1.shape) < p1).astype(np.int64)


class FirstPullRaw(_PrivBernPolicy):
    """The initialisation round (each arm's first pull, t <= K) adds the user's reward to the
    arm's statistic without PrivBern: those users' rewards leave them in the clear.

    Derivation: the user pulled at step ``t <= K`` sends ``r`` itself; rewards ``1`` and
    ``0`` give the reports ``1`` and ``0`` with probability one, so the event ``{report =
    1}`` has probability 1 against 0 and the true loss is infinite (at every ``eps``).
    """

    def _send(self, rewards, arm, t, rng, state):
        if t <= state["shape"][1]:
            return np.asarray(rewards, float)  # warm-up: the mean starts at the first reward
        return super()._send(rewards, arm, t, rng, state)


class SharedUniform(_PrivBernPolicy):
    """One uniform per (run, arm), drawn at the first pull and reused for every report of that
    arm (the noise array is indexed by arm where it should be indexed by step): PrivBern's
    randomness is shared by all users of an arm.

    Derivation: user ``s`` of arm ``a`` sends ``1{U_a < p(r_s)}`` with the same ``U_a``. Take
    the neighbouring tables that differ in the reward of the first user of arm ``a`` (``1``
    against ``0``) and give a later user of the same arm the reward ``0``. The event "the first
    report is 1 and the later one is 0" is ``{p(0) <= U_a < p(1)}``: probability ``p(1) -
    p(0) = tanh(eps/2) > 0`` under the first table and 0 under the second (both reports are
    ``1{U_a < p(0)}``), so the true loss is infinite whenever the arm is pulled twice.
    """

    def _send(self, rewards, arm, t, rng, state):
        if "u" not in state:
            state["u"] = rng.random(state["shape"])
        rows = state.get("live", np.arange(state["shape"][0]))
        p1 = self.mechanism.prob_one(rewards)
        return (state["u"][rows, arm] < p1).astype(np.int64)


class APTTanhSlip(TanhSlip, PrivateAPT):
    __doc__ = TanhSlip.__doc__
    name = "ldp-apt (tanh(eps) slip, faulty)"


class APTFirstPullRaw(FirstPullRaw, PrivateAPT):
    __doc__ = FirstPullRaw.__doc__
    name = "ldp-apt (raw first pull, faulty)"


class APTSharedUniform(SharedUniform, PrivateAPT):
    __doc__ = SharedUniform.__doc__
    name = "ldp-apt (uniform shared per arm, faulty)"


class LUCBTanhSlip(TanhSlip, PrivateThresholdLUCB):
    __doc__ = TanhSlip.__doc__
    name = "ldp-threshold-lucb (tanh(eps) slip, faulty)"


class LUCBFirstPullRaw(FirstPullRaw, PrivateThresholdLUCB):
    __doc__ = FirstPullRaw.__doc__
    name = "ldp-threshold-lucb (raw first pull, faulty)"


class LUCBSharedUniform(SharedUniform, PrivateThresholdLUCB):
    __doc__ = SharedUniform.__doc__
    name = "ldp-threshold-lucb (uniform shared per arm, faulty)"
