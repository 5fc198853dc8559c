"""``check tree-counter``: the binary-tree continual counter's privacy, by counting nodes.

Seed 000 (Sec. 1, related work) and seed 001 describe the tree mechanism used by DP-UCB and
Private-UCB: Laplace noise on every node of a binary tree over the stream, each release the
sum of ``O(log T)`` nodes. One changed stream element (by at most 1) changes every node that
contains it, so the exact privacy loss of all releases together is
``max_t (#used nodes containing t) / scale`` (vector Laplace mechanism; the releases are
post-processing of the noisy nodes). See :mod:`dpaudit.mechanisms.counting`.

Claims: ``node-count-exact`` enumerates, for the horizon ``T``, the used nodes containing each
``t`` and compares the resulting epsilon with the claim; ``levels-symbolic`` proves for every
``k`` that a horizon ``T < 2^k`` touches at most ``k`` nodes, so ``scale = k/eps`` suffices.

The faulty variant uses the common ``L = ceil(log2 T)`` at ``T = 2^10``, where element 1 is in
``log2 T + 1 = 11`` used nodes: the true loss is ``11/10 eps``.
"""

from __future__ import annotations

import math

import sympy as sp

from dpaudit.engine import AuditSpec, CheckContext, ClaimSpec
from dpaudit.evidence import ExactEvidence, ProofEvidence
from dpaudit.exact import laplace_composition_delta
from dpaudit.mechanisms.counting import BinaryTreeCounter, tree_nodes_touched
from dpaudit.results import Notion
from dpaudit.symbolic import Domain, Obligation, prove

DEFAULT_HORIZON = 1000
FAULTY_HORIZON = 1024


def _counter(ctx: CheckContext, faulty: bool) -> BinaryTreeCounter:
    horizon = FAULTY_HORIZON if faulty else DEFAULT_HORIZON
    return BinaryTreeCounter(ctx.epsilon, horizon, levels="ceil_log2" if faulty else "exact")


def _exact(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
        c = _counter(ctx, faulty)
        eps, t = c.epsilon_exact()
        touched = tree_nodes_touched(c.horizon)
        delta = laplace_composition_delta(eps, int(touched.max()), ctx.epsilon)
        return ExactEvidence(delta, 0.0, epsilon_at_delta=eps, details=(
            f"T = {c.horizon}; node scale L/eps with L = {c.levels} "
            f"({'ceil(log2 T)' if faulty else 'floor(log2 T) + 1'})",
            f"used nodes containing an element: max {touched.max()} (at t = {t}), "
            f"min {touched.min()}",
            f"exact loss = max nodes / scale = {eps:.12g} (claim {ctx.epsilon:g}); delta at "
            "the claimed epsilon: 0 if the loss is within it, else the lower bound of "
            "dpaudit.exact.laplace_composition_delta"),
            data={"levels": c.levels, "max_nodes": int(touched.max())})
    return evaluate


def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    k, eps = sp.Symbol("k", positive=True, integer=True), sp.Symbol("epsilon", positive=True)
    # an element lies in one node per level j with 2^j <= T < 2^k, i.e. j = 0..k-1
    nodes = sp.summation(1, (sp.Symbol("j", integer=True, nonnegative=True), 0, k - 1))
    obligations = [Obligation("composition", nodes * (eps / k) - eps, "<=",
                              display="(#levels j with 2^j <= T) * (1/scale) <= eps, "
                                      "scale = k/eps, T < 2^k")]
    proof = prove(obligations, {k: Domain(1.0, math.inf, (1.0, 10.0)),
                                eps: Domain(0.0, math.inf, (1.0,))},
                  ("T < 2^k: levels j = 0..k-1, one node per level contains t",
                   "vector Laplace: loss = sum over touched nodes of 1/scale"))
    return ProofEvidence(proof, necessary=True)  # the loss is exactly this sum


def _spec(faulty: bool) -> AuditSpec:
    claims = [ClaimSpec("node-count-exact", Notion.GLOBAL,
                        "releasing all prefix sums with Lap(L/eps) per tree node is eps-DP",
                        "seed 000 Sec. 1 (tree mechanism); Chan, Shi & Song 2011",
                        _exact(faulty))]
    if not faulty:
        claims.append(ClaimSpec("levels-symbolic", Notion.GLOBAL,
                                "k levels suffice for every horizon T < 2^k",
                                "Chan, Shi & Song 2011, Binary mechanism", _symbolic))
    return AuditSpec(
        name="tree-counter-faulty" if faulty else "tree-counter",
        description="binary-tree continual counter (DP-UCB / Private-UCB)"
                    + (": L = ceil(log2 T) at T = 1024 (deliberately off by one)"
                       if faulty else ""),
        paper="Chan, Shi & Song 2011; seeds 000 and 001", claims=claims,
        default_epsilon=1.0, default_delta=0.0, faulty=faulty,
    )


AUDITS = [_spec(False), _spec(True)]
