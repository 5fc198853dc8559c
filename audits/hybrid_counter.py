"""``check hybrid-counter``: the hybrid continual counter of seed 001, by counting nodes.

Tossou & Dimitrakakis (seed 001), Sec. 2.3, after Chan, Shi & Song 2011: a logarithmic
mechanism at powers of two (``Lap(1/eps_log)`` per block sum) plus a binary tree inside each
block (node scale ``k/eps_bin`` in block ``k``), with ``eps_log = eps_bin = eps/2``
(REFERENCE 4.2). Each element is in exactly one block sum and in at most ``k`` used nodes of
its block's tree (the tree answers relative times ``1 .. 2^k - 1``), so the loss is
``eps/2 + k (eps/2)/k = eps``. ``node-count-exact`` enumerates this for the horizon;
``composition-symbolic`` proves it for every block ``k``.

The faulty variant gives both halves the full ``eps`` (no budget split): loss ``2 eps``.
"""

from __future__ import annotations

import math

import sympy as sp

from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec
from dpaudit.evidence import ExactEvidence, ProofEvidence
from dpaudit.exact import laplace_composition_delta
from dpaudit.mechanisms.counting import HybridCounter
from dpaudit.results import Notion
from dpaudit.symbolic import Domain, Obligation, prove

HORIZON = Budget(full=10**5, quick=4096)


def _exact(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
        horizon = ctx.size(HORIZON)
        c = HybridCounter(ctx.epsilon, horizon, faulty_no_split=faulty)
        eps, t = c.epsilon_exact()
        coords = 1 + horizon.bit_length()  # one block sum and at most log2 T + 1 tree nodes
        return ExactEvidence(laplace_composition_delta(eps, coords, ctx.epsilon), 0.0,
                             epsilon_at_delta=eps, details=(
            f"T = {horizon}, {len(c.blocks())} blocks; eps_log = {c.eps_log:g}, "
            f"eps_bin = {c.eps_bin:g}",
            f"exact loss = max_t (1/scale_log + nodes(t)/scale_bin) = {eps:.12g} at t = {t} "
            f"(claim {ctx.epsilon:g}); delta at the claimed epsilon: 0 if the loss is within "
            "it, else the lower bound of dpaudit.exact.laplace_composition_delta"))
    return evaluate


def _symbolic(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
        k = sp.Symbol("k", positive=True, integer=True)
        eps = sp.Symbol("epsilon", positive=True)
        e_log, e_bin = (eps, eps) if faulty else (eps / 2, eps / 2)
        obligations = [Obligation("block_k", e_log + k * (e_bin / k) - eps, "<=",
                                  display="1/scale_log + k / scale_bin <= eps in block k")]
        proof = prove(obligations, {k: Domain(1.0, math.inf, (1.0, 5.0)),
                                    eps: Domain(0.0, math.inf, (1.0,))},
                      ("scale_log = 1/eps_log, scale_bin(k) = k/eps_bin",
                       f"eps_log = {sp.sstr(e_log)}, eps_bin = {sp.sstr(e_bin)}",
                       "an element is in one block sum and <= k nodes of block k's tree"))
        # the vector Laplace loss is exactly this sum: the condition is also necessary
        return ProofEvidence(proof, necessary=True)
    return evaluate


def _spec(faulty: bool) -> AuditSpec:
    return AuditSpec(
        name="hybrid-counter-faulty" if faulty else "hybrid-counter",
        description="hybrid continual counter (seed 001 Sec. 2.3; DP-UCB, DP-UCB-Bound)"
                    + (" without the eps/2 split (deliberately broken)" if faulty else ""),
        paper="Tossou & Dimitrakakis 2016 (seed 001); Chan, Shi & Song 2011",
        claims=[
            ClaimSpec("node-count-exact", Notion.GLOBAL,
                      "releasing every prefix sum with the hybrid mechanism is eps-DP",
                      "seed 001 Sec. 2.3", _exact(faulty)),
            ClaimSpec("composition-symbolic", Notion.GLOBAL,
                      "per block, log part + binary part compose to eps",
                      "Chan, Shi & Song 2011, hybrid mechanism", _symbolic(faulty)),
        ],
        default_epsilon=1.0, default_delta=0.0, faulty=faulty,
    )


AUDITS = [_spec(False), _spec(True)]
