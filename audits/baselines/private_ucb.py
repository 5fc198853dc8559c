"""``check private-ucb``: Private-UCB (Mishra & Thakurta 2015), the baseline of Tossou &
Dimitrakakis 2016 (Fig. 6) and Azize & Basu 2022 (Fig. 2, gamma = 0.1).

A binary tree per arm over the horizon T; node noise Lap(L/eps). Claims: exact node count
over T (default 10^5; quick 4096), symbolic for every horizon, sampled global DP (K = 2,
T = 16). The twin ``private-ucb-ceil-log2`` (first registered as ``private-ucb-faulty``, an
alias kept) uses the often printed L = ceil(log2 T) at T = 2^10: element 1 lies in 11
released nodes of scale 10/eps, a loss of 1.1 eps, and must be rejected.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dpaudit.algorithms.baselines._twins import (
    CEIL_LOG2_HORIZON,
    TRUE_EPSILON,
    PrivateUCBOneLevelShort,
)
from dpaudit.algorithms.baselines.private_ucb import PrivateUCB
from dpaudit.audits.baselines._fig6 import PAPER, REGRET_HORIZON, STREAM_HORIZON, regret_run
from dpaudit.audits.recipes.counters import counter_exact, sampled_claim, tree_symbolic
from dpaudit.audits.recipes.release_level import (
    ReleaseAttack,
    counter_node_view,
    release_claim,
)
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec
from dpaudit.sim.bandits import TableRewards
from dpaudit.stats.results import Notion

FAULTY_HORIZON = CEIL_LOG2_HORIZON
#: the tree horizon of the release-level attack: a power of two, so element 1 lies in one
#: node per level (positions 1, 2, 4, 8) and every node it enters is released
RELEASE_TREE = 8
RELEASE_RUNS = Budget(full=1_000_000, quick=100_000)


def release_attacks(ctx: CheckContext, alg: PrivateUCB) -> list[ReleaseAttack]:
    """The canary: element 1 of the tree over ``T = 8`` (K = 1, so the counter's position
    is the step). Its nodes are created at positions 1, 2, 4 and 8, each released alone
    (``y(2^j)`` is one node: ``2^j`` has one bit), each ``Lap(L/eps)``: exact loss
    ``4 eps / L``, which is ``eps`` for the exact ``L = floor(log2 8) + 1 = 4`` (Chan, Shi &
    Song 2011, the Binary mechanism). On an all-zero table ``y(2^j) = x_1 + node``."""
    base = TableRewards(np.zeros((RELEASE_TREE, 1)))
    return [ReleaseAttack(
        f"K=1, tree horizon T={RELEASE_TREE}, every reward 0; step 1 reward 0 vs 1 (element 1: "
        "nodes at positions 1, 2, 4, 8)", base, base.changed(1, np.array([1.0])), RELEASE_TREE,
        counter_node_view("counter", (1, 2, 4, 8), (0, 0, 0, 0)),
        exact_loss=4.0 / alg.node_scale)]


def _release_make(cls):
    return lambda ctx: cls(ctx.epsilon, horizon=RELEASE_TREE)


def release_level_claim(cls=PrivateUCB) -> ClaimSpec:
    return release_claim(
        _release_make(cls), release_attacks, RELEASE_RUNS, id="tree-release-sampled",
        statement="an arm's binary tree is eps-DP in one changed reward, observed on the "
                  "counter outputs of the running code (canary: element 1, in one node per "
                  "level)", reference="Chan, Shi & Song 2011, Binary mechanism (as used by "
                  "Mishra & Thakurta 2015's Private-UCB)")


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
                  counter_exact(make, lambda ctx, alg: alg.horizon), observes="releases"),
        ClaimSpec("counter-symbolic", Notion.GLOBAL,
                  "element 1 lies in one node per level; L levels of Lap(L/eps) compose to eps",
                  "Chan, Shi & Song 2011, Binary mechanism",
                  tree_symbolic("ceil_log2" if faulty else "exact")),
        ClaimSpec("global-dp", Notion.GLOBAL,
                  "the action sequence is eps-DP for reward sequences differing at one step",
                  "Tossou & Dimitrakakis 2016, Definition 2.1", sampled_claim(make),
                  observes="actions"),
    ]
    claims.insert(2, release_level_claim(PrivateUCBOneLevelShort if faulty else PrivateUCB))
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
# and derives its true loss, 1.1 eps
_CEIL_LOG2 = _SPEC.twin(PrivateUCBOneLevelShort, claims=_spec(True).claims, bug="ceil-log2",
                        true_epsilon=TRUE_EPSILON["private-ucb-ceil-log2"])
# private-ucb-faulty: the name the twin was first registered under (README, docs, benchmark
# results use it), kept as an alias: the same check under its old name
AUDITS = [_SPEC, _CEIL_LOG2, replace(_CEIL_LOG2, name="private-ucb-faulty")]
