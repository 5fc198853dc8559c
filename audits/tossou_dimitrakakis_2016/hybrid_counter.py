"""``check hybrid-counter``: the hybrid continual counter of Tossou & Dimitrakakis 2016, by counting
nodes.

Tossou & Dimitrakakis, Sec. 2.3, after Chan, Shi & Song 2011: a logarithmic
mechanism at powers of two (``Lap(1/eps_log)`` per block sum) plus a binary tree inside each
block (node scale ``k/eps_bin`` in block ``k``), with ``eps_log = eps_bin = eps/2``
(REFERENCE 4.2). Each element is in exactly one block sum and in at most ``k`` used nodes of
its block's tree (the tree answers relative times ``1 .. 2^k - 1``), so the loss is
``eps/2 + k (eps/2)/k = eps``. ``node-count-exact`` enumerates this for the horizon;
``composition-symbolic`` proves it for every block ``k``.

The broken twin (:class:`NoSplit`) gives both halves the full ``eps`` (no budget split):
loss ``2 eps``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import sympy as sp

from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec
from dpaudit.exact.loss import laplace_composition_delta
from dpaudit.exact.symbolic import Domain, Obligation, prove
from dpaudit.mechanisms.counting import HybridCounter
from dpaudit.stats.evidence import ExactEvidence, ProofEvidence
from dpaudit.stats.results import Notion

HORIZON = Budget(full=10**5, quick=4096)

@dataclass(frozen=True)
class Split:
    """eps_log = eps_bin = eps/2 (Tossou & Dimitrakakis 2016, Sec. 2.3)."""

    no_split: bool = False


@dataclass(frozen=True)
class NoSplit(Split):
    """Gives both the logarithmic and the binary part the full eps (no budget split): the
    loss is 2 eps.

    True loss at the default eps = 1: an element lies in one node of the logarithmic part
    (``1/scale = eps``) and in the nodes of its block's tree, the block of the element 3 being
    of size 1 (one node, ``1/scale = eps``); no element costs more than the two parts'
    budgets together: ``2 eps`` = 2 (``hybrid-counter-no-split``).
    """

    no_split: bool = True


def _exact(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
    horizon = ctx.size(HORIZON)
    c = HybridCounter(ctx.epsilon, horizon, faulty_no_split=ctx.variant.no_split)
    eps, t = c.epsilon_exact()
    coords = 1 + horizon.bit_length()  # one block sum and at most log2 T + 1 tree nodes
    delta = laplace_composition_delta(eps, coords, ctx.epsilon)
    return ExactEvidence(float(delta.value), float(delta.error),
                         epsilon_at_delta=eps, details=(
        f"T = {horizon}, {len(c.blocks())} blocks; eps_log = {c.eps_log:g}, "
        f"eps_bin = {c.eps_bin:g}",
        f"exact loss = max_t (1/scale_log + nodes(t)/scale_bin) = {eps:.12g} at t = {t} "
        f"(claim {ctx.epsilon:g}); delta at the claimed epsilon: 0 if the loss is within "
        "it, else the lower bound of dpaudit.exact.loss.laplace_composition_delta"))


def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    k = sp.Symbol("k", positive=True, integer=True)
    eps = sp.Symbol("epsilon", positive=True)
    e_log, e_bin = (eps, eps) if ctx.variant.no_split else (eps / 2, eps / 2)
    obligations = [Obligation("block_k", e_log + k * (e_bin / k) - eps, "<=",
                              display="1/scale_log + k / scale_bin <= eps in block k")]
    proof = prove(obligations, {k: Domain(1.0, math.inf, (1.0, 5.0), "index of the block "
                                          "holding the element (its tree has scale k/eps_bin)"),
                                eps: Domain(0.0, math.inf, (1.0,), "claimed privacy loss")},
                  ("scale_log = 1/eps_log, scale_bin(k) = k/eps_bin",
                   f"eps_log = {sp.sstr(e_log)}, eps_bin = {sp.sstr(e_bin)}",
                   "an element is in one block sum and <= k nodes of block k's tree"))
    # the vector Laplace loss is exactly this sum: the condition is also necessary
    return ProofEvidence(proof, necessary=True)


HYBRID = AuditSpec(
    name="hybrid-counter",
    description="hybrid continual counter (Tossou & Dimitrakakis 2016, Sec. 2.3; DP-UCB, "
                "DP-UCB-Bound)",
    paper="Tossou & Dimitrakakis 2016; Chan, Shi & Song 2011",
    claims=[
        ClaimSpec("node-count-exact", Notion.GLOBAL,
                  "releasing every prefix sum with the hybrid mechanism is eps-DP",
                  "Tossou & Dimitrakakis 2016, Sec. 2.3", _exact),
        ClaimSpec("composition-symbolic", Notion.GLOBAL,
                  "per block, log part + binary part compose to eps",
                  "Chan, Shi & Song 2011, hybrid mechanism", _symbolic),
    ],
    default_epsilon=1.0, default_delta=0.0, variant=Split(),
)

_NO_SPLIT = HYBRID.twin(NoSplit(), bug="no-split", true_epsilon=2.0)
# hybrid-counter-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [HYBRID, _NO_SPLIT, replace(_NO_SPLIT, name="hybrid-counter-faulty")]
