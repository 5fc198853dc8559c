"""``check kl-ucb``: the non-private KL-UCB baseline (Garivier & Cappe 2011). Regret only."""

from __future__ import annotations

from dpaudit.algorithms.baselines.ucb import KLUCB
from dpaudit.audits.baselines._fig6 import regret_run
from dpaudit.engine import AuditSpec

AUDITS = [AuditSpec(
    "kl-ucb", "KL-UCB: non-private baseline (regret only)", "Garivier & Cappe 2011", (),
    default_epsilon=1.0, default_delta=0.0,
    regret=regret_run(lambda ctx: KLUCB(), bound_name="none (regret only)"))]
