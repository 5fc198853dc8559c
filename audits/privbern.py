"""``check privbern``: PrivBern's likelihood ratio is exactly ``e^eps`` (seed 002, Lemma 2.1).

PrivBern(eps) (seed 002 Def. 2.1 after Ren et al. 2020 Lemma 5; reconstruction in
:mod:`dpaudit.mechanisms.privbern`) outputs ``Y ~ Bernoulli(p(r))`` with
``p(r) = (r (e^eps - 1) + 1)/(e^eps + 1)`` for a reward ``r in [0, 1]``. Proof, each step an
obligation: ``p`` is increasing in ``r`` (so for both outputs the extreme ratio is attained at
``(r, r') = (1, 0)``), ``p(1)/p(0) = e^eps`` and ``(1 - p(0))/(1 - p(1)) = e^eps``; hence the
likelihood ratio of the two outputs is at most ``e^eps``, with equality: eps-LDP, tight.
The exact claim computes the discrete privacy loss of the issue-3 ``PrivBern`` class on a grid
of reward pairs. The faulty variant (``FaultyPrivBernMislabelled``) uses ``e^(2 eps)``.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec
from dpaudit.evidence import ExactEvidence, ProofEvidence
from dpaudit.exact import discrete_epsilon, discrete_hockey_stick
from dpaudit.mechanisms import PrivBern
from dpaudit.mechanisms._faulty import FaultyPrivBernMislabelled
from dpaudit.results import Notion
from dpaudit.symbolic import Domain, Obligation, prove

_R = sp.Symbol("r", nonnegative=True)
_EPS = sp.Symbol("epsilon", positive=True)
GRID = Budget(full=21, quick=6)  # rewards r in a uniform grid of [0, 1]


def _p(r: sp.Expr, faulty: bool) -> sp.Expr:
    c = sp.exp(2 * _EPS) if faulty else sp.exp(_EPS)  # the calibration exponent in use
    return (r * (c - 1) + 1) / (c + 1)


def _symbolic(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
        p = _p(_R, faulty)
        obligations = [
            Obligation("p_increasing_in_r", -sp.diff(p, _R), "<",
                       display="d p(r)/dr > 0 (the extreme pair (1, 0) is the worst)"),
            Obligation("ratio_output_one", p.subs(_R, 1) / p.subs(_R, 0) - sp.exp(_EPS), "==",
                       display="P(Y=1 | r=1) / P(Y=1 | r=0) = e^eps"),
            Obligation("ratio_output_zero",
                       (1 - p.subs(_R, 0)) / (1 - p.subs(_R, 1)) - sp.exp(_EPS), "==",
                       display="P(Y=0 | r=0) / P(Y=0 | r=1) = e^eps"),
        ]
        domain = {_R: Domain(0.0, 1.0, (0.5,)), _EPS: Domain(0.0, math.inf, (1.0, 0.1))}
        proof = prove(obligations, domain, ("r in [0, 1]", "epsilon > 0",
                                            "p(r) = " + sp.sstr(p)))
        # sufficient: the equalities state the calibration; a ratio below e^eps is also private
        return ProofEvidence(proof)
    return evaluate


def _exact(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
        mech = (FaultyPrivBernMislabelled if faulty else PrivBern)(ctx.epsilon)
        grid = np.linspace(0.0, 1.0, ctx.size(GRID))
        probs = mech.output_probabilities(grid)
        worst, pair, delta = 0.0, (0.0, 0.0), 0.0
        for i in range(grid.size):
            for j in range(grid.size):
                delta = max(delta, discrete_hockey_stick(probs[i], probs[j], ctx.epsilon))
                e = discrete_epsilon(probs[i], probs[j], ctx.delta)
                if e > worst:
                    worst, pair = e, (float(grid[i]), float(grid[j]))
        return ExactEvidence(delta, 0.0, epsilon_at_delta=worst, details=(
            f"exact discrete loss over {grid.size}^2 reward pairs: max {worst:.12g} at "
            f"(r, r') = {pair} (claim {ctx.epsilon:g})",))
    return evaluate


def _mechanism(faulty: bool):
    def build(epsilon: float, delta: float) -> PrivBern:
        """The black-box object of ``audit privbern`` (pure DP: ``delta`` is not used)."""
        return (FaultyPrivBernMislabelled if faulty else PrivBern)(epsilon)
    return build


def _spec(faulty: bool) -> AuditSpec:
    return AuditSpec(
        name="privbern-faulty" if faulty else "privbern",
        description="PrivBern reward privatiser (seed 002 Def. 2.1)"
                    + (" using e^(2 eps) -- deliberately mislabelled" if faulty else ""),
        paper="Locally Differentially Private Thresholding Bandits (seed 002), Lemma 2.1",
        claims=[
            ClaimSpec("likelihood-ratio-symbolic", Notion.LDP,
                      "the likelihood ratio of PrivBern's two outputs is at most e^eps "
                      "(exactly e^eps at r, r' = 1, 0)", "seed 002 Lemma 2.1, App. A",
                      _symbolic(faulty)),
            ClaimSpec("exact-loss", Notion.LDP, "PrivBern is eps-LDP (exact discrete loss)",
                      "seed 002 Lemma 2.1", _exact(faulty)),
        ],
        default_epsilon=1.0, default_delta=0.0, faulty=faulty,
        mechanism=_mechanism(faulty),
    )


AUDITS = [_spec(False), _spec(True)]
