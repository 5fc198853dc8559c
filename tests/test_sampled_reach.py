"""The reach of a sampled bound against an exact figure (:func:`reach_of_exact`): how far the
Clopper-Pearson bound is from the exact loss, and the measured draws per side that would reach
0.9 of it at the same frequencies. Deterministic arithmetic on counts: no sampling."""

from __future__ import annotations

import math

from dpaudit.stats.sampled_bounds import epsilon_from_counts, reach_of_exact

# Tossou & Dimitrakakis 2016, DP-UCB-Int's first interval release (exact loss 0.0597145):
# the counts one default-budget audit measured
COUNTS = (584891, 1170476, 552284, 1170476)


def _bound(k: float) -> float:
    cp, n, cq, _ = COUNTS
    m = max(1, round(n * k))
    return epsilon_from_counts(round(cp * k), m, round(cq * k), m, delta=1e-5, alpha=0.025)[0]


def test_projected_budget_is_the_smallest_that_reaches_the_target():
    r = reach_of_exact(*COUNTS, delta=1e-5, alpha=0.025, exact=0.0597145)
    assert r.fraction == _bound(1.0) / 0.0597145 < 0.9
    assert r.draws_per_side is not None and r.draws_per_side > COUNTS[1]
    k = r.draws_per_side / COUNTS[1]
    assert _bound(k) >= 0.9 * 0.0597145 > _bound(0.99 * k)


def test_reached_target_and_event_limited_bound():
    cp, n, cq, nq = COUNTS
    met = reach_of_exact(cp, n, cq, nq, delta=1e-5, alpha=0.025, exact=0.05)
    assert met.fraction >= 0.9 and met.draws_per_side == n
    point = math.log((cp / n - 1e-5) / (cq / nq))
    capped = reach_of_exact(cp, n, cq, nq, delta=1e-5, alpha=0.025, exact=point / 0.85)
    assert capped.point == point and capped.draws_per_side is None  # the event limits it
