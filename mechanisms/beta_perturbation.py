"""DP-FTPL-Beta perturbation of Wang & Zhu (Wang & Zhu 2023, Algorithm 2, Theorem 13, Figure 2).

Arm ``i`` draws ``theta_i ~ Beta(a_i + k_i, b_i + k_i)`` with ``a_i = R_i + 1``,
``b_i = N_i - R_i + 1`` and the padding ``k_i = floor(N_i/8) + 1`` (readable in the seed).
The padding guarantees ``(a + k)(b + k) >= 0.09 (a + b + 2k)^2`` (Thm 13's proof).

Start phase (OCR-damaged; REFERENCE 4.5 [recon])::

    N_B = max{ min{ 40e/(9 pi delta^2), (8000/(81 eps^2)) ln(e/(2 pi delta^2)) }, C }

Derivation of the two branches from the proof: ``sqrt(e (a+b)/(2 pi a b)) <= delta`` with
``ab >= 0.09 (a+b)^2`` and ``a + b ~ 1.25 N`` gives ``40e/(9 pi delta^2)``; the log-ratio
branch needs ``(a+b) >= ln(e/(2 pi delta^2))/(0.09^2 * 1.25 eps^2)``, and
``1/(0.09^2 * 1.25) = 8000/81``. The floor ``C`` is unreadable (fragment "1000e ... 9 pi");
we take ``C = 1000 e/(9 pi)`` (about 96) as the parameter ``floor``; at the paper's settings
the ``min`` term (about 827 at (1, 0.01)) exceeds it, so the choice does not matter there.

Exact check: one flipped reward turns ``Beta(A, B + 1)`` into ``Beta(A + 1, B)`` (same ``N``,
so the same ``k``); the likelihood ratio is monotone, so Lemma 8 at ``(eps, delta)`` holds iff
:func:`dpaudit.exact.divergence.beta_hockey_stick` ``<= delta``. :func:`beta_worst_delta` scans
every
reachable ``R`` for each ``N``.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy import special, stats

from dpaudit.exact.conditions import CdfPair
from dpaudit.exact.divergence import beta_hockey_stick
from dpaudit.exact.loss import Bounded
from dpaudit.validation import (
    EPSILON_MAX,
    InvalidParameterError,
    check_epsilon_delta,
    check_int,
    check_real,
)

__all__ = ["BetaPerturbation", "beta_cdf_pair", "beta_parameters", "beta_start_phase",
           "beta_worst_delta"]

DEFAULT_FLOOR = 1000.0 * math.e / (9.0 * math.pi)


def beta_start_phase(epsilon: float, delta: float, *, floor: float = DEFAULT_FLOOR) -> float:
    """The paper's ``N_B`` (real valued; the algorithm pulls each arm ``ceil(N_B)`` times)."""
    eps, dl = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
    if dl == 0.0:
        raise InvalidParameterError("delta=0.0 must be positive for DP-FTPL-Beta")
    c = check_real("floor", floor, low=0.0)
    # log space: delta^2 underflows to 0 below delta ~ 1e-154 (first is then +inf, which min
    # discards) and log(e / (2 pi delta^2)) = 1 - log(2 pi) - 2 log(delta) stays finite
    log_first = math.log(40.0 * math.e / (9.0 * math.pi)) - 2.0 * math.log(dl)
    first = math.exp(log_first) if log_first < EPSILON_MAX else math.inf
    if eps == 0.0:
        return max(first, c)
    second = 8000.0 / 81.0 / eps / eps * (1.0 - math.log(2.0 * math.pi) - 2.0 * math.log(dl))
    return max(min(first, second), c)


