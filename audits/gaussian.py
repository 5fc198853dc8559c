"""``check gaussian``: the classical Gaussian calibration of seed 004, checked exactly.

Zheng et al. (seed 004, Sec. 2) add ``N(0, sigma^2)`` with
``sigma = Delta sqrt(2 ln(1.25/delta))/eps`` and state ``(eps, delta)``-LDP. Dwork & Roth
(Thm A.1) prove this only for ``eps < 1``. The exact ``delta`` of a Gaussian shift is the
analytic curve of Balle & Wang 2018 (:func:`dpaudit.divergence.gaussian_hockey_stick`), so the
claim is decided exactly at the requested ``(eps, delta)``; a finding maps the region of the
``(eps, delta)`` plane where the classical calibration holds (it fails for large ``eps``).
The faulty variant halves ``sigma`` (the same bug as issue 3's ``FaultyGaussianHalfSigma``,
applied here to the classical calibration).

``python -m dpaudit audit gaussian`` attacks this same mechanism (classical sigma, at any
epsilon the check accepts), and ``plot cdf gaussian`` draws its output CDFs on neighbouring
inputs ``0`` and ``1`` with Lemma 8's feasible region (Wang & Zhu 2023).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy import optimize

from dpaudit.conditions import CdfPair
from dpaudit.divergence import (
    classical_gaussian_sigma,
    gaussian_analytic_sigma,
    gaussian_hockey_stick,
)
from dpaudit.engine import AuditSpec, CheckContext, ClaimSpec, FindingSpec
from dpaudit.evidence import ExactEvidence
from dpaudit.mechanisms import Gaussian
from dpaudit.results import Finding, Notion

from ._verification import curve_finding


def _sigma(ctx: CheckContext, faulty: bool) -> float:
    s = classical_gaussian_sigma(ctx.epsilon, ctx.delta, 1.0)
    return 0.5 * s if faulty else s  # the faulty variant halves sigma


def _classical(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
        sigma = _sigma(ctx, faulty)
        d = gaussian_hockey_stick(ctx.epsilon, 1.0, sigma)
        analytic = gaussian_analytic_sigma(ctx.epsilon, ctx.delta, 1.0)
        return ExactEvidence(d, 0.0, details=(
            f"sigma = {sigma:.6g} (sensitivity 1); exact delta at eps={ctx.epsilon:g}: "
            f"{d:.6g} (claim {ctx.delta:g}; Balle & Wang closed form in floating point)",
            f"analytic (tight) sigma = {analytic:.6g}; classical / analytic = "
            f"{sigma / analytic:.4f}"),
            data={"sigma": sigma, "exact_delta": d, "analytic_sigma": analytic})
    return evaluate


def _analytic(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
    s = gaussian_analytic_sigma(ctx.epsilon, ctx.delta, 1.0)
    d = gaussian_hockey_stick(ctx.epsilon, 1.0, s)
    return ExactEvidence(d, 0.0, details=(f"analytic sigma {s:.8g}: exact delta {d:.8g}",))


def _eps_threshold(delta: float) -> float:
    """Largest eps (on [1e-3, 50]) at which the classical sigma still meets delta.

    Edges first, then ``scipy.optimize.brentq`` on ``log eps`` (the excess ``delta(eps) -
    delta`` is continuous and changes sign once on the range).
    """
    def excess(log_e: float) -> float:
        e = math.exp(log_e)
        return gaussian_hockey_stick(e, 1.0, classical_gaussian_sigma(e, delta)) - delta
    lo, hi = math.log(1e-3), math.log(50.0)
    if excess(lo) > 0:
        return 0.0
    if excess(hi) <= 0:
        return math.inf
    return math.exp(optimize.brentq(excess, lo, hi, xtol=1e-10))


def _region(ctx: CheckContext) -> Finding:
    deltas = [1e-1, 1e-2, 1e-3, 1e-5, 1e-8, 1e-12]
    thresholds = {d: _eps_threshold(d) for d in deltas}
    epsilons = np.array([0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
    rows = []
    for d in deltas:
        cells = ["ok " if gaussian_hockey_stick(e, 1.0, classical_gaussian_sigma(e, d)) <= d
                 else "NO " for e in epsilons]
        rows.append(f"delta={d:<7g} " + " ".join(cells) + f"   holds for eps <= "
                    f"{thresholds[d]:.4g}")
    return Finding(
        "classical-calibration-region",
        "sigma = sqrt(2 ln(1.25/delta))/eps meets (eps, delta) exactly when eps is at most "
        "the listed threshold (bisection on the exact curve; monotone on the grid checked)",
        Notion.LDP,
        details=("eps grid: " + " ".join(f"{e:g}" for e in epsilons), *rows),
        data={"thresholds": {str(k): v for k, v in thresholds.items()}},
    )


def _curve(faulty: bool):
    def evaluate(ctx: CheckContext) -> Finding:
        sigma = _sigma(ctx, faulty)
        return curve_finding("privacy-curve", f"exact privacy curve at sigma = {sigma:.6g} "
                             "(Balle & Wang closed form)",
                             lambda e: gaussian_hockey_stick(e, 1.0, sigma), ctx.epsilon,
                             Notion.LDP)
    return evaluate


class ClassicalGaussian(Gaussian):
    """``x + N(0, sigma^2)`` with the classical ``sigma = sqrt(2 ln(1.25/delta))/eps`` at any
    epsilon, as seed 004 states it (``Gaussian(calibration="classical")`` refuses eps > 1,
    where Dwork & Roth's proof stops; this audit tests the claim there too).
    ``sigma_factor = 0.5`` is the faulty twin (sigma halved)."""

    def __init__(self, epsilon: float, delta: float, *, sigma_factor: float = 1.0) -> None:
        self.sigma_factor = sigma_factor
        super().__init__(epsilon, delta)  # validates epsilon and delta
        self.calibration = "classical"

    def _calibrated_sigma(self) -> float:
        return self.sigma_factor * classical_gaussian_sigma(self.epsilon, self.delta,
                                                            self.sensitivity)

    def __repr__(self) -> str:
        return (f"ClassicalGaussian(epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"sigma_factor={self.sigma_factor!r})")


def _mechanism(faulty: bool):
    def build(epsilon: float, delta: float) -> ClassicalGaussian:
        return ClassicalGaussian(epsilon, delta, sigma_factor=0.5 if faulty else 1.0)
    return build


def _cdf_pair(faulty: bool):
    def build(epsilon: float, delta: float, n: int | None = None, successes: int = 0) -> CdfPair:
        """CDFs of ``N(0, sigma^2)`` and ``N(1, sigma^2)``; density bound
        ``1/(sigma sqrt(2 pi))``. ``n`` and ``successes`` do not apply."""
        sigma = _mechanism(faulty)(epsilon, delta).sigma
        x = sp.Symbol("x", real=True)
        s = sp.Float(sigma, 17)
        return CdfPair(
            name=f"gaussian{'-faulty' if faulty else ''}, sigma = {sigma:.4g}", x=x,
            cdf=(1 + sp.erf(x / (s * sp.sqrt(2)))) / 2,
            neighbour=(1 + sp.erf((x - 1) / (s * sp.sqrt(2)))) / 2,
            density_bound=1.0 / (sigma * math.sqrt(2 * math.pi)),
            window=(-12 * sigma, 1 + 12 * sigma),
            description=f"x + N(0, {sigma:.4g}^2) on inputs 0 and 1")
    return build


CDF_PAIRS = {"gaussian": _cdf_pair(False), "gaussian-faulty": _cdf_pair(True)}


def _spec(faulty: bool) -> AuditSpec:
    return AuditSpec(
        name="gaussian-faulty" if faulty else "gaussian",
        description="Gaussian mechanism with the classical calibration (seed 004)"
                    + (", sigma halved -- deliberately broken" if faulty else ""),
        paper="Zheng et al. 2020 (seed 004), Sec. 2; Dwork & Roth Thm A.1; Balle & Wang 2018",
        claims=[
            ClaimSpec("classical-calibration-exact", Notion.LDP,
                      "x + N(0, sigma^2), sigma = Delta sqrt(2 ln(1.25/delta))/eps, is "
                      "(eps, delta)-LDP", "seed 004 Sec. 2 (Gaussian mechanism)",
                      _classical(faulty)),
            ClaimSpec("analytic-calibration-tight", Notion.LDP,
                      "the analytic sigma of Balle & Wang meets (eps, delta) exactly",
                      "Balle & Wang 2018, Thm 8 / Alg. 1", _analytic),
        ],
        findings=[FindingSpec("classical-calibration-region", _region),
                  FindingSpec("privacy-curve", _curve(faulty))],
        default_epsilon=1.0, default_delta=1e-5, faulty=faulty, mechanism=_mechanism(faulty),
    )


AUDITS = [_spec(False), _spec(True)]
