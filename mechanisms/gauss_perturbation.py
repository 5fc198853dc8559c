"""DP-FTPL-Gauss perturbation of Wang & Zhu (Wang & Zhu 2023, Algorithm 1, Theorem 11).

After a start phase that pulls each arm ``N_G`` times, arm ``i`` draws
``theta_i ~ N(R_i/N_i, v/N_i)`` and the arm with the largest sample is pulled.

Reconstruction (the OCR of Algorithm 1 and of the proof is damaged; REFERENCE 4.5)
----------------------------------------------------------------------------------
* Variance ``v/N`` with ``v = 2``: the proof's density-ratio line
  ``f/f' = exp((2N(mu - x)Delta + N Delta^2)/4)`` and its total-variation line
  ``Delta / sqrt(4 pi / N) <= 1/sqrt(4 pi N)`` both require ``sigma^2 = 2/N``. The convention
  is the parameter ``variance_numerator`` (``v``).
* Start phase ``N_G = min{ 1/(4 pi delta^2), (c/eps^2) ln(e/(4 pi delta^2)) }`` with
  ``c = 1``. First branch: ``TV(N(mu, 2/N), N(mu + 1/N, 2/N)) <= 1/sqrt(4 pi N) <= delta``.
  Second branch: the proof cuts the tail at ``x* = mu - sqrt((4/N) ln(1/(4 pi delta^2 N)))``
  and bounds the log-ratio right of it by ``sqrt((1/N) ln(e/(4 pi delta^2 N)))``; requiring
  that to be ``<= eps`` gives ``N >= ln(e/(4 pi delta^2))/eps^2``, i.e. ``c = 1``. The OCR
  shows a glyph that might be ``4``; ``c`` is the parameter ``branch_constant``.
  The algorithm's loop "while N_i < N_G" pulls each arm ``ceil(N_G)`` times.

Exact check
-----------
One changed Bernoulli observation moves the centre by exactly ``1/N`` and leaves the variance
unchanged, so the pair is a Gaussian shift with ``mu = (1/N)/sqrt(v/N) = 1/sqrt(v N)`` and
the exact ``delta(eps)`` is Balle & Wang's formula
(:func:`dpaudit.exact.divergence.gaussian_hockey_stick`).
The likelihood ratio is monotone, so the optimal events are half-lines: Lemma 8 holds at
``(eps, delta)`` iff this exact ``delta(eps) <= delta``. ``delta(eps)`` decreases in ``N``,
so the smallest sufficient count is found by a bracketing root finder on ``log N``.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.exact.conditions import CdfPair
from dpaudit.exact.divergence import gaussian_hockey_stick
from dpaudit.exact.loss import Bounded, smallest_passing
from dpaudit.validation import InvalidParameterError, check_epsilon_delta, check_int, check_real

__all__ = ["GaussPerturbation", "gauss_cdf_pair", "gauss_exact_delta", "gauss_smallest_count",
           "gauss_start_phase"]


def gauss_start_phase(epsilon: float, delta: float, *, branch_constant: float = 1.0) -> float:
    """The paper's ``N_G = min{1/(4 pi delta^2), (c/eps^2) ln(e/(4 pi delta^2))}`` (real)."""
    eps, dl = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
    if dl == 0.0:
        raise InvalidParameterError("delta=0.0 must be positive: DP-FTPL-Gauss has no "
                                    "(eps, 0) guarantee (its start phase is infinite)")
    c = check_real("branch_constant", branch_constant, low=0.0, low_open=True)
    # log space: delta^2 underflows to 0 below delta ~ 1e-154 (first is then +inf) and
    # ln(e / (4 pi delta^2)) = 1 - ln(4 pi) - 2 ln(delta) stays finite
    log_first = -math.log(4.0 * math.pi) - 2.0 * math.log(dl)
    first = math.exp(log_first) if log_first < 700.0 else math.inf
    if eps == 0.0:
        return first
    second = c / eps / eps * (1.0 - math.log(4.0 * math.pi) - 2.0 * math.log(dl))
    return min(first, second) if second > 0 else first


def gauss_exact_delta(epsilon: float, n: int, *, variance_numerator: float = 2.0) -> Bounded:
    """Exact ``delta(eps)`` between ``N(mu, v/N)`` and ``N(mu + 1/N, v/N)``, with its error."""
    n = check_int("n", n, low=1)
    return _delta_at_count(epsilon, float(n), variance_numerator)


def _delta_at_count(epsilon: float, n: float, variance_numerator: float) -> Bounded:
    """The same for a real count ``n`` (the curve the integer search brackets)."""
    v = check_real("variance_numerator", variance_numerator, low=0.0, low_open=True)
    return gaussian_hockey_stick(epsilon, 1.0 / n, math.sqrt(v / n))