def beta_parameters(n: np.ndarray | int, r: np.ndarray | int, *, padding: bool = True
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``(a + k, b + k)`` for counts ``n`` and successes ``r`` (``k = 0`` without padding)."""
    n = np.asarray(n, dtype=float)
    r = np.asarray(r, dtype=float)
    k = np.floor(n / 8.0) + 1.0 if padding else 0.0
    return r + 1.0 + k, n - r + 1.0 + k


def beta_worst_delta(epsilon: float, n: int, *, padding: bool = True) -> tuple[Bounded, int]:
    """``max_R`` exact divergence between ``R`` and ``R + 1`` successes out of ``n``.

    Returns ``(delta with its error bound, R)`` at the worst ``R`` in ``0..n-1`` (the error
    is the largest over all ``R``, so it also covers a wrong choice of the worst ``R``). In the
    notation of Thm 13's proof ``Beta(A, B + 1)`` vs ``Beta(A + 1, B)`` with
    ``A = R + 1 + k``, ``B = n - R + k``.
    """
    n = check_int("n", n, low=1)
    r = np.arange(n)
    a, b1 = beta_parameters(n, r, padding=padding)  # Beta(A, B + 1) with B + 1 = b1
    d = beta_hockey_stick(epsilon, a, b1 - 1.0)
    values = np.asarray(d.value)
    i = int(np.argmax(values))
    return Bounded(float(values[i]), float(np.max(d.error)), d.how), int(r[i])


def beta_cdf_pair(n: int, *, successes: int = 0, padding: bool = True) -> CdfPair:
    """``F`` = CDF with ``R`` successes, ``F'`` with ``R + 1`` (Wang & Zhu 2023 Fig. 2 uses ``R =
    0``).

    Density bound: each Beta density here has both parameters >= 1, so its maximum is at the
    mode ``(p - 1)/(p + q - 2)`` (or at an end point), evaluated exactly with scipy.
    """
    n = check_int("n", n, low=1)
    r = check_int("successes", successes, low=0, high=n - 1)
    x = sp.Symbol("x", real=True)
    (p, q), (p2, q2) = (beta_parameters(n, r, padding=padding),
                        beta_parameters(n, r + 1, padding=padding))
    bound = max(_beta_peak(float(p), float(q)), _beta_peak(float(p2), float(q2)))
    cdf = sp.betainc_regularized(sp.Integer(int(p)), sp.Integer(int(q)), 0, x)
    nb = sp.betainc_regularized(sp.Integer(int(p2)), sp.Integer(int(q2)), 0, x)
    return CdfPair(
        name=f"DP-FTPL-Beta N={n}, R={r}" + ("" if padding else " (no padding)"),
        x=x, cdf=cdf, neighbour=nb, density_bound=bound, window=(0.0, 1.0),
        high_precision=False,
        description=f"Beta({int(p)}, {int(q)}) vs Beta({int(p2)}, {int(q2)})",
        numeric=(lambda v: special.betainc(p, q, v), lambda v: special.betainc(p2, q2, v),
                 lambda v: stats.beta.pdf(v, p, q), lambda v: stats.beta.pdf(v, p2, q2)),
    )


def _beta_peak(p: float, q: float) -> float:
    if p == 1.0 and q == 1.0:
        return 1.0
    mode = (p - 1.0) / (p + q - 2.0)
    return float(math.exp((p - 1) * _xlog(mode) + (q - 1) * _xlog(1 - mode)
                          - special.betaln(p, q)))


def _xlog(v: float) -> float:
    return 0.0 if v == 0.0 else math.log(v)


class BetaPerturbation:
    """Sampler of DP-FTPL-Beta's ``theta ~ Beta(a + k, b + k)`` (Wang & Zhu 2023, Alg. 2).

    ``padding=False`` drops ``k`` (the plain Thompson-sampling posterior; Fig. 2 d-f shows it
    is never private). ``floor`` is the reconstructed constant ``C`` of ``N_B``.
    """

    def __init__(self, epsilon: float, delta: float, *, padding: bool = True,
                 floor: float = DEFAULT_FLOOR) -> None:
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
        self.padding = bool(padding)
        self.start_phase = math.ceil(beta_start_phase(self.epsilon, self.delta, floor=floor))

    def sample(self, successes: np.ndarray, counts: np.ndarray, *,
               rng: np.random.Generator) -> np.ndarray:
        r, n = np.broadcast_arrays(np.asarray(successes, float), np.asarray(counts, float))
        if np.any(n < 0) or np.any(r < 0) or np.any(r > n):
            raise InvalidParameterError("need counts >= 0 and 0 <= successes <= counts")
        a, b = beta_parameters(n, r, padding=self.padding)
        return rng.beta(a, b)

    def __repr__(self) -> str:
        return (f"BetaPerturbation(epsilon={self.epsilon}, delta={self.delta}, "
                f"padding={self.padding})")
