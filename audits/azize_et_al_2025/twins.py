"""Planted twins ``dp-klucb-<bug>`` and ``dp-imed-<bug>`` (Azize, Wu, Honda, Orabona, Ito & Basu
2025).

Each twin is the audit of its correct algorithm restricted to the release-level claim
(``phase-release-sampled``: the recorded noisy phase sums on the canary pair) on a broken
variant from :mod:`dpaudit.algorithms.azize_et_al_2025._twins`, with its exact true loss. The
symbolic claim is left out on purpose: it reads the declared formulas, not what the code does.
"""

from __future__ import annotations

from dpaudit.algorithms.azize_et_al_2025 import _twins as tw
from dpaudit.audits.azize_et_al_2025._common import release_level_claim
from dpaudit.audits.azize_et_al_2025.dp_imed import DP_IMED
from dpaudit.audits.azize_et_al_2025.dp_klucb import DP_KLUCB

_CLAIMS = [release_level_claim()]

AUDITS = [
    DP_KLUCB.twin(tw.DPKLUCBHalfScale, claims=_CLAIMS, findings=(), bug="half-scale",
                  true_epsilon=tw.TRUE_EPSILON["half-scale"]),
    DP_KLUCB.twin(tw.DPKLUCBMeanScale, claims=_CLAIMS, findings=(), bug="mean-scale",
                  true_epsilon=tw.TRUE_EPSILON["mean-scale"]),
    DP_IMED.twin(tw.DPIMEDHalfScale, claims=_CLAIMS, findings=(), bug="half-scale",
                 true_epsilon=tw.TRUE_EPSILON["half-scale"]),
    DP_IMED.twin(tw.DPIMEDMeanScale, claims=_CLAIMS, findings=(), bug="mean-scale",
                 true_epsilon=tw.TRUE_EPSILON["mean-scale"]),
]
