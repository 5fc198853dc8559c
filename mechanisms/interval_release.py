"""Lazy interval release of an arm's mean: DP-UCB-Int's mechanism (Tossou & Dimitrakakis 2016).

Reconstruction (the extracted text lost every formula; REFERENCE 4.3; checked by the tests):

* **Schedule** (Alg. 3; two public re-implementations agree): with input privacy rate ``eps``
  the interval is ``f = ceil(1/eps)``; an arm's mean is released when its pull count ``n`` is
  a multiple of ``f`` (the paper: "for simplicity we take the interval to be f"; its better
  series of Lemma B.1 was not recovered).
* **Lemma 3.1**: the release at count ``n`` adds ``Lap(n^(v/2 - 1))`` to the mean, whose
  sensitivity is ``1/n`` (rewards in [0, 1]); so it is ``n^(-v/2)``-DP (Fact B.1), and the
  ``k``-th release is ``eps_k = (k f)^(-v/2)``-DP. The noise does not depend on ``eps``.
* **Theorem 3.4** (heterogeneous advanced composition, Dwork, Rothblum & Vadhan 2010,
  Thm III.3, as the proof sketch says): one changed reward enters every later release of its
  arm (each release averages all the arm's rewards), and the actions are post-processing, so
  the algorithm is ``(eps', delta')``-DP with
  ``eps' = sqrt(2 ln(1/delta') sum_k eps_k^2) + sum_k eps_k (e^eps_k - 1)``.
* **Corollary 3.1** (integral test / p-series): ``sum_k (k f)^(-v) = f^(-v) zeta(v) <=
  eps^v zeta(v)`` (``f >= 1/eps``), and ``e^x - 1 <= c x`` for ``x <= 1`` (``c = e - 1`` is the
  tightest constant valid for all releases; ``c = 2`` is the round one), so
  ``eps' <= sqrt(2 zeta(v) eps^v ln(1/delta')) + c zeta(v) eps^v``.
* **Corollary 3.2**: the inverse. With ``x = sqrt(zeta(v) eps^v)`` the bound is
  ``c x^2 + sqrt(2 L) x`` (``L = ln(1/delta')``), so ``x = (sqrt(2L + 4 c eps') -
  sqrt(2L)) / (2c)`` and ``eps = (x^2 / zeta(v))^(1/v)``.

Going past the paper, :func:`pld_delta` and :func:`pld_epsilon` account the same releases with
dp-accounting's privacy-loss-distribution accountant (a composition of Laplace mechanisms
with noise multipliers ``n^(v/2)``; the pessimistic estimate is an upper bound, the
optimistic one a lower bound, so the pair brackets the exact value).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
from scipy import special

from dpaudit.validation import (
    InvalidParameterError,
    check_delta,
    check_epsilon,
    check_int,
    check_real,
)

__all__ = ["corollary_3_1", "corollary_3_2", "laplace_rdp", "pld_bracket", "pld_bracket_binned",
           "pld_delta", "pld_epsilon", "pld_lower", "rdp_epsilon_upper", "release_bins",
           "release_counts", "release_interval", "release_scale", "theorem_3_4"]

#: the tightest ``c`` with ``e^x - 1 <= c x`` on ``(0, 1]``
C_TIGHT = math.e - 1.0


def check_v(v: object) -> float:
    """The exponent ``v`` of DP-UCB-Int: ``1 < v < 2`` (summable squares, decreasing noise)."""
    return check_real("v", v, low=1.0, high=2.0, low_open=True, high_open=True)


def release_interval(input_epsilon: float) -> int:
    """``f = ceil(1/eps)`` (Alg. 3)."""
    eps = check_epsilon(input_epsilon, name="input_epsilon")
    return max(1, math.ceil(1.0 / eps - 1e-12))


def release_scale(n: np.ndarray, v: float) -> np.ndarray:
    """Laplace scale ``n^(v/2 - 1)`` of the release at pull count ``n`` (Lemma 3.1)."""
    return np.power(np.asarray(n, dtype=float), v / 2.0 - 1.0)


def release_counts(input_epsilon: float, pulls: int, *, every: int | None = None) -> np.ndarray:
    """Pull counts ``f, 2f, ..`` (at most ``pulls``) at which one arm releases its mean.

    ``every`` overrides the interval (the deliberately broken variant releases at every pull).
    """
    f = release_interval(input_epsilon) if every is None else check_int("every", every, low=1)
    return np.arange(f, check_int("pulls", pulls, low=1) + 1, f, dtype=np.int64)


def _eps_k(input_epsilon: float, v: float, pulls: int | None, every: int | None):
    if pulls is not None:
        return release_counts(input_epsilon, pulls, every=every).astype(float) ** (-v / 2.0)
    return None


def theorem_3_4(input_epsilon: float, delta_prime: float, *, v: float = 1.1,
                pulls: int | None = None, every: int | None = None) -> float:
    """``eps'`` of Theorem 3.4 for the releases of one arm up to ``pulls`` (``None``: all)."""
    v = check_v(v)
    lg = math.log(1.0 / check_delta(delta_prime, name="delta_prime")) if delta_prime > 0 \
        else math.inf
    eps_k = _eps_k(input_epsilon, v, pulls, every)
    if eps_k is not None:
        return math.sqrt(2.0 * lg * float(np.sum(eps_k**2))) + float(np.sum(eps_k * np.expm1(
            eps_k)))
    f = release_interval(input_epsilon) if every is None else every
    squares = float(f ** (-v) * mp.zeta(v))
    linear = float(mp.nsum(lambda k: (k * f) ** (-v / 2) * mp.expm1((k * f) ** (-v / 2)),
                           [1, mp.inf]))
    return math.sqrt(2.0 * lg * squares) + linear


