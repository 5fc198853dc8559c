"""``check tree-counter``: the binary-tree continual counter's privacy, by counting nodes.

Azize & Basu 2022 (Sec. 1, related work) and Tossou & Dimitrakakis 2016 describe the tree mechanism
used by DP-UCB and
Private-UCB: Laplace noise on every node of a binary tree over the stream, each release the
sum of ``O(log T)`` nodes. One changed stream element (by at most 1) changes every node that
contains it, so the exact privacy loss of all releases together is
``max_t (#used nodes containing t) / scale`` (vector Laplace mechanism; the releases are
post-processing of the noisy nodes). See :mod:`dpaudit.mechanisms.counting`.

Claims: ``node-count-exact`` enumerates, for the horizon ``T``, the used nodes containing each
``t`` and compares the resulting epsilon with the claim; ``levels-symbolic`` proves for every
``k`` that a horizon ``T < 2^k`` touches at most ``k`` nodes, so ``scale = k/eps`` suffices.

The broken twin (:class:`CeilLog2Levels`) uses the common ``L = ceil(log2 T)`` at ``T = 2^10``,
where element 1 is in
``log2 T + 1 = 11`` used nodes: the true loss is ``11/10 eps``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import sympy as sp

from dpaudit.engine import AuditSpec, CheckContext, ClaimSpec
from dpaudit.exact.loss import laplace_composition_delta
from dpaudit.exact.symbolic import Domain, Obligation, prove
from dpaudit.mechanisms.counting import BinaryTreeCounter, tree_nodes_touched
from dpaudit.stats.evidence import ExactEvidence, ProofEvidence
from dpaudit.stats.results import Notion


@dataclass(frozen=True)
class Levels:
    """Node scale L/eps with L = floor(log2 T) + 1, the number of levels an element touches."""

    ceil_log2: bool = False
    horizon: int = 1000


@dataclass(frozen=True)
class CeilLog2Levels(Levels):
    """Uses the common L = ceil(log2 T) at T = 2^10, where element 1 is in log2 T + 1 = 11 used
    nodes: the true loss is 11/10 eps.

    True loss at the default eps = 1: every node gets ``Lap(L/eps)`` with ``L = 10``; element
    1 lies in the 11 nodes ``[1, 2^j]``, ``j = 0..10``, each of sensitivity 1 (loss
    ``eps/10``), and no element lies in more: ``11 eps/10`` = 1.1 (``tree-counter-ceil-log2``).
    """

    ceil_log2: bool = True
    horizon: int = 1024


def _counter(ctx: CheckContext) -> BinaryTreeCounter:
    return BinaryTreeCounter(ctx.epsilon, ctx.variant.horizon,
                             levels="ceil_log2" if ctx.variant.ceil_log2 else "exact")


def _exact(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
    c = _counter(ctx)
    eps, t = c.epsilon_exact()
    touched = tree_nodes_touched(c.horizon)
    delta = laplace_composition_delta(eps, int(touched.max()), ctx.epsilon)
    return ExactEvidence(float(delta.value), float(delta.error), epsilon_at_delta=eps, details=(
        f"T = {c.horizon}; node scale L/eps with L = {c.levels} "
        f"({'ceil(log2 T)' if ctx.variant.ceil_log2 else 'floor(log2 T) + 1'})",
        f"used nodes containing an element: max {touched.max()} (at t = {t}), "
        f"min {touched.min()}",
        f"exact loss = max nodes / scale = {eps:.12g} (claim {ctx.epsilon:g}); delta at "
        "the claimed epsilon: 0 if the loss is within it, else the lower bound of "
        "dpaudit.exact.loss.laplace_composition_delta"),
        data={"levels": c.levels, "max_nodes": int(touched.max())})


def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    k, eps = sp.Symbol("k", positive=True, integer=True), sp.Symbol("epsilon", positive=True)
    # an element lies in one node per level j with 2^j <= T < 2^k, i.e. j = 0..k-1
    nodes = sp.summation(1, (sp.Symbol("j", integer=True, nonnegative=True), 0, k - 1))
    obligations = [Obligation("composition", nodes * (eps / k) - eps, "<=",
                              display="(#levels j with 2^j <= T) * (1/scale) <= eps, "
                                      "scale = k/eps, T < 2^k")]
    proof = prove(obligations, {k: Domain(1.0, math.inf, (1.0, 10.0), "tree depth: T < 2^k, "
                                          "levels j = 0..k-1"),
                                eps: Domain(0.0, math.inf, (1.0,), "claimed privacy loss")},
                  ("T < 2^k: levels j = 0..k-1, one node per level contains t",
                   "vector Laplace: loss = sum over touched nodes of 1/scale"))
    return ProofEvidence(proof, necessary=True)  # the loss is exactly this sum


EXACT_CLAIM = ClaimSpec("node-count-exact", Notion.GLOBAL,
                        "releasing all prefix sums with Lap(L/eps) per tree node is eps-DP",
                        "Chan, Shi & Song 2011 (the tree mechanism of DP-UCB)", _exact)
TREE = AuditSpec(
    name="tree-counter",
    description="binary-tree continual counter (DP-UCB / Private-UCB)",
    paper="Chan, Shi & Song 2011; Tossou & Dimitrakakis 2016",
    claims=[EXACT_CLAIM,
            ClaimSpec("levels-symbolic", Notion.GLOBAL,
                      "k levels suffice for every horizon T < 2^k",
                      "Chan, Shi & Song 2011, Binary mechanism", _symbolic)],
    default_epsilon=1.0, default_delta=0.0, variant=Levels(),
)

# the symbolic claim is about the correct level count; the twin keeps the exact claim only
_CEIL_LOG2 = TREE.twin(CeilLog2Levels(), claims=[EXACT_CLAIM], bug="ceil-log2",
                       true_epsilon=11.0 / 10.0)
# tree-counter-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [TREE, _CEIL_LOG2, replace(_CEIL_LOG2, name="tree-counter-faulty")]
