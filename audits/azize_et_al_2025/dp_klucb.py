"""``dp-klucb``: DP-KLUCB of Azize, Wu, Honda, Orabona, Ito & Basu 2025.

Claims: the phase release (symbolic), the running code's releases on a canary (sampled) and
eps-global DP of the action sequence (sampled), see ``_common``. Regret on the experiments'
second mean vector at T = 10^6 (100 runs), with Theorem 2's leading term and Theorem 1's lower
bound beside it (both asymptotic).
"""

from __future__ import annotations

from dpaudit.algorithms.azize_et_al_2025.dp_phased import DPKLUCB
from dpaudit.audits.azize_et_al_2025._common import PAPER, claims, regret
from dpaudit.engine import AuditSpec

DP_KLUCB = AuditSpec("dp-klucb", "DP-KLUCB: eps-global DP via Laplace noise on each phase's sum",
                     PAPER, claims(), default_epsilon=1.0, default_delta=0.0, regret=regret,
                     variant=DPKLUCB)

AUDITS = [DP_KLUCB]
