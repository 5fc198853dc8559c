"""The Lemma-15 perturbation of Wang & Zhu, used by DP-FTPL-New and GDP-Elim-New.

Reconstruction of the CDF (Wang & Zhu 2023, Lemma 15; the OCR of the display is damaged)
-------------------------------------------------------------------------------------
Readable in the OCR: the support half-width ``A_eps = log((e^eps - 1)/(2 delta) + 1) / (N eps)``,
the two limits (``delta -> 0``: ``F = 1/2 exp(N eps (x - x0))`` left of ``x0``, i.e. Laplace
with scale ``1/(N eps)``; ``eps -> 0``: ``F = 1/2 + N delta (x - x0)`` on
``|x - x0| <= 1/(2 N delta)``), the density's exponent ``N eps (x - x0)`` and the fragments
"``e^eps - 1``" and "``+ 1) exp(N eps (x - x0)) - 1``". With ``c = (e^eps - 1)/(2 delta) + 1``
and ``k = delta / (e^eps - 1)`` the only CDF that fits these fragments is::

    F(x) = 0                                        x <  x0 - A
    F(x) = k (c exp(N eps (x - x0)) - 1)            x0 - A <= x <= x0
    F(x) = 1 - k (c exp(N eps (x0 - x)) - 1)        x0 <= x <= x0 + A
    F(x) = 1                                        x >  x0 + A

Why this is right, each point checked by :func:`lemma15_proof` or the tests:

* continuity: ``c exp(-N eps A) = 1`` so ``F(x0 - A) = 0``; ``k (c - 1) = 1/2`` so both
  middle pieces give ``F(x0) = 1/2``; by symmetry ``F(x0 + A) = 1``;
* the density ``f(x) = (1/2 + k) N eps exp(-N eps |x - x0|)`` on ``|x - x0| <= A`` has
  log-slope ``N eps``, so a shift by ``|z| <= 1/N`` changes it by at most ``e^eps`` where both
  are positive (the paper's Eq. 12-14);
* the band ``[x0 - A, x0 - A + 1/N)`` where the shifted density vanishes carries mass
  ``k (e^eps - 1) = delta`` exactly (the paper's "``F_1 <= F(x0 - A_eps + 1/N) = delta``");
* Fact 4 evaluates ``F`` at ``x0 - log((T(e^eps-1)+2T delta)/(2(e^eps-1)+2T delta))/(N eps)``
  to exactly ``1/T``, which this form reproduces (test ``test_fact4_tail``);
* the limits: ``k c -> 1/2`` as ``delta -> 0`` gives the Laplace limit, and a first-order
  expansion in ``eps`` gives the uniform limit.

Sampling uses the inverse CDF in closed form (``log1p``/``expm1`` for accuracy at small eps
and delta)::

    u <= 1/2:  x = x0 + (log1p(u (e^eps - 1)/delta) - log1p((e^eps - 1)/(2 delta))) / (N eps)
    u >  1/2:  mirror image in x0.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.exact.symbolic import Domain, Obligation
from dpaudit.validation import InvalidParameterError, check_epsilon_delta

__all__ = ["Lemma15Perturbation", "lemma15_half_width", "lemma15_sympy"]


def lemma15_half_width(epsilon: float, delta: float, n: np.ndarray | float) -> np.ndarray:
    """``A = log((e^eps - 1)/(2 delta) + 1)/(N eps)``.

    ``1/(2 N delta)`` at eps = 0; ``inf`` at delta = 0 (the Laplace limit).
    """
    n = np.asarray(n, dtype=float)
    if delta == 0.0:
        return np.full_like(n, np.inf)
    if epsilon == 0.0:
        return 1.0 / (2.0 * n * delta)
    return np.log1p(math.expm1(epsilon) / (2.0 * delta)) / (n * epsilon)


class Lemma15Perturbation:
    """Wang & Zhu 2023, Lemma 15: a truncated-Laplace-like law centred at ``x0`` with rate ``N
    eps``.

    Parameters
    ----------
    epsilon, delta:
        The privacy parameters; ``epsilon >= 0``, ``0 <= delta < 1``, not both zero.
        ``delta = 0`` gives Laplace(x0, 1/(N eps)); ``epsilon = 0`` gives the uniform law of
        half-width ``1/(2 N delta)`` (the paper's two limits).
    rate_multiplier:
        Multiplies the decay rate ``N eps`` (and shrinks the support to match, as if ``N``
        were ``rate_multiplier * N``). The paper's value is 1; the deliberately broken
        variant in :mod:`dpaudit.mechanisms._twins` uses 2.

    All methods are vectorised over ``x0`` and ``n`` (broadcast together).
    """

    def __init__(self, epsilon: float, delta: float, *, rate_multiplier: float = 1.0) -> None:
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
        if not (isinstance(rate_multiplier, int | float) and rate_multiplier > 0
                and math.isfinite(rate_multiplier)):
            raise InvalidParameterError(
                f"rate_multiplier={rate_multiplier!r} must be a finite number in (0, inf)")
        self.rate_multiplier = float(rate_multiplier)

    # -- helpers ------------------------------------------------------------------------
    def _n(self, n: np.ndarray | float) -> np.ndarray:
        n = np.asarray(n, dtype=float)
        if np.any(~np.isfinite(n)) or np.any(n <= 0):
            raise InvalidParameterError(f"n={n!r} must be positive finite counts")
        return n * self.rate_multiplier

    def half_width(self, n: np.ndarray | float) -> np.ndarray:
        """Half-width ``A`` of the support (``inf`` for the Laplace limit)."""
        return lemma15_half_width(self.epsilon, self.delta, self._n(n))

    # -- law ----------------------------------------------------------------------------
    def cdf(self, x: np.ndarray | float, x0: np.ndarray | float,
            n: np.ndarray | float) -> np.ndarray:
        """``F(x)`` of Lemma 15 (see the module docstring for the reconstruction)."""
        x, x0, nn = np.broadcast_arrays(np.asarray(x, float), np.asarray(x0, float), self._n(n))
        d = np.abs(x - x0)
        eps, dl = self.epsilon, self.delta
        if eps == 0.0:
            tail = np.clip(0.5 - nn * dl * d, 0.0, 0.5)
        elif dl == 0.0:
            tail = 0.5 * np.exp(-nn * eps * d)
        else:
            a = math.expm1(eps)
            # k (c e^{-N eps d} - 1) = (1/2 + k) e^{-N eps d} - k, clipped at the support edge
            k = dl / a
            tail = np.clip((0.5 + k) * np.exp(-nn * eps * d) - k, 0.0, 0.5)
        return np.where(x <= x0, tail, 1.0 - tail)

    def pdf(self, x: np.ndarray | float, x0: np.ndarray | float,
            n: np.ndarray | float) -> np.ndarray:
        """Density: ``(1/2 + k) N eps exp(-N eps |x - x0|)`` on ``|x - x0| <= A``, else 0."""
        x, x0, nn = np.broadcast_arrays(np.asarray(x, float), np.asarray(x0, float), self._n(n))
        d = np.abs(x - x0)
        eps, dl = self.epsilon, self.delta
        half = lemma15_half_width(eps, dl, nn)
        if eps == 0.0:
            dens = nn * dl * np.ones_like(d)
        elif dl == 0.0:
            dens = 0.5 * nn * eps * np.exp(-nn * eps * d)
        else:
            dens = (0.5 + dl / math.expm1(eps)) * nn * eps * np.exp(-nn * eps * d)
        return np.where(d <= half, dens, 0.0)

    def ppf(self, u: np.ndarray | float, x0: np.ndarray | float,
            n: np.ndarray | float) -> np.ndarray:
        """Inverse CDF for ``u`` in ``(0, 1)``."""
        u, x0, nn = np.broadcast_arrays(np.asarray(u, float), np.asarray(x0, float), self._n(n))
        s = np.minimum(u, 1.0 - u)  # tail mass on the near side
        eps, dl = self.epsilon, self.delta
        if eps == 0.0:
            dist = (0.5 - s) / (nn * dl)
        elif dl == 0.0:
            dist = -np.log(2.0 * s) / (nn * eps)
        else:
            a = math.expm1(eps)
            if math.log(a) - math.log(dl) < 700.0:
                dist = (math.log1p(a / (2.0 * dl)) - np.log1p(s * a / dl)) / (nn * eps)
            else:  # a / delta overflows float64 (eps near 709): the same in log space
                la = math.log(a) - math.log(dl)
                dist = (np.logaddexp(0.0, la - math.log(2.0))
                        - np.logaddexp(0.0, np.log(s) + la)) / (nn * eps)
        return np.where(u <= 0.5, x0 - dist, x0 + dist)

    def sample(
        self, x0: np.ndarray | float, n: np.ndarray | float, *, rng: np.random.Generator,
        size: tuple[int, ...] | int | None = None,
    ) -> np.ndarray:
        """Draw ``theta`` with centre ``x0`` and count ``n`` (broadcast with ``size``)."""
        shape = np.broadcast_shapes(np.shape(x0), np.shape(n)) if size is None else size
        u = rng.random(shape)
        # rng.random is in [0, 1); u = 0 would be an infinite Laplace draw: map it inside
        u = np.where(u == 0.0, np.finfo(float).tiny, u)
        return self.ppf(u, x0, n)

    def support(self, x0: np.ndarray | float,
                n: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
        a = self.half_width(n)
        return np.asarray(x0) - a, np.asarray(x0) + a

    def sympy_cdf(self) -> tuple[sp.Expr, dict[str, sp.Symbol]]:
        """The CDF as a sympy ``Piecewise`` in ``x`` with symbols ``x0, N`` and this eps, delta."""
        expr, syms = lemma15_sympy(rate_multiplier=self.rate_multiplier)
        return expr.subs({syms["epsilon"]: sp.nsimplify(self.epsilon),
                          syms["delta"]: sp.nsimplify(self.delta)}), syms

    def __repr__(self) -> str:
        extra = "" if self.rate_multiplier == 1.0 else f", rate_multiplier={self.rate_multiplier}"
        return f"Lemma15Perturbation(epsilon={self.epsilon}, delta={self.delta}{extra})"


def lemma15_sympy(*, rate_multiplier: float = 1.0) -> tuple[sp.Expr, dict[str, sp.Symbol]]:
    """Symbolic CDF of Lemma 15 (both eps and delta positive), with its symbols.

    Returns ``(F, symbols)`` with ``symbols`` holding ``x, x0, N, epsilon, delta``.
    """
    x, x0 = sp.symbols("x x0", real=True)
    n, eps, dl = sp.symbols("N epsilon delta", positive=True)
    rate = sp.nsimplify(rate_multiplier) * n * eps
    a = sp.exp(eps) - 1
    c = a / (2 * dl) + 1
    k = dl / a
    half = sp.log(c) / rate
    cdf = sp.Piecewise(
        (0, x < x0 - half),
        (k * (c * sp.exp(rate * (x - x0)) - 1), x <= x0),
        (1 - k * (c * sp.exp(rate * (x0 - x)) - 1), x <= x0 + half),
        (1, True),
    )
    return cdf, {"x": x, "x0": x0, "N": n, "epsilon": eps, "delta": dl}


def _regime_pieces(regime: str, rate_multiplier: float):
    """Left/right CDF pieces, half-width and symbols for one regime of Lemma 15."""
    x, x0 = sp.symbols("x x0", real=True)
    n, eps, dl = sp.symbols("N epsilon delta", positive=True)
    m = sp.nsimplify(rate_multiplier)
    if regime == "general":
        cdf, syms = lemma15_sympy(rate_multiplier=rate_multiplier)
        (_, _), (left, _), (right, _), (_, _) = cdf.args
        x, x0, n, eps, dl = (syms[k] for k in ("x", "x0", "N", "epsilon", "delta"))
        half = sp.log((sp.exp(eps) - 1) / (2 * dl) + 1) / (m * n * eps)
        return left, right, half, (x, x0, n, eps, dl), eps
    if regime == "laplace":  # delta -> 0
        left = sp.exp(m * n * eps * (x - x0)) / 2
        right = 1 - sp.exp(m * n * eps * (x0 - x)) / 2
        return left, right, sp.oo, (x, x0, n, eps, dl), eps
    if regime == "uniform":  # eps -> 0
        left = sp.Rational(1, 2) + m * n * dl * (x - x0)
        return left, left, 1 / (2 * m * n * dl), (x, x0, n, eps, dl), sp.Integer(0)
    raise InvalidParameterError(f"regime={regime!r} must be one of 'general', 'laplace', "
                                "'uniform'")


def lemma15_proof_obligations(*, rate_multiplier: float = 1.0, regime: str = "general"):
    """The obligations that prove Lemma 15's conditions (10)-(11), hence Lemma 8 and Lemma 9.

    Preconditions: ``N > 0``, ``eps > 0``, ``0 < delta < 1`` (``regime="general"``), or the
    paper's limits ``delta = 0`` (``"laplace"``) and ``eps = 0`` (``"uniform"``); the
    neighbouring relation shifts the centre ``x0`` by ``z`` with ``|z| <= 1/N`` (one changed
    observation moves the empirical mean by at most ``1/N``; every other term of DP-FTPL-New's
    ``x0`` depends on ``N`` only).

    Claim: for every such shift, the hockey-stick divergence between the law ``P`` and its
    shift ``P_z`` is at most ``delta`` in both directions. Since every event of Lemma 8
    (``theta <= x`` or ``theta > x``) and Lemma 9 (``x < theta <= y`` or its complement) is an
    event, this implies (10), (11) and both lemmas' CDF conditions.

    Steps (each an obligation below):

    * ``F`` is a CDF: continuous at ``x0 - A``, ``x0``, ``x0 + A`` with values 0, 1/2, 1;
      its pieces' derivatives are the density pieces, which are positive; symmetric about x0.
    * ratio: on each piece ``log f`` is linear with slope ``+-s``; ``log f`` is continuous at
      ``x0``; so ``|log f(x) - log f(x + z)| <= s |z| <= s/N`` wherever both are positive,
      and ``s/N <= eps`` is the obligation ``ratio``.
    * band (bounded support only): where ``f(x) > 0 = f(x + z)`` (width ``|z|`` at one edge)
      the mass is ``F(x0 - A + |z|)``, increasing in ``|z|``, so its worst case is
      ``F(x0 - A + 1/N)``; evaluated with the left piece (band inside ``[x0 - A, x0]``) and
      with the right piece (band crossing ``x0``); both must be ``<= delta``. The supports
      must overlap: ``2A >= 1/N`` (stated with exponentials, free of logs, where possible).
    """
    left, right, half, (x, x0, n, eps, dl), eps_claim = _regime_pieces(regime, rate_multiplier)
    f_left, f_right = sp.diff(left, x), sp.diff(right, x)
    t = sp.Symbol("t", positive=True)
    shift = 1 / n
    bounded = half != sp.oo
    obligations = [
        Obligation("cdf_half_at_centre_left", left.subs(x, x0) - sp.Rational(1, 2), "==",
                   display="F(x0-) = 1/2"),
        Obligation("cdf_half_at_centre_right", right.subs(x, x0) - sp.Rational(1, 2), "==",
                   display="F(x0+) = 1/2"),
        Obligation("symmetry", left.subs(x, x0 - t) + right.subs(x, x0 + t) - 1, "==",
                   display="F(x0 - t) + F(x0 + t) = 1"),
        Obligation("density_positive_left", -f_left, "<",
                   display=f"f(x) = {sp.sstr(sp.simplify(f_left))} > 0 left of x0"),
        Obligation("density_positive_right", -f_right, "<",
                   display=f"f(x) = {sp.sstr(sp.simplify(f_right))} > 0 right of x0"),
        Obligation("log_density_continuous_at_centre",
                   sp.expand_log(sp.log(f_left.subs(x, x0)) - sp.log(f_right.subs(x, x0)),
                                 force=True), "==", display="log f(x0-) = log f(x0+)"),
        Obligation("ratio", sp.Abs(sp.simplify(sp.diff(sp.log(f_left), x))) * shift - eps_claim,
                   "<=", reason="|d/dx log f| * max|z| <= eps",
                   display="|d/dx log f| * (1/N) <= epsilon (left piece)"),
        Obligation("ratio_right",
                   sp.Abs(sp.simplify(sp.diff(sp.log(f_right), x))) * shift - eps_claim, "<=",
                   reason="|d/dx log f| * max|z| <= eps",
                   display="|d/dx log f| * (1/N) <= epsilon (right piece)"),
    ]
    if bounded:
        if regime == "general":
            s = sp.nsimplify(rate_multiplier) * n * eps
            overlap = sp.exp(s * shift) - sp.exp(2 * s * half)
            overlap_text = "exp(s/N) <= exp(2 s A)  (i.e. 1/N <= 2A)"
        else:
            overlap, overlap_text = shift - 2 * half, "1/N <= 2A"
        obligations += [
            Obligation("cdf_zero_at_left_edge", left.subs(x, x0 - half), "==",
                       display="F(x0 - A) = 0"),
            Obligation("cdf_one_at_right_edge", right.subs(x, x0 + half) - 1, "==",
                       display="F(x0 + A) = 1"),
            Obligation("supports_overlap", overlap, "<=", display=overlap_text),
            Obligation("band_mass_left_piece", left.subs(x, x0 - half + shift) - dl, "<=",
                       display="F_left(x0 - A + 1/N) <= delta"),
            Obligation("band_mass_crossing_centre", right.subs(x, x0 - half + shift) - dl, "<=",
                       display="F_right(x0 - A + 1/N) <= delta  (band crossing x0)"),
        ]
    else:
        obligations += [
            Obligation("cdf_zero_at_minus_infinity", sp.limit(left, x, -sp.oo), "==",
                       display="F(-inf) = 0"),
            Obligation("cdf_one_at_plus_infinity", sp.limit(right, x, sp.oo) - 1, "==",
                       display="F(+inf) = 1"),
        ]
    domain = {
        n: Domain(0.0, math.inf, (1.0, 3.0), "count of the arm's observations"),
        eps: Domain(0.0, math.inf, (1.0, 0.1), "claimed per-step privacy loss"),
        dl: Domain(0.0, 1.0, (0.01, 0.5), "claimed failure probability"),
        x0: Domain(-math.inf, math.inf, (0.5,), "centre of the perturbation law (moves by "
                   "z, |z| <= 1/N, between neighbouring histories)"),
        x: Domain(-math.inf, math.inf, (0.4,), "a point of the real line (the argument of "
                  "F and f)"),
        t: Domain(0.0, math.inf, (0.1,), "distance from the centre x0"),
    }
    assumptions = (
        "N > 0 (count of the arm's observations)",
        {"general": "epsilon > 0, 0 < delta < 1", "laplace": "epsilon > 0, delta = 0",
         "uniform": "epsilon = 0, 0 < delta < 1"}[regime],
        "neighbouring histories shift x0 by z with |z| <= 1/N (rewards in [0, 1])",
        f"decay rate s = {sp.sstr(sp.nsimplify(rate_multiplier) * n * eps_claim)}",
        "F: the perturbation's CDF, F_left and F_right its pieces left and right of x0; "
        "f = dF/dx its density"
        + (f"; A = {sp.sstr(half)}: half-width of the support [x0 - A, x0 + A]"
           if bounded else "; the support is the whole real line"),
    )
    return obligations, domain, assumptions
