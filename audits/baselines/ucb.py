"""``check ucb``: the non-private UCB1 baseline (Auer, Cesa-Bianchi & Fischer 2002) of Tossou &
Dimitrakakis 2016's Fig. 6. Regret only (no privacy claim), against UCB1's Theorem 1 bound."""

from __future__ import annotations

from dpaudit.algorithms._bounds_common import ucb1_upper
from dpaudit.algorithms.baselines.ucb import UCB
from dpaudit.audits.baselines._fig6 import FIG6_TWO_ARMS, PAPER, regret_run
from dpaudit.engine import AuditSpec

AUDITS = [AuditSpec(
    "ucb", "UCB1: non-private baseline (regret only)",
    "Auer, Cesa-Bianchi & Fischer 2002, as run by " + PAPER, (), default_epsilon=1.0,
    default_delta=0.0,
    regret=regret_run(lambda ctx: UCB(), bound_name="UCB1 Theorem 1 (Auer et al. 2002)",
                      bound_of=lambda ctx, horizon: ucb1_upper(FIG6_TWO_ARMS, horizon)))]
