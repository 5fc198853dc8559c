"""Exact privacy loss where the output law is known.

For two laws ``P`` and ``Q`` on the same output space, the tightest ``delta`` for a given
``epsilon`` is the hockey-stick divergence ``H_eps(P || Q) = sup_S P(S) - e^eps Q(S)``; on a
finite output space the supremum is attained by ``S = {o : P(o) > e^eps Q(o)}``, so
``H_eps = sum_o max(0, P(o) - e^eps Q(o))``. A mechanism is ``(eps, delta)``-DP on a pair of
neighbours iff ``H_eps`` is at most ``delta`` in both directions.

Integrals are computed with composite Gauss-Legendre quadrature between the breakpoints where
the integrand is not smooth; the error estimate is the difference between ``m`` and ``2m``
nodes per piece, reported beside the value.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = [
    "discrete_epsilon",
    "discrete_hockey_stick",
    "piecewise_quadrature",
]


def discrete_hockey_stick(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """``sum_o max(0, p(o) - e^eps q(o))``: the smallest delta for ``epsilon``, one direction."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    return float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum())


def discrete_epsilon(p: np.ndarray, q: np.ndarray, delta: float, *, tol: float = 1e-12) -> float:
    """Smallest epsilon with ``H_eps(p||q) <= delta`` and ``H_eps(q||p) <= delta``.

    ``inf`` when no finite epsilon suffices (an outcome has mass under one law only, more
    than ``delta`` of it). Found by bisection on the monotone map ``eps -> H_eps``.
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)

    def worst(eps: float) -> float:
        return max(discrete_hockey_stick(p, q, eps), discrete_hockey_stick(q, p, eps))

    if worst(0.0) <= delta + tol:
        return 0.0
    # an upper end: the largest finite log-ratio among outcomes positive under both laws
    both = (p > 0) & (q > 0)
    hi = float(np.max(np.abs(np.log(p[both] / q[both])))) if both.any() else 0.0
    hi = max(hi, 1e-9)
    if worst(hi) > delta + tol:
        return math.inf
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if worst(mid) <= delta + tol:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-12:
            break
    return hi


def piecewise_quadrature(
    integrand: Callable[[np.ndarray], np.ndarray],
    breakpoints: np.ndarray,
    *,
    nodes: int = 48,
) -> tuple[float, float]:
    """Integrate ``integrand`` over ``[min(breakpoints), max(breakpoints)]``.

    ``integrand`` is vectorised and smooth between consecutive breakpoints. Returns
    ``(value, error_estimate)`` where the error is ``|Q_m - Q_2m|``.
    """
    pts = np.unique(np.asarray(breakpoints, dtype=float))
    if pts.size < 2:
        return 0.0, 0.0

    def rule(m: int) -> float:
        x, w = np.polynomial.legendre.leggauss(m)
        a, b = pts[:-1, None], pts[1:, None]
        xs = 0.5 * (b - a) * x[None, :] + 0.5 * (a + b)
        vals = integrand(xs.ravel()).reshape(xs.shape)
        return float((0.5 * (b - a) * vals * w[None, :]).sum())

    coarse, fine = rule(nodes), rule(2 * nodes)
    return fine, abs(fine - coarse)


def worst_pair_loss(
    pairs: list[tuple[object, object]],
    law: Callable[[object], tuple[np.ndarray, float]],
    *,
    epsilon: float,
    delta: float,
) -> dict[str, object]:
    """Exact loss over candidate neighbouring pairs with a small discrete output law.

    ``law(x)`` returns ``(probabilities, error_bound)`` and is called once per distinct input.
    For every pair the hockey-stick divergence at ``epsilon`` (both directions) is computed;
    the pair with the largest is returned with its numbers, including the exact epsilon at
    ``delta`` for that pair: ``pair, delta_at_epsilon, epsilon_at_delta, error, p, q,
    evaluated``.
    """
    cache: dict[str, tuple[np.ndarray, float]] = {}

    def get(x: object) -> tuple[np.ndarray, float]:
        key = repr(x)
        if key not in cache:
            cache[key] = law(x)
        return cache[key]

    best: dict[str, object] | None = None
    for d, d_prime in pairs:
        (p, ep), (q, eq) = get(d), get(d_prime)
        div = max(discrete_hockey_stick(p, q, epsilon), discrete_hockey_stick(q, p, epsilon))
        if best is None or div > best["delta_at_epsilon"]:
            best = {"pair": (d, d_prime), "delta_at_epsilon": div, "error": ep + eq,
                    "p": p, "q": q}
    if best is None:
        raise ValueError("worst_pair_loss needs at least one pair")
    best["epsilon_at_delta"] = discrete_epsilon(best["p"], best["q"], delta)
    best["evaluated"] = len(pairs)
    return best


def laplace_composition_delta(loss: float, coordinates: int, epsilon: float) -> float:
    """``delta`` at ``epsilon`` of a vector Laplace release, exact when 0, else a lower bound.

    The changed datum moves ``coordinates`` independent Laplace coordinates; ``loss`` is the sum
    of their ``sensitivity / scale``, the exact pure-DP loss. If ``loss <= epsilon`` the
    divergence at ``epsilon`` is exactly 0. Otherwise the event "every moved coordinate's noise
    lies on the far side" has probability ``2^-m`` under ``D`` and ``2^-m e^-loss`` under
    ``D'``, so ``H_eps >= 2^-m (1 - e^(eps - loss))`` (any upper bound on ``m`` keeps it a
    lower bound): positive, hence a violation of a pure-DP claim.
    """
    if loss <= epsilon:
        return 0.0
    return float(np.exp2(-coordinates) * -np.expm1(epsilon - loss))
