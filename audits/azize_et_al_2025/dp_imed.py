"""``dp-imed``: DP-IMED of Azize, Wu, Honda, Orabona, Ito & Basu 2025.

The same claims and regret experiment as ``dp-klucb`` (see ``_common``) on DP-IMED.
"""

from __future__ import annotations

from dpaudit.algorithms.azize_et_al_2025.dp_phased import DPIMED
from dpaudit.audits.azize_et_al_2025._common import PAPER, claims, regret
from dpaudit.engine import AuditSpec

DP_IMED = AuditSpec("dp-imed", "DP-IMED: eps-global DP via Laplace noise on each phase's sum",
                    PAPER, claims(), default_epsilon=1.0, default_delta=0.0, regret=regret,
                    variant=DPIMED)

AUDITS = [DP_IMED]
