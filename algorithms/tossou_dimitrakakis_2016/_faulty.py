"""Deliberately broken twins of Tossou & Dimitrakakis 2016's algorithms, beside the correct ones.

Each twin is a subclass of the correct algorithm that overrides exactly the part that is
wrong; its docstring says what is wrong and why the paper's proof no longer applies. Each is
registered in ``POLICIES`` with ``faulty=True`` (the conformance suite checks it like any
policy: a broken algorithm still has to be simulated faithfully) and audited under a
``-faulty`` name that must come out VIOLATED.
"""

from __future__ import annotations

from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import POLICIES as _INT_POLICIES
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import DPUCBInt, policy_factory

__all__ = ["POLICIES", "DPUCBIntEveryPull"]


class DPUCBIntEveryPull(DPUCBInt):
    """DP-UCB-Int releasing a fresh noisy mean at every pull. BROKEN.

    Everything else is Tossou & Dimitrakakis 2016's Algorithm 3. What is wrong: the pulled
    arm's mean is released (``Lap(n^(v/2 - 1))``, Lemma 3.1) after *every* pull, while the
    interval ``f`` and the claimed target of Theorem 3.4 are kept: the budget is not
    recomputed for ``f`` times more releases. The release at ``n = 1`` alone (sensitivity 1,
    scale 1) is 1-DP, so every target below the composition is exceeded.
    """

    name = "DP-UCB-Int (fresh mean every pull, faulty)"
    _every_pull = True


_INT = _INT_POLICIES["dp-ucb-int"]
POLICIES = {
    "dp-ucb-int-faulty": _INT.twin(
        policy_factory(DPUCBIntEveryPull),
        "Tossou & Dimitrakakis 2016, Algorithm 3 releasing at every pull (broken)",
        small_overrides=_INT.small_overrides),
}
