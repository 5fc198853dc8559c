"""The privacy of DP-UCB-Int's releases computed as an exact series, up to any number of pulls
and in the limit (Tossou & Dimitrakakis 2016, Algorithm 3 with Lemma 3.1's noise).

One arm's ``k``-th release (after ``k f`` pulls, ``f = ceil(1/eps_input)``) adds
``Lap((k f)^(v/2 - 1))`` to a mean of sensitivity ``1/(k f)``: a Laplace mechanism with privacy
``eps_k = (k f)^(-v/2)``. In the worst case (one arm takes every pull, the changed reward among
its first ``f``) every release sees the change, and the releases' privacy loss is ``S = sum_k
L_k``, ``L_k`` the loss of ``Lap`` at ``eps_k``: under the first input ``L_k = eps_k`` with
probability 1/2, ``-eps_k`` with probability ``e^-eps_k / 2`` and ``eps_k (1 - 2x)`` for ``x``
uniform-exponential on (0, 1) in between. Its moment generating function is closed form,

    M_k(z) = e^(z e) / 2 + e^(-e (1 + z)) / 2 + e^(z e) (1 - e^(-e (1 + 2z))) / (2 (1 + 2z)),
    e = eps_k,

and ``log M_k(z) = e^2 z(z+1)/2 - e^3 z(z+1)/6 - e^4 z(z+1)(2z^2+2z-1)/24 + e^5
z(z+1)(8z^2+8z-1)/120 + O(e^6)`` (sympy's series; every term vanishes at ``z = 0`` and ``z =
-1``, as ``M(0) = E_Q[1] = 1`` must). For ``v > 1`` the series ``sum_k eps_k^2`` converges, so
``S`` has a limit law as the pulls grow, and its hockey-stick divergence is

    delta(eps) = E_P[(1 - e^(eps - S))_+] = (1 / pi) int_0^inf Re[ M_S(c + it) e^(-(c + it) eps)
                 / ((c + it)(c + it + 1)) ] dt,   any c > 0,

(the two-sided Laplace transform of ``(1 - e^(eps - x))_+`` is ``e^(-z eps) / (z (z + 1))`` for
``Re z > 0``; Bromwich inversion). ``M_S`` is the product of the first ``HEAD`` releases' exact
``M_k`` and, for the rest, the series above with ``sum_k eps_k^j = f^(-jv/2) (zeta(jv/2, K + 1)
- zeta(jv/2, n + 1))`` (Hurwitz zeta, exact; ``n = inf``: the limit). ``c`` is the saddle point of
``log M_S(c) - c eps``, where the integrand is smooth; the quadrature is scipy's.

Error: the series is cut after ``e^5``; past ``HEAD`` releases ``eps_k <= (HEAD f)^(-v/2)``
(below 1e-3 here) and the integrand decays like ``exp(-t^2 sum eps_k^2 / 2)``, so the cut
changes ``log M_S`` by far less than the quadrature's tolerance. :func:`delta_at` returns the
quadrature's own error estimate; :func:`epsilon_at` brackets the root by it. Checked against
dp-accounting's PLD brackets where those are tight (``tests/test_rates.py``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, optimize, special

__all__ = ["HEAD", "MIN_RELEASES", "crossing_pulls", "delta_at", "epsilon_at", "releases"]

#: releases whose moment generating function is taken exactly (the rest by the series)
HEAD = 4000


def _eps(f: int, v: float, count: int) -> np.ndarray:
    return (np.arange(1, count + 1, dtype=float) * f) ** (-v / 2.0)


def _tail_sums(f: int, v: float, first: int, releases: float) -> list[float]:
    """``sum_{k = first + 1}^{releases} eps_k^j`` for ``j = 2..5`` (Hurwitz zeta)."""
    out = []
    for j in (2, 3, 4, 5):
        s = j * v / 2.0
        total = float(special.zeta(s, first + 1))
        if math.isfinite(releases):
            total -= float(special.zeta(s, releases + 1))
        out.append(f ** (-s) * max(total, 0.0))
    return out


def _log_mgf(z: complex | np.ndarray, head: np.ndarray, sums: list[float]) -> np.ndarray:
    z = np.asarray(z, dtype=complex)
    e = head[:, None]
    zz = z[None, :]
    m = (0.5 * np.exp(zz * e) + 0.5 * np.exp(-e * (1.0 + zz))
         + np.exp(zz * e) * (-np.expm1(-e * (1.0 + 2.0 * zz))) / (2.0 * (1.0 + 2.0 * zz)))
    exact = np.sum(np.log(m), axis=0)
    q = z * (z + 1.0)
    s2, s3, s4, s5 = sums
    series = (s2 * q / 2.0 - s3 * q / 6.0 - s4 * q * (2.0 * z * z + 2.0 * z - 1.0) / 24.0
              + s5 * q * (8.0 * z * z + 8.0 * z - 1.0) / 120.0)
    out: np.ndarray = exact + series
    return out


def _parts(input_epsilon: float, v: float, pulls: float) -> tuple[np.ndarray, list[float]]:
    f = math.ceil(1.0 / input_epsilon)
    releases = math.inf if pulls == math.inf else float(int(pulls) // f)
    head_n = int(min(HEAD, releases))
    return _eps(f, v, head_n), _tail_sums(f, v, head_n, releases)


def delta_at(input_epsilon: float, epsilon: float, *, v: float = 1.1,
             pulls: float = math.inf) -> tuple[float, float]:
    """``(delta, error)``: the hockey-stick divergence at ``epsilon`` of one arm's releases up
    to ``pulls`` (``inf``: all of them), and the quadrature's error estimate."""
    head, sums = _parts(input_epsilon, v, pulls)

    def real_log(c: float) -> float:
        return float(_log_mgf(np.array([c]), head, sums).real[0]) - c * epsilon

    c = float(optimize.minimize_scalar(real_log, bounds=(1e-6, 400.0), method="bounded").x)
    scale = real_log(c)

    def integrand(t: float) -> float:
        z = c + 1j * t
        val = np.exp(_log_mgf(np.array([z]), head, sums)[0] - z * epsilon - scale)
        return float((val / (z * (z + 1.0))).real)

    value, err = integrate.quad(integrand, 0.0, np.inf, limit=400, epsabs=1e-13,
                                epsrel=1e-10)
    factor = math.exp(scale) / math.pi
    return max(value * factor, 0.0), abs(err) * factor


