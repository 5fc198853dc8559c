"""Symbolic counter claims shared by ``dp-ucb-bound``, ``dp-ucb`` and ``private-ucb``.

The loss of a counter's releases when one stream element changes by at most 1 is, by the
vector Laplace mechanism, exactly the sum of ``1/scale`` over the released nodes containing
that element, so "the maximum of that sum is at most eps" is necessary and sufficient; the
prover decides it for every block ``k`` (hybrid) or every horizon ``2^k <= T < 2^(k+1)``
(tree) at once.
"""

from __future__ import annotations

import math

import sympy as sp

from dpaudit.engine import CheckContext, ClaimSpec
from dpaudit.exact.symbolic import Domain, Obligation, prove
from dpaudit.stats.evidence import ProofEvidence

K = sp.Symbol("k", positive=True, integer=True)
EPS = sp.Symbol("epsilon", positive=True)
SPLIT = sp.Symbol("s", positive=True)
J = sp.Symbol("j", integer=True, nonnegative=True)


def hybrid_symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    """Element of block ``k`` (``2^k < t <= 2^(k+1)``): its block sum ``Lap(1/(s eps))`` plus
    at most ``k`` nodes of the block tree (relative times ``1 .. 2^k - 1``, levels ``j`` with
    ``2^j <= 2^k - 1``) of scale ``k/((1-s) eps)``; element 1: one log release only."""
    nodes = sp.summation(1, (J, 0, K - 1))
    obligations = [
        Obligation("block_k", SPLIT * EPS + nodes * ((1 - SPLIT) * EPS / K) - EPS, "<=",
                   display="s eps + (#levels of block k's tree) (1-s) eps / k <= eps"),
        Obligation("element_1", SPLIT * EPS - EPS, "<=", display="s eps <= eps"),
    ]
    proof = prove(obligations, {K: Domain(1.0, math.inf, (1.0, 10.0), "index of the block "
                                          "holding the element, 2^k < t <= 2^(k+1)"),
                                EPS: Domain(0.0, math.inf, (ctx.epsilon,), "claimed privacy "
                                            "loss"),
                                SPLIT: Domain(0.0, 1.0, (0.5,), "share of epsilon given to "
                                              "the logarithmic counter")},
                  ("hybrid counter: eps_log = s eps, eps_bin = (1 - s) eps, 0 < s < 1",
                   "one changed reward changes one element of one arm's stream (Thm 3.1)",
                   "vector Laplace: loss = sum over touched released nodes of 1/scale"))
    return ProofEvidence(proof, necessary=True)


def tree_symbolic(levels: str):
    """Element 1 of a tree over ``T`` with ``2^k <= T < 2^(k+1)`` lies in ``k + 1`` released
    nodes (levels ``0..k``), each ``Lap(L/eps)``; ``L = k + 1`` (``"exact"``) or, at
    ``T = 2^k``, ``L = ceil(log2 T) = k`` (``"ceil_log2"``)."""

    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
        nodes = sp.summation(1, (J, 0, K))
        big_l = K + 1 if levels == "exact" else K
        obligations = [Obligation(
            "element_1", nodes * EPS / big_l - EPS, "<=",
            display=f"(#levels j <= k) * eps / L <= eps, L = {sp.sstr(big_l)}")]
        proof = prove(obligations, {K: Domain(1.0, math.inf, (1.0, 10.0), "tree depth, "
                                              "2^k <= T < 2^(k+1)"),
                                    EPS: Domain(0.0, math.inf, (ctx.epsilon,), "claimed "
                                                "privacy loss")},
                      ("2^k <= T < 2^(k+1)" if levels == "exact" else "T = 2^k",
                       "node noise Lap(L/eps); element 1 lies in the node of every level",
                       "vector Laplace: loss = sum over touched released nodes of 1/scale"))
        return ProofEvidence(proof, necessary=True)

    return evaluate
