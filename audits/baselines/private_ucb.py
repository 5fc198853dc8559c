"""``check private-ucb``: Private-UCB (Mishra & Thakurta 2015), the baseline of Tossou &
Dimitrakakis 2016 (Fig. 6) and Azize & Basu 2022 (Fig. 2, gamma = 0.1).

A binary tree per arm over the horizon T; node noise Lap(L/eps). Claims: exact node count
over T (default 10^5; quick 4096), symbolic for every horizon, sampled global DP (K = 2,
T = 16). ``private-ucb-faulty`` uses the often printed L = ceil(log2 T) at T = 2^10: element 1
lies in 11 released nodes of scale 10/eps, a loss of 1.1 eps, and must be rejected.
"""

from __future__ import annotations

from dpaudit.algorithms.baselines._faulty import PrivateUCBOneLevelShort
from dpaudit.algorithms.baselines.private_ucb import PrivateUCB
from dpaudit.audits.baselines._fig6 import PAPER, REGRET_HORIZON, STREAM_HORIZON, regret_run
from dpaudit.audits.recipes.counters import counter_exact, sampled_claim, tree_symbolic
from dpaudit.engine import AuditSpec, CheckContext, ClaimSpec
from dpaudit.stats.results import Notion

FAULTY_HORIZON = 1024


def _make(faulty: bool):
    def make(ctx: CheckContext) -> PrivateUCB:
        if faulty:
            return PrivateUCBOneLevelShort(ctx.epsilon, horizon=FAULTY_HORIZON)
        return PrivateUCB(ctx.epsilon, horizon=ctx.size(STREAM_HORIZON))
    return make


def _spec(faulty: bool) -> AuditSpec:
    make = _make(faulty)
    claims = [
        ClaimSpec("counter-exact", Notion.GLOBAL,
                  "one changed reward costs at most eps in its arm's binary tree",
                  "Mishra & Thakurta 2015; Chan, Shi & Song 2011, Binary mechanism",
                  counter_exact(make, lambda ctx, alg: alg.horizon)),
        ClaimSpec("counter-symbolic", Notion.GLOBAL,
                  "element 1 lies in one node per level; L levels of Lap(L/eps) compose to eps",
                  "Chan, Shi & Song 2011, Binary mechanism",
                  tree_symbolic("ceil_log2" if faulty else "exact")),
        ClaimSpec("global-dp", Notion.GLOBAL,
                  "the action sequence is eps-DP for reward sequences differing at one step",
                  "Tossou & Dimitrakakis 2016, Definition 2.1", sampled_claim(make)),
    ]
    return AuditSpec(
        "private-ucb",
        "Private-UCB: binary tree per arm, gamma = 0.1",
        "Mishra & Thakurta 2015, as run by " + PAPER, claims, default_epsilon=1.0,
        default_delta=0.0,
        regret=None if faulty else regret_run(_regret_alg, bound_name="none stated"))


def _regret_alg(ctx: CheckContext) -> PrivateUCB:
    return PrivateUCB(ctx.epsilon, horizon=ctx.size(REGRET_HORIZON))  # the tree spans the run


_SPEC = _spec(False)
# the broken twin (declared one way, AuditSpec.twin): the same claims on
# PrivateUCBOneLevelShort (L = ceil(log2 T) at T = 1024), whose docstring says what is wrong
AUDITS = [_SPEC, _SPEC.twin(PrivateUCBOneLevelShort, claims=_spec(True).claims)]
