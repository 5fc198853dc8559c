"""What a whole trajectory of the DP-FTPL family leaks, computed exactly (a finding).

Wang & Zhu 2023 claim per-step (eps, delta)-DP (Definition 1: the next action's law on
neighbouring histories). A per-step guarantee does not make the action sequence private; the
finding ``trajectory-exact`` reports the exact loss of the whole action sequence on the worst
neighbouring reward tables found (K = 2, tables differing at one step, Azize & Basu 2022
Definition 2), with ``observes: trajectory``. It is information, never a violation of their
claim. The next-action law at each step is the algorithms' own exact ``next_action_law``
(Lemma 15's CDF for DP-FTPL-New, the Gaussian and padded Beta perturbations for Algorithms
1-2), i.e. ``P(theta_1 > theta_2)`` by quadrature; every reward is observed as a Bernoulli
draw of it (Sec. 3.1), summed out by :mod:`dpaudit.exact.trajectory`.

Horizons: DP-FTPL-New has no start phase (one pull per arm), T = 16 (``--quick``: 8).
DP-FTPL-Gauss and DP-FTPL-Beta first pull each arm ``N_0`` times whatever the rewards, so the
trajectory is those ``2 N_0`` fixed pulls and then 10 adaptive steps (``--quick``: 4), searched
as :mod:`dpaudit.audits.recipes.trajectory` describes.
"""

from __future__ import annotations

from dpaudit.audits.recipes.trajectory import trajectory_finding
from dpaudit.audits.wang_zhu_2023._ftpl_common import build
from dpaudit.engine import Budget, CheckContext, FindingSpec
from dpaudit.exact.trajectory import StatisticPolicy

__all__ = ["FTPL_START_PHASE_TRAJECTORY", "FTPL_NEW_TRAJECTORY"]

NEW_HORIZON = Budget(full=16, quick=8)
NEW_CLIMB = Budget(full=40, quick=0)  # greedy-climb pair evaluations after the structured pairs
ADAPTIVE_STEPS = Budget(full=10, quick=4)
NOTE = ("Definition 1 (per-step DP) promises nothing about the whole action sequence; "
        "information, not a violation")


def _new_policy(ctx: CheckContext, horizon: int, initial) -> StatisticPolicy:
    alg = ctx.variant(ctx.epsilon, ctx.delta, max(horizon, 2))  # T enters the centre x0
    return StatisticPolicy(2, alg.next_action_law, round_robin=True, initial=initial)


def _start_phase_algorithm(ctx: CheckContext):
    return ctx.shared(("trajectory-algorithm",),
                      lambda: build(ctx.variant, ctx.epsilon, ctx.delta, 10**5, "paper"))


def _start_phase_policy(ctx: CheckContext, horizon: int, initial) -> StatisticPolicy:
    alg = _start_phase_algorithm(ctx)
    cache = ctx.shared(("trajectory-law-cache",), dict)
    return StatisticPolicy(2, alg.next_action_law, initial=initial, cache=cache)


FTPL_NEW_TRAJECTORY = FindingSpec(
    "trajectory-exact",
    trajectory_finding(_new_policy, horizon=NEW_HORIZON, climb=NEW_CLIMB, note=NOTE),
    summary="exact loss of the whole action sequence (K = 2, T = 16)", notion=None)

FTPL_START_PHASE_TRAJECTORY = FindingSpec(
    "trajectory-exact",
    trajectory_finding(_start_phase_policy, horizon=ADAPTIVE_STEPS, climb=Budget(0, 0),
                       start_phase=lambda ctx: int(_start_phase_algorithm(ctx).start_phase),
                       note=NOTE),
    summary="exact loss of the whole action sequence (K = 2, start phase + 10 steps)",
    notion=None)
