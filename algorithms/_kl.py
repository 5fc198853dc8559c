"""Bernoulli KL divergence and the KL-UCB index (paper-neutral).

The KL-UCB index of Garivier & Cappe 2011, used by KL-UCB and by AdaP-KLUCB of Azize & Basu
2022 (Alg. 1 with Eq. (8)), and the Bernoulli ``kl`` of the papers' lower bounds
(Azize & Basu 2022, Theorem 3). Shared here so that no paper package imports another.
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

__all__ = ["bernoulli_kl", "kl_ucb_index"]


def bernoulli_kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``kl(p, q) = p ln(p/q) + (1-p) ln((1-p)/(1-q))`` with ``0 ln 0 = 0`` (vectorised)."""
    p = np.asarray(p, dtype=float)
    q = np.clip(np.asarray(q, dtype=float), 1e-300, 1.0 - 1e-16)
    return xlogy(p, p) + xlogy(1 - p, 1 - p) - xlogy(p, q) - xlogy(1 - p, 1 - q)


def kl_ucb_index(p: np.ndarray, c: np.ndarray, *, newton_steps: int = 60,
                 tol: float = 1e-12) -> np.ndarray:
    """``max{q in [p, 1] : kl(p, q) <= c}`` for arrays ``p`` in [0, 1], ``c >= 0``.

    Solved in ``u = -ln(1 - q)``: ``g(u) = kl(p, 1 - e^-u) - c = H(p) - p ln(1 - e^-u) +
    (1 - p) u - c`` (``H(p) = p ln p + (1-p) ln(1-p)``) is convex in ``u`` and increasing for
    ``q > p``, and nearly linear when ``q`` is close to 1, where Newton in ``q`` crawls.
    Pinsker (``kl >= 2 (q - p)^2``) gives ``g >= 0`` at ``q = p + sqrt(c/2)``, so the root
    lies in ``[p, min(p + sqrt(c/2), 1)]``; Newton's method started at the bracket's right end
    (right of the root of a convex increasing function) decreases monotonically to the root
    and never leaves the bracket. ``p = 1`` gives 1; ``p = 0`` has the closed form
    ``1 - e^{-c}``. Accuracy is checked against ``scipy.optimize.brentq`` in the tests.
    """
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    c = np.maximum(np.asarray(c, dtype=float), 0.0)
    p, c = np.broadcast_arrays(p, c)
    top = 1.0 - 1e-15
    base = xlogy(p, p) + xlogy(1 - p, 1 - p) - c
    q_lo = p
    u_lo = -np.log1p(-np.minimum(q_lo, top))
    u = -np.log1p(-np.minimum(p + np.sqrt(c / 2.0), top))
    for _ in range(newton_steps):
        em = -np.expm1(-u)  # q = 1 - e^-u
        val = base - xlogy(p, em) + (1 - p) * u
        slope = (1 - p) - p * (1.0 - em) / np.maximum(em, 1e-300)
        step = np.where(slope > 0, np.maximum(val, 0.0) / np.where(slope > 0, slope, 1.0), 0.0)
        u = np.maximum(u - step, u_lo)
        if float(step.max(initial=0.0)) <= tol:
            break
    q = -np.expm1(-u)
    q = np.where(p >= 1.0, 1.0, np.maximum(q, p))
    return np.where(p <= 0.0, -np.expm1(-c), q)