def gauss_smallest_count(epsilon: float, delta: float, *, variance_numerator: float = 2.0,
                         n_max: int = 10**12) -> int:
    """Smallest integer ``N`` with ``gauss_exact_delta(eps, N) <= delta``.

    ``delta(eps)`` at a real count ``N`` is ``delta(eps)`` of a Gaussian shift
    ``mu = 1/sqrt(v N)``, decreasing in ``N``; its crossing is bracketed by scipy's root
    finder on ``log N`` (:func:`dpaudit.exact.loss.smallest_passing`) and the integers at the
    bracket's ends decide. "Meets" compares the computed value itself with ``delta``.
    """
    eps, dl = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)

    def fails(log_n: float) -> bool:
        return bool(_delta_at_count(eps, math.exp(log_n), variance_numerator).value > dl)

    if not fails(0.0):
        return 1
    top = math.log(n_max)
    if fails(top):
        raise InvalidParameterError(f"no count below n_max={n_max} meets ({eps}, {dl})")
    root = smallest_passing(fails, 0.0, top, xtol=1e-9)
    n = max(1, math.floor(math.exp(root.value - root.error)))
    while gauss_exact_delta(eps, n, variance_numerator=variance_numerator).value > dl:
        n += 1
    while n > 1 and gauss_exact_delta(eps, n - 1,
                                      variance_numerator=variance_numerator).value <= dl:
        n -= 1
    return n


def gauss_cdf_pair(n: int, *, successes: int = 0, variance_numerator: float = 2.0) -> CdfPair:
    """``F`` = CDF of ``N(R/N, v/N)`` and ``F'`` with one reward raised (``R + 1``).

    Density bound: the Gaussian peak ``1/(sigma sqrt(2 pi))``.
    """
    n = check_int("n", n, low=1)
    r = check_int("successes", successes, low=0, high=n - 1)
    v = sp.nsimplify(check_real("variance_numerator", variance_numerator, low=0.0,
                                low_open=True))
    x = sp.Symbol("x", real=True)
    sigma = sp.sqrt(v / n)
    mu, mu2 = sp.Rational(r, n), sp.Rational(r + 1, n)
    cdf = (1 + sp.erf((x - mu) / (sigma * sp.sqrt(2)))) / 2
    nb = (1 + sp.erf((x - mu2) / (sigma * sp.sqrt(2)))) / 2
    s = float(sigma)
    return CdfPair(
        name=f"DP-FTPL-Gauss N={n}, R={r}", x=x, cdf=cdf, neighbour=nb,
        density_bound=1.0 / (s * math.sqrt(2 * math.pi)),
        window=(r / n - 12 * s, (r + 1) / n + 12 * s),
        description=f"theta ~ N(R/N, {variance_numerator:g}/N); neighbour R -> R + 1",
    )


class GaussPerturbation:
    """Sampler and law of DP-FTPL-Gauss's ``theta ~ N(R/N, v/N)`` (Wang & Zhu 2023, Alg. 1).

    Parameters
    ----------
    epsilon, delta:
        The privacy target; they set the start phase ``N_G`` (:func:`gauss_start_phase`).
    variance_numerator:
        ``v`` in ``sigma^2 = v/N``; the paper's value is 2 (see the module docstring).
    branch_constant:
        ``c`` of the start phase's second branch; reconstructed as 1.
    """

    def __init__(self, epsilon: float, delta: float, *, variance_numerator: float = 2.0,
                 branch_constant: float = 1.0) -> None:
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
        self.variance_numerator = check_real("variance_numerator", variance_numerator,
                                             low=0.0, low_open=True)
        self.branch_constant = check_real("branch_constant", branch_constant, low=0.0,
                                          low_open=True)
        self.start_phase = math.ceil(gauss_start_phase(self.epsilon, self.delta,
                                                       branch_constant=self.branch_constant))

    def sample(self, successes: np.ndarray, counts: np.ndarray, *,
               rng: np.random.Generator) -> np.ndarray:
        """``theta`` for every entry of (broadcast) ``successes, counts``; counts >= 1."""
        r, n = np.broadcast_arrays(np.asarray(successes, float), np.asarray(counts, float))
        if np.any(n < 1) or np.any(r < 0) or np.any(r > n):
            raise InvalidParameterError("need counts >= 1 and 0 <= successes <= counts")
        return r / n + np.sqrt(self.variance_numerator / n) * rng.standard_normal(n.shape)

    def exact_delta(self, n: int) -> Bounded:
        return gauss_exact_delta(self.epsilon, n, variance_numerator=self.variance_numerator)

    def smallest_count(self) -> int:
        return gauss_smallest_count(self.epsilon, self.delta,
                                    variance_numerator=self.variance_numerator)

    def __repr__(self) -> str:
        return (f"GaussPerturbation(epsilon={self.epsilon}, delta={self.delta}, "
                f"variance_numerator={self.variance_numerator})")
