"""Planted twins ``dp-ucb-<bug>`` and ``dp-ucb-bound-<bug>`` (Tossou & Dimitrakakis 2016).

Each is its correct algorithm's audit restricted to the release-level claim (the counter
outputs on the canary pair: element 3, in nodes ``T3`` and ``L4``; Thm 3.1) on a broken
variant from :mod:`dpaudit.algorithms.tossou_dimitrakakis_2016._twins`, with its exact true
loss. The exact-schedule and symbolic counter claims read the declared parameters, not what
the code does, so they are left out (they cannot see these bugs).
"""

from __future__ import annotations

from dpaudit.algorithms.tossou_dimitrakakis_2016 import _twins as tw
from dpaudit.audits.tossou_dimitrakakis_2016._release_claims import (
    dp_ucb_bound_release_claim,
    dp_ucb_int_release_claim,
    dp_ucb_release_claim,
)
from dpaudit.audits.tossou_dimitrakakis_2016.dp_ucb import AUDITS as _DP_UCB
from dpaudit.audits.tossou_dimitrakakis_2016.dp_ucb_bound import AUDITS as _BOUND
from dpaudit.audits.tossou_dimitrakakis_2016.dp_ucb_int import AUDITS as _INT


def _make(cls):
    return lambda ctx: cls(ctx.epsilon)


AUDITS = [
    _DP_UCB[0].twin(cls, claims=[dp_ucb_release_claim(_make(cls))], bug=bug,
                    true_epsilon=tw.TRUE_EPSILON[bug])
    for bug, cls in (("sqrt2-scale", tw.DPUCBSqrt2Scale), ("no-split", tw.DPUCBNoSplit),
                     ("shared-draw", tw.DPUCBSharedDraw))
] + [
    _BOUND[0].twin(cls, claims=[dp_ucb_bound_release_claim(_make(cls))], bug=bug,
                   true_epsilon=tw.TRUE_EPSILON[bug])
    for bug, cls in (("sqrt2-scale", tw.DPUCBBoundSqrt2Scale),
                     ("no-split", tw.DPUCBBoundNoSplit))
]



def _int_make(ctx):
    return tw.DPUCBIntSqrt2Scale.for_target(ctx.epsilon, ctx.delta)


# benign at the default (1, 1e-5): true loss in [0.636, 0.666] (docstring), expected CONSISTENT
AUDITS.append(_INT[0].twin(tw.DPUCBIntSqrt2Scale,
                           claims=[dp_ucb_int_release_claim(_int_make)], findings=(),
                           bug="sqrt2-scale", true_epsilon=tw.INT_TRUE_EPSILON[1]))
