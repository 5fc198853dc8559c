"""``check laplace``: the Laplace mechanism on an episode mean (seed 000, Lemma 1).

Azize & Basu (seed 000), Lemma 1 defines the private mean of rewards ``r_i .. r_j``
(``i < j``, rewards in ``[0, 1]``) as ``(1/(j - i)) sum_{t=i}^{j} r_t + Lap(1/((j - i) eps))``.
The sum has ``n = j - i + 1`` terms, not ``j - i``: the paper's normaliser is off by one. With
``m = j - i``:

* as printed, the statistic ``(1/m) sum`` has sensitivity ``1/m`` and the noise scale is
  ``1/(m eps)``: the loss is exactly ``eps`` (tight);
* with the true mean ``(1/(m+1)) sum`` (sensitivity ``1/(m+1)``) and the stated scale the loss
  is ``eps m/(m+1) < eps``: the stated scale still suffices, with room to spare;
* AdaP-UCB (Alg. 1, REFERENCE 4.1) adds ``Lap(2/(eps N))`` to the mean of the last ``N/2``
  samples: sensitivity ``2/N``, loss exactly ``eps``.

The faulty variant normalises by ``1/m`` as printed but calibrates the noise to the number of
terms, ``Lap(1/((m + 1) eps))``: the loss is ``eps (m + 1)/m > eps``.

``python -m dpaudit audit laplace`` attacks the worst episode (``m = 1``: the statistic
``r_i + r_j`` has sensitivity 1, noise ``Lap(1/eps)``; the faulty twin's noise is
``Lap(1/(2 eps))``), and ``plot cdf laplace --n m`` draws the output CDFs of one episode
mean on neighbouring inputs with Lemma 8's feasible region (Wang & Zhu 2023).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.conditions import CdfPair
from dpaudit.divergence import laplace_hockey_stick
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.evidence import ExactEvidence, ProofEvidence
from dpaudit.mechanisms import Laplace
from dpaudit.mechanisms._faulty import FaultyLaplaceHalfScale
from dpaudit.results import Notion
from dpaudit.symbolic import Domain, Obligation, prove

from ._verification import curve_finding

PAPER = "Azize & Basu 2022 (seed 000), Lemma 1; Dwork & Roth Thm 3.6"
_M = sp.Symbol("m", positive=True, integer=True)  # m = j - i >= 1
_EPS = sp.Symbol("epsilon", positive=True)
_N = sp.Symbol("N", positive=True)
MAX_M = Budget(full=4096, quick=64)  # longest episode m = j - i checked by the exact claim


def _scale(m: sp.Expr, faulty: bool) -> sp.Expr:
    """Noise scale of Lemma 1: ``1/(m eps)``; the faulty variant uses ``1/((m + 1) eps)``."""
    return 1 / ((m + 1) * _EPS) if faulty else 1 / (m * _EPS)


def _symbolic(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
        obligations = [
            Obligation("printed_normaliser", (1 / _M) / _scale(_M, faulty) - _EPS, "<=",
                       reason="loss = sensitivity/scale",
                       display="(1/m) / scale <= epsilon  (sensitivity of (1/m) sum_{t=i}^{j} "
                               "r_t is 1/m)"),
            Obligation("true_mean", (1 / (_M + 1)) / _scale(_M, faulty) - _EPS, "<=",
                       reason="loss = sensitivity/scale",
                       display="(1/(m+1)) / scale <= epsilon  (the true mean of m+1 terms)"),
            Obligation("adap_ucb_half_episode", (2 / _N) / (2 / (_EPS * _N)) - _EPS, "<=",
                       display="(2/N) / (2/(eps N)) <= epsilon  (AdaP-UCB, last N/2 samples)"),
        ]
        domain = {_M: Domain(1.0, math.inf, (1.0, 2.0, 10.0)),
                  _EPS: Domain(0.0, math.inf, (1.0, 0.1)), _N: Domain(0.0, math.inf, (2.0,))}
        proof = prove(obligations, domain, (
            "m = j - i >= 1; the sum from i to j has m + 1 terms in [0, 1]",
            "scale = " + sp.sstr(_scale(_M, faulty)),
            "Laplace mechanism: loss = sensitivity / scale (Dwork & Roth Thm 3.6)"))
        # the Laplace loss is exactly sensitivity/scale: the condition is also necessary
        return ProofEvidence(proof, necessary=True)
    return evaluate


def _exact(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
        ms = np.unique(np.geomspace(1, ctx.size(MAX_M), 40).astype(int))
        worst, worst_m, deltas = 0.0, 1, []
        for m in ms:
            scale = 1.0 / (((m + 1) if faulty else m) * ctx.epsilon)
            eps_m = (1.0 / m) / scale
            # cross-check against the issue-3 Laplace class calibrated to sensitivity 1/m
            if not faulty:
                assert_same = Laplace(ctx.epsilon, sensitivity=1.0 / m).scale
                if not math.isclose(assert_same, scale, rel_tol=1e-12):
                    raise RuntimeError("Laplace calibration disagrees with Lemma 1's scale")
            deltas.append(laplace_hockey_stick(ctx.epsilon, 1.0 / m, scale))
            if eps_m > worst:
                worst, worst_m = eps_m, int(m)
        return ExactEvidence(
            max(deltas), 0.0, epsilon_at_delta=worst, details=(
                f"episode lengths m + 1 for m in {ms.min()}..{ms.max()} ({ms.size} values)",
                f"exact loss max_m (1/m)/scale = {worst:.12g} at m = {worst_m} "
                f"(claim {ctx.epsilon:g})",
                "delta at the claimed epsilon: closed form max(0, 1 - e^((eps - loss)/2)) "
                "in floating point"),
            data={"m": ms.tolist(), "delta": deltas})
    return evaluate


def _curve(faulty: bool):
    def evaluate(ctx: CheckContext):
        m = 1  # the worst episode (two rewards)
        scale = 1.0 / (((m + 1) if faulty else m) * ctx.epsilon)
        return curve_finding("privacy-curve", f"exact privacy curve of one episode mean "
                             f"(m = j - i = {m}; closed form, Laplace)",
                             lambda e: laplace_hockey_stick(e, 1.0 / m, scale), ctx.epsilon,
                             Notion.GLOBAL)
    return evaluate


def _mechanism(faulty: bool):
    """The black-box object of ``audit laplace``: the worst episode, ``m = 1`` (sensitivity 1)."""
    def build(epsilon: float, delta: float):
        return FaultyLaplaceHalfScale(epsilon) if faulty else Laplace(epsilon)
    return build


def _cdf_pair(faulty: bool):
    def build(epsilon: float, delta: float, n: int | None = None, successes: int = 0) -> CdfPair:
        """CDFs of ``(1/m) sum + Lap(scale)`` on two neighbouring episodes (``m = n``, default
        1): ``Lap(0, b)`` and ``Lap(1/m, b)``; density bound ``1/(2 b)``."""
        from dpaudit.validation import check_epsilon, check_int

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


def _spec(faulty: bool) -> AuditSpec:
    suffix = "-faulty" if faulty else ""
    scale = "1/((j-i+1) eps)" if faulty else "1/((j-i) eps)"
    return AuditSpec(
        name=f"laplace{suffix}",
        description=("Laplace mechanism on an episode mean (seed 000 Lemma 1), noise " + scale
                     + (" -- deliberately mis-calibrated" if faulty else "")),
        paper=PAPER,
        claims=[
            ClaimSpec("lemma1-ratio-symbolic", Notion.GLOBAL,
                      f"(1/(j-i)) sum_(t=i)^j r_t + Lap({scale}) is eps-DP for every episode",
                      "seed 000 Lemma 1", _symbolic(faulty)),
            ClaimSpec("lemma1-exact-loss", Notion.GLOBAL,
                      "the exact privacy loss of one episode mean is at most eps",
                      "seed 000 Lemma 1; closed-form Laplace privacy curve", _exact(faulty)),
        ],
        findings=[FindingSpec("privacy-curve", _curve(faulty))],
        default_epsilon=1.0, default_delta=0.0, faulty=faulty, mechanism=_mechanism(faulty),
    )


AUDITS = [_spec(False), _spec(True)]
