"""Exact privacy loss where the output law is known.

For two laws ``P`` and ``Q`` on the same output space, the tightest ``delta`` for a given
``epsilon`` is the hockey-stick divergence ``H_eps(P || Q) = sup_S P(S) - e^eps Q(S)``; on a
finite output space the supremum is attained by ``S = {o : P(o) > e^eps Q(o)}``, so
``H_eps = sum_o max(0, P(o) - e^eps Q(o))``. A mechanism is ``(eps, delta)``-DP on a pair of
neighbours iff ``H_eps`` is at most ``delta`` in both directions.

Every computed loss comes back as a :class:`Bounded`: the value and a bound on its absolute
error, so that :func:`dpaudit.stats.evidence.decide` calls a violation only outside it. Integrals
are computed with composite Gauss-Legendre quadrature between the breakpoints where the
integrand is not smooth; the error estimate is the difference between ``m`` and ``2m`` nodes
per piece (an estimate, not a proof: on smooth pieces the ``2m`` rule's own error is far
smaller than that difference). Inverses (epsilon for a delta) are found with scipy's bracketing
root finder and the bracket is returned as the error.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from scipy.optimize.elementwise import find_root

__all__ = [
    "Bounded",
    "OutOfRangeError",
    "discrete_epsilon",
    "discrete_hockey_stick",
    "log_hockey_stick",
    "piecewise_quadrature",
    "smallest_passing",
]

#: unit roundoff of IEEE double precision
UNIT_ROUNDOFF = 2.0**-53


class OutOfRangeError(ArithmeticError):
    """A loss cannot be computed in double precision at these parameters (the message says
    why); callers report the claim INCONCLUSIVE with that reason, never a crash."""


@dataclass(frozen=True)
class Bounded:
    """A computed quantity and a bound on its absolute error (arrays for vectorised calls).

    ``how`` names the method and the source of the error bound, for the report.
    """

    value: float | np.ndarray
    error: float | np.ndarray
    how: str = ""

    @property
    def upper(self) -> float | np.ndarray:
        return self.value + self.error

    @property
    def lower(self) -> float | np.ndarray:
        return self.value - self.error


def discrete_hockey_stick(p: np.ndarray, q: np.ndarray, epsilon: float) -> Bounded:
    """``sum_o max(0, p(o) - e^eps q(o))``: the smallest delta for ``epsilon``, one direction.

    Error: each term ``p - e^eps q`` is exact to ``3u (p + e^eps q)`` (one product, one
    exponential, one subtraction, ``u`` the unit roundoff) and the sum of ``n`` terms adds at
    most ``n u`` times their total, so ``error = (n + 3) u (sum p + e^eps sum q)`` over the
    positive terms. The inputs' own errors are the caller's (see :func:`worst_pair_loss`).
    ``epsilon`` above 700 (``e^eps`` not a finite double) goes to :func:`log_hockey_stick`.
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if epsilon > 700.0:
        with np.errstate(divide="ignore"):
            return log_hockey_stick(np.log(p), np.log(q), epsilon)
    k = math.exp(epsilon)
    terms = p - k * q
    pos = terms > 0
    value = float(terms[pos].sum())
    err = (p.size + 3) * UNIT_ROUNDOFF * float(p[pos].sum() + k * q[pos].sum())
    return Bounded(value, err, "sum of positive terms, floating-point bound")


def log_hockey_stick(log_p: np.ndarray, log_q: np.ndarray, epsilon: float) -> Bounded:
    """The same from log-probabilities, so that no ``e^eps`` and no tiny mass is formed.

    A term is positive iff ``log p - log q > eps`` and then equals
    ``p (1 - exp(eps + log q - log p))``. Error per positive term, relative:
    ``u (6 + |eps| + 4 |log p| + 4 |log q|)`` (the logs are taken to carry ``4u`` relative
    error each, as from ``logaddexp``/``log_expit``), plus ``n u`` of the total for the sum.
    """
    lp = np.asarray(log_p, dtype=float)
    lq = np.asarray(log_q, dtype=float)
    # an outcome of probability 0 under p (log p = -inf) adds nothing: it is excluded here
    # (gap +inf), as the inf - inf = NaN of its gap and the 0 * inf of its error term would
    # otherwise reach the bound (seen at epsilon = 709, where more masses underflow)
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isneginf(lp), np.inf, lq + epsilon - lp)
    pos = gap < 0
    if not pos.any():
        return Bounded(0.0, 0.0, "log space: no outcome has log-ratio above epsilon")
    p = np.exp(lp[pos])
    terms = p * -np.expm1(gap[pos])
    finite_q = np.where(np.isneginf(lq[pos]), 0.0, np.abs(lq[pos]))
    rel = UNIT_ROUNDOFF * (6.0 + abs(epsilon) + 4.0 * np.abs(lp[pos]) + 4.0 * finite_q)
    err = float((p * rel).sum()) + (lp.size + 3) * UNIT_ROUNDOFF * float(p.sum())
    return Bounded(float(terms.sum()), err, "log space, floating-point bound")


