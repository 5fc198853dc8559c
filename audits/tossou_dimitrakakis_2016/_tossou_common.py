"""Shared recipe of the ``dp-ucb-bound``, ``dp-ucb``, ``private-ucb`` and ``dp-ucb-int`` audits.

Tossou & Dimitrakakis 2016, Definition 2.1: the input is the reward sequence, the output the
whole action sequence (global DP, as in Azize & Basu 2022, Definition 2). Every private
algorithm here is a deterministic function of (rewards, tie-break uniforms, the noise of its
private statistics), so its privacy follows from the statistics' mechanism. Each audit has:

* a claim on the mechanism, computed from the code's own node schedule
  (:func:`dpaudit.algorithms._counters.node_spans`): which nodes one changed reward touches,
  each node's cost ``1/scale`` and their sum, against the claim (:func:`counter_exact`), and a
  symbolic statement of the same composition for every block or horizon;
* a sampled global-DP claim on the action sequence at small ``T`` and ``K = 2``
  (:func:`sampled_claim`), whose lower bound is reported beside the claim;
* the regret on Fig. 6's two-arm instance (:func:`regret_run`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dpaudit.algorithms._counters import HYBRID, TREE, loss_per_element, node_spans
from dpaudit.algorithms.papers import TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS as FIG6_2
from dpaudit.audits.recipes.global_dp import global_dp_claim
from dpaudit.engine import Budget, CheckContext, ClaimSpec
from dpaudit.sim.bandits import BernoulliRewards, TableRewards
from dpaudit.sim.regret import summarise_regret
from dpaudit.stats.evidence import ExactEvidence, float_error_floor
from dpaudit.stats.results import RegretResult
from dpaudit.stats.sampled import SamplerPair

PAPER = "Tossou & Dimitrakakis 2016 (AAAI)"
FIG6_TWO_ARMS = FIG6_2.means
#: the horizon of Fig. 6 is stripped in the extracted text; the public re-implementations
#: use 10^5, and so do we (stated wherever it is used)
FIG6_HORIZON = 10**5
#: budgets (full run, --quick): the stream length of the exact counter claims, and the regret
#: experiment's horizon and runs on Fig. 6's two-arm instance
STREAM_HORIZON = Budget(full=10**5, quick=4096)
REGRET_HORIZON = Budget(full=FIG6_HORIZON, quick=10**4)
REGRET_RUNS = Budget(full=100, quick=20)


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
    return max(lower, 0.0), float(total.get_delta_for_epsilon(epsilon))


def stream_horizon(ctx: CheckContext, alg) -> int:
    """Stream length for the exact hybrid-counter claim of DP-UCB-Bound and DP-UCB:
    :data:`STREAM_HORIZON` elements (10^5; quick: 4096)."""
    return ctx.size(STREAM_HORIZON)


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


def ucb1_bound(means, horizon: int) -> float:
    """Auer, Cesa-Bianchi & Fischer 2002, Theorem 1 (UCB1):
    ``sum_{Delta>0} 8 ln T / Delta + (1 + pi^2/3) sum Delta``."""
    mu = np.asarray(means, dtype=float)
    gaps = mu.max() - mu
    gaps = gaps[gaps > 0]
    return float(np.sum(8 * math.log(horizon) / gaps) + (1 + math.pi**2 / 3) * gaps.sum())


def regret_run(make_alg: Callable, *, bound_name: str, bound_of=None,
               extra: Callable | None = None):
    """Regret on Fig. 6's two-arm instance (0.9, 0.6): T = 10^5 and 100 runs (quick: 10^4
    and 20 runs); the horizon is the re-implementations' choice (the paper's is stripped)."""

    def run(ctx: CheckContext) -> RegretResult:
        horizon, runs = ctx.size(REGRET_HORIZON), ctx.size(REGRET_RUNS)
        alg = make_alg(ctx)
        cps = np.unique(np.round(np.geomspace(10, horizon, 12)).astype(np.int64))
        res = alg.simulate(BernoulliRewards(FIG6_TWO_ARMS), horizon, runs,
                           rng=ctx.rng("regret"), checkpoints=cps)
        bound = None if bound_of is None else bound_of(ctx, horizon)
        details = [f"horizon T = {horizon} (Fig. 6's is stripped; the public "
                   "re-implementations use 10^5)",
                   f"UCB1 bound (Auer et al. 2002, Thm 1) at T: "
                   f"{ucb1_bound(FIG6_TWO_ARMS, horizon):.1f}"]
        if extra is not None:
            details += extra(ctx, res, cps, horizon, runs)
        return summarise_regret(res.regret, instance=f"{FIG6_2.name}: {FIG6_2.means}",
                                algorithm=alg.name, horizon=horizon, bound=bound,
                                bound_name=bound_name, checkpoints=cps, curves=res.curve,
                                details=details, means=FIG6_TWO_ARMS)

    return run
