"""The release-level claim of the perturbed-leader checks (Wang & Zhu 2023); not a name.

What Lemma 8 (DP-FTPL-Gauss, -Beta) and Lemma 15 (DP-FTPL-New) are about is the law of each
arm's perturbed score ``theta_i`` given its ``(R_i, N_i)``: the action is its argmax
(post-processing). ``releases-sampled`` runs the algorithm's own ``simulate`` with the
recording hook on two reward sources that differ in arm 0's first observation (1 against 0:
the change of ``R_0`` by one at the smallest count the algorithm ever releases at, ``N_0``,
where the score moves most, by ``1/N_0``), and attacks the first perturbed release (the scores
right after the start phase: the history there is fixed by the sources, so this is Definition
1's comparison at the most sensitive history) with the one sampled-bound engine.

The view is three summaries of the released vector, each a fixed function of it: arm 0's
score; the gap ``theta_0 - theta_1``; and ``F_1(theta_1) - F_0'(theta_0)`` rounded to 1e-9,
with ``F`` the declared laws at the second history (computed from the sources, not from
samples), which is exactly 0 when one uniform drives every arm. For a correct algorithm only
arm 0's law differs, so the exact loss of the view is that of the perturbation at shift
``1/N_0``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dpaudit.engine import Budget, CheckContext, ClaimSpec
from dpaudit.interfaces import RecordingPolicy
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.sim.releases import release_sampler
from dpaudit.stats.evidence import SampledEvidence
from dpaudit.stats.results import Notion
from dpaudit.stats.sampled import AuditBudget, SamplerPair, sampled_audit

__all__ = ["RELEASE_RUNS", "release_claim", "release_sources", "start_phase_layout"]

#: runs per source of ``releases-sampled`` (selection + measurement)
RELEASE_RUNS = Budget(full=2_000_000, quick=100_000)
#: most selection runs per source (the rest measure; :class:`AuditBudget`'s ``max_select``)
MAX_SELECT = 200_000


def release_sources() -> tuple[BernoulliRewards, BernoulliRewards]:
    """Arm 0 always rewards 1, arm 1 always 0; the neighbour sets arm 0's first reward (step
    1, inside the start phase) to 0."""
    base = BernoulliRewards((1.0, 0.0))
    return base, base.changed(1, 0.0)


def _cdfs(alg, sums: np.ndarray, counts: np.ndarray) -> Callable[[np.ndarray, int], np.ndarray]:
    """``(x, arm) -> F_arm(x)``: the declared law of each arm's score at one history."""
    if hasattr(alg, "law_pieces"):
        pdf_cdf = alg.law_pieces(sums, counts)[4]
        return lambda x, i: pdf_cdf(np.asarray(x, float))[1][i]
    centre = alg.centre(sums, counts)
    return lambda x, i: alg.perturbation.cdf(x, centre[i], counts[i])


def start_phase_layout(alg) -> tuple[int, int, Callable]:
    """``(horizon, N_0, cdf)`` of a start-phase policy on two arms: the first release is at
    step ``2 N_0 + 1``; ``cdf`` the declared laws at the second source's history."""
    n0 = int(getattr(alg, "start_phase", 1))
    return 2 * n0 + 1, n0, _cdfs(alg, np.array([n0 - 1.0, 0.0]), np.full(2, float(n0)))


def release_claim(algorithm: Callable[[CheckContext], RecordingPolicy], reference: str, *,
                  layout: Callable = start_phase_layout,
                  notion: Notion = Notion.PER_STEP, runs: Budget = RELEASE_RUNS,
                  max_select: int = MAX_SELECT) -> ClaimSpec:
    """``releases-sampled`` for ``algorithm(ctx)`` (a perturbed-leader policy); ``layout(alg)``
    gives the horizon, the count at the first release and the declared laws there; ``runs``
    the runs per source, of which at most ``max_select`` choose the event."""
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> SampledEvidence:
        alg = algorithm(ctx)
        k = 2
        horizon, n0, cdf = layout(alg)
        d, d_prime = release_sources()

        def view(rec):
            theta = rec.labelled("theta")[:, :k]
            pit = np.round(cdf(theta[:, 1], 1) - cdf(theta[:, 0], 0), 9)
            return {"arm0": theta[:, 0], "gap": theta[:, 0] - theta[:, 1], "pit-gap": pit}

        pair = SamplerPair(
            f"arm 0's first observation 1 (D) vs 0 (D'), sums ({n0}, 0) vs ({n0 - 1}, 0) at "
            f"counts ({n0}, {n0}) (the first release, at the smallest count released)",
            release_sampler(alg, d, horizon, view=view),
            release_sampler(alg, d_prime, horizon, view=view))
        return sampled_audit([pair], delta=ctx.delta, alpha=ctx.alpha,
                             budget=AuditBudget(samples=ctx.size(runs), tail_draws=None,
                                                 max_select=max_select),
                             seed=ctx.seed, key=f"claim:{spec.id}", who="releases",
                             details=("observes: the first perturbed scores theta the running "
                                      "algorithm releases (recording hook)",))

    return ClaimSpec("releases-sampled", notion,
                     "the perturbed scores the running algorithm releases are (eps, delta)-close "
                     "on neighbouring histories (the release the lemma is about)", reference,
                     evaluate, observes="releases")
