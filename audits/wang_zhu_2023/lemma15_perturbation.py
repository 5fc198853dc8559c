"""``check lemma15-perturbation``: the Lemma-15 perturbation of Wang & Zhu 2023, four ways.

Wang & Zhu, Lemma 15 (reconstruction in :mod:`dpaudit.mechanisms.lemma15`, the
lead's module, reused unchanged): a truncated-Laplace-like law centred at ``x0`` with rate
``N eps`` and support half-width ``A``. One changed observation shifts ``x0`` by at most
``1/N``. Claims:

* ``lemma15-symbolic``: the lead's proof obligations (:func:`lemma15_proof_obligations`),
  decided by sympy over all ``N > 0, eps > 0, 0 < delta < 1``;
* ``lemma8-generic``: Lemma 8's CDF inequalities at the concrete ``(eps, delta, N)`` through
  the generic checker (:func:`dpaudit.exact.conditions.lemma8_check`); the condition is tight by
  design (the edge band carries mass exactly ``delta``), so the check reports the value at
  the critical points;
* ``lemma9-generic``: Lemma 9's interval inequalities for the law GDP-Elim-New uses,
  Lemma 15 at ``(eps, delta/2)``, with budget ``delta/2`` (see :mod:`dpaudit.exact.conditions`);
* ``exact-divergence``: ``max(H_eps(P||P_z), H_eps(P_z||P))`` with ``z = 1/N`` by
  quadrature between the density breakpoints: at most ``delta``.

The broken twin (:class:`DoubleRate`) is ``FaultyLemma15Perturbation`` (decay rate ``2 N eps``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import sympy as sp

from dpaudit.audits.recipes.verification import curve_finding
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.exact.conditions import CdfPair, lemma8_check, lemma9_check
from dpaudit.exact.divergence import continuous_hockey_stick
from dpaudit.exact.symbolic import prove
from dpaudit.mechanisms._twins import FaultyLemma15Perturbation
from dpaudit.mechanisms.lemma15 import (
    Lemma15Perturbation,
    lemma15_half_width,
    lemma15_proof_obligations,
    lemma15_sympy,
)
from dpaudit.stats.evidence import ExactEvidence, ProofEvidence
from dpaudit.stats.results import Finding, Notion

REF = "Wang & Zhu, Lemma 15, Eq. 10-14; Thm 16 and 18 (privacy parts)"
DEFAULT_N = 10
GRID = Budget(full=4001, quick=1001)  # grid of the certified-numeric tier
X0 = 0.5


@dataclass(frozen=True)
class Rate:
    """The Lemma-15 law as reconstructed: decay rate N eps."""

    double_rate: bool = False


@dataclass(frozen=True)
class DoubleRate(Rate):
    """Decays at rate 2 N eps instead of N eps (``FaultyLemma15Perturbation``): support and
    decay of a count 2N, while neighbours still differ by 1/N.

    True loss at the defaults (``eps = 1``, ``delta = 0.01``): infinite. The law centred at
    ``x0 + 1/N`` vanishes on the band ``[x0 - A', x0 - A' + 1/N)`` of the law centred at
    ``x0`` (``A' = 2.23/N > 1/N``), which carries mass ``delta (e^eps + 1)`` = 0.0372 at every
    ``N`` (derivation: ``DPFTPLNewFaultyPerturbation`` in
    ``dpaudit.algorithms.wang_zhu_2023._twins``), so ``delta(eps') >= 0.0372 > 0.01`` at every
    ``eps'`` (``lemma15-perturbation-double-rate``).
    """

    double_rate: bool = True


def _as_rational(x: float) -> sp.Rational:
    """``x`` as a sympy rational: the simple fraction it prints as (0.01 -> 1/100) when that is
    ``x`` exactly in float64, else ``x``'s exact binary value (``nsimplify`` turns 1e-300 into
    0 and 0.999999999999 into 1, and a delta of 0 then divides by zero)."""
    simple = sp.nsimplify(x)
    return simple if float(simple) == x else sp.Rational(x)


def lemma15_cdf_pair(epsilon: float, delta: float, n: int = DEFAULT_N, *,
                     rate_multiplier: float = 1.0, x0: float = X0) -> CdfPair:
    """``F`` = Lemma-15 CDF at centre ``x0``; ``F'`` at ``x0 + 1/N`` (numeric parameters).

    Density bound: the peak ``(1/2 + delta/(e^eps - 1)) s`` with ``s = rate * N * eps``.
    ``delta = 0`` is the Laplace limit (Wang & Zhu's Remark 17): ``F = e^(s (x - x0))/2``
    left of ``x0`` and ``1 - e^(s (x0 - x))/2`` right of it (the general form divides by
    ``delta``); its window is ``x0 +- 40/s`` (tail mass ``e^-40/2`` each side).
    """
    if delta == 0.0:
        return _laplace_limit_pair(epsilon, n, rate_multiplier=rate_multiplier, x0=x0)
    cdf, syms = lemma15_sympy(rate_multiplier=rate_multiplier)
    vals = {syms["N"]: sp.Integer(n), syms["epsilon"]: _as_rational(epsilon),
            syms["delta"]: _as_rational(delta)}
    f = cdf.subs(vals).subs(syms["x0"], sp.nsimplify(x0))
    fp = cdf.subs(vals).subs(syms["x0"], sp.nsimplify(x0) + sp.Rational(1, n))
    f, fp = (e.subs(syms["x"], sp.Symbol("x", real=True)) for e in (f, fp))
    s = rate_multiplier * n * epsilon
    a = float(lemma15_half_width(epsilon, delta, rate_multiplier * n))
    peak = (0.5 + delta / math.expm1(epsilon)) * s
    z = 1.0 / n
    bps = (x0 - a, x0, x0 + a, x0 - a + z, x0 + z, x0 + a + z)
    return CdfPair(
        name=f"Lemma 15 N={n}" + ("" if rate_multiplier == 1 else f" (rate x{rate_multiplier:g})"),
        x=sp.Symbol("x", real=True), cdf=f, neighbour=fp, density_bound=peak,
        window=(x0 - a - 0.01, x0 + a + z + 0.01), breakpoints=bps,
        description=f"centre {x0} vs {x0} + 1/N, eps={epsilon:g}, delta={delta:g}")


def _laplace_limit_pair(epsilon: float, n: int, *, rate_multiplier: float,
                        x0: float) -> CdfPair:
    x = sp.Symbol("x", real=True)
    rate = sp.nsimplify(rate_multiplier) * n * sp.nsimplify(epsilon)

    def laplace_cdf(centre: sp.Expr) -> sp.Expr:
        return sp.Piecewise((sp.exp(rate * (x - centre)) / 2, x <= centre),
                            (1 - sp.exp(rate * (centre - x)) / 2, True))

    c0 = sp.nsimplify(x0)
    s = rate_multiplier * n * epsilon
    z = 1.0 / n
    return CdfPair(
        name=f"Lemma 15 N={n}, delta = 0 (Laplace limit)"
             + ("" if rate_multiplier == 1 else f" (rate x{rate_multiplier:g})"),
        x=x, cdf=laplace_cdf(c0), neighbour=laplace_cdf(c0 + sp.Rational(1, n)),
        density_bound=s / 2, window=(x0 - 40.0 / s, x0 + z + 40.0 / s),
        breakpoints=(x0, x0 + z),
        description=f"centre {x0} vs {x0} + 1/N, eps={epsilon:g}, delta=0 (Laplace limit)")


CDF_PAIRS = {
    "lemma15-perturbation": lambda epsilon, delta, n=None, successes=0: lemma15_cdf_pair(
        epsilon, delta, n or DEFAULT_N),
    "lemma15-perturbation-faulty": lambda epsilon, delta, n=None, successes=0:
        lemma15_cdf_pair(epsilon, delta, n or DEFAULT_N, rate_multiplier=2.0),
}


def _rate(ctx: CheckContext) -> float:
    return 2.0 if ctx.variant.double_rate else 1.0


def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    obligations, domain, assumptions = lemma15_proof_obligations(
        rate_multiplier=_rate(ctx))
    return ProofEvidence(prove(obligations, domain, assumptions))  # sufficient


def _lemma8(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    pair = lemma15_cdf_pair(ctx.epsilon, ctx.delta, DEFAULT_N, rate_multiplier=_rate(ctx))
    return ProofEvidence(lemma8_check(pair, ctx.epsilon, ctx.delta, grid=ctx.size(GRID),
                                      symbolic=not ctx.quick))


def _lemma9(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    pair = lemma15_cdf_pair(ctx.epsilon, ctx.delta / 2, DEFAULT_N,
                            rate_multiplier=_rate(ctx))
    proof = lemma9_check(pair, ctx.epsilon, ctx.delta, delta_share=0.5,
                         grid=ctx.size(GRID))
    return ProofEvidence(proof, details=(
        "GDP-Elim-New draws from Lemma 15 with (eps, delta/2); budget delta/2",))


def _divergence(ctx: CheckContext, eps: float) -> tuple[float, float]:
    """``max(H_eps(P||P_z), H_eps(P_z||P))`` at ``z = 1/N`` by quadrature, with its error."""
    n = DEFAULT_N
    mech = (FaultyLemma15Perturbation(ctx.epsilon, ctx.delta) if ctx.variant.double_rate
            else Lemma15Perturbation(ctx.epsilon, ctx.delta))
    z = 1.0 / n
    a = float(mech.half_width(n))
    tail = 0.0
    if not math.isfinite(a):
        # delta = 0, the Laplace limit: unbounded support. Cut at 40/(N eps) (the rate is at
        # least N eps), where each law keeps all but e^-40 of its mass; the integrand outside
        # is at most that mass, added to the error
        a, tail = 40.0 / (n * ctx.epsilon), 2.0 * math.exp(-40.0)
    bps = (X0 - a, X0, X0 + a, X0 - a + z, X0 + z, X0 + a + z)
    support = (X0 - a - z, X0 + a + 2 * z)
    p = lambda x: mech.pdf(x, X0, n)  # noqa: E731
    q = lambda x: mech.pdf(x, X0 + z, n)  # noqa: E731
    r1 = continuous_hockey_stick(p, q, eps, support, breakpoints=bps)
    r2 = continuous_hockey_stick(q, p, eps, support, breakpoints=bps)
    return float(max(r1.value, r2.value)), float(max(r1.error, r2.error)) + tail


def _exact(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
    h, err = _divergence(ctx, ctx.epsilon)
    # the m vs 2m node difference is an estimate, not a bound: ten times it (as before)
    return ExactEvidence(h, max(1e-12, 10 * err), details=(
        f"N = {DEFAULT_N}, shift 1/N; H_eps (worse direction) = {h:.12g} by quadrature "
        f"(|Q_m - Q_2m| = {err:.2g})",), data={"H": h, "quadrature_error": err})


def _curve(ctx: CheckContext) -> Finding:
    return curve_finding("privacy-curve", f"privacy curve under a 1/N shift, N = "
                         f"{DEFAULT_N} (quadrature)",
                         lambda e: _divergence(ctx, e)[0], ctx.epsilon,
                         Notion.PER_STEP)


LEMMA15 = AuditSpec(
    name="lemma15-perturbation",
    description="Lemma-15 perturbation of DP-FTPL-New / GDP-Elim-New",
    paper="Wang & Zhu 2023, DP-FTPL / GDP-Elim-New",
    claims=[
        ClaimSpec("lemma15-symbolic", Notion.PER_STEP,
                  "the Lemma-15 law satisfies Eq. (10)-(11) for every N, eps, delta",
                  REF, _symbolic),
        ClaimSpec("lemma8-generic", Notion.PER_STEP,
                  "Lemma 8's CDF inequalities hold (concrete N)", "Wang & Zhu 2023, Lemma 8",
                  _lemma8),
        ClaimSpec("lemma9-generic", Notion.GLOBAL,
                  "Lemma 9's interval inequalities hold for Lemma 15 at (eps, delta/2)",
                  "Wang & Zhu 2023, Lemma 9, Thm 18", _lemma9),
        ClaimSpec("exact-divergence", Notion.PER_STEP,
                  "the hockey-stick divergence under a 1/N shift is at most delta",
                  REF, _exact),
    ],
    findings=[FindingSpec("privacy-curve", _curve)],
    default_epsilon=1.0, default_delta=0.01, variant=Rate(),
)

_DOUBLE = LEMMA15.twin(DoubleRate(), bug="double-rate", true_epsilon=math.inf)
# lemma15-perturbation-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [LEMMA15, _DOUBLE, replace(_DOUBLE, name="lemma15-perturbation-faulty")]
