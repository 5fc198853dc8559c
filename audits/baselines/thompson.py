"""``check thompson``: Beta-Bernoulli Thompson sampling, the non-private baseline (Thompson
1933; Agrawal & Goyal 2012). Regret, and the exact loss of its whole action sequence as a
finding (it claims no privacy)."""

from __future__ import annotations

from dpaudit.algorithms.baselines.ucb import Thompson
from dpaudit.audits.baselines._fig6 import regret_run
from dpaudit.audits.baselines.trajectory import (
    THOMPSON_TRAJECTORY,
    THOMPSON_TRAJECTORY_SAMPLED,
)
from dpaudit.engine import AuditSpec

AUDITS = [AuditSpec(
    "thompson", "Thompson sampling (Beta-Bernoulli): non-private baseline (regret only)",
    "Thompson 1933; Agrawal & Goyal 2012", (), default_epsilon=1.0, default_delta=0.0,
    regret=regret_run(lambda ctx: Thompson(), bound_name="none (regret only)"),
    findings=[THOMPSON_TRAJECTORY, THOMPSON_TRAJECTORY_SAMPLED])]
