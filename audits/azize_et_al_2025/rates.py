"""Azize, Wu, Honda, Orabona, Ito & Basu 2025, Theorem 2 as a growth rate: ``python -m dpaudit
reproduce azize-et-al-2025-thm2-rate``.

Theorem 2 bounds the regret of DP-KLUCB and DP-IMED by ``sum_a alpha Delta_a log T /
d_eps(mu_a, mu*) + o(log T)`` for any ``alpha > 1``: the ``o(log T)`` term is not given, so the
statement is an order, ``log T`` with the leading constant ``alpha Delta_a / d_eps``. The rate
test of :mod:`dpaudit.audits.recipes.rates` measures the growth of both algorithms on the
paper's mean vector ``mu_2`` (Azize & Basu 2022's Fig. 2 instance) at eps = 1 over ``T = 10^2 ..
10^5``: both have small regret (about 100 at ``10^5``), so the last decade's increment, which
ranges over ``[0, 4.5e4]``, needs some ten thousand runs for an upper limit near its mean (a
distribution-free upper limit cannot be closer than about ``range x log(1/alpha) / runs``).
"""

from __future__ import annotations

from dpaudit.algorithms.azize_et_al_2025.instances import AZIZE_ET_AL_2025, AZIZE_ET_AL_2025_MU2
from dpaudit.audits.recipes.rates import RateTest, log_order, policy_rate, rate_experiment

__all__ = ["EXPERIMENTS", "THM2_RATE"]

THM2_RATE = RateTest(
    name="azize-et-al-2025-thm2-rate", paper=AZIZE_ET_AL_2025,
    statement="Theorem 2: DP-KLUCB's and DP-IMED's regret is at most sum_a alpha Delta_a log T "
              "/ d_eps(mu_a, mu*) + o(log T) for any alpha > 1 (an order log T; the o(log T) "
              "term is not given)",
    order="ln T", f=log_order,
    algorithms=(policy_rate("dp-klucb", AZIZE_ET_AL_2025_MU2.means, "DP-KLUCB", epsilon=1.0),
                policy_rate("dp-imed", AZIZE_ET_AL_2025_MU2.means, "DP-IMED", epsilon=1.0)),
    decades=(10**2, 3), quick_decades=(10, 3), runs=5000, quick_runs=1000,
    setting="mean vector mu_2 (0.75, 0.625, 0.5, 0.375, 0.25), eps = 1",
    note="Larger budgets: `--max-runs` adds batches while undecided; `--horizon 1000000` "
         "(T = 10^3 .. 10^6) tests one decade further out and needs about ten times the runs "
         "for the same width.")

EXPERIMENTS = [rate_experiment(THM2_RATE)]