def corollary_3_1(input_epsilon: float, delta_prime: float, *, v: float = 1.1,
                  c: float = C_TIGHT) -> float:
    """``sqrt(2 zeta(v) eps^v ln(1/delta')) + c zeta(v) eps^v`` (module docstring)."""
    eps = check_epsilon(input_epsilon, name="input_epsilon")
    v = check_v(v)
    dp = check_delta(delta_prime, name="delta_prime")
    if dp == 0.0:
        raise InvalidParameterError("delta_prime=0.0 must be a finite number in (0, 1)")
    z = float(special.zeta(v))
    return math.sqrt(2.0 * z * eps**v * math.log(1.0 / dp)) + c * z * eps**v


def corollary_3_2(target_epsilon: float, delta_prime: float, *, v: float = 1.1,
                  c: float = C_TIGHT) -> float:
    """The input ``eps`` whose Corollary 3.1 bound equals ``target_epsilon`` (module docstring).

    Computed in the cancellation-free form ``x = 2 eps' / (sqrt(2L + 4 c eps') + sqrt(2L))``.
    """
    target = check_epsilon(target_epsilon, name="target_epsilon")
    v = check_v(v)
    dp = check_delta(delta_prime, name="delta_prime")
    if dp == 0.0:
        raise InvalidParameterError("delta_prime=0.0 must be a finite number in (0, 1)")
    c = check_real("c", c, low=0.0, low_open=True)
    lg = math.log(1.0 / dp)
    x = 2.0 * target / (math.sqrt(2.0 * lg + 4.0 * c * target) + math.sqrt(2.0 * lg))
    return (x * x / float(special.zeta(v))) ** (1.0 / v)


def _pld(input_epsilon: float, v: float, pulls: int, every: int | None, pessimistic: bool,
         interval: float):
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    counts = release_counts(input_epsilon, pulls, every=every)
    if counts.size == 0:
        return None
    total = None
    for n in counts:
        # noise multiplier = scale / sensitivity = n^(v/2 - 1) / (1/n) = n^(v/2)
        one = pldlib.from_laplace_mechanism(float(n) ** (v / 2.0), sensitivity=1.0,
                                            pessimistic_estimate=pessimistic,
                                            value_discretization_interval=interval,
                                            use_connect_dots=pessimistic)
        total = one if total is None else total.compose(one)
    return total


