"""Helpers shared by the papers' theorem bounds, and UCB1's bound (paper-neutral).

UCB1's bound (Auer, Cesa-Bianchi & Fischer 2002) is the bound of the ``ucb`` baseline and the
floor every UCB-type private bound is compared with (Tossou & Dimitrakakis 2016).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.validation import check_means

__all__ = ["gaps_of", "ucb1_upper"]


def gaps_of(means: object) -> tuple[np.ndarray, np.ndarray, float]:
    """``(mu, gaps, best)`` of a Bernoulli instance: validated means, ``best - mu``, ``best``."""
    mu = check_means(means)
    best = float(mu.max())
    gaps = best - mu
    return mu, gaps, best


def ucb1_upper(means: object, horizon: int) -> float:
    """Auer, Cesa-Bianchi & Fischer 2002, Theorem 1 (UCB1):
    ``sum_{Delta>0} 8 ln T / Delta + (1 + pi^2/3) sum Delta``."""
    mu = np.asarray(means, dtype=float)
    gaps = mu.max() - mu
    gaps = gaps[gaps > 0]
    return float(np.sum(8 * math.log(horizon) / gaps) + (1 + math.pi**2 / 3) * gaps.sum())
