"""``check gaussian``: the classical Gaussian calibration of seed 004, checked exactly.

Zheng et al. 2020 (Sec. 2) add ``N(0, sigma^2)`` with
``sigma = Delta sqrt(2 ln(1.25/delta))/eps`` and state ``(eps, delta)``-LDP, citing Dwork &
Roth, whose Thm A.1 proves it only for ``eps < 1``. The exact ``delta`` of a Gaussian shift is
Balle & Wang's (2018) curve (:func:`dpaudit.divergence.gaussian_hockey_stick`), so the claim is
decided exactly at the requested ``(eps, delta)`` **within the cited theorem's scope**
(``eps <= 1``, :data:`SCOPE_EPSILON`). Above it the claim is INCONCLUSIVE with the exact
delta in its details (the paper's unqualified sentence then fails for large ``eps``: a finding
about the citation, not a violation of the mechanism's theorem); the finding
``classical-calibration-region`` maps where in the ``(eps, delta)`` plane the calibration holds.
The faulty variant halves ``sigma`` (the same bug as issue 3's ``FaultyGaussianHalfSigma``,
applied here to the classical calibration).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from dpaudit.divergence import (
    classical_gaussian_sigma,
    gaussian_analytic_sigma,
    gaussian_hockey_stick,
)
from dpaudit.engine import AuditSpec, CheckContext, ClaimSpec, FindingSpec
from dpaudit.evidence import ExactEvidence, InconclusiveEvidence
from dpaudit.exact import OutOfRangeError
from dpaudit.results import Finding, Notion

from ._verification import curve_finding, out_of_range


def _sigma(ctx: CheckContext, faulty: bool) -> float:
    s = classical_gaussian_sigma(ctx.epsilon, ctx.delta, 1.0)
    return 0.5 * s if faulty else s  # the faulty variant halves sigma


SCOPE_EPSILON = 1.0  # Dwork & Roth Thm A.1 assumes eps < 1 (eps = 1 included: it holds there)


def _classical(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence | InconclusiveEvidence:
        try:
            sigma = _sigma(ctx, faulty)
            d = gaussian_hockey_stick(ctx.epsilon, 1.0, sigma)
            analytic = gaussian_analytic_sigma(ctx.epsilon, ctx.delta, 1.0)
        except OutOfRangeError as exc:
            return out_of_range(exc)
        lines = (
            f"sigma = {sigma:.6g} (sensitivity 1); exact delta at eps={ctx.epsilon:g}: "
            f"{d.value:.6g} (claim {ctx.delta:g}; Balle & Wang's profile from dp_accounting)",
            f"analytic (tight) sigma = {analytic:.6g}; classical / analytic = "
            f"{sigma / analytic:.4f}")
        data = {"sigma": sigma, "exact_delta": d.value, "analytic_sigma": analytic}
        if ctx.epsilon > SCOPE_EPSILON:
            verdict = "fails" if d.lower > ctx.delta else "holds"
            return InconclusiveEvidence(
                f"eps = {ctx.epsilon:g} is outside the scope of the cited theorem (Dwork & Roth "
                f"Thm A.1, eps < 1); here the classical sigma {verdict} exactly (delta "
                f"{d.value:.4g} vs {ctx.delta:g}): Zheng et al.'s unqualified sentence "
                f"{'does not hold' if verdict == 'fails' else 'happens to hold'} at these "
                "parameters (see classical-calibration-region)", details=lines, data=data)
        return ExactEvidence(d.value, d.error, details=lines, data=data)
    return evaluate


def _analytic(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence | InconclusiveEvidence:
    try:
        s = gaussian_analytic_sigma(ctx.epsilon, ctx.delta, 1.0)
        d = gaussian_hockey_stick(ctx.epsilon, 1.0, s)
    except OutOfRangeError as exc:
        return out_of_range(exc)
    return ExactEvidence(d.value, d.error, details=(
        f"analytic sigma {s:.8g} (dp_accounting, upper end of the root's bracket): exact "
        f"delta {d.value:.8g}",))


def _eps_threshold(delta: float) -> float:
    """Largest eps (on [1e-3, 50]) at which the classical sigma still meets delta.

    Edges first, then ``scipy.optimize.brentq`` on ``log eps`` (the excess ``delta(eps) -
    delta`` is continuous and changes sign once on the range).
    """
    def excess(log_e: float) -> float:
        e = math.exp(log_e)
        return gaussian_hockey_stick(e, 1.0, classical_gaussian_sigma(e, delta)).value - delta
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
        cells = ["ok " if gaussian_hockey_stick(e, 1.0, classical_gaussian_sigma(e, d)).value <= d
                 else "NO " for e in epsilons]
        rows.append(f"delta={d:<7g} " + " ".join(cells) + f"   holds for eps <= "
                    f"{thresholds[d]:.4g}")
    return Finding(
        "classical-calibration-region",
        "sigma = sqrt(2 ln(1.25/delta))/eps meets (eps, delta) exactly when eps is at most "
        "the listed threshold (Brent's method on the exact curve; monotone on the grid checked)",
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
        default_epsilon=1.0, default_delta=1e-5, faulty=faulty,
    )


AUDITS = [_spec(False), _spec(True)]
