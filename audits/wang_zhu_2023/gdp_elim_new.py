"""``gdp-elim-new``: GDP-Elim-New of Wang & Zhu 2023 (Algorithm 4, Theorem 18).

Claims:

* ``phase-release`` (symbolic): the Lemma-15 law is ``(eps', delta')``-indistinguishable
  under a centre shift ``|z| <= 1/N`` (the obligations of
  :func:`dpaudit.mechanisms.lemma15.lemma15_proof_obligations`), the algorithm draws it with
  ``eps' = eps * f_eps <= eps`` and ``delta' = delta * f_delta <= delta`` (paper: 1 and 1/2),
  and a changed reward lies in one arm's block of one phase (one release).
* ``global-dp`` (sampled), (eps, delta)-global DP of Wang & Zhu 2023, Definition 3 with two
  neighbouring inputs: (1) fixed tables (the revision rule ``p_t(1|a) = 1`` at one step with
  the other rewards fixed, which implies the expectation form): arm 0 earns 1, arm 1 earns
  1/2, and one reward of arm 1's phase-1 block is 1 or 0, so the exploitation test
  ``theta_0 - theta_1 > Delta(1) = 1/2`` sits midway between the two inputs; (2) the
  expectation form itself: Bernoulli(0.75, 0.25) rewards with and without the revision
  "reward at that step := 0".

* ``releases-sampled`` (sampled, observes releases): the phase-1 Lemma-15 scores the running
  code draws (recording hook), on sources that differ in arm 0's first phase-1 reward: the
  premise of Lemma 9 (one reward moves one phase mean by ``1/N(1)``); see :mod:`._release`
  and the planted twins in :mod:`.twins`.

Regret: Wang & Zhu 2023's instance 1 (nine arms 0.30..0.70) at T = 10^5, 100 runs, against
Theorem 18; Theorem 4's order term is printed beside it (its constant is OCR-damaged).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.algorithms.wang_zhu_2023.bounds import thm4_gdp_lower_order, thm18_gdp_elim_upper
from dpaudit.algorithms.wang_zhu_2023.gdp_elim import GDPElimNew
from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_INSTANCE_1 as INSTANCE_1
from dpaudit.audits.recipes.global_dp import (
    EPS,
    N,
    ReleaseModel,
    global_dp_claim,
    regret_result,
    release_evidence,
    table_sampler,
)
from dpaudit.audits.wang_zhu_2023._release import release_claim
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec
from dpaudit.exact.symbolic import Domain, Obligation
from dpaudit.mechanisms.lemma15 import lemma15_proof_obligations
from dpaudit.sim.bandits import BernoulliRewards, TableRewards
from dpaudit.stats.evidence import ProofEvidence
from dpaudit.stats.results import Notion
from dpaudit.stats.sampled import SamplerPair

PAPER = "Wang & Zhu 2023, Algorithm 4 and Theorem 18"


def phase_one_layout(alg: GDPElimNew) -> tuple[int, int, object]:
    """``releases-sampled``'s layout: phase 1 on two arms (horizon :func:`_horizon`), its
    scores drawn from Lemma 15 at count ``N(1)`` around the phase means ``(N(1) - 1)/N(1)``
    and 0 of the second source."""
    horizon = _horizon(alg)
    n1 = alg.phase_length(1, horizon)
    centre = np.array([(n1 - 1.0) / n1, 0.0])
    return horizon, n1, lambda x, i: alg.perturbation.cdf(x, centre[i], float(n1))


def _alg(ctx: CheckContext) -> GDPElimNew:
    return ctx.variant(ctx.epsilon, ctx.delta)


def _horizon(alg: GDPElimNew) -> int:
    """Smallest T (on a coarse grid) whose phase 1 completes for K = 2 arms."""
    horizon = 1000
    while 2 * alg.phase_length(1, horizon) > horizon:
        horizon = int(horizon * 1.25)
    return horizon


SUMMARIES = ("action sequence", "pulls of arm 1")


def neighbour_pairs(alg: GDPElimNew) -> list[SamplerPair]:
    horizon = _horizon(alg)
    n1 = alg.phase_length(1, horizon)
    step = n1 + 1  # arm 1's first pull in phase 1
    tab = np.ones((horizon, 2))
    tab[:, 1] = 0.5
    d = TableRewards(tab).changed(step, np.array([1.0, 1.0]))
    d2 = TableRewards(tab).changed(step, np.array([1.0, 0.0]))
    env = BernoulliRewards([0.75, 0.25])
    return [
        SamplerPair(f"pair 1: K=2, T={horizon}, N(1)={n1}; arm 0 earns 1, arm 1 earns 1/2; "
                    f"step {step} (arm 1's first phase-1 pull) 1 vs 0",
                    table_sampler(alg, d, horizon, SUMMARIES),
                    table_sampler(alg, d2, horizon, SUMMARIES)),
        SamplerPair(f"pair 2: Bernoulli(0.75, 0.25), T={horizon}; revision rule: reward at "
                    f"step {step} := 0 (Wang & Zhu 2023, Def. 3, expectation over rewards)",
                    table_sampler(alg, env, horizon, SUMMARIES),
                    table_sampler(alg, env.changed(step, 0.0), horizon, SUMMARIES)),
    ]


def _symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
    alg = _alg(ctx)
    obligations, domain, assumptions = lemma15_proof_obligations()
    f_eps, f_delta = sp.nsimplify(alg.lemma15_epsilon_factor), sp.nsimplify(
        alg.lemma15_delta_factor)
    dl = sp.Symbol("delta", positive=True)
    extra = [*obligations,
             Obligation("draw_epsilon_within_claim", f_eps * EPS - EPS, "<=",
                        display=f"Lemma-15 epsilon = {f_eps} * epsilon <= epsilon"),
             Obligation("draw_delta_within_claim", f_delta * dl - dl, "<=",
                        display=f"Lemma-15 delta = {f_delta} * delta <= delta")]
    # the Lemma-15 law's loss is proved by `extra`; the release model states the shift 1/N
    # of one phase mean and the one-release argument (the Laplace line is its delta = 0 limit)
    model = ReleaseModel(1 / N, 1 / (EPS * N), sp.Integer(1),
                         "phase k draws theta_i(k) from Lemma 15 centred at this phase's mean "
                         "of N = N(k) rewards (a changed reward shifts it by <= 1/N); phases "
                         "and arm blocks are disjoint, so one reward enters one release")
    return release_evidence(ctx, model, extra=extra,
                         extra_domain={**domain, dl: Domain(0.0, 1.0, (ctx.delta or 0.01,),
                                                            "claimed failure probability")},
                         extra_assumptions=assumptions)


REGRET_HORIZON = Budget(full=INSTANCE_1.horizon, quick=10**4)
_sampled = global_dp_claim(lambda ctx: neighbour_pairs(_alg(ctx)),
                           Budget(full=400_000, quick=40_000))


def _regret(ctx: CheckContext):
    horizon = ctx.size(REGRET_HORIZON)
    alg = _alg(ctx)
    k = INSTANCE_1.n_arms
    return regret_result(
        ctx, alg, INSTANCE_1.means, horizon, INSTANCE_1.runs,
        instance=f"{INSTANCE_1.name}: nine arms 0.30, 0.35, ..., 0.70",
        bound=thm18_gdp_elim_upper(INSTANCE_1.means, horizon, ctx.epsilon, ctx.delta),
        bound_name="Theorem 18 (upper)",
        details=[f"Theorem 4 order term (N/eps) ln(((e^eps-1)T + delta T)/((e^eps-1) + delta T)) "
                 f"(constant unknown): "
                 f"{thm4_gdp_lower_order(k, horizon, ctx.epsilon, ctx.delta):.4g}",
                 f"phase lengths N(1..4) = "
                 f"{[alg.phase_length(i, horizon) for i in range(1, 5)]}"])


AUDITS = [
    AuditSpec(
        "gdp-elim-new", "GDP-Elim-New: phased elimination with Lemma-15 perturbations",
        PAPER,
        [ClaimSpec("phase-release", Notion.GLOBAL,
                   "each phase's Lemma-15 draw is (eps, delta)-DP in its phase mean and a "
                   "changed reward enters one draw",
                   "Wang & Zhu 2023, Lemma 15, Lemma 9, Algorithm 4 line 6, Theorem 18", _symbolic),
         ClaimSpec("global-dp", Notion.GLOBAL,
                   "the action sequence is (eps, delta)-global DP (Wang & Zhu 2023, Definition 3)",
                   "Wang & Zhu 2023, Definition 3 and Theorem 18", _sampled),
         release_claim(_alg, "Wang & Zhu 2023, Lemma 15, Lemma 9, Algorithm 4 line 6 (the "
                       "phase-1 draw)", layout=phase_one_layout, notion=Notion.GLOBAL)],
        default_epsilon=1.0, default_delta=0.01, regret=_regret, variant=GDPElimNew),
]
