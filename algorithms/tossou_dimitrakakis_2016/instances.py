"""Tossou & Dimitrakakis 2016: the paper's name, its bandit instances and experiment settings.

Defined once; the theorem bounds are in :mod:`.bounds` beside this file. The paper does not
state Fig. 6's horizon in the text we have, so it is ``None`` here, and whoever picks a value
says so.
"""

from __future__ import annotations

from dpaudit.sim.bandits import Instance

__all__ = [
    "TOSSOU_DIMITRAKAKIS_2016",
    "TOSSOU_DIMITRAKAKIS_FIG6_10_ARMS",
    "TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS",
]

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
