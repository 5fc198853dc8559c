"""``check privbern``: PrivBern's likelihood ratio is exactly ``e^eps`` (Barbara, Lazzaro &
Pike-Burke 2025, Lemma 2.1).

PrivBern(eps) (Barbara, Lazzaro & Pike-Burke 2025 Def. 2.1 after Ren et al. 2020 Lemma 5;
reconstruction in
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
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp

from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec
from dpaudit.exact.loss import Bounded, discrete_epsilon, log_hockey_stick
from dpaudit.exact.symbolic import Domain, Obligation, prove
from dpaudit.mechanisms import PrivBern
from dpaudit.mechanisms._twins import FaultyPrivBernMislabelled
from dpaudit.stats.evidence import ExactEvidence, ProofEvidence
from dpaudit.stats.results import Notion

_R = sp.Symbol("r", nonnegative=True)
_EPS = sp.Symbol("epsilon", positive=True)
GRID = Budget(full=21, quick=6)  # rewards r in a uniform grid of [0, 1]


@dataclass(frozen=True)
class Calibrated:
    """PrivBern as specified: ``p(r) = (r (e^eps - 1) + 1)/(e^eps + 1)``."""

    mechanism: type = PrivBern
    exponent: int = 1  # p(r) uses e^(exponent * eps)

    def p(self, r: sp.Expr) -> sp.Expr:
        c = sp.exp(self.exponent * _EPS)
        return (r * (c - 1) + 1) / (c + 1)


@dataclass(frozen=True)
class Mislabelled(Calibrated):
    """PrivBern labelled eps but spending 2 eps: p(r) uses e^(2 eps), so the likelihood ratio
    at (r, r') = (1, 0) is e^(2 eps).

    True loss at the default eps = 1: ``p(r)`` is affine in ``r``, so the largest ratio of
    report probabilities over ``r, r' in [0, 1]`` is at ``(1, 0)``: ``e^(2 eps)`` for both
    reports, a loss of ``2 eps`` = 2 (``privbern-double-exponent``).
    """

    mechanism: type = FaultyPrivBernMislabelled
    exponent: int = 2


def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    p = ctx.variant.p(_R)
    obligations = [
        Obligation("p_increasing_in_r", -sp.diff(p, _R), "<",
                   display="d p(r)/dr > 0 (the extreme pair (1, 0) is the worst)"),
        Obligation("ratio_output_one", p.subs(_R, 1) / p.subs(_R, 0) - sp.exp(_EPS), "==",
                   display="P(Y=1 | r=1) / P(Y=1 | r=0) = e^eps"),
        Obligation("ratio_output_zero",
                   (1 - p.subs(_R, 0)) / (1 - p.subs(_R, 1)) - sp.exp(_EPS), "==",
                   display="P(Y=0 | r=0) / P(Y=0 | r=1) = e^eps"),
    ]
    domain = {_R: Domain(0.0, 1.0, (0.5,), "the user's reward"),
              _EPS: Domain(0.0, math.inf, (1.0, 0.1), "claimed local privacy loss")}
    proof = prove(obligations, domain, ("r in [0, 1]", "epsilon > 0",
                                        "p(r) = " + sp.sstr(p)))
    # sufficient: the equalities state the calibration; a ratio below e^eps is also private
    return ProofEvidence(proof)


def _exact(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
    mech = ctx.variant.mechanism(ctx.epsilon)
    grid = np.linspace(0.0, 1.0, ctx.size(GRID))
    logs = mech.log_output_probabilities(grid)  # log space: any epsilon, no underflow
    probs = np.exp(logs)
    worst, pair, delta = Bounded(0.0, 0.0), (0.0, 0.0), Bounded(0.0, 0.0)
    for i in range(grid.size):
        for j in range(grid.size):
            d = log_hockey_stick(logs[i], logs[j], ctx.epsilon)
            if d.value > delta.value or (d.value == delta.value and d.error > delta.error):
                delta = d
            e = (discrete_epsilon(probs[i], probs[j], ctx.delta) if ctx.delta > 0 else
                 Bounded(float(np.abs(logs[i] - logs[j]).max()), 0.0))
            if e.value > worst.value:
                worst, pair = e, (float(grid[i]), float(grid[j]))
    return ExactEvidence(float(delta.value), float(delta.error),
                         epsilon_at_delta=float(worst.value), details=(
        f"exact discrete loss over {grid.size}^2 reward pairs: max {worst.value:.12g} at "
        f"(r, r') = {pair} (claim {ctx.epsilon:g}); computed from log-probabilities",))


def _mechanism(faulty: bool):
    def build(epsilon: float, delta: float) -> PrivBern:
        """The black-box object of ``audit privbern`` (pure DP: ``delta`` is not used)."""
        return (FaultyPrivBernMislabelled if faulty else PrivBern)(epsilon)
    return build


PRIVBERN = AuditSpec(
    name="privbern",
    description="PrivBern reward privatiser (Def. 2.1 of the LDP thresholding-bandit paper)",
    paper="Locally Differentially Private Thresholding Bandits (Barbara, Lazzaro & "
          "Pike-Burke 2025), Lemma 2.1",
    claims=[
        ClaimSpec("likelihood-ratio-symbolic", Notion.LDP,
                  "the likelihood ratio of PrivBern's two outputs is at most e^eps "
                  "(exactly e^eps at r, r' = 1, 0)",
                  "Barbara, Lazzaro & Pike-Burke 2025 Lemma 2.1, App. A",
                  _symbolic),
        ClaimSpec("exact-loss", Notion.LDP, "PrivBern is eps-LDP (exact discrete loss)",
                  "Barbara, Lazzaro & Pike-Burke 2025 Lemma 2.1", _exact),
    ],
    default_epsilon=1.0, default_delta=0.0, variant=Calibrated(), mechanism=_mechanism(False),
)

_DOUBLE = PRIVBERN.twin(Mislabelled(), mechanism=_mechanism(True), bug="double-exponent",
                       true_epsilon=2.0)
# privbern-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [PRIVBERN, _DOUBLE, replace(_DOUBLE, name="privbern-faulty")]
