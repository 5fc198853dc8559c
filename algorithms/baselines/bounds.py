"""The baselines' regret bounds (``PolicyEntry.bound``) and why the others have none.

UCB1's bound (Auer, Cesa-Bianchi & Fischer 2002, Theorem 1) is
:func:`dpaudit.algorithms._bounds_common.ucb1_upper` (paper-neutral: the private UCB variants
of the seed papers are compared with it too).
"""

from __future__ import annotations

from dpaudit.algorithms._bounds_common import ucb1_upper

__all__ = ["DP_SE_NO_BOUND", "KL_UCB_NO_BOUND", "PRIVATE_UCB_NO_BOUND", "THOMPSON_NO_BOUND",
           "ucb1_regret_bound"]


def ucb1_regret_bound(means: object, horizon: int, epsilon: float,
                      delta: float = 0.0) -> tuple[float, str]:
    """UCB1's bound for ``simulate``, ``check`` and ``claims``: Auer, Cesa-Bianchi & Fischer
    2002, Theorem 1 (``epsilon`` and ``delta`` unused: UCB1 is not private)."""
    return ucb1_upper(means, horizon), "Auer, Cesa-Bianchi & Fischer 2002, Theorem 1 (upper bound)"


KL_UCB_NO_BOUND = ("a regret-only baseline: Garivier & Cappe 2011's finite-time bound is not "
                   "evaluated")
THOMPSON_NO_BOUND = ("a regret-only baseline: Agrawal & Goyal 2012's bounds are not "
                     "evaluated")
DP_SE_NO_BOUND = ("Sajed & Sheffet 2019's upper bound has no explicit constants in the seed "
                  "papers")
PRIVATE_UCB_NO_BOUND = ("Mishra & Thakurta 2015's regret bound is not stated in the seed "
                        "papers")
