"""The audit recipe shared by ``dp-klucb`` and ``dp-imed`` (Azize, Wu, Honda, Orabona, Ito &
Basu 2025) and their twins.

Claims (Proposition 2: the blueprint is eps-global DP):

* ``phase-release`` (symbolic, PROVED): each phase's sum (sensitivity 1, rewards in [0, 1])
  is released with ``Lap(1/eps)``, and a changed reward enters one release (the phases of an
  arm are disjoint, the arms' phases too), so ``1 * 1 / (1/eps) <= eps``.
* ``phase-release-sampled`` (the running code's releases): the canary is step 5 of ``K = 2``
  (every reward 0, step 5's rewards 1 for both arms): at ``alpha = 2`` it always lies in a phase
  of length 2 (after the initial pulls at steps 1-2, one arm's second phase is step 3; step 4
  starts either that arm's third phase, steps 4-5, or the other arm's second, step 4, after
  which the phase of step 5 is steps 5-6), so the release covering it is a sum of 2 rewards, one
  of them the canary; exact loss ``1 / scale``, ``eps`` for the paper's algorithm. A second
  pair changes step 1 (arm 0's initial one-reward release).
* ``global-dp`` (sampled actions, the existing recipe): the action sequence on two reward tables
  differing at one step.

Regret: the experiments' second mean vector at eps = 1 against nothing numeric (Theorem 2 is
asymptotic); Theorem 2's leading term and Theorem 1's lower bound are printed beside it.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.algorithms.azize_et_al_2025.bounds import thm1_lower, thm2_leading
from dpaudit.algorithms.azize_et_al_2025.instances import AZIZE_ET_AL_2025
from dpaudit.algorithms.azize_et_al_2025.instances import AZIZE_ET_AL_2025_MU2 as MU2
from dpaudit.audits.recipes.global_dp import (
    EPS,
    ReleaseModel,
    global_dp_claim,
    regret_result,
    release_evidence,
    table_sampler,
)
from dpaudit.audits.recipes.release_level import ReleaseAttack, release_claim
from dpaudit.engine import Budget, CheckContext, ClaimSpec
from dpaudit.sim.bandits import TableRewards
from dpaudit.sim.releases import ReleaseRecorder
from dpaudit.stats.evidence import ProofEvidence
from dpaudit.stats.results import Notion
from dpaudit.stats.sampled import SamplerPair

PAPER = f"{AZIZE_ET_AL_2025} (NeurIPS)"
REFERENCE = f"{AZIZE_ET_AL_2025}, Proposition 2 (DP-KLUCB and DP-IMED are eps-global DP)"

#: the canary step of the release-level attack and the horizon that covers its phase
CANARY_STEP, RELEASE_HORIZON = 5, 6
#: simulated runs per input of the release-level claim (K = 2, T = 6)
RELEASE_RUNS = Budget(full=400_000, quick=60_000)
#: the action-level attack: K = 2, T = 8; simulated runs per input of the audited pair
GLOBAL_HORIZON = 8
GLOBAL_RUNS = Budget(full=300_000, quick=60_000)
REGRET_HORIZON = Budget(full=MU2.horizon, quick=10**5)
REGRET_RUNS = Budget(full=MU2.runs, quick=20)


def audited(ctx: CheckContext):
    """The audited variant (``AuditSpec.variant``: a DP-KLUCB or DP-IMED class) at the claimed
    epsilon, with the paper's other defaults."""
    return ctx.variant(ctx.epsilon)


def release_model() -> ReleaseModel:
    return ReleaseModel(sp.Integer(1), 1 / EPS, sp.Integer(1),
                        "a release is one phase's reward sum (sensitivity 1) plus Lap(1/eps); "
                        "the phases of the arms are disjoint, so one reward enters one release "
                        "(Proposition 2); cumulative sums, indexes and actions are "
                        "post-processing")


def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    return release_evidence(ctx, release_model())


def covering_release_view(step: int):
    """The release whose phase covers ``step``: per run, the first release recorded at a step
    ``>= step`` (releases are recorded in time order and phases do not overlap). A function of
    the release transcript alone (which phase runs when is decided by earlier releases)."""
    def view(rec: ReleaseRecorder) -> dict[str, np.ndarray]:
        steps = np.stack([np.where(r.active, r.step, -1) for r in rec.releases], axis=1)
        values = np.concatenate([r.values for r in rec.releases], axis=1)
        first = np.argmax(steps >= step, axis=1)
        rows = np.arange(steps.shape[0])
        return {f"release covering step {step}": values[rows, first]}
    return view


