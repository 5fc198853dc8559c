"""``check gaussian``: the classical Gaussian calibration of Zheng et al. 2020, checked exactly.

Zheng et al. (2020, Sec. 2) add ``N(0, sigma^2)`` with
``sigma = Delta sqrt(2 ln(1.25/delta))/eps`` and state, without a range of ``eps``, "One can
prove Gaussian Mechanism preserves (eps, delta)-LDP", citing Dwork & Roth, whose Thm A.1
proves it for ``eps < 1`` only. The claim is checked at the scope the paper states it: every
``(eps, delta)`` the check accepts, decided exactly with Balle & Wang's (2018) curve
(:func:`dpaudit.exact.divergence.gaussian_hockey_stick`, with its numerical error bound).
Where the exact ``delta`` exceeds the claim (large ``eps``: above about 8.4 at ``delta =
1e-5``, the finding ``classical-calibration-region`` maps the boundary) the paper's sentence
is false and the claim is VIOLATED; the details say that the cited theorem never covered
those ``eps`` (``eps < 1``, :data:`SCOPE_EPSILON`), so the error is the unqualified sentence,
not Dwork & Roth's theorem. :func:`paper_claim_false` is that region, declared on the audit
for the parameter-domain battery. The broken twin (:class:`HalvedSigma`) halves ``sigma``.

``python -m dpaudit audit gaussian`` attacks this same mechanism (classical sigma, at any
epsilon the check accepts), and ``plot cdf gaussian`` draws its output CDFs on neighbouring
inputs ``0`` and ``1`` with Lemma 8's feasible region (Wang & Zhu 2023).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp
from scipy import optimize

from dpaudit.audits.recipes.ldp import gaussian_epsilon
from dpaudit.audits.recipes.verification import curve_finding, out_of_range
from dpaudit.engine import AuditSpec, CheckContext, ClaimSpec, FindingSpec
from dpaudit.exact.conditions import CdfPair
from dpaudit.exact.divergence import (
    classical_gaussian_sigma,
    gaussian_analytic_sigma,
    gaussian_hockey_stick,
)
from dpaudit.exact.loss import OutOfRangeError
from dpaudit.mechanisms import Gaussian
from dpaudit.stats.evidence import ExactEvidence, InconclusiveEvidence
from dpaudit.stats.results import Finding, Notion


@dataclass(frozen=True)
class ClassicalSigma:
    """``sigma = Delta sqrt(2 ln(1.25/delta))/eps`` (Zheng et al. 2020, Sec. 2)."""

    def sigma(self, epsilon: float, delta: float) -> float:
        return classical_gaussian_sigma(epsilon, delta, 1.0)


class HalvedSigma(ClassicalSigma):
    """Halves the classical sigma: too little noise for (eps, delta) near eps = 1 (exact delta
    0.0014 at the default (1, 1e-5)); at eps = 1e-3 the classical formula's slack absorbs the
    halving.

    True loss at the default (1, 1e-5): the classical sigma ``sqrt(2 ln(1.25/delta))/eps =
    4.8448`` halved is 2.4224, a Gaussian shift ``mu = 0.4128`` whose exact ``delta(eps)``
    (Balle & Wang 2018) is 1e-5 at ``eps = 1.61032`` (:data:`HALVED_TRUE_EPSILON`,
    ``gaussian-half-sigma``).
    """

    def sigma(self, epsilon: float, delta: float) -> float:
        return 0.5 * classical_gaussian_sigma(epsilon, delta, 1.0)


SCOPE_EPSILON = 1.0  # Dwork & Roth Thm A.1 assumes eps < 1 (eps = 1 included: it holds there)


def _classical(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence | InconclusiveEvidence:
    try:
        sigma = ctx.variant.sigma(ctx.epsilon, ctx.delta)
        d = gaussian_hockey_stick(ctx.epsilon, 1.0, sigma)
        analytic = gaussian_analytic_sigma(ctx.epsilon, ctx.delta, 1.0)
    except OutOfRangeError as exc:
        return out_of_range(exc)
    lines: tuple[str, ...] = (
        f"sigma = {sigma:.6g} (sensitivity 1); exact delta at eps={ctx.epsilon:g}: "
        f"{d.value:.6g} (claim {ctx.delta:g}; Balle & Wang's profile from dp_accounting)",
        f"analytic (tight) sigma = {analytic:.6g}; classical / analytic = "
        f"{sigma / analytic:.4f}")
    data = {"sigma": sigma, "exact_delta": d.value, "analytic_sigma": analytic}
    if ctx.epsilon > SCOPE_EPSILON:
        lines += (f"eps = {ctx.epsilon:g} is outside the scope of the theorem Zheng et al. "
                  "cite (Dwork & Roth Thm A.1, eps < 1); the paper's sentence states the "
                  "calibration without that range, and it is checked as stated",)
    return ExactEvidence(float(d.value), float(d.error), details=lines, data=data)


def paper_claim_false(epsilon: float, delta: float) -> bool:
    """Where Zheng et al.'s unqualified sentence is false: the exact ``delta`` of the classical
    sigma exceeds the claimed ``delta`` (lower end of its error bracket)."""
    if delta <= 0.0 or epsilon <= 0.0:
        return False
    try:
        sigma = classical_gaussian_sigma(epsilon, delta, 1.0)
        return bool(gaussian_hockey_stick(epsilon, 1.0, sigma).lower > delta)
    except OutOfRangeError:
        return False


def _analytic(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence | InconclusiveEvidence:
    try:
        s = gaussian_analytic_sigma(ctx.epsilon, ctx.delta, 1.0)
        d = gaussian_hockey_stick(ctx.epsilon, 1.0, s)
    except OutOfRangeError as exc:
        return out_of_range(exc)
    return ExactEvidence(float(d.value), float(d.error), details=(
        f"analytic sigma {s:.8g} (dp_accounting, upper end of the root's bracket): exact "
        f"delta {d.value:.8g}",))


def _eps_threshold(delta: float) -> float:
    """Largest eps (on [1e-3, 50]) at which the classical sigma still meets delta.

    Edges first, then ``scipy.optimize.brentq`` on ``log eps`` (the excess ``delta(eps) -
    delta`` is continuous and changes sign once on the range).
    """
    def excess(log_e: float) -> float:
        e = math.exp(log_e)
        d = gaussian_hockey_stick(e, 1.0, classical_gaussian_sigma(e, delta))
        return float(d.value) - delta
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
        "the listed threshold (scipy brentq on the exact curve; monotone on the grid checked)",
        Notion.LDP,
        details=("eps grid: " + " ".join(f"{e:g}" for e in epsilons), *rows),
        data={"thresholds": {str(k): v for k, v in thresholds.items()}},
    )


def _curve(ctx: CheckContext) -> Finding:
    sigma = ctx.variant.sigma(ctx.epsilon, ctx.delta)
    return curve_finding("privacy-curve", f"exact privacy curve at sigma = {sigma:.6g} "
                         "(Balle & Wang closed form)",
                         lambda e: gaussian_hockey_stick(e, 1.0, sigma), ctx.epsilon,
                         Notion.LDP)


class ClassicalGaussian(Gaussian):
    """``x + N(0, sigma^2)`` with the classical ``sigma = sqrt(2 ln(1.25/delta))/eps`` at any
    epsilon, as Zheng et al. 2020 states it (``Gaussian(calibration="classical")`` refuses eps > 1,
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


GAUSSIAN = AuditSpec(
    name="gaussian",
    description="Gaussian mechanism with the classical calibration (Zheng et al. 2020)",
    paper="Zheng et al. 2020, Sec. 2; Dwork & Roth 2014, Thm A.1; Balle & Wang 2018",
    claims=[
        ClaimSpec("classical-calibration-exact", Notion.LDP,
                  "x + N(0, sigma^2), sigma = Delta sqrt(2 ln(1.25/delta))/eps, is "
                  "(eps, delta)-LDP", "Zheng et al. 2020, Sec. 2 (Gaussian mechanism)",
                  _classical),
        ClaimSpec("analytic-calibration-tight", Notion.LDP,
                  "the analytic sigma of Balle & Wang meets (eps, delta) exactly",
                  "Balle & Wang 2018, Thm 8 / Alg. 1", _analytic),
    ],
    findings=[FindingSpec("classical-calibration-region", _region),
              FindingSpec("privacy-curve", _curve)],
    default_epsilon=1.0, default_delta=1e-5, variant=ClassicalSigma(),
    mechanism=_mechanism(False), paper_claim_false=paper_claim_false,
)

#: the true loss of :class:`HalvedSigma` at the default (1, 1e-5) (docstring)
HALVED_TRUE_EPSILON = gaussian_epsilon(1e-5, 1.0 / HalvedSigma().sigma(1.0, 1e-5))
_HALVED = GAUSSIAN.twin(HalvedSigma(), mechanism=_mechanism(True), bug="half-sigma",
                        true_epsilon=HALVED_TRUE_EPSILON)
# gaussian-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [GAUSSIAN, _HALVED, replace(_HALVED, name="gaussian-faulty")]
