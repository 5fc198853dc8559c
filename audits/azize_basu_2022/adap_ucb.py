"""``adap-ucb`` and ``adap-ucb-all-rewards``: AdaP-UCB of Azize & Basu 2022 (Alg. 1, Eq. 7).

Claims: the per-episode Laplace release and the one-episode-touched argument (symbolic,
Lemma 1 / Theorem 6) and epsilon-global DP of the action sequence (sampled, Definition 2),
attacked with two fixed reward tables that differ at one step (see ``_adap_common``).
Regret: Figure 2's instance at T = 10^7 (20 runs) against Theorem 7's upper bound, with
Theorems 2 and 3's lower bounds beside it. ``adap-ucb-all-rewards`` (first registered as
``adap-ucb-faulty``, an alias kept) averages all past rewards of an arm in every release
(:class:`dpaudit.algorithms.azize_basu_2022._twins.AdaPUCBAllRewards`): true loss 3 eps at
the audited K = 2, T = 32, and must be rejected.
"""

from __future__ import annotations

from dataclasses import replace

from dpaudit.algorithms.azize_basu_2022._twins import (
    ALL_REWARDS_TRUE_EPSILON,
    AdaPUCBAllRewards,
)
from dpaudit.algorithms.azize_basu_2022.adap import AdaPUCB
from dpaudit.algorithms.azize_basu_2022.bounds import thm7_adap_ucb_upper
from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_FIG2 as FIG2
from dpaudit.audits.azize_basu_2022._adap_common import (
    PAPER,
    REGRET_HORIZON,
    audited,
    claims,
    lower_bound_details,
    touched_releases_finding,
)
from dpaudit.audits.recipes.global_dp import regret_result
from dpaudit.engine import AuditSpec, CheckContext


def _regret(ctx: CheckContext):
    horizon, alg = ctx.size(REGRET_HORIZON), audited(ctx)
    return regret_result(
        ctx, alg, FIG2.means, horizon, FIG2.runs, instance=f"{FIG2.name}: {FIG2.means}",
        bound=thm7_adap_ucb_upper(FIG2.means, horizon, ctx.epsilon, alg.alpha),
        bound_name="Theorem 7 (upper)", details=lower_bound_details(ctx, horizon))


ADAP_UCB = AuditSpec("adap-ucb", "AdaP-UCB: epsilon-global DP via last-episode Laplace means",
                     PAPER, claims(), default_epsilon=1.0, default_delta=0.0,
                     findings=[touched_releases_finding()], regret=_regret, variant=AdaPUCB)

# the broken twin: every release averages all of the arm's rewards (AdaPUCBAllRewards, whose
# docstring derives its true loss, 3 eps at the audited K = 2, T = 32)
_ALL_REWARDS = ADAP_UCB.twin(AdaPUCBAllRewards, bug="all-rewards",
                             true_epsilon=ALL_REWARDS_TRUE_EPSILON)
# adap-ucb-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [ADAP_UCB, _ALL_REWARDS, replace(_ALL_REWARDS, name="adap-ucb-faulty")]
