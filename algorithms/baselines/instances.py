"""The instances the baselines are checked on, as the comparing papers state them.

A baseline belongs to no seed paper; it is checked on the instance of the paper that compares
with it. The values are those of the paper packages (``tests/test_papers.py`` checks that they
stay equal); they are restated here so that no package imports another.
"""

from __future__ import annotations

from dpaudit.sim.bandits import Instance

__all__ = ["AZIZE_BASU_FIG2", "TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS"]

#: DP-SE (Sajed & Sheffet 2019) is compared with AdaP-UCB/KLUCB on Azize & Basu 2022, Fig. 2
AZIZE_BASU_FIG2 = Instance(
    "Azize & Basu 2022, Fig. 2", (0.75, 0.625, 0.5, 0.375, 0.25),
    "Azize & Basu 2022, Sec. 5, Fig. 2 (instance taken from Sajed & Sheffet 2019)",
    horizon=10**7, runs=20,
    settings={"epsilon": 1.0, "alpha": 3.1, "dp_se_beta": "1/T", "dp_ucb_gamma": 0.1})

#: UCB, KL-UCB, Thompson and Private-UCB are compared with DP-UCB on Tossou & Dimitrakakis
#: 2016, Fig. 6 (two arms)
TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS = Instance(
    "Tossou & Dimitrakakis 2016, Fig. 6 (2 arms)", (0.9, 0.6),
    "Tossou & Dimitrakakis 2016, Sec. 4, Fig. 6, two arms 0.9 and 0.6 (horizon not stated)",
    horizon=None, runs=100,
    settings={"target_epsilon": (1.0, 0.1), "v": 1.1,
              "dp_ucb_int_input_epsilon": {1.0: 0.00396431694945, 0.1: 0.000253053596336}})
