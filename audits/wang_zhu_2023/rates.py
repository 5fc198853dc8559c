"""Wang & Zhu 2023, Theorems 11 and 13 as growth rates: ``python -m dpaudit reproduce
wang-zhu-thm11-rate`` and ``wang-zhu-thm13-rate``.

Theorem 11 bounds DP-FTPL-Gauss's regret by ``sum_i max{2 Delta_i ln T / (Delta_i - 2
lambda)^2, N_G Delta_i} + O(N / lambda^4)`` for ``lambda < Delta_min / 2``, Theorem 13
DP-FTPL-Beta's by the same form with ``N_B`` and a leading ``5`` (as reconstructed in
``docs/reconstructions.md``); the constant of the ``O(N / lambda^4)`` term is
not printed, so neither is a number to compare with. Both are of order ``log T`` in ``T``. The
rate test of :mod:`dpaudit.audits.recipes.rates` measures that growth on Instance 1 (nine arms
0.30 .. 0.70):

* DP-FTPL-Gauss at the paper's (1, 0.01) (start phase ``N_G = 8`` pulls per arm, 72 steps) over
  ``T = 10^2 .. 10^5``. Its theorem's own additive term is ``N / lambda^4`` with ``lambda <
  0.025``, at least ``2.3e7`` times an unstated constant: far above any regret reachable here
  (at most ``0.4 T``), so a growth faster than ``log T`` in this window says the order's regime
  is not reached, not that the bound fails.
* DP-FTPL-Beta: at (1, 0.01) its start phase is 827 pulls per arm (7443 steps), so three
  decades after it end at ``10^7``, out of reach of the per-step simulation (about 9 CPU
  seconds per 100 runs at ``10^5``). It is tested at eps = 5, delta = 0.01 (the order in ``T``
  holds at every eps), where the start phase is the floor ``C`` (97 pulls per arm, 873 steps),
  over ``T = 10^3 .. 10^6``.
"""

from __future__ import annotations

from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_2023, WANG_ZHU_INSTANCE_1
from dpaudit.audits.recipes.rates import RateTest, log_order, policy_rate, rate_experiment

__all__ = ["EXPERIMENTS", "THM11_RATE", "THM13_RATE"]

_MEANS = WANG_ZHU_INSTANCE_1.means

THM11_RATE = RateTest(
    name="wang-zhu-thm11-rate", paper=WANG_ZHU_2023,
    statement="Theorem 11: DP-FTPL-Gauss's regret is at most sum_i max{2 Delta_i ln T / "
              "(Delta_i - 2 lambda)^2, N_G Delta_i} + O(N / lambda^4) (an order log T; the "
              "O(N / lambda^4) constant is not printed)",
    order="ln T", f=log_order,
    algorithms=(policy_rate("dp-ftpl-gauss", _MEANS, "DP-FTPL-Gauss", epsilon=1.0,
                            delta=0.01),),
    decades=(10**2, 3), quick_decades=(10, 3), runs=2000, quick_runs=200,
    setting="Instance 1 (nine arms 0.30 .. 0.70), (eps, delta) = (1, 0.01)",
    note="The theorem's additive O(N / lambda^4) (lambda < Delta_min / 2 = 0.025) exceeds "
         "every regret reachable at these horizons, so this window tests the growth rate "
         "only. Larger budgets: `--horizon 1000000` (T = 10^3 .. 10^6) costs about 12 CPU "
         "seconds per 100 runs.")

THM13_RATE = RateTest(
    name="wang-zhu-thm13-rate", paper=WANG_ZHU_2023,
    statement="Theorem 13: DP-FTPL-Beta's regret is at most sum_i max{5 Delta_i ln T / "
              "(Delta_i - 2 lambda)^2, N_B Delta_i} + O(N / lambda^4) (as reconstructed; an "
              "order log T; the O(N / lambda^4) constant is not printed)",
    order="ln T", f=log_order,
    algorithms=(policy_rate("dp-ftpl-beta", _MEANS, "DP-FTPL-Beta", epsilon=5.0,
                            delta=0.01),),
    decades=(10**3, 3), quick_decades=(10**2, 3), runs=50, quick_runs=20,
    setting="Instance 1 (nine arms 0.30 .. 0.70), (eps, delta) = (5, 0.01): start phase 97 "
            "pulls per arm (the floor C)",
    note="At the paper's (1, 0.01) the start phase (7443 steps) leaves no three decades below "
         "10^7. The last decade's increment ranges over [0, 3.6e5]: a distribution-free upper "
         "limit near its mean needs thousands of runs at about 90 CPU seconds per 100 runs "
         "(the rule's estimate is printed with the status).")

EXPERIMENTS = [rate_experiment(THM11_RATE), rate_experiment(THM13_RATE)]