def smallest_passing(fails: Callable[[float], bool], lo: float, hi: float, *,
                     xtol: float = 1e-12) -> Bounded:
    """Smallest ``x`` in ``[lo, hi]`` where a monotone condition stops failing.

    ``fails(lo)`` must be true and ``fails(hi)`` false. The sign change of
    ``+1 if fails(x) else -1`` is located by scipy's bracketing root finder
    (``scipy.optimize.elementwise.find_root``); the result is the bracket's passing end and
    its error the bracket's width.
    """
    def sign(x: np.ndarray) -> np.ndarray:
        xs = np.atleast_1d(np.asarray(x, dtype=float))
        out = np.array([1.0 if fails(float(v)) else -1.0 for v in xs.ravel()])
        return out.reshape(np.shape(x))

    res = find_root(sign, (np.float64(lo), np.float64(hi)),
                    tolerances={"xatol": xtol, "xrtol": 4 * UNIT_ROUNDOFF}, maxiter=400)
    a, b = (float(v) for v in res.bracket)
    left, right = min(a, b), max(a, b)
    return Bounded(right, right - left, "bracketing root finder (scipy find_root)")


def discrete_epsilon(p: np.ndarray, q: np.ndarray, delta: float) -> Bounded:
    """Smallest epsilon with ``H_eps(p||q) <= delta`` and ``H_eps(q||p) <= delta``.

    ``delta = 0``: the largest ``|log p - log q|`` (``inf`` if an outcome has mass under one
    law only), computed in log space, error a few units of roundoff of the logs. Otherwise the
    root of the monotone ``eps -> max(H_eps(p||q), H_eps(q||p)) - delta`` found by
    :func:`smallest_passing` (a comparison within the sums' error bound counts as passing);
    ``inf`` when no finite epsilon suffices.
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if delta == 0.0:
        support = (p > 0) | (q > 0)
        if np.any((p[support] == 0) | (q[support] == 0)):
            return Bounded(math.inf, 0.0, "an outcome has mass under one law only")
        lr = np.abs(np.log(p[support]) - np.log(q[support]))
        value = float(lr.max()) if lr.size else 0.0
        scale = float(np.abs(np.log(p[support])).max() + np.abs(np.log(q[support])).max())
        return Bounded(value, 4 * UNIT_ROUNDOFF * (1.0 + scale), "max |log p - log q|")

    def fails(eps: float) -> bool:
        worst = max((discrete_hockey_stick(p, q, eps), discrete_hockey_stick(q, p, eps)),
                    key=lambda b: b.value)
        return bool(worst.lower > delta)

    if not fails(0.0):
        return Bounded(0.0, 0.0, "the laws are within delta at epsilon = 0")
    # an upper end: the largest finite log-ratio among outcomes positive under both laws
    both = (p > 0) & (q > 0)
    hi = float(np.max(np.abs(np.log(p[both] / q[both])))) if both.any() else 0.0
    hi = max(hi, 1e-9) * (1 + 1e-9)
    if fails(hi):
        return Bounded(math.inf, 0.0, "no finite epsilon meets delta")
    return smallest_passing(fails, 0.0, hi)


@functools.cache
def _gauss_legendre(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [-1, 1] (read-only). Computing them is an
    eigenvalue problem that cost 90% of an exact next-action law; they are constants of ``m``,
    so a cache changes no result."""
    x, w = np.polynomial.legendre.leggauss(m)
    x.flags.writeable = w.flags.writeable = False
    return x, w