def release_attacks(ctx: CheckContext, alg) -> list[ReleaseAttack]:
    """The canary pairs (module docstring); exact loss from the code's own noise scale."""
    base = TableRewards(np.zeros((RELEASE_HORIZON, 2)))
    length = 2 if alg.alpha == 2.0 else None  # the canary's phase length (module docstring)
    exact = None if length is None else float(1.0 / alg.noise_scale(np.array([length]))[0])
    initial = float(1.0 / alg.noise_scale(np.array([1]))[0])
    return [
        ReleaseAttack(
            f"K=2, T={RELEASE_HORIZON}, every reward 0; step {CANARY_STEP} (always in a phase "
            "of length 2) rewards (0, 0) vs (1, 1)", base,
            base.changed(CANARY_STEP, np.array([1.0, 1.0])), RELEASE_HORIZON,
            covering_release_view(CANARY_STEP), exact_loss=exact),
        ReleaseAttack(
            f"K=2, T={RELEASE_HORIZON}, every reward 0; step 1 (arm 0's initial pull) rewards "
            "(0, 0) vs (1, 1)", base, base.changed(1, np.array([1.0, 1.0])), RELEASE_HORIZON,
            covering_release_view(1), exact_loss=initial),
    ]


def release_level_claim() -> ClaimSpec:
    return release_claim(
        audited, release_attacks, RELEASE_RUNS, id="phase-release-sampled",
        statement="each noisy phase sum is eps-DP in the rewards it sums, observed on the "
                  "releases of the running code (the canary lies in a phase of 2 rewards)",
        reference=REFERENCE)


def neighbour_pairs(ctx: CheckContext) -> list[SamplerPair]:
    alg = audited(ctx)
    summaries = ("action sequence", "pulls of arm 0")
    base = TableRewards(np.zeros((GLOBAL_HORIZON, 2)))
    five = base.changed(CANARY_STEP, np.array([1.0, 1.0]))
    one = base.changed(1, np.array([1.0, 0.0]))
    return [
        SamplerPair(f"pair 1: K=2, T={GLOBAL_HORIZON}, every reward 0; step {CANARY_STEP} "
                    "rewards (0, 0) vs (1, 1)",
                    table_sampler(alg, base, GLOBAL_HORIZON, summaries),
                    table_sampler(alg, five, GLOBAL_HORIZON, summaries)),
        SamplerPair("pair 2: same table; step 1 (arm 0's initial reward) 0 vs 1",
                    table_sampler(alg, base, GLOBAL_HORIZON, summaries),
                    table_sampler(alg, one, GLOBAL_HORIZON, summaries)),
    ]


def claims() -> list[ClaimSpec]:
    """The three claims of a DP-KLUCB / DP-IMED check (module docstring)."""
    return [
        ClaimSpec("phase-release", Notion.GLOBAL,
                  "each phase's reward sum is released with Lap(1/eps) (sensitivity 1) and a "
                  "changed reward enters one release only",
                  REFERENCE, _symbolic),
        release_level_claim(),
        ClaimSpec("global-dp", Notion.GLOBAL,
                  "the action sequence is eps-global DP for reward tables differing at one "
                  "step", REFERENCE, global_dp_claim(neighbour_pairs, GLOBAL_RUNS),
                  observes="actions"),
    ]


def regret(ctx: CheckContext):
    """Regret on the experiments' second mean vector at the claimed eps, beside Theorem 2's
    leading term and Theorem 1's lower bound (both asymptotic: no numeric bound)."""
    horizon, runs, alg = ctx.size(REGRET_HORIZON), ctx.size(REGRET_RUNS), audited(ctx)
    lead = thm2_leading(MU2.means, horizon, ctx.epsilon, alg.alpha)
    low = thm1_lower(MU2.means, horizon, ctx.epsilon)
    return regret_result(
        ctx, alg, MU2.means, horizon, runs, instance=f"{MU2.name}: {MU2.means}", bound=None,
        bound_name="Theorem 2 is asymptotic (its o(log T) is not given): no numeric bound",
        details=[f"Theorem 2 leading term alpha sum_a Delta_a log T / d_eps(mu_a, mu*) "
                 f"(alpha = {alg.alpha:g}, not a bound at finite T): {lead:.4g}",
                 f"Theorem 1 lower bound (asymptotic rate x log T): {low:.4g}"])
