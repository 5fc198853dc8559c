"""``adap-klucb``: AdaP-KLUCB of Azize & Basu 2022 (Alg. 1, Eq. 8).

Same claims as ``adap-ucb``; the attack's first table is adapted to KL-UCB's clipped early
indexes (see ``_adap_common.klucb_neighbour_pairs``). Regret on Figure 2's instance
at T = 10^7; Theorem 8's constants ``C1(alpha), C2`` are not given in the paper, so its shape
(``C1 = C2 = 1``) is printed beside the lower bounds of Theorems 2-3, not used as a bound.
"""

from __future__ import annotations

from dpaudit.algorithms.azize_basu_2022.adap import AdaPKLUCB
from dpaudit.algorithms.azize_basu_2022.bounds import thm8_adap_klucb_shape
from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_FIG2 as FIG2
from dpaudit.audits.azize_basu_2022._adap_common import (
    PAPER,
    REGRET_HORIZON,
    audited,
    claims,
    klucb_neighbour_pairs,
    lower_bound_details,
    touched_releases_finding,
)
from dpaudit.audits.recipes.global_dp import regret_result
from dpaudit.engine import AuditSpec, Budget, CheckContext

RUNS = Budget(full=800_000, quick=100_000)  # simulated runs per input of the audited pair


def _regret(ctx: CheckContext):
    horizon, alg = ctx.size(REGRET_HORIZON), audited(ctx)
    shape = thm8_adap_klucb_shape(FIG2.means, horizon, ctx.epsilon, alg.alpha)
    return regret_result(
        ctx, alg, FIG2.means, horizon, FIG2.runs, instance=f"{FIG2.name}: {FIG2.means}",
        bound=None,
        bound_name="Theorem 8 has unspecified constants C1(alpha), C2",
        details=[f"Theorem 8 shape with C1 = C2 = 1 (not a bound): {shape:.4g}",
                 *lower_bound_details(ctx, horizon)])


AUDITS = [
    AuditSpec("adap-klucb", "AdaP-KLUCB: epsilon-global DP via last-episode Laplace means",
              PAPER, claims(klucb_neighbour_pairs, ("action sequence", "pulls of arm 0"), RUNS),
              default_epsilon=1.0, default_delta=0.0,
              findings=[touched_releases_finding()], regret=_regret, variant=AdaPKLUCB),
]
