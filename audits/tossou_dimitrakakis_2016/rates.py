"""Tossou & Dimitrakakis 2016, Theorem 3.5 as a growth rate: ``python -m dpaudit reproduce
tossou-thm35-rate``.

Theorem 3.5 bounds DP-UCB-Int's regret by UCB's plus an additive constant that depends on the
release interval ``f`` (through a series of the supplement's Lemma B.1, which our copy lacks):
as a number it compares with nothing, as an order it says the regret grows like UCB's, ``log
T``. The rate test of :mod:`dpaudit.audits.recipes.rates` measures that growth on Fig. 6's
two-arm instance (0.9, 0.6) at the paper's own input rate for target eps = 1 (``eps =
0.00396431694945``, ``f = ceil(1/eps) = 253``, ``v = 1.1``), over ``T = 10^3 .. 10^6``: the
first ``K f = 506`` steps are round robin, so the first decade starts after them (a window
starting at ``10^2`` would compare with a decade of forced exploration, whose regret is linear,
and pass for that reason alone).
"""

from __future__ import annotations

from dpaudit.algorithms.tossou_dimitrakakis_2016.instances import (
    TOSSOU_DIMITRAKAKIS_2016,
    TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS,
)
from dpaudit.audits.recipes.rates import RateTest, log_order, policy_rate, rate_experiment

__all__ = ["EXPERIMENTS", "PAPER_INPUT_EPSILON", "THM35_RATE"]

#: the paper's input rate for target eps = 1 (Sec. 4)
PAPER_INPUT_EPSILON = 0.00396431694945

THM35_RATE = RateTest(
    name="tossou-thm35-rate", paper=TOSSOU_DIMITRAKAKIS_2016,
    statement="Theorem 3.5: DP-UCB-Int's regret is UCB's regret plus an additive constant "
              "depending on f (an order log T; the constant's series is in the supplement)",
    order="ln T", f=log_order,
    algorithms=(policy_rate("dp-ucb-int", TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS.means, "DP-UCB-Int",
                            input_epsilon=PAPER_INPUT_EPSILON),),
    decades=(10**3, 3), quick_decades=(10**2, 3), runs=1000, quick_runs=100,
    setting="Fig. 6's two arms (0.9, 0.6), input eps 0.00396431694945 (f = 253), v = 1.1",
    note="The last decade's increment ranges over [0, 2.7e5] while its mean is a few units "
         "(DP-UCB-Int's regret is nearly flat there), so a distribution-free upper limit "
         "near it needs tens of thousands of runs (about 3.7 CPU seconds per 100 runs at "
         "T = 10^6): `--runs 2000 --max-runs 80000` would settle it.")

EXPERIMENTS = [rate_experiment(THM35_RATE)]
