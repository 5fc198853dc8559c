"""Deliberately broken twins of the algorithms, kept beside the correct ones.

Every twin is a subclass of the correct algorithm that overrides exactly the part that is
wrong; its docstring says what is wrong and why the paper's proof no longer applies. Each is
registered in ``POLICIES`` with ``faulty=True`` (the conformance suite checks it like any
policy: a broken algorithm still has to be simulated faithfully) and audited under a
``-faulty`` name that must come out VIOLATED.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from dpaudit.bandits import PolicyEntry
from dpaudit.mechanisms._faulty import FaultyLemma15Perturbation

from .adap import POLICIES as _ADAP_POLICIES
from .adap import AdaPUCB
from .ftpl import POLICIES as _FTPL_POLICIES
from .ftpl import DPFTPLNew

__all__ = ["POLICIES", "AdaPUCBAllRewards", "DPFTPLNewFaultyPerturbation"]


class AdaPUCBAllRewards(AdaPUCB):
    """AdaP-UCB whose private mean averages *all* past rewards of the arm. BROKEN.

    Everything else is Azize & Basu 2022's Algorithm 1 with Eq. (7), including the noise
    ``Lap(2/(eps N_a))``. What is wrong: Theorem 6 needs each release to use only the last
    episode's rewards, so a changed reward touches one release. Here one reward (say the
    arm's initial pull) enters every later release of that arm; each release is
    ``eps/2``-DP in it (sensitivity ``1/N_a``, scale ``2/(eps N_a)``), and the ``~log2 T``
    releases compose to about ``(eps/2) log2 N_a(T)``, not ``eps``.
    """

    name = "AdaP-UCB (all-rewards mean, faulty)"
    mean_window = "all"

    def release_mean(self, total: np.ndarray, episode_sum: np.ndarray,
                     episode_length: np.ndarray, count: np.ndarray) -> np.ndarray:
        return total / count  # BROKEN: every past reward of the arm enters the release


class DPFTPLNewFaultyPerturbation(DPFTPLNew):
    """DP-FTPL-New drawing from a Lemma-15 law that decays at rate ``2 N eps``. BROKEN.

    Everything else is Wang & Zhu 2023's Algorithm 3. What is wrong: the perturbation
    (:class:`~dpaudit.mechanisms._faulty.FaultyLemma15Perturbation`) has the support and decay
    of a count ``2N`` while one changed observation still shifts the centre by up to ``1/N``,
    so Lemma 15's conditions (10)-(11) fail: the density ratio reaches ``e^(2 eps)`` and the
    next action is not ``(eps, delta)``-DP (Definition 1) on neighbouring histories.
    """

    name = "DP-FTPL-New (rate 2 N eps perturbation, faulty)"

    def make_perturbation(self) -> FaultyLemma15Perturbation:
        return FaultyLemma15Perturbation(self.epsilon, self.delta)


POLICIES = {
    "adap-ucb-faulty": PolicyEntry(
        partial(AdaPUCBAllRewards, epsilon=1.0), _ADAP_POLICIES["adap-ucb"].instance,
        "Azize & Basu 2022, Algorithm 1 with Eq. (7), release over all rewards (broken)",
        small_instance=_ADAP_POLICIES["adap-ucb"].small_instance,
        small_horizon=_ADAP_POLICIES["adap-ucb"].small_horizon,
        invalid=_ADAP_POLICIES["adap-ucb"].invalid, faulty=True),
    "dp-ftpl-new-faulty": PolicyEntry(
        partial(DPFTPLNewFaultyPerturbation, epsilon=1.0, delta=0.01, horizon=10**5),
        _FTPL_POLICIES["dp-ftpl-new"].instance,
        "Wang & Zhu 2023, Algorithm 3 with a Lemma-15 law of twice the rate (broken)",
        small_instance=_FTPL_POLICIES["dp-ftpl-new"].small_instance,
        small_horizon=_FTPL_POLICIES["dp-ftpl-new"].small_horizon,
        invalid=_FTPL_POLICIES["dp-ftpl-new"].invalid, faulty=True),
}
