"""``dp-se``: DP-SE, private Successive Elimination (Sajed & Sheffet, ICML 2019).

The baseline of Azize & Basu 2022's Figure 2 (``beta = 1/T``). Claims: each epoch's private mean is
eps-DP (Laplace, sensitivity ``1/R_e``, scale ``1/(eps R_e)``) and a changed reward enters one
release (symbolic); eps-global DP of the action sequence (sampled). The attack: K = 2, a
fixed table where arm 0 earns 1 and arm 1 earns a constant ``v`` chosen so that the
elimination threshold ``2 (h_1 + c_1)`` lies midway between arm 1's epoch-1 means on the two
neighbouring tables (one reward of arm 1's epoch-1 block is 1 or 0): the elimination decision
after epoch 1 is then as sensitive to that reward as it can be. Regret: Figure 2's instance at
T = 10^7 with Azize & Basu 2022's lower bounds beside it (DP-SE's own upper bound has no explicit
constants in the seed papers, so none is used).

DP-SE is a baseline (``algorithms/baselines/``), checked here as Azize & Basu 2022 run it: the
algorithm is taken from the registry by name (``all_policies()["dp-se"]``), never imported.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_FIG2 as FIG2
from dpaudit.audits.azize_basu_2022._adap_common import REGRET_HORIZON, lower_bound_details
from dpaudit.audits.azize_basu_2022.dp_se_trajectory import DP_SE_TRAJECTORY
from dpaudit.audits.recipes.global_dp import (
    EPS,
    N,
    ReleaseModel,
    global_dp_claim,
    regret_result,
    release_evidence,
    table_sampler,
)
from dpaudit.audits.recipes.release_level import (
    ReleaseAttack,
    differences_view,
    first_releases_view,
    release_claim,
)
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec
from dpaudit.registry import all_policies
from dpaudit.sim.bandits import TableRewards
from dpaudit.stats.evidence import ProofEvidence
from dpaudit.stats.results import Notion
from dpaudit.stats.sampled import SamplerPair

AUDIT_HORIZON = 10_000


SUMMARIES = ("action sequence", "pulls of arm 1")


def dp_se(epsilon: float) -> Any:
    """DP-SE (Sajed & Sheffet 2019) at ``epsilon``, the registered baseline's defaults
    otherwise (``beta = 1/T`` as in Fig. 2)."""
    return all_policies()["dp-se"].factory(epsilon=epsilon)


def neighbour_pairs(alg: Any) -> list[SamplerPair]:
    horizon = AUDIT_HORIZON
    beta = 1.0 / horizon
    r1 = float(alg.epoch_length(1, np.array([2]), beta)[0])
    thr = float(alg.threshold(1, np.array([2]), np.array([r1]), beta)[0])
    v = (r1 * (1.0 - thr) - 0.5) / (r1 - 1.0)
    tab = np.ones((horizon, 2))
    tab[:, 1] = v
    step = int(r1) + 1  # first pull of arm 1 in epoch 1
    d = TableRewards(tab).changed(step, np.array([1.0, 1.0]))
    d2 = TableRewards(tab).changed(step, np.array([1.0, 0.0]))
    desc = (f"K=2, T={horizon}, R_1={int(r1)}, threshold 2(h_1+c_1)={thr:.4f}; arm 0 earns 1, "
            f"arm 1 earns {v:.4f}; step {step} (arm 1's first epoch-1 pull) 1 vs 0")
    return [SamplerPair("pair 1: " + desc, table_sampler(alg, d, horizon, SUMMARIES),
                        table_sampler(alg, d2, horizon, SUMMARIES))]


def _alg(ctx: CheckContext) -> Any:
    return ctx.variant(ctx.epsilon)


def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    model = ReleaseModel(1 / N, 1 / (EPS * N), sp.Integer(1),
                         "epoch e releases mu^_a(e) + Lap(1/(eps R_e)) from this epoch's R_e = N "
                         "rewards only (sensitivity 1/N); epochs are disjoint, so one reward "
                         "enters one release")
    return release_evidence(ctx, model)


_sampled = global_dp_claim(lambda ctx: neighbour_pairs(_alg(ctx)),
                           Budget(full=600_000, quick=40_000))


RELEASE_HORIZON = 4000
RELEASE_RUNS = Budget(full=1_000_000, quick=100_000)


def release_attacks(ctx: CheckContext, alg: Any) -> list[ReleaseAttack]:
    """The canary: step 1, arm 0's first pull of epoch 1, on an all-zero table (K = 2,
    T = 4000, ``beta = 1/T``: ``R_1 = 1418`` pulls per arm at eps = 1, so epoch 1 ends
    inside the horizon for every eps >= 1). It enters one release, arm 0's epoch-1 mean
    ``mu^ + Lap(1/(eps R_1))``, with weight ``1/R_1``: exact loss ``eps``; no other release
    contains it, so the transcript's loss on this pair is ``eps``. Observed: epoch 1's two
    released means (and, as a second view ranked on fresh runs, their difference: noise
    shared across arms would cancel there)."""
    horizon = RELEASE_HORIZON
    while 2 * int(alg.epoch_length(1, np.array([2]), 1.0 / horizon)[0]) > horizon:
        horizon *= 2  # small eps: R_1 ~ 166/eps; epoch 1 must end inside the horizon
    r1 = int(alg.epoch_length(1, np.array([2]), 1.0 / horizon)[0])
    base = TableRewards(np.zeros((horizon, 2)))
    changed = base.changed(1, np.array([1.0, 1.0]))
    desc = (f"K=2, T={horizon}, every reward 0, R_1={r1}; step 1 (arm 0's first epoch-1 "
            "pull) rewards (0, 0) vs (1, 1)")
    exact = epoch_exact_loss(alg, r1)
    return [ReleaseAttack(desc, base, changed, horizon, first_releases_view(2),
                          exact_loss=exact),
            ReleaseAttack(desc + "; the two arms' releases differenced", base, changed,
                          horizon, differences_view(2), exact_loss=exact)]


def epoch_exact_loss(alg: Any, r1: int) -> float:
    """The exact loss of the canary's pair, read from the code rather than from the claim:
    the epoch-1 mean's sensitivity ``1/R_1`` over the code's Laplace scale for ``R_1`` rewards
    (``eps`` for Azize & Basu 2022's DP-SE, ``sqrt(2) eps`` or ``2 eps`` for the twins with too
    little noise), provided the two arms' releases get independent draws (checked on the
    code's own ``epoch_noise``); when one draw is shared, their difference is the exact
    difference of the means and the loss is infinite."""
    noise = np.asarray(alg.epoch_noise(np.random.default_rng(0), 64, 2), dtype=float)
    if np.array_equal(noise[:, 0], noise[:, 1]):
        return float("inf")
    scale = float(np.asarray(alg.release_scale(np.array([r1])), dtype=float).ravel()[0])
    return (1.0 / r1) / scale if scale > 0 else float("inf")


_release = release_claim(
    _alg, release_attacks, RELEASE_RUNS, id="epoch-release-sampled",
    statement="each epoch's private mean is eps-DP in that epoch's rewards, observed on the "
              "released means of the running code (canary: arm 0's first epoch-1 reward)",
    reference="Sajed & Sheffet 2019, DP-SE (one Laplace release per arm and epoch); Azize & "
              "Basu 2022, Lemma 1 (same argument)")


def _regret(ctx: CheckContext):
    horizon = ctx.size(REGRET_HORIZON)
    return regret_result(
        ctx, _alg(ctx), FIG2.means, horizon, FIG2.runs, instance=f"{FIG2.name}: {FIG2.means}",
        bound=None,
        bound_name="DP-SE upper bound not evaluated (no explicit constants in the seeds)",
        details=lower_bound_details(ctx, horizon))


AUDITS = [
    AuditSpec(
        "dp-se", "DP-SE: private successive elimination with per-epoch Laplace means",
        "Sajed & Sheffet 2019 (baseline of Azize & Basu 2022 and Wang & Zhu 2023)",
        [ClaimSpec("episode-release", Notion.GLOBAL,
                   "each epoch's private mean is eps-DP and a changed reward enters one release",
                   "Sajed & Sheffet 2019, DP-SE; Azize & Basu 2022, Lemma 1 (same argument)",
                   _symbolic),
         _release,
         ClaimSpec("global-dp", Notion.GLOBAL,
                   "the action sequence is eps-global DP (Azize & Basu 2022, Definition 2)",
                   "Sajed & Sheffet 2019, privacy of DP-SE", _sampled, observes="actions"),
         DP_SE_TRAJECTORY],
        default_epsilon=1.0, default_delta=0.0, regret=_regret, variant=dp_se),
]
