"""Continual-counter recipes (paper-neutral): exact, symbolic and sampled claims, regret.

For algorithms whose private statistics are continual counters (a binary tree, Chan, Shi &
Song 2011's hybrid counter) and whose output is the whole action sequence (global DP):

* the exact claim (:func:`counter_exact`): from the code's own node schedule
  (:func:`dpaudit.algorithms._counters.node_spans`), which nodes one changed reward touches,
  each node's cost ``1/scale`` and their sum, against the claim;
* symbolic statements of the same composition for every block (:func:`hybrid_symbolic`) or
  every horizon (:func:`tree_symbolic`): by the vector Laplace mechanism the loss of a
  counter's releases when one stream element changes by at most 1 is exactly the sum of
  ``1/scale`` over the released nodes containing it, so "the maximum of that sum is at most
  eps" is necessary and sufficient;
* a sampled global-DP claim on the action sequence at small ``T`` and ``K = 2``
  (:func:`sampled_claim`), neighbouring reward tables from :func:`table_pair`;
* the regret on a fixed Bernoulli instance (:func:`regret_run`), beside UCB1's bound.

Everything paper-specific (the instance, the budgets, the wording of the horizon's source)
is an argument; the paper packages bind it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import sympy as sp

from dpaudit.algorithms._bounds_common import ucb1_upper
from dpaudit.algorithms._counters import HYBRID, TREE, loss_per_element, node_spans
from dpaudit.audits.recipes.global_dp import global_dp_claim
from dpaudit.engine import Budget, CheckContext, ClaimSpec
from dpaudit.exact.symbolic import Domain, Obligation, prove
from dpaudit.sim.bandits import BernoulliRewards, TableRewards
from dpaudit.sim.regret import summarise_regret
from dpaudit.stats.evidence import ExactEvidence, ProofEvidence, float_error_floor
from dpaudit.stats.results import RegretResult
from dpaudit.stats.sampled import SamplerPair

__all__ = ["RUNS", "counter_exact", "counter_of", "default_pairs", "hybrid_symbolic",
           "regret_run", "sampled_claim", "table_pair", "tree_symbolic"]


def counter_of(alg) -> tuple[int, float, float, str]:
    """``(kind, p1, p2, description)`` of the per-arm counter of ``alg``."""
    if hasattr(alg, "eps_log"):
        return HYBRID, alg.eps_log, alg.eps_bin, (
            f"hybrid counter: Lap(1/eps_log) at powers of two, eps_log = {alg.eps_log:g}; "
            f"block-k tree nodes Lap(k/eps_bin), eps_bin = {alg.eps_bin:g}")
    return TREE, alg.node_scale, 0.0, (
        f"binary tree over T = {alg.horizon}: node noise Lap(L/eps), L = {alg.n_levels} "
        f"({alg.levels})")


def _laplace_composition_delta(invs: np.ndarray, epsilon: float) -> tuple[float, float]:
    """``(lower, upper)`` bounds on ``delta(epsilon)`` of Laplace nodes with costs ``invs``.

    Lower: on the event "every node's noise is <= 0" (probability ``2^-m`` under one input and
    ``2^-m e^-eps_true`` under the other) the hockey-stick divergence is at least
    ``2^-m (1 - e^(eps - eps_true))``. Upper: dp-accounting's pessimistic PLD.
    """
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    eps_true = float(np.sum(invs))
    lower = 2.0 ** (-invs.size) * -math.expm1(epsilon - eps_true)
    total = None
    for inv in invs:
        one = pldlib.from_laplace_mechanism(1.0 / float(inv), sensitivity=1.0,
                                            value_discretization_interval=1e-5)
        total = one if total is None else total.compose(one)
    if total is None:
        raise ValueError("no release to compose")
    return max(lower, 0.0), float(total.get_delta_for_epsilon(epsilon))


def counter_exact(make_alg: Callable, horizon_of: Callable[[CheckContext, object], int]):
    """The exact claim: max over stream elements of ``sum 1/scale`` over touched nodes."""

    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
        alg = make_alg(ctx)
        horizon = horizon_of(ctx, alg)
        kind, p1, p2, desc = counter_of(alg)
        loss = loss_per_element(kind, horizon, p1, p2)
        worst = int(np.argmax(loss)) + 1
        first, last, inv = node_spans(kind, horizon, p1, p2)
        touched = (first <= worst) & (worst <= last)
        invs = inv[touched]
        eps_true = float(loss.max())
        tol = 1e-12 * max(1.0, ctx.epsilon)
        details = [desc, f"stream of T = {horizon} elements (the arm's counter); one changed "
                   "reward changes one element of one arm's stream by at most 1",
                   f"worst element t = {worst} lies in {int(touched.sum())} released nodes at "
                   f"positions {np.flatnonzero(touched)[:12] + 1}"
                   f"{' ...' if touched.sum() > 12 else ''}, costs 1/scale = "
                   f"{sorted(set(np.round(invs, 12)))}",
                   f"exact pure-DP loss (vector Laplace) = {eps_true:.12g} vs claim "
                   f"{ctx.epsilon:g}"]
        if eps_true <= ctx.epsilon + tol:
            ev = ExactEvidence(0.0, float_error_floor(eps_true, ctx.epsilon), eps_true,
                               tuple(details), {"epsilon_exact": eps_true, "worst_t": worst})
        else:
            lo, hi = _laplace_composition_delta(invs, ctx.epsilon)
            details.append(f"delta(eps = {ctx.epsilon:g}) in [{lo:.4g}, {hi:.4g}] (lower: the "
                           "all-noises-negative event; upper: pessimistic PLD)")
            ev = ExactEvidence((lo + hi) / 2, (hi - lo) / 2, eps_true, tuple(details),
                               {"epsilon_exact": eps_true, "worst_t": worst})
        return ev

    return evaluate


def _sampler(alg, table: TableRewards, horizon: int, prefix: int):
    def sample(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        res = alg.simulate(table, horizon, n, rng=rng, record=True)
        return {"action sequence": res.actions[:, prefix:], "pulls of arm 0": res.counts[:, 0]}
    return sample


def table_pair(horizon: int, step: int, base_rows: np.ndarray, changed_row: np.ndarray,
               label: str, alg, *, prefix: int = 0) -> SamplerPair:
    """Two ``(T, K)`` 0/1 reward tables that differ at 1-based ``step`` (Definition 2.1).

    ``prefix``: leading steps whose actions do not depend on the data (a round robin); the
    "action sequence" summary drops them (they carry no information) so rows stay short."""
    base = np.array(base_rows, dtype=float)
    other = base.copy()
    other[step - 1] = changed_row
    return SamplerPair(label, _sampler(alg, TableRewards(base), horizon, prefix),
                       _sampler(alg, TableRewards(other), horizon, prefix))


def default_pairs(alg, horizon: int = 16) -> list[SamplerPair]:
    """K = 2: arm 0 earns 0, arm 1 earns 1. Step 1 (arm 0's first, round-robin pull) 0 -> 1
    enters arm 0's counter at element 1 (the most-covered element); step 3 (the first adaptive
    step) flips both rewards."""
    rows = np.tile([0.0, 1.0], (horizon, 1))
    return [
        table_pair(horizon, 1, rows, np.array([1.0, 1.0]),
                   f"pair 1: K=2, T={horizon}, arm 0 earns 0, arm 1 earns 1; step 1 rewards "
                   "(0, 1) vs (1, 1)", alg),
        table_pair(horizon, 3, rows, np.array([1.0, 0.0]),
                   "pair 2: same table; step 3 rewards (0, 1) vs (1, 0)", alg),
    ]


RUNS = Budget(full=400_000, quick=100_000)  # simulated runs per input of the audited pair


def sampled_claim(make_alg: Callable, pairs: Callable = default_pairs, runs: Budget = RUNS):
    """The sampled global-DP claim through the one engine; ``runs`` per input."""
    return global_dp_claim(lambda ctx: pairs(make_alg(ctx)), runs)


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


def regret_run(make_alg: Callable, *, means: Sequence[float], instance: str,
               horizon: Budget, runs: Budget, horizon_note: str, bound_name: str,
               bound_of: Callable | None = None, extra: Callable | None = None):
    """Regret of ``make_alg(ctx)`` on the Bernoulli instance ``means`` (labelled ``instance``)
    at ``ctx.size(horizon)`` steps and ``ctx.size(runs)`` runs, beside UCB1's bound.

    ``horizon_note`` says where the horizon comes from; ``bound_of(ctx, horizon)`` is the
    paper's bound (``None``: none); ``extra(ctx, res, cps, horizon, runs)`` adds detail lines.
    """
    means = tuple(float(m) for m in means)

    def run(ctx: CheckContext) -> RegretResult:
        t, n = ctx.size(horizon), ctx.size(runs)
        alg = make_alg(ctx)
        cps = np.unique(np.round(np.geomspace(10, t, 12)).astype(np.int64))
        res = alg.simulate(BernoulliRewards(means), t, n, rng=ctx.rng("regret"),
                           checkpoints=cps)
        bound = None if bound_of is None else bound_of(ctx, t)
        details = [f"horizon T = {t} ({horizon_note})",
                   f"UCB1 bound (Auer et al. 2002, Thm 1) at T: {ucb1_upper(means, t):.1f}"]
        if extra is not None:
            details += extra(ctx, res, cps, t, n)
        return summarise_regret(res.regret, instance=instance, algorithm=alg.name, horizon=t,
                                bound=bound, bound_name=bound_name,
                                checkpoints=[int(c) for c in cps],
                                curves=res.curve, details=details, means=means)

    return run
