"""Where the baselines' regret is measured: Tossou & Dimitrakakis 2016's Fig. 6 (two arms).

UCB, KL-UCB, Thompson sampling and Private-UCB are the baselines of Tossou & Dimitrakakis 2016,
Fig. 6; their regret is measured as that paper's algorithms' is (the same instance, horizon and
runs), through the paper-neutral recipe :func:`dpaudit.audits.recipes.counters.regret_run`.
"""

from __future__ import annotations

from collections.abc import Callable

from dpaudit.algorithms.baselines.instances import TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS as FIG6_2
from dpaudit.audits.recipes import counters
from dpaudit.engine import Budget

__all__ = ["FIG6_TWO_ARMS", "PAPER", "REGRET_HORIZON", "REGRET_RUNS", "STREAM_HORIZON",
           "regret_run"]

PAPER = "Tossou & Dimitrakakis 2016 (AAAI)"
FIG6_TWO_ARMS = FIG6_2.means
#: budgets (full run, --quick), as for Tossou & Dimitrakakis 2016's own algorithms: the stream
#: length of the exact counter claims, and the regret's horizon (Fig. 6's is stripped; the
#: public re-implementations use 10^5) and runs
STREAM_HORIZON = Budget(full=10**5, quick=4096)
REGRET_HORIZON = Budget(full=10**5, quick=10**4)
REGRET_RUNS = Budget(full=100, quick=20)


def regret_run(make_alg: Callable, *, bound_name: str, bound_of=None):
    """Regret on Fig. 6's two-arm instance (0.9, 0.6): T = 10^5 and 100 runs (quick: 10^4
    and 20 runs)."""
    return counters.regret_run(
        make_alg, means=FIG6_TWO_ARMS, instance=f"{FIG6_2.name}: {FIG6_2.means}",
        horizon=REGRET_HORIZON, runs=REGRET_RUNS,
        horizon_note="Fig. 6's is stripped; the public re-implementations use 10^5",
        bound_name=bound_name, bound_of=bound_of)