#: fewer releases than this leave the loss mostly atoms (the integrand does not decay): the
#: PLD accountant, exact there, is the tool
MIN_RELEASES = 1000


def releases(input_epsilon: float, pulls: float) -> float:
    """One arm's releases after ``pulls`` pulls (``inf`` for ``inf``)."""
    f = math.ceil(1.0 / input_epsilon)
    return math.inf if pulls == math.inf else float(int(pulls) // f)


def epsilon_at(input_epsilon: float, delta: float, *, v: float = 1.1,
               pulls: float = math.inf) -> tuple[float, float]:
    """``(low, high)``: the epsilons at which ``delta_at`` minus and plus its error estimate
    equal ``delta`` (they bracket the release's epsilon at ``delta``; ``brentq`` to 1e-9).
    At least :data:`MIN_RELEASES` releases."""
    if releases(input_epsilon, pulls) < MIN_RELEASES:
        raise ValueError(f"pulls={pulls!r} must give at least {MIN_RELEASES} releases")

    def gap(eps: float, sign: float) -> float:
        d, err = delta_at(input_epsilon, eps, v=v, pulls=pulls)
        return d + sign * err - delta

    hi_eps = 0.5
    while gap(hi_eps, 1.0) > 0.0:
        hi_eps *= 2.0

    def root(sign: float) -> float:
        if gap(1e-9, sign) <= 0.0:  # already at most delta at eps -> 0: the smallest eps is 0
            return 0.0
        return float(optimize.brentq(gap, 1e-9, hi_eps, args=(sign,), xtol=1e-9))

    low, high = root(-1.0), root(1.0)
    return max(low - 1e-9, 0.0), high + 1e-9


def crossing_pulls(input_epsilon: float, epsilon: float, delta: float, *, v: float = 1.1,
                   top: float = 1e60) -> float | None:
    """The number of pulls (``10^x``, to 0.01 in ``x``) at which the releases' divergence at
    ``epsilon`` reaches ``delta``; ``None`` when it stays below up to ``top``. When it has
    already reached it at the fewest pulls the series handles (:data:`MIN_RELEASES` releases),
    that number is returned: the crossing is at or before it."""
    def gap(x: float) -> float:
        return delta_at(input_epsilon, epsilon, v=v, pulls=10.0 ** x)[0] - delta

    f = math.ceil(1.0 / input_epsilon)
    start = math.log10(MIN_RELEASES * f)
    if gap(math.log10(top)) < 0.0:
        return None
    if gap(start) >= 0.0:
        return 10.0 ** start
    return 10.0 ** float(optimize.brentq(gap, start, math.log10(top), xtol=0.01))
