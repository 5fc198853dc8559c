"""Azize, Wu, Honda, Orabona, Ito & Basu 2025: the paper's name and its instances, defined once.

The experiments section runs ``K = 5`` Bernoulli arms on four mean vectors, at
``eps in {0.01, 0.1, 0.5, 1}``, ``T = 10^6`` and 100 runs, comparing DP-KLUCB and DP-IMED with
DP-SE (Sajed & Sheffet 2019) and AdaP-KLUCB (Azize & Basu 2022) among others. The second mean
vector is Azize & Basu 2022's Figure 2 instance (itself from Sajed & Sheffet 2019).
"""

from __future__ import annotations

from dpaudit.sim.bandits import Instance

__all__ = [
    "AZIZE_ET_AL_2025",
    "AZIZE_ET_AL_2025_EPSILONS",
    "AZIZE_ET_AL_2025_MU1",
    "AZIZE_ET_AL_2025_MU2",
    "AZIZE_ET_AL_2025_MU3",
    "AZIZE_ET_AL_2025_MU4",
]

AZIZE_ET_AL_2025 = "Azize, Wu, Honda, Orabona, Ito & Basu 2025"

#: the privacy budgets of the experiments section
AZIZE_ET_AL_2025_EPSILONS = (0.01, 0.1, 0.5, 1.0)

_SETTINGS = {"epsilons": AZIZE_ET_AL_2025_EPSILONS, "epsilon": 1.0}

AZIZE_ET_AL_2025_MU1 = Instance(
    "Azize et al. 2025, mu_1", (0.75, 0.7, 0.7, 0.7, 0.7),
    "Azize, Wu, Honda, Orabona, Ito & Basu 2025, experiments section, mean vector mu_1",
    horizon=10**6, runs=100, settings=_SETTINGS)

AZIZE_ET_AL_2025_MU2 = Instance(
    "Azize et al. 2025, mu_2", (0.75, 0.625, 0.5, 0.375, 0.25),
    "Azize, Wu, Honda, Orabona, Ito & Basu 2025, experiments section, mean vector mu_2 "
    "(Azize & Basu 2022's Figure 2 instance)",
    horizon=10**6, runs=100, settings=_SETTINGS)

AZIZE_ET_AL_2025_MU3 = Instance(
    "Azize et al. 2025, mu_3", (0.75, 0.53125, 0.375, 0.28125, 0.25),
    "Azize, Wu, Honda, Orabona, Ito & Basu 2025, experiments section, mean vector mu_3",
    horizon=10**6, runs=100, settings=_SETTINGS)

AZIZE_ET_AL_2025_MU4 = Instance(
    "Azize et al. 2025, mu_4", (0.75, 0.71875, 0.625, 0.46875, 0.25),
    "Azize, Wu, Honda, Orabona, Ito & Basu 2025, experiments section, mean vector mu_4",
    horizon=10**6, runs=100, settings=_SETTINGS)
