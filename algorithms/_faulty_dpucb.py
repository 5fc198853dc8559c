"""Deliberately broken variants of the Tossou & Dimitrakakis 2016 algorithms (for audits).

:class:`DPUCBIntEveryPull` releases a fresh noisy mean of the pulled arm at *every* pull
(noise ``Lap(n^(v/2 - 1))`` as in Lemma 3.1) but keeps the interval ``f`` its input rate gives
and claims the same target: the privacy budget of Theorem 3.4 is not recomputed for the
``f`` times more releases. The first release alone (``n = 1``, sensitivity 1, scale 1) is
1-DP, so the target is exceeded; ``dp-ucb-int-faulty`` must reject it.
"""

from __future__ import annotations

from .dp_ucb_int import DPUCBInt

__all__ = ["DPUCBIntEveryPull"]


class DPUCBIntEveryPull(DPUCBInt):
    """DP-UCB-Int releasing a fresh mean at every pull without recomputing the budget."""

    name = "DP-UCB-Int (fresh mean every pull; BROKEN)"
    _every_pull = True
