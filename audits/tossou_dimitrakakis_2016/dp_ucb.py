"""``check dp-ucb``: DP-UCB (Tossou & Dimitrakakis 2016, Alg. 2, Thm 3.1).

Every arm's hybrid counter receives an element at every step (0 for arms not played), so a
counter's stream has length T; a changed reward changes one element of the played arm's
stream (the inserted 0s do not depend on it). Claims as ``dp-ucb-bound``; regret against
Theorem 3.3's bound as reconstructed by
:func:`dpaudit.algorithms.tossou_dimitrakakis_2016.bounds.thm33_dp_ucb_terms`
(the printed formula is stripped; the reconstruction's caveat is in its docstring).
"""

from __future__ import annotations

from dpaudit.algorithms.tossou_dimitrakakis_2016.bounds import thm33_dp_ucb_terms
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCB
from dpaudit.audits.recipes.counters import hybrid_symbolic
from dpaudit.audits.tossou_dimitrakakis_2016._release_claims import dp_ucb_release_claim
from dpaudit.audits.tossou_dimitrakakis_2016._tossou_common import (
    FIG6_TWO_ARMS,
    PAPER,
    counter_exact,
    regret_run,
    sampled_claim,
    stream_horizon,
)
from dpaudit.engine import AuditSpec, CheckContext, ClaimSpec
from dpaudit.stats.results import Notion


def _alg(ctx: CheckContext) -> DPUCB:
    return DPUCB(ctx.epsilon)


def _bound(ctx: CheckContext, horizon: int) -> float:
    return thm33_dp_ucb_terms(FIG6_TWO_ARMS, horizon, ctx.epsilon).bound


def _bound_details(ctx: CheckContext, res, cps, horizon: int, runs: int) -> list[str]:
    terms = thm33_dp_ucb_terms(FIG6_TWO_ARMS, horizon, ctx.epsilon)
    count = thm33_dp_ucb_terms(FIG6_TWO_ARMS, horizon, ctx.epsilon, stream="count")
    trivial = horizon * (max(FIG6_TWO_ARMS) - min(FIG6_TWO_ARMS))
    return [f"Theorem 3.3 reconstructed (as Theorem 3.2 with the counter error of a stream of "
            f"length t, (sqrt 8/eps) ln(4 t^4)(ln t + 1), error probability t^-4, x at its "
            f"minimiser): {terms.bound:.1f}; {terms.describe()}",
            f"reading stream='count' (Eq. 2.2 at the arm's count, Theorem 3.2's W_-1 form): "
            f"{count.bound:.1f}",
            "caveat: DP-UCB's index has no widening, so the reconstruction's step for the "
            "best arm's first pulls is not covered (docstring of thm33_dp_ucb_terms)",
            f"trivial bound T * max Delta = {trivial:.0f}"
            + (" (the reconstructed bound exceeds it: vacuous here)"
               if terms.bound >= trivial else "")]


CLAIMS = [
    ClaimSpec("counter-exact", Notion.GLOBAL,
              "one changed reward costs at most eps in the played arm's hybrid counter "
              "(stream length T: every arm receives an element at every step)",
              "Thm 3.1 (as used by Alg. 2); Sec. 2.3", counter_exact(_alg, stream_horizon),
              observes="releases"),
    ClaimSpec("counter-symbolic", Notion.GLOBAL,
              "for every block k, log part + block tree compose to eps",
              "Thm 3.1; Chan, Shi & Song 2011, hybrid mechanism", hybrid_symbolic),
    ClaimSpec("global-dp", Notion.GLOBAL,
              "the action sequence is eps-DP for reward sequences differing at one step",
              "Definition 2.1, Thm 3.1", sampled_claim(_alg), observes="actions"),
]
CLAIMS.insert(2, dp_ucb_release_claim(_alg))

AUDITS = [AuditSpec(
    "dp-ucb", "DP-UCB: every arm's hybrid counter gets an element each step; plain UCB index",
    PAPER, CLAIMS, default_epsilon=1.0, default_delta=0.0,
    regret=regret_run(_alg, bound_name="Theorem 3.3 (reconstructed: Theorem 3.2's decomposition, "
                      "counter error at stream length t; docs/tossou_dimitrakakis.md)",
                      bound_of=_bound, extra=_bound_details))]
