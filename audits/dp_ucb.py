"""``check dp-ucb``: DP-UCB (Tossou & Dimitrakakis 2016, Alg. 2, Thm 3.1).

Every arm's hybrid counter receives an element at every step (0 for arms not played), so a
counter's stream has length T; a changed reward changes one element of the played arm's
stream (the inserted 0s do not depend on it). Claims as ``dp-ucb-bound``; regret beside
Theorem 3.3 (stripped; not reconstructed).
"""

from __future__ import annotations

from dpaudit.algorithms.dp_ucb import DPUCB
from dpaudit.engine import AuditSpec, CheckContext, ClaimSpec
from dpaudit.results import Notion

from ._counter_claims import hybrid_symbolic
from ._tossou_common import PAPER, counter_exact, regret_run, sampled_claim, stream_horizon


def _alg(ctx: CheckContext) -> DPUCB:
    return DPUCB(ctx.epsilon)


CLAIMS = [
    ClaimSpec("counter-exact", Notion.GLOBAL,
              "one changed reward costs at most eps in the played arm's hybrid counter "
              "(stream length T: every arm receives an element at every step)",
              "Thm 3.1 (as used by Alg. 2); Sec. 2.3", counter_exact(_alg, stream_horizon)),
    ClaimSpec("counter-symbolic", Notion.GLOBAL,
              "for every block k, log part + block tree compose to eps",
              "Thm 3.1; Chan, Shi & Song 2011, hybrid mechanism", hybrid_symbolic),
    ClaimSpec("global-dp", Notion.GLOBAL,
              "the action sequence is eps-DP for reward sequences differing at one step",
              "Definition 2.1, Thm 3.1", sampled_claim(_alg)),
]

AUDITS = [AuditSpec(
    "dp-ucb", "DP-UCB: every arm's hybrid counter gets an element each step; plain UCB index",
    PAPER, CLAIMS, default_epsilon=1.0, default_delta=0.0,
    regret=regret_run(_alg, bound_name="Theorem 3.3 (stripped; not reconstructed)"))]
