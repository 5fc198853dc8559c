"""``check dp-ftpl-new``: Theorem 16 of Wang & Zhu 2023.

    Theorem 16. DP-FTPL-New protects (eps, delta)-differential privacy [Definition 1,
    per-step], and its regret satisfies
    Reg(T) <= sum_i max{16 log T / Delta_i,
                        (4/eps) log((T(e^eps-1)+2T delta)/(2(e^eps-1)+2T delta))} + 4N.

    Proof (privacy): Lemma 8 and Lemma 15.

Claims checked, strongest evidence first:

1. ``lemma15-conditions`` (symbolic): Lemma 15's (10)-(11), hence Lemma 8's CDF conditions,
   for symbolic ``N > 0, eps > 0, 0 < delta < 1`` and every shift ``|z| <= 1/N``.
2. ``next-action-exact`` (exact): the law of the next action computed by quadrature on
   neighbouring histories (one observation of one arm changed), searched for the worst case
   (small counts, arms close together); the hockey-stick divergence at the claimed ``eps``
   must be at most ``delta``.
3. ``next-action-sampled`` (sampled): the same worst pair attacked by sampling, with a
   Clopper-Pearson lower bound on epsilon (event chosen on a separate sample).
4. ``releases-sampled`` (sampled, observes releases): the perturbed scores the running code
   releases (recording hook) right after the first pulls, on sources that differ in arm 0's
   first observation (Lemma 15's shift 1/N at N = 1); see :mod:`._release`. Planted twins
   that only this claim sees are in :mod:`.twins`.

Finding (information only): the trajectory-level lower bound on two reward sequences that
differ at one step. Definition 1 is a per-step guarantee and promises nothing about the whole
action sequence.

Regret: Instance 1 of Section 8 (9 Bernoulli arms, means 0.30, 0.35, ..., 0.70), ``T = 10^5``
and 100 runs as in the paper (``--quick``: ``T = 10^4``, 20 runs), beside Theorem 16's bound.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np

from dpaudit.algorithms.wang_zhu_2023._twins import DPFTPLNewFaultyPerturbation
from dpaudit.algorithms.wang_zhu_2023.bounds import thm16_dp_ftpl_new_upper
from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew
from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_INSTANCE_1 as INSTANCE_1
from dpaudit.audits.wang_zhu_2023._release import release_claim
from dpaudit.audits.wang_zhu_2023.trajectory import (
    FTPL_NEW_TRAJECTORY,
    FTPL_NEW_TRAJECTORY_SAMPLED,
)
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.exact.loss import worst_pair_loss
from dpaudit.exact.symbolic import prove
from dpaudit.mechanisms.lemma15 import lemma15_proof_obligations
from dpaudit.runtime.parallel import map_chunks, map_items
from dpaudit.sim.regret import summarise_regret
from dpaudit.stats.blackbox import mechanism_pairs
from dpaudit.stats.evidence import ExactEvidence, ProofEvidence, SampledEvidence
from dpaudit.stats.results import Notion, RegretResult
from dpaudit.stats.sampled import AuditBudget, SamplerPair, sampled_audit
from dpaudit.usercode.notions import GlobalDPTarget, global_neighbour_pairs

PAPER = "Wang & Zhu 2023, DP-FTPL / GDP-Elim-New"
THEOREM_16 = "Theorem 16 (privacy via Lemma 8 and Lemma 15), Definition 1"

# neighbouring histories searched by the exact claim: the changed arm has a small count; the
# other arm's count and sum are varied so its sample sits anywhere around the changed arm's
CHANGED_COUNTS = (1, 2, 3, 5, 10)
OTHER_COUNTS = (1, 2, 3, 5, 10, 20, 50)
SEARCH_HORIZON = 10**5
NEXT_ACTIONS = Budget(full=2_200_000, quick=220_000)  # draws per history (select + measure)
REGRET = Budget(full=(INSTANCE_1.horizon, INSTANCE_1.runs), quick=(10**4, 20))  # (T, runs)
TRAJECTORY = Budget(full=(40, 300_000), quick=(20, 60_000))  # (horizon, runs per input)


def _algorithm(ctx: CheckContext, horizon: int) -> DPFTPLNew:
    """The audited variant (DP-FTPL-New or its broken twin) for the claim under test."""
    return ctx.variant(ctx.epsilon, ctx.delta, horizon)


def history_pairs(quick: bool) -> list[tuple[tuple, tuple]]:
    """Pairs of histories ``((sums, counts), (sums', counts))`` differing in one observation."""
    pairs = []
    changed = CHANGED_COUNTS[:3] if quick else CHANGED_COUNTS
    for n0 in changed:
        for r0 in range(n0):
            for n1 in OTHER_COUNTS:
                for r1 in np.unique(np.linspace(0, n1, min(n1 + 1, 11)).round()):
                    counts = (n0, n1)
                    pairs.append((((r0, float(r1)), counts), ((r0 + 1, float(r1)), counts)))
    return pairs


def _law_of(alg: DPFTPLNew, h: tuple) -> tuple[np.ndarray, float]:
    return alg.next_action_law(*h)


def worst_history_pair(ctx: CheckContext) -> dict:
    """The exact search of claim 2, shared with claim 3 within one check (no samples)."""
    def search() -> dict:
        alg = _algorithm(ctx, SEARCH_HORIZON)
        pairs = history_pairs(ctx.quick)
        # every distinct history's law once; independent quadratures, which share the
        # workers inside a scheduled check (map_items)
        distinct = list({repr(h): h for pair in pairs for h in pair}.values())
        laws = dict(zip((repr(h) for h in distinct),
                        map_items(partial(_law_of, alg), distinct), strict=True))
        return worst_pair_loss(pairs, lambda h: laws[repr(h)], epsilon=ctx.epsilon,
                               delta=ctx.delta)
    return ctx.shared("worst-history-pair", search)


# -- claim 1: symbolic -------------------------------------------------------------------
def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    if ctx.delta == 0.0 or ctx.epsilon == 0.0:
        regime = "laplace" if ctx.delta == 0.0 else "uniform"
    else:
        regime = "general"
    obligations, domain, assumptions = lemma15_proof_obligations(
        rate_multiplier=_algorithm(ctx, SEARCH_HORIZON).perturbation.rate_multiplier,
        regime=regime)
    proof = prove(obligations, domain, assumptions, seed=ctx.seed)
    return ProofEvidence(proof, details=(  # Lemma 15 -> Lemma 8 is sufficient
        f"regime: {regime} (Lemma 15 with "
        + {"general": "eps > 0, delta > 0", "laplace": "delta -> 0: Laplace",
           "uniform": "eps -> 0: uniform"}[regime] + ")",
        "hockey-stick <= delta for every shift |z| <= 1/N implies (10), (11) for all x < y, "
        "hence Lemma 8 (and Lemma 9)",
    ))


# -- claim 2: exact next-action law on the worst neighbouring histories found -------------
def _exact(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
    worst = worst_history_pair(ctx)
    (h, h_prime) = worst["pair"]
    div, err = float(worst["delta_at_epsilon"]), float(worst["error"])
    return ExactEvidence(
        div, err, epsilon_at_delta=float(worst["epsilon_at_delta"]), details=(
            f"searched {worst['evaluated']} neighbouring history pairs (T={SEARCH_HORIZON})",
            f"worst pair: sums {h[0]} vs {h_prime[0]}, counts {h[1]}",
            f"next-action law P={np.round(worst['p'], 6).tolist()} "
            f"P'={np.round(worst['q'], 6).tolist()}",
            f"exact epsilon at delta={ctx.delta:g}: {worst['epsilon_at_delta']:.6g}"),
        data={"worst_pair": {"sums": h[0], "sums_prime": h_prime[0], "counts": h[1]},
              "epsilon_at_delta": float(worst["epsilon_at_delta"]), "error": err})


# -- claim 3: sampled attack on the worst pair --------------------------------------------
def _sampled(ctx: CheckContext, spec: ClaimSpec) -> SampledEvidence:
    alg = _algorithm(ctx, SEARCH_HORIZON)
    # the pair is chosen by exact computation (no samples), so it cannot bias the bound
    h, h_prime = worst_history_pair(ctx)["pair"]
    pair = SamplerPair(f"histories: sums {h[0]} vs {h_prime[0]}, counts {h[1]} (the worst "
                       "pair of the exact search, chosen without samples)",
                       lambda m, g: alg.sample_next_actions(*h, m, g),
                       lambda m, g: alg.sample_next_actions(*h_prime, m, g))
    return sampled_audit([pair], delta=ctx.delta, alpha=ctx.alpha,
                         budget=AuditBudget(samples=ctx.size(NEXT_ACTIONS), tail_draws=None,
                                            selection_fraction=1 / 11),
                         seed=ctx.seed, key=f"claim:{spec.id}", n_outcomes=len(h[1]),
                         who="sample_next_actions", workers=ctx.workers)


# -- finding: the whole action sequence (global DP is not claimed) -------------------------
def _trajectory(ctx: CheckContext) -> SampledEvidence:
    horizon, samples = ctx.size(TRAJECTORY)
    alg = _algorithm(ctx, horizon)
    # Azize & Basu 2022, Definition 2: fixed reward sequences that differ at one step;
    # the heuristic pairs change an early step (0, K, 2K) to an extreme value
    target = GlobalDPTarget(alg, epsilon=ctx.epsilon, delta=ctx.delta,
                            neighbours=global_neighbour_pairs(horizon, 2))
    ev = sampled_audit(mechanism_pairs(target, target.neighbours), delta=ctx.delta,
                       alpha=ctx.alpha, budget=AuditBudget(samples=samples, tail_draws=None),
                       seed=ctx.seed, key="trajectory", who="simulate", workers=ctx.workers,
                       details=("Definition 1 (per-step DP) does not promise "
                                "trajectory-level privacy; this is information, not a "
                                "violation",))
    # the horizon, so that a table compares it only with exact figures at the same T
    return replace(ev, data={**ev.data, "horizon": horizon})


# -- regret --------------------------------------------------------------------------------
def _regret_chunk(epsilon: float, delta: float, horizon: int, marks: tuple[int, ...],
                  runs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    res = DPFTPLNew(epsilon, delta, horizon).simulate(INSTANCE_1.source(), horizon, runs,
                                                      rng=rng, checkpoints=marks)
    return res.regret, res.curve


def _regret(ctx: CheckContext) -> RegretResult:
    horizon, runs = ctx.size(REGRET)
    marks = tuple(m for m in (10**2, 10**3, 10**4, 10**5) if m <= horizon)
    # fixed chunks of 50 runs, each with its own spawned seed: same numbers for any --workers
    # (chunks stay large because the simulator is lockstep: its cost is per step, not per run)
    parts = map_chunks(partial(_regret_chunk, ctx.epsilon, ctx.delta, horizon, marks), runs,
                       seed=ctx.seed, key="regret", chunk=50, workers=ctx.workers)
    regret = np.concatenate([p[0] for p in parts])
    curves = np.concatenate([p[1] for p in parts])
    bound = thm16_dp_ftpl_new_upper(INSTANCE_1.means, horizon, ctx.epsilon, ctx.delta)
    return summarise_regret(
        regret, instance=f"{INSTANCE_1.name} (9 Bernoulli arms 0.30..0.70)",
        algorithm="DP-FTPL-New",
        horizon=horizon, bound=bound, bound_name="Theorem 16 bound", checkpoints=marks,
        curves=curves, means=INSTANCE_1.means,
        details=("mean regret at T = " + ", ".join(
            f"{m}: {v:.1f}" for m, v in zip(marks, curves.mean(axis=0), strict=True)),),
    )


DP_FTPL_NEW = AuditSpec(
    name="dp-ftpl-new",
    description="DP-FTPL-New (Alg. 3, Lemma 15): per-step (eps, delta)-DP and regret",
    paper=PAPER,
    claims=[
        ClaimSpec("lemma15-conditions", Notion.PER_STEP,
                  "the perturbation meets Lemma 15's (10)-(11) for every shift |z| <= 1/N, so "
                  "Lemma 8 gives (eps, delta)-DP", "Lemma 15, Lemma 8; " + THEOREM_16,
                  _symbolic),
        ClaimSpec("next-action-exact", Notion.PER_STEP,
                  "the next action's law on neighbouring histories is (eps, delta)-close",
                  "Definition 1; " + THEOREM_16, _exact),
        ClaimSpec("next-action-sampled", Notion.PER_STEP,
                  "no sampled event separates neighbouring histories beyond (eps, delta)",
                  "Definition 1; " + THEOREM_16, _sampled, after=("next-action-exact",)),
        release_claim(lambda ctx: _algorithm(ctx, SEARCH_HORIZON),
                      "Lemma 15; Definition 1; " + THEOREM_16),
    ],
    default_epsilon=1.0, default_delta=0.01, allow_zero_epsilon=True,
    findings=[FindingSpec(
        "trajectory-lower-bound", _trajectory,
        summary="whole action sequence on two reward sequences differing at one step "
                "(2 arms; a per-step guarantee allows a bound above the per-step eps)",
        notion=Notion.GLOBAL, observes="trajectory"), FTPL_NEW_TRAJECTORY,
        FTPL_NEW_TRAJECTORY_SAMPLED],
    regret=_regret, variant=DPFTPLNew,
)

# the broken twin: a Lemma-15 law of twice the rate (DPFTPLNewFaultyPerturbation, whose
# docstring derives its true loss: infinite at the claim's delta 0.01)
_DOUBLE_RATE = DP_FTPL_NEW.twin(DPFTPLNewFaultyPerturbation, bug="double-rate",
                                true_epsilon=float("inf"))
# dp-ftpl-new-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [DP_FTPL_NEW, _DOUBLE_RATE, replace(_DOUBLE_RATE, name="dp-ftpl-new-faulty")]

__all__ = ["AUDITS", "history_pairs"]
