"""Shared recipe of the ``dp-ucb-bound``, ``dp-ucb`` and ``dp-ucb-int`` audits.

Tossou & Dimitrakakis 2016, Definition 2.1: the input is the reward sequence, the output the
whole action sequence (global DP, as in Azize & Basu 2022, Definition 2). Every private
algorithm here is a deterministic function of (rewards, tie-break uniforms, the noise of its
private statistics), so its privacy follows from the statistics' mechanism. Each audit has a
claim on the counter, computed from the code's own node schedule, a symbolic statement of the
same composition, a sampled global-DP claim on the action sequence and the regret on Fig. 6's
two-arm instance: the paper-neutral continual-counter recipes of
:mod:`dpaudit.audits.recipes.counters`, bound here to this paper's instance and budgets.
"""

from __future__ import annotations

from collections.abc import Callable

from dpaudit.algorithms._bounds_common import ucb1_upper as ucb1_bound
from dpaudit.algorithms.tossou_dimitrakakis_2016.instances import (
    TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS as FIG6_2,
)
from dpaudit.audits.recipes import counters
from dpaudit.audits.recipes.counters import (
    RUNS,
    counter_exact,
    counter_of,
    default_pairs,
    sampled_claim,
    table_pair,
)
from dpaudit.engine import Budget, CheckContext

__all__ = ["FIG6_HORIZON", "FIG6_TWO_ARMS", "PAPER", "REGRET_HORIZON", "REGRET_RUNS", "RUNS",
           "STREAM_HORIZON", "counter_exact", "counter_of", "default_pairs", "regret_run",
           "sampled_claim", "stream_horizon", "table_pair", "ucb1_bound"]

PAPER = "Tossou & Dimitrakakis 2016 (AAAI)"
FIG6_TWO_ARMS = FIG6_2.means
#: the horizon of Fig. 6 is stripped in the extracted text; the public re-implementations
#: use 10^5, and so do we (stated wherever it is used)
FIG6_HORIZON = 10**5
#: budgets (full run, --quick): the stream length of the exact counter claims, and the regret
#: experiment's horizon and runs on Fig. 6's two-arm instance
STREAM_HORIZON = Budget(full=10**5, quick=4096)
REGRET_HORIZON = Budget(full=FIG6_HORIZON, quick=10**4)
REGRET_RUNS = Budget(full=100, quick=20)


def stream_horizon(ctx: CheckContext, alg) -> int:
    """Stream length for the exact hybrid-counter claim of DP-UCB-Bound and DP-UCB:
    :data:`STREAM_HORIZON` elements (10^5; quick: 4096)."""
    return ctx.size(STREAM_HORIZON)


def regret_run(make_alg: Callable, *, bound_name: str, bound_of=None,
               extra: Callable | None = None):
    """Regret on Fig. 6's two-arm instance (0.9, 0.6): T = 10^5 and 100 runs (quick: 10^4
    and 20 runs); the horizon is the re-implementations' choice (the paper's is stripped)."""
    return counters.regret_run(
        make_alg, means=FIG6_TWO_ARMS, instance=f"{FIG6_2.name}: {FIG6_2.means}",
        horizon=REGRET_HORIZON, runs=REGRET_RUNS,
        horizon_note="Fig. 6's is stripped; the public re-implementations use 10^5",
        bound_name=bound_name, bound_of=bound_of, extra=extra)