def pld_bracket(input_epsilon: float, *, v: float = 1.1, pulls: int, every: int | None = None,
                interval: float = 1e-4):
    """``(optimistic, pessimistic)`` PLDs of one arm's releases up to ``pulls`` (``None`` if
    there is no release): their ``get_delta_for_epsilon`` bracket the exact ``delta``."""
    v = check_v(v)
    return (_pld(input_epsilon, v, pulls, every, False, interval),
            _pld(input_epsilon, v, pulls, every, True, interval))


def pld_lower(input_epsilon: float, *, v: float = 1.1, pulls: int, every: int | None = None,
              interval: float = 1e-4):
    """The optimistic PLD alone (its ``delta`` is a lower bound); ``None`` if no release."""
    return _pld(input_epsilon, check_v(v), pulls, every, False, interval)


def pld_delta(input_epsilon: float, epsilon: float, *, v: float = 1.1, pulls: int,
              every: int | None = None, interval: float = 1e-4) -> tuple[float, float]:
    """``(lower, upper)`` bounds on the exact ``delta(epsilon)`` of one arm's releases.

    Worst case: the changed reward is among the first ``f`` of an arm that gets all ``pulls``
    pulls, so it enters every release (sensitivity ``1/n`` each).
    """
    v = check_v(v)
    check_epsilon(epsilon, allow_zero=True)
    lo = _pld(input_epsilon, v, pulls, every, False, interval)
    if lo is None:
        return 0.0, 0.0
    hi = _pld(input_epsilon, v, pulls, every, True, interval)
    return float(lo.get_delta_for_epsilon(epsilon)), float(hi.get_delta_for_epsilon(epsilon))


def pld_epsilon(input_epsilon: float, delta: float, *, v: float = 1.1, pulls: int,
                every: int | None = None, interval: float = 1e-4) -> tuple[float, float]:
    """``(lower, upper)`` bounds on the smallest ``epsilon`` with ``delta(epsilon) <= delta``."""
    v = check_v(v)
    check_delta(delta)
    lo = _pld(input_epsilon, v, pulls, every, False, interval)
    if lo is None:
        return 0.0, 0.0
    hi = _pld(input_epsilon, v, pulls, every, True, interval)
    return float(lo.get_epsilon_for_delta(delta)), float(hi.get_epsilon_for_delta(delta))


# -- long horizons: binned PLD brackets and the T -> infinity limit ---------------------------
def release_bins(n_releases: int, *, head: int = 32, ratio: float = 1.05
                 ) -> list[tuple[int, int]]:
    """Consecutive release-index bins ``(first, last)`` covering ``1..n_releases``.

    The first ``head`` releases get a bin each; later bins grow geometrically by ``ratio``, so
    ``10^6`` releases need a few hundred bins.
    """
    n = check_int("n_releases", n_releases, low=1)
    head = check_int("head", head, low=1)
    ratio = check_real("ratio", ratio, low=1.0, low_open=True)
    bins, last = [], 0
    while last < n:
        nxt = last + 1 if last < head else min(n, max(last + 1, math.ceil(last * ratio)))
        bins.append((last + 1, nxt))
        last = nxt
    return bins


