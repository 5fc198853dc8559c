"""Wang & Zhu 2023: the paper's name, its bandit instances and experiment settings.

Defined once; the theorem bounds are in :mod:`.bounds` beside this file.
"""

from __future__ import annotations

import math

from dpaudit.sim.bandits import Instance

__all__ = [
    "WANG_ZHU_2023",
    "WANG_ZHU_INSTANCE_1",
    "WANG_ZHU_INSTANCE_2",
]

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
