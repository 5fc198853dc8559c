"""The papers' bandit instances and experiment settings, each defined once.

Cited by authors and year, with the figure or section. Theorem bounds live in
:mod:`dpaudit.algorithms.bounds`, grouped by the same papers. Where a paper does not state a
setting (Tossou & Dimitrakakis 2016 give no horizon for Fig. 6 in the text we have), it is
``None`` here, and whoever picks a value says so.
"""

from __future__ import annotations

import math

from dpaudit.sim.bandits import Instance

__all__ = [
    "AZIZE_BASU_2022",
    "AZIZE_BASU_FIG2",
    "AZIZE_BASU_FIG3",
    "TOSSOU_DIMITRAKAKIS_2016",
    "TOSSOU_DIMITRAKAKIS_FIG6_10_ARMS",
    "TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS",
    "WANG_ZHU_2023",
    "WANG_ZHU_INSTANCE_1",
    "WANG_ZHU_INSTANCE_2",
]

# -- Azize & Basu 2022 (NeurIPS), "When Privacy Meets Partial Information" -------------------
AZIZE_BASU_2022 = "Azize & Basu 2022"

AZIZE_BASU_FIG2 = Instance(
    "Azize & Basu 2022, Fig. 2", (0.75, 0.625, 0.5, 0.375, 0.25),
    "Azize & Basu 2022, Sec. 5, Fig. 2 (instance taken from Sajed & Sheffet 2019)",
    horizon=10**7, runs=20,
    settings={"epsilon": 1.0, "alpha": 3.1, "dp_se_beta": "1/T", "dp_ucb_gamma": 0.1})

AZIZE_BASU_FIG3 = Instance(
    "Azize & Basu 2022, Fig. 3", (0.8, 0.1, 0.1, 0.1, 0.1),
    "Azize & Basu 2022, Sec. 5, Fig. 3 (AdaP-KLUCB's regret against epsilon)",
    horizon=10**7, runs=20,
    settings={"epsilon_range": (0.05, 10.0), "alpha": 3.1,
              "claimed_regime_boundary": 0.3})

# -- Wang & Zhu 2023, DP-FTPL and GDP-Elim-New ------------------------------------------------
WANG_ZHU_2023 = "Wang & Zhu 2023"

_WZ_PRIVACY = ((1.0, 0.01), (1.0, math.exp(-10.0)))

WANG_ZHU_INSTANCE_1 = Instance(
    "Wang & Zhu 2023, Instance 1", tuple(round(0.30 + 0.05 * i, 10) for i in range(9)),
    "Wang & Zhu 2023, Sec. 8, Instance 1 (N = 9 arms, mu = 0.30, 0.35, ..., 0.70)",
    horizon=10**5, runs=100, settings={"epsilon_delta": _WZ_PRIVACY})

WANG_ZHU_INSTANCE_2 = Instance(
    "Wang & Zhu 2023, Instance 2", tuple(round(0.3 + 0.004 * i, 10) for i in range(101)),
    "Wang & Zhu 2023, Sec. 8, Instance 2 (N = 101 arms, mu_i = 0.3 + 0.004 (i - 1))",
    horizon=10**5, runs=100, settings={"epsilon_delta": _WZ_PRIVACY})

# -- Tossou & Dimitrakakis 2016 (AAAI), "Algorithms for Differentially Private MAB" ----------
TOSSOU_DIMITRAKAKIS_2016 = "Tossou & Dimitrakakis 2016"

_TD_SETTINGS = {"target_epsilon": (1.0, 0.1), "v": 1.1,
                "dp_ucb_int_input_epsilon": {1.0: 0.00396431694945, 0.1: 0.000253053596336}}

TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS = Instance(
    "Tossou & Dimitrakakis 2016, Fig. 6 (2 arms)", (0.9, 0.6),
    "Tossou & Dimitrakakis 2016, Sec. 4, Fig. 6, two arms 0.9 and 0.6 (horizon not stated)",
    horizon=None, runs=100, settings=_TD_SETTINGS)

TOSSOU_DIMITRAKAKIS_FIG6_10_ARMS = Instance(
    "Tossou & Dimitrakakis 2016, Fig. 6 (10 arms)", (0.1,) * 8 + (0.55, 0.2),
    "Tossou & Dimitrakakis 2016, Sec. 4, Fig. 6, ten arms 0.1 x 8, 0.55, 0.2 (horizon not "
    "stated)", horizon=None, runs=100, settings=_TD_SETTINGS)
