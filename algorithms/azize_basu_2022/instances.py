"""Azize & Basu 2022: the paper's name, its bandit instances and experiment settings.

Defined once; the theorem bounds are in :mod:`.bounds` beside this file.
"""

from __future__ import annotations

from dpaudit.sim.bandits import Instance

__all__ = [
    "AZIZE_BASU_2022",
    "AZIZE_BASU_FIG2",
    "AZIZE_BASU_FIG3",
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
