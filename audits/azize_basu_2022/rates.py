"""Azize & Basu 2022, Theorem 8 as a growth rate: ``python -m dpaudit reproduce
azize-basu-thm8-rate``.

Theorem 8 bounds AdaP-KLUCB's regret by ``sum_a C_1(alpha) Delta_a log T / min{d_inf(mu_a,
mu*), C_2 eps Delta_a} + 3 alpha / (alpha - 3)`` with constants ``C_1(alpha)``, ``C_2`` the main
text does not give: as a number it compares with nothing, as an order it says the regret grows
like ``log T``. The rate test of :mod:`dpaudit.audits.recipes.rates` measures that growth on
Fig. 2's instance at eps = 1 (the paper's setting) over ``T = 10^3 .. 10^6`` (AdaP-KLUCB is
episodic: a run to ``10^6`` is one binomial draw per episode, so ten thousand runs take
seconds).
"""

from __future__ import annotations

from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_2022, AZIZE_BASU_FIG2
from dpaudit.audits.recipes.rates import RateTest, log_order, policy_rate, rate_experiment

__all__ = ["EXPERIMENTS", "THM8_RATE"]

THM8_RATE = RateTest(
    name="azize-basu-thm8-rate", paper=AZIZE_BASU_2022,
    statement="Theorem 8: AdaP-KLUCB's regret is at most sum_a C_1(alpha) Delta_a log T / "
              "min{d_inf, C_2 eps Delta_a} + 3 alpha / (alpha - 3), constants not given "
              "(an order log T)",
    order="ln T", f=log_order,
    algorithms=(policy_rate("adap-klucb", AZIZE_BASU_FIG2.means, "AdaP-KLUCB", epsilon=1.0),),
    decades=(10**3, 3), quick_decades=(10**2, 3), runs=10**4, quick_runs=1000,
    setting="Fig. 2's instance (0.75, 0.625, 0.5, 0.375, 0.25), eps = 1",
    note="Larger budgets: `--max-runs` adds batches while undecided; a window reaching 10^7 "
         "(`--horizon 10000000`, T = 10^4 .. 10^7) tests the order one decade further out and "
         "needs about ten times the runs for the same width (the last decade's increment "
         "ranges over [0, 4.5e6]).")

EXPERIMENTS = [rate_experiment(THM8_RATE)]
