"""``check laplace``: the Laplace mechanism on an episode mean (Azize & Basu 2022, Lemma 1).

Azize & Basu (2022), Lemma 1 defines the private mean of rewards ``r_i .. r_j`` (``i < j``,
rewards in ``[0, 1]``) as ``(1/(j - i)) sum_{t=i}^{j} r_t + Lap(1/((j - i) eps))``. The sum
has ``n = j - i + 1`` terms, not ``j - i``: the paper's normaliser is off by one. With
``m = j - i``:

* as printed, the statistic ``(1/m) sum`` has sensitivity ``1/m`` and the noise scale is
  ``1/(m eps)``: the loss is exactly ``eps`` (tight);
* with the true mean ``(1/(m+1)) sum`` (sensitivity ``1/(m+1)``) and the stated scale the loss
  is ``eps m/(m+1) < eps``: the stated scale still suffices, with room to spare;
* AdaP-UCB (Alg. 1) adds ``Lap(2/(eps N))`` to the mean of the last ``N/2`` samples:
  sensitivity ``2/N``, loss exactly ``eps``.

The broken twin (:class:`TermsCalibrated`) normalises by ``1/m`` but calibrates the noise to
the number of terms.

``python -m dpaudit audit laplace`` attacks the worst episode (``m = 1``: the statistic
``r_i + r_j`` has sensitivity 1, noise ``Lap(1/eps)``; the faulty twin's noise is
``Lap(1/(2 eps))``), and ``plot cdf laplace --n m`` draws the output CDFs of one episode
mean on neighbouring inputs with Lemma 8's feasible region (Wang & Zhu 2023).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp

from dpaudit.audits.recipes.verification import curve_finding, out_of_range
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.exact.conditions import CdfPair
from dpaudit.exact.divergence import laplace_hockey_stick
from dpaudit.exact.loss import OutOfRangeError
from dpaudit.exact.symbolic import Domain, Obligation, prove
from dpaudit.mechanisms import Laplace
from dpaudit.mechanisms._twins import FaultyLaplaceHalfScale
from dpaudit.stats.evidence import ExactEvidence, InconclusiveEvidence, ProofEvidence
from dpaudit.stats.results import Finding, Notion
from dpaudit.validation import check_epsilon, check_int

PAPER = "Azize & Basu 2022, Lemma 1; Dwork & Roth 2014, Thm 3.6"
_M = sp.Symbol("m", positive=True, integer=True)  # m = j - i >= 1
_EPS = sp.Symbol("epsilon", positive=True)
_N = sp.Symbol("N", positive=True)
MAX_M = Budget(full=4096, quick=64)  # longest episode m = j - i checked by the exact claim


@dataclass(frozen=True)
class EpisodeMean:
    """Lemma 1 as printed: ``(1/m) sum_{t=i}^{j} r_t + Lap(1/(m eps))``."""

    def scale(self, m, eps):
        return 1 / (m * eps)


class TermsCalibrated(EpisodeMean):
    """The episode mean (1/m) sum_{t=i}^{j} r_t, with m = j - i >= 1, normalised by 1/m as
    printed, but with noise calibrated to the sum's m + 1 terms, Lap(1/((m + 1) eps)): the
    loss is eps (m + 1)/m > eps.

    True loss at the default eps = 1: a mean of ``m >= 1`` rewards in [0, 1] has sensitivity
    ``1/m`` against the scale ``1/((m + 1) eps)``, a loss ``eps (m + 1)/m``, largest at the
    one-reward episode ``m = 1``: ``2 eps`` = 2 (``laplace-terms-scale``).
    """

    def scale(self, m, eps):
        return 1 / ((m + 1) * eps)


def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    scale = ctx.variant.scale(_M, _EPS)
    obligations = [
        Obligation("printed_normaliser", (1 / _M) / scale - _EPS, "<=",
                   reason="loss = sensitivity/scale",
                   display="(1/m) / scale <= epsilon  (sensitivity of (1/m) sum_{t=i}^{j} r_t "
                           "is 1/m)"),
        Obligation("true_mean", (1 / (_M + 1)) / scale - _EPS, "<=",
                   reason="loss = sensitivity/scale",
                   display="(1/(m+1)) / scale <= epsilon  (the true mean of m+1 terms)"),
        Obligation("adap_ucb_half_episode", (2 / _N) / (2 / (_EPS * _N)) - _EPS, "<=",
                   display="(2/N) / (2/(eps N)) <= epsilon  (AdaP-UCB, last N/2 samples)"),
    ]
    domain = {_M: Domain(1.0, math.inf, (1.0, 2.0, 10.0), "m = j - i >= 1: the episode "
                         "mean normalises the sum of r_i..r_j by 1/m"),
              _EPS: Domain(0.0, math.inf, (1.0, 0.1), "claimed privacy loss"),
              _N: Domain(0.0, math.inf, (2.0,), "AdaP-UCB's episode length (its mean uses "
                         "the last N/2 samples)")}
    proof = prove(obligations, domain, (
        "m = j - i >= 1; the sum from i to j has m + 1 terms in [0, 1]",
        "scale = " + sp.sstr(scale),
        "Laplace mechanism: loss = sensitivity / scale (Dwork & Roth Thm 3.6)"))
    # the Laplace loss is exactly sensitivity/scale: the condition is also necessary
    return ProofEvidence(proof, necessary=True)


def _exact(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence | InconclusiveEvidence:
    ms = np.unique(np.geomspace(1, ctx.size(MAX_M), 40).astype(int))
    worst, worst_m, deltas, errors = 0.0, 1, [], []
    try:
        for m in ms:
            # the printed calibration is the Laplace class at sensitivity 1/m (same scale)
            scale = (Laplace(ctx.epsilon, sensitivity=1.0 / m).scale
                     if type(ctx.variant) is EpisodeMean
                     else ctx.variant.scale(float(m), ctx.epsilon))
            if not scale >= np.finfo(float).tiny:
                raise OutOfRangeError(f"the noise scale {scale:g} at m = {m} underflows "
                                      "double precision")
            d = laplace_hockey_stick(ctx.epsilon, 1.0 / m, scale)
            deltas.append(float(d.value))
            errors.append(float(d.error))
            if (1.0 / m) / scale > worst:
                worst, worst_m = (1.0 / m) / scale, int(m)
    except OutOfRangeError as exc:
        return out_of_range(exc)
    i = int(np.argmax(deltas))
    return ExactEvidence(deltas[i], max(errors), epsilon_at_delta=worst, details=(
        f"episode lengths m + 1 for m in {ms.min()}..{ms.max()} ({ms.size} values)",
        f"exact loss max_m (1/m)/scale = {worst:.12g} at m = {worst_m} (claim {ctx.epsilon:g})",
        f"delta at the claimed epsilon: {deltas[i]:.3g} at m = {int(ms[i])} (dp_accounting's "
        "Laplace privacy loss, log space; the error bound covers the rounding of the scale "
        "and of the library's CDFs)"), data={"m": ms.tolist(), "delta": deltas})


def _curve(ctx: CheckContext) -> Finding:
    scale = ctx.variant.scale(1.0, ctx.epsilon)  # the worst episode: m = j - i = 1
    return curve_finding("privacy-curve", "exact privacy curve of one episode mean (m = j - i "
                         "= 1; closed form, Laplace)",
                         lambda e: laplace_hockey_stick(e, 1.0, scale), ctx.epsilon,
                         Notion.GLOBAL)


def _mechanism(faulty: bool):
    """The black-box object of ``audit laplace``: the worst episode, ``m = 1`` (sensitivity 1)."""
    def build(epsilon: float, delta: float):
        return FaultyLaplaceHalfScale(epsilon) if faulty else Laplace(epsilon)
    return build


def _cdf_pair(faulty: bool):
    def build(epsilon: float, delta: float, n: int | None = None, successes: int = 0) -> CdfPair:
        """CDFs of ``(1/m) sum + Lap(scale)`` on two neighbouring episodes (``m = n``, default
        1): ``Lap(0, b)`` and ``Lap(1/m, b)``; density bound ``1/(2 b)``."""
        eps = check_epsilon(epsilon)
        m = check_int("n", 1 if n is None else n, low=1)
        b = 1.0 / (((m + 1) if faulty else m) * eps)
        x = sp.Symbol("x", real=True)
        shift, bb = sp.Rational(1, m), sp.nsimplify(b)

        def lap_cdf(centre: sp.Expr) -> sp.Expr:
            return sp.Piecewise((sp.exp((x - centre) / bb) / 2, x < centre),
                                (1 - sp.exp(-(x - centre) / bb) / 2, True))

        return CdfPair(
            name=f"laplace{'-faulty' if faulty else ''} episode mean, m = {m}", x=x,
            cdf=lap_cdf(sp.Integer(0)), neighbour=lap_cdf(shift), density_bound=1 / (2 * b),
            window=(-40 * b, 1 / m + 40 * b), breakpoints=(0.0, 1 / m),
            description=f"(1/m) sum + Lap({b:.4g}); one reward changed by 1")
    return build


CDF_PAIRS = {"laplace": _cdf_pair(False), "laplace-faulty": _cdf_pair(True)}


LAPLACE = AuditSpec(
    name="laplace",
    description="Laplace mechanism on an episode mean (Azize & Basu 2022, Lemma 1)",
    paper=PAPER,
    claims=[
        ClaimSpec("lemma1-ratio-symbolic", Notion.GLOBAL,
                  "(1/(j-i)) sum_(t=i)^j r_t + Lap(1/((j-i) eps)) is eps-DP for every episode",
                  "Azize & Basu 2022, Lemma 1", _symbolic),
        ClaimSpec("lemma1-exact-loss", Notion.GLOBAL,
                  "the exact privacy loss of one episode mean is at most eps",
                  "Azize & Basu 2022, Lemma 1; closed-form Laplace privacy curve", _exact),
    ],
    findings=[FindingSpec("privacy-curve", _curve)],
    default_epsilon=1.0, default_delta=0.0, variant=EpisodeMean(), mechanism=_mechanism(False),
)

_TERMS = LAPLACE.twin(TermsCalibrated(), mechanism=_mechanism(True), bug="terms-scale",
                      true_epsilon=2.0)
# laplace-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [LAPLACE, _TERMS, replace(_TERMS, name="laplace-faulty")]