def piecewise_quadrature(
    integrand: Callable[[np.ndarray], np.ndarray],
    breakpoints: np.ndarray,
    *,
    nodes: int = 48,
) -> tuple[float, float]:
    """Integrate ``integrand`` over ``[min(breakpoints), max(breakpoints)]``.

    ``integrand`` is vectorised and smooth between consecutive breakpoints. Returns
    ``(value, error_estimate)`` where the error is ``|Q_m - Q_2m|`` plus the floating-point
    allowance of the weighted sum (``2 m u`` times the integral of ``|integrand|``).
    """
    pts = np.unique(np.asarray(breakpoints, dtype=float))
    if pts.size < 2:
        return 0.0, 0.0

    def rule(m: int) -> float:
        x, w = _gauss_legendre(m)
        a, b = pts[:-1, None], pts[1:, None]
        xs = 0.5 * (b - a) * x[None, :] + 0.5 * (a + b)
        vals = integrand(xs.ravel()).reshape(xs.shape)
        return float((0.5 * (b - a) * vals * w[None, :]).sum())

    coarse, fine = rule(nodes), rule(2 * nodes)
    return fine, abs(fine - coarse) + 4 * nodes * UNIT_ROUNDOFF * abs(fine)


#: an input of :func:`worst_pair_loss`'s law (a history, a reward table, ...)
Input = TypeVar("Input")


def worst_pair_loss(
    pairs: Sequence[tuple[Input, Input]],
    law: Callable[[Input], tuple[np.ndarray, float]],
    *,
    epsilon: float,
    delta: float,
) -> dict[str, Any]:
    """Exact loss over candidate neighbouring pairs with a small discrete output law.

    ``law(x)`` returns ``(probabilities, error_bound)`` (a bound on the L1 error of the
    probability vector) and is called once per distinct input.
    For every pair the hockey-stick divergence at ``epsilon`` (both directions) is computed;
    the pair with the largest is returned with its numbers, including the exact epsilon at
    ``delta`` for that pair: ``pair, delta_at_epsilon, epsilon_at_delta, error, p, q,
    evaluated``.
    """
    cache: dict[str, tuple[np.ndarray, float]] = {}

    def get(x: Input) -> tuple[np.ndarray, float]:
        key = repr(x)
        if key not in cache:
            cache[key] = law(x)
        return cache[key]

    best: dict[str, Any] | None = None
    k = math.exp(min(epsilon, 700.0))
    for d, d_prime in pairs:
        (p, ep), (q, eq) = get(d), get(d_prime)
        div = max(discrete_hockey_stick(p, q, epsilon), discrete_hockey_stick(q, p, epsilon),
                  key=lambda b: b.value)
        if best is None or div.value > best["delta_at_epsilon"]:
            # laws with L1 errors ep, eq move sum max(0, p - e^eps q) by at most
            # ep + e^eps eq (either direction); plus the sum's own floating-point bound
            best = {"pair": (d, d_prime), "delta_at_epsilon": div.value,
                    "error": div.error + max(ep + k * eq, eq + k * ep), "p": p, "q": q}
    if best is None:
        raise ValueError("worst_pair_loss needs at least one pair")
    best["epsilon_at_delta"] = discrete_epsilon(best["p"], best["q"], delta).value
    best["evaluated"] = len(pairs)
    return best


def laplace_composition_delta(loss: float, coordinates: int, epsilon: float) -> Bounded:
    """``delta`` at ``epsilon`` of a vector Laplace release, exact when 0, else a lower bound.

    The changed datum moves ``coordinates`` independent Laplace coordinates; ``loss`` is the sum
    of their ``sensitivity / scale``, the exact pure-DP loss. If ``loss <= epsilon`` the
    divergence at ``epsilon`` is exactly 0. Otherwise the event "every moved coordinate's noise
    lies on the far side" has probability ``2^-m`` under ``D`` and ``2^-m e^-loss`` under
    ``D'``, so ``H_eps >= 2^-m (1 - e^(eps - loss))`` (any upper bound on ``m`` keeps it a
    lower bound): positive, hence a violation of a pure-DP claim.

    Error: ``loss`` is a floating sum of ``coordinates`` ratios, relative error at most
    ``(coordinates + 2) u``; ``2^-m (1 - e^(eps - loss))`` is 1-Lipschitz in ``loss`` times
    ``2^-m``, so the error bound is ``2^-m (m + 2) u loss`` (and the value is 0 when ``loss``
    is within that of ``epsilon`` or below).
    """
    err = float(np.exp2(-coordinates)) * (coordinates + 2) * UNIT_ROUNDOFF * abs(loss)
    if loss <= epsilon:
        return Bounded(0.0, err, "loss within epsilon: divergence 0")
    return Bounded(float(np.exp2(-coordinates) * -np.expm1(epsilon - loss)), err,
                   "lower bound 2^-m (1 - e^(eps - loss))")
