"""Deliberately broken variants of the global-DP algorithms (kept beside the correct ones).

Each docstring says what is wrong; ``python -m dpaudit check adap-ucb-faulty`` must reject it.
"""

from __future__ import annotations

from .adap import AdaPUCB

__all__ = ["AdaPUCBAllRewards"]


class AdaPUCBAllRewards(AdaPUCB):
    """AdaP-UCB whose private mean averages *all* past rewards of the arm. BROKEN.

    Everything else is seed 000's Algorithm 1 with Eq. (7), including the noise
    ``Lap(2/(eps N_a))``. What is wrong: Theorem 6 needs each release to use only the last
    episode's rewards, so a changed reward touches one release. Here one reward (say the
    arm's initial pull) enters every later release of that arm; each release is
    ``eps/2``-DP in it (sensitivity ``1/N_a``, scale ``2/(eps N_a)``), and the ``~log2 T``
    releases compose to about ``(eps/2) log2 N_a(T)``, not ``eps``.
    """

    name = "AdaP-UCB (all-rewards mean, faulty)"
    _mean_over_all_rewards = True