def pld_bracket_binned(input_epsilon: float, *, v: float = 1.1, pulls: int,
                       interval: float = 1e-6, head: int = 32, ratio: float = 1.05):
    """``(optimistic, pessimistic)`` PLDs of one arm's releases up to ``pulls``, for horizons
    where one PLD per release is too slow (``None`` if there is no release).

    Within a bin of releases ``k = a..b`` the noise multipliers ``(k f)^(v/2)`` grow with
    ``k``. The Laplace mechanism's trade-off function is increasing in its noise multiplier,
    so (Blackwell) a release with a larger multiplier is a post-processing of one with a
    smaller multiplier, and composition preserves that order (Dong, Roth & Su 2019, f-DP,
    Lemma 3). So the bin's ``b - a + 1`` releases are bracketed by as many copies of the
    release with the *smallest* multiplier (``k = a``, pessimistic estimate: an upper bound on
    ``delta(eps)``) and of the one with the *largest* (``k = b``, optimistic estimate: a lower
    bound), each composed in one ``self_compose``. The bracket's width is the binning's price
    (a factor ``ratio^(v/2)`` in the multiplier) plus the discretisation.
    """
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    v = check_v(v)
    f = release_interval(input_epsilon)
    n_rel = check_int("pulls", pulls, low=1) // f
    if n_rel == 0:
        return None
    lo = hi = None
    for a, b in release_bins(n_rel, head=head, ratio=ratio):
        count = b - a + 1
        upper = pldlib.from_laplace_mechanism(float(a * f) ** (v / 2.0), sensitivity=1.0,
                                              pessimistic_estimate=True,
                                              value_discretization_interval=interval)
        lower = pldlib.from_laplace_mechanism(float(b * f) ** (v / 2.0), sensitivity=1.0,
                                              pessimistic_estimate=False,
                                              value_discretization_interval=interval,
                                              use_connect_dots=False)
        if count > 1:
            upper, lower = upper.self_compose(count), lower.self_compose(count)
        hi = upper if hi is None else hi.compose(upper)
        lo = lower if lo is None else lo.compose(lower)
    return lo, hi


#: Renyi orders for the T -> infinity bound (dp-accounting's defaults plus finer low orders)
RDP_ORDERS = tuple(sorted({1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0,
                           16.0, 20.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0, 256.0, 512.0,
                           1024.0, 4096.0}))


def laplace_rdp(epsilon: np.ndarray, order: float) -> np.ndarray:
    """Renyi DP of the ``epsilon``-DP Laplace mechanism at ``order > 1`` (Mironov 2017, Prop. 6):
    ``eps + log(1 + (a - 1) (exp((1 - 2a) eps) - 1) / (2a - 1)) / (a - 1)``, vectorised."""
    e = np.asarray(epsilon, dtype=float)
    a = float(order)
    return e + np.log1p((a - 1.0) * np.expm1(e * (1.0 - 2.0 * a)) / (2.0 * a - 1.0)) / (a - 1.0)


def rdp_epsilon_upper(input_epsilon: float, delta: float, *, v: float = 1.1,
                      pulls: float = math.inf, exact_releases: int = 10**6) -> float:
    """An upper bound on the ``epsilon`` at ``delta`` of one arm's releases up to ``pulls``
    (``inf``: every release DP-UCB-Int ever makes), through Renyi DP.

    The first ``exact_releases`` releases (``eps_k = (k f)^(-v/2)``) enter with the Laplace
    mechanism's exact RDP (:func:`laplace_rdp`); the rest with the bound ``RDP <= a eps_k^2 /
    2`` of an ``eps_k``-DP mechanism (Bun & Steinke 2016, Prop. 3.3: pure DP implies zCDP),
    summed by the integral test: ``sum_{k > K} (k f)^(-v) <= f^(-v) K^(1 - v) / (v - 1)``.
    The total converts to ``(epsilon, delta)`` with dp-accounting's RDP conversion.
    """
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    v = check_v(v)
    f = release_interval(input_epsilon)
    d = check_delta(delta)
    if d == 0.0:
        raise InvalidParameterError("delta=0.0 must be a finite number in (0, 1)")
    n_rel = math.inf if pulls == math.inf else check_int("pulls", pulls, low=1) // f
    k_exact = int(min(n_rel, exact_releases))
    eps_k = (np.arange(1, k_exact + 1, dtype=float) * f) ** (-v / 2.0)
    tail = 0.0
    if n_rel > k_exact:
        tail = f ** (-v) * k_exact ** (1.0 - v) / (v - 1.0)
        if n_rel != math.inf:  # finite horizon: the integral test up to n_rel as well
            tail -= f ** (-v) * (n_rel + 1) ** (1.0 - v) / (v - 1.0)
    rdp_values = [float(np.sum(laplace_rdp(eps_k, a))) + a * max(tail, 0.0) / 2.0
                  for a in RDP_ORDERS]
    eps, _ = rdp.compute_epsilon(RDP_ORDERS, rdp_values, d)
    return float(eps)
