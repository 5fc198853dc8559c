"""What Thompson sampling's action sequence leaks, computed exactly (a finding).

Beta-Bernoulli Thompson sampling (Thompson 1933; Agrawal & Goyal 2012) claims no privacy; the
finding ``trajectory-exact`` reports the exact loss of its whole action sequence on the worst
neighbouring reward tables found (K = 2, tables differing at one step; Azize & Basu 2022,
Definition 2), as a reference point for the private algorithms and for the sampled attacks.
After one pull per arm, ``P(A_t = 1) = P(theta_1 > theta_0)`` with
``theta_a ~ Beta(a0 + S_a, b0 + N_a - S_a)``: the integral ``int f_1(x) F_0(x) dx`` over
``[0, 1]``, by Gauss-Legendre (the integrand is a polynomial of degree at most ``2T`` for the
uniform prior, so 64 nodes are exact up to ``T = 63``; the error bound is the difference
between 64 and 128 nodes plus the rounding of the sum).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from dpaudit.algorithms.baselines.ucb import Thompson
from dpaudit.audits.recipes.trajectory import (
    trajectory_finding,
    trajectory_parts,
    trajectory_sampled_finding,
)
from dpaudit.engine import Budget, CheckContext, FindingSpec
from dpaudit.exact.loss import piecewise_quadrature
from dpaudit.exact.trajectory import StatisticPolicy

__all__ = ["THOMPSON_TRAJECTORY", "THOMPSON_TRAJECTORY_SAMPLED", "thompson_law"]

HORIZON = Budget(full=16, quick=8)
CLIMB = Budget(full=40, quick=0)
SAMPLES = Budget(full=400_000, quick=50_000)  # runs per table of the sampled finding


def thompson_law(prior_a: float, prior_b: float):
    """``law(sums, counts)`` of Thompson sampling's next action on two arms."""
    def law(s: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, float]:
        b0 = stats.beta(prior_a + s[0], prior_b + n[0] - s[0])
        b1 = stats.beta(prior_a + s[1], prior_b + n[1] - s[1])
        p1, err = piecewise_quadrature(lambda x: b1.pdf(x) * b0.cdf(x),
                                       np.array([0.0, 0.5, 1.0]), nodes=64)
        p1 = min(max(p1, 0.0), 1.0)
        return np.array([1.0 - p1, p1]), 2.0 * err
    return law


def _policy(ctx: CheckContext, horizon: int, initial) -> StatisticPolicy:
    a = getattr(ctx.variant, "prior_a", 1.0)  # the audited Thompson's prior, else uniform
    b = getattr(ctx.variant, "prior_b", 1.0)
    cache: dict = ctx.shared(("thompson-law-cache", a, b), dict)
    return StatisticPolicy(2, thompson_law(a, b), round_robin=True, initial=initial,
                           cache=cache)


THOMPSON_TRAJECTORY = FindingSpec(
    "trajectory-exact",
    trajectory_finding(_policy, horizon=HORIZON, climb=CLIMB,
                       note="Thompson sampling claims no privacy; a reference point",
                       simulator=lambda ctx, t: Thompson(
                           prior_a=getattr(ctx.variant, "prior_a", 1.0),
                           prior_b=getattr(ctx.variant, "prior_b", 1.0))),
    summary="exact loss of the whole action sequence (K = 2, T = 16)", observes="trajectory")

THOMPSON_TRAJECTORY_SAMPLED = FindingSpec(
    "trajectory-sampled", trajectory_sampled_finding(
        *trajectory_parts(THOMPSON_TRAJECTORY.evaluate), samples=SAMPLES),
    summary="whole action sequence of the running code on the exact search's worst pair, "
            "event chosen from the exact laws (observes: trajectory)", observes="trajectory",
    after=(THOMPSON_TRAJECTORY.id,))
