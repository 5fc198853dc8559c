"""The pull sequence of private APT is eps-DP, decided exactly (a claim).

Barbara, Lazzaro & Pike-Burke 2025 (Algorithm 1, Lemma 2.1, Definition 2.2): every reward
leaves the user as one PrivBern bit, ``P(Y = 1 | r) = (r (e^eps - 1) + 1) / (e^eps + 1)``, and
the learner only sees the bits, so by post-processing the whole sequence of pulls on two
reward tables that differ at one step is eps-DP. The claim ``trajectory-exact`` computes the
law of the pull sequence exactly (K = 2, T = 16; ``--quick``: 8): APT's rule
``argmin_i sqrt(N_i) (|mu^_i - tau^eps| + gamma^eps)`` after one pull per arm (ties to the
lower index, as ``numpy.argmin``) is deterministic given the bits, and the bits are summed out
by :mod:`dpaudit.exact.trajectory` on the algorithm's own mechanism (``prob_one``). A PrivBern
with the wrong probabilities, or a policy that reads a reward twice, fails it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding import PrivateAPT
from dpaudit.audits.recipes.trajectory import (
    trajectory_claim,
    trajectory_parts,
    trajectory_sampled_finding,
)
from dpaudit.engine import Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.exact.trajectory import StatisticPolicy
from dpaudit.stats.results import Notion

__all__ = ["apt_policy", "trajectory_claim_spec", "trajectory_sampled_spec"]

HORIZON = Budget(full=16, quick=8)
CLIMB = Budget(full=40, quick=0)
SAMPLES = Budget(full=400_000, quick=50_000)  # runs per table of the sampled finding


def apt_policy(apt: PrivateAPT, *, initial=None) -> StatisticPolicy:
    """Private APT as a trajectory policy: a point mass on its next pull, bits summed out."""
    def law(s: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, float]:
        index = np.sqrt(n) * (np.abs(s / n - apt.tau_eps) + apt.gamma_eps)
        p = np.zeros(n.size)
        p[int(np.argmin(index))] = 1.0
        return p, 0.0
    return StatisticPolicy(2, law, round_robin=True, observe=apt.mechanism.prob_one,
                           initial=initial)


def trajectory_claim_spec(make: Callable[[CheckContext], PrivateAPT]) -> ClaimSpec:
    """The claim, on the APT that ``make(ctx)`` builds (the audit's own ``_policy``)."""
    def policy_of(ctx: CheckContext, horizon: int, initial) -> StatisticPolicy:
        return apt_policy(make(ctx), initial=initial)
    return ClaimSpec(
        "trajectory-exact", Notion.GLOBAL,
        "the whole pull sequence on reward tables differing at one step is eps-DP "
        "(post-processing of eps-LDP reports), decided exactly (observes: trajectory)",
        "Lemma 2.1, Definition 2.2 (post-processing)",
        trajectory_claim(policy_of, horizon=HORIZON, climb=CLIMB,
                         simulator=lambda ctx, t: make(ctx)), observes="trajectory")



def trajectory_sampled_spec(claim: ClaimSpec) -> FindingSpec:
    """The running APT attacked on the claim's worst pair, with the event chosen from the
    exact laws (information beside the exact claim: the sampled attack's tightness)."""
    return FindingSpec("trajectory-sampled", trajectory_sampled_finding(
        *trajectory_parts(claim.evaluate), samples=SAMPLES),
        summary="whole pull sequence of the running code on the exact claim's worst pair, "
                "event chosen from the exact laws (observes: trajectory)",
        notion=Notion.GLOBAL, observes="trajectory", after=(claim.id,))
