"""Planted twins ``adap-ucb-<bug>`` and ``adap-klucb-<bug>`` (Azize & Basu 2022).

Each twin is the audit of its correct algorithm restricted to the release-level claim
(``episode-release-sampled``: the recorded private means on the canary pair, Lemma 1) on a
broken variant from :mod:`dpaudit.algorithms.azize_basu_2022._twins`, with its exact true
loss. The symbolic claims are left out on purpose: they read the declared formulas, not what
the code does, so they cannot see these bugs (that is the point of the twins).
"""

from __future__ import annotations

import inspect
from typing import Any

from dpaudit.algorithms.azize_basu_2022 import _twins as tw
from dpaudit.audits.azize_basu_2022._adap_common import release_level_claim
from dpaudit.audits.azize_basu_2022.adap_klucb import AUDITS as _KLUCB
from dpaudit.audits.azize_basu_2022.adap_ucb import ADAP_UCB
from dpaudit.audits.azize_basu_2022.dp_se import AUDITS as _DP_SE
from dpaudit.audits.azize_basu_2022.dp_se import _release
from dpaudit.engine import AuditSpec
from dpaudit.registry import all_policies

_ADAP_KLUCB = _KLUCB[0]
_CLAIMS = [release_level_claim()]

AUDITS = [
    ADAP_UCB.twin(tw.AdaPUCBSqrt2Scale, claims=_CLAIMS, findings=(), bug="sqrt2-scale",
                  true_epsilon=tw.TRUE_EPSILON["sqrt2-scale"]),
    ADAP_UCB.twin(tw.AdaPUCBHalfScale, claims=_CLAIMS, findings=(), bug="half-scale",
                  true_epsilon=tw.TRUE_EPSILON["half-scale"]),
    ADAP_UCB.twin(tw.AdaPUCBUnnoisedFirst, claims=_CLAIMS, findings=(), bug="unnoised-first",
                  true_epsilon=tw.TRUE_EPSILON["unnoised-first"]),
    _ADAP_KLUCB.twin(tw.AdaPKLUCBUnnoisedFirst, claims=_CLAIMS, findings=(),
                     bug="unnoised-first", true_epsilon=tw.TRUE_EPSILON["unnoised-first"]),
    _ADAP_KLUCB.twin(tw.AdaPKLUCBSqrt2Scale, claims=_CLAIMS, findings=(), bug="sqrt2-scale",
                     true_epsilon=tw.TRUE_EPSILON["sqrt2-scale"]),
    _ADAP_KLUCB.twin(tw.AdaPKLUCBHalfScale, claims=_CLAIMS, findings=(), bug="half-scale",
                     true_epsilon=tw.TRUE_EPSILON["half-scale"]),
]


def _dp_se_twin(bug: str) -> AuditSpec:
    """DP-SE's twin ``dp-se-<bug>``: the registered broken policy (Sajed & Sheffet 2019's DP-SE
    with one planted bug, derived in its class docstring) on the dp-se check's release-level
    claim, with its exact true loss. Taken from the registry by name: no paper package imports
    another."""
    entry = all_policies()[f"dp-se-{bug}"]

    def variant(epsilon: float) -> Any:
        return entry.factory(epsilon=epsilon)

    variant.__doc__ = inspect.getdoc(getattr(entry.factory, "func", entry.factory))
    return _DP_SE[0].twin(variant, claims=[_release], bug=bug, true_epsilon=entry.true_epsilon)


AUDITS += [_dp_se_twin(bug) for bug in ("sqrt2-scale", "arms-scale", "shared-draw")]
