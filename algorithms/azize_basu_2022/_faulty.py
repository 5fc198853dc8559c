"""Deliberately broken twins of Azize & Basu 2022's algorithms, kept beside the correct ones.

Each twin is a subclass of the correct algorithm that overrides exactly the part that is
wrong; its docstring says what is wrong and why the paper's proof no longer applies. Each is
registered in ``POLICIES`` with ``faulty=True`` (the conformance suite checks it like any
policy: a broken algorithm still has to be simulated faithfully) and audited under a
``-faulty`` name that must come out VIOLATED.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from dpaudit.algorithms.azize_basu_2022.adap import POLICIES as _ADAP_POLICIES
from dpaudit.algorithms.azize_basu_2022.adap import AdaPUCB

__all__ = ["POLICIES", "AdaPUCBAllRewards"]


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


POLICIES = {
    "adap-ucb-faulty": _ADAP_POLICIES["adap-ucb"].twin(
        partial(AdaPUCBAllRewards, epsilon=1.0),
        "Azize & Basu 2022, Algorithm 1 with Eq. (7), release over all rewards (broken)"),
}
