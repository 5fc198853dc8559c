"""The exact trajectory findings and claim registered on the existing audits (issue 22)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding import PrivateAPT
from dpaudit.audits.barbara_lazzaro_pike_burke_2025.trajectory import apt_policy
from dpaudit.audits.recipes.trajectory import exact_event
from dpaudit.engine import CheckContext
from dpaudit.exact.trajectory import sequence_law
from dpaudit.exact.trajectory_search import search_tables
from dpaudit.registry import all_audits
from dpaudit.stats.evidence import epsilon_from_counts


@settings(max_examples=12, deadline=None)
@given(epsilon=st.floats(0.05, 8.0), tau=st.floats(0.05, 0.95), gamma=st.floats(0.0, 0.5))
def test_apt_pull_sequence_is_eps_dp_over_the_domain(epsilon, tau, gamma):
    """Post-processing of eps-LDP bits: the exhaustive worst pair at T = 4 (which is the
    maximum over all [0, 1] tables) never exceeds eps (beyond rounding)."""
    apt = PrivateAPT(epsilon, tau=tau, gamma=gamma)
    res = search_tables(apt_policy(apt), 4, epsilon=epsilon, delta=0.0)
    assert res.exhaustive
    assert res.loss.epsilon_at_delta <= epsilon * (1 + 1e-12) + 1e-12


def test_apt_first_pull_bit_alone_reaches_eps():
    """The bound is attained: with tau = 0.3 (tau^eps ~ 0.41) the third pull is arm 1 iff the
    bits were (1, 0), so on rewards (r, 0) the outcome "arm 1" has probabilities
    p1(r) p0(0) with p1(1) / p1(0) = e^eps exactly."""
    apt = PrivateAPT(1.0, tau=0.3, gamma=0.0)
    pol = apt_policy(apt)
    law = sequence_law(pol, np.zeros((3, 2)))
    assert abs(law.probabilities.sum() - 1.0) <= law.error
    res = search_tables(pol, 3, epsilon=1.0, delta=0.0)
    assert res.loss.epsilon_at_delta == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("name", ["dp-ftpl-new", "thompson"])
def test_trajectory_finding_reports_observes_and_exact_figure(name):
    spec = all_audits()[name]
    ctx = CheckContext(spec.default_epsilon, spec.default_delta, quick=True,
                       variant=spec.variant)
    found = {f.id: f for f in spec.findings}["trajectory-exact"].evaluate(ctx)
    data = json.loads(json.dumps(found.to_dict()))["data"]
    assert data["observes"] == "trajectory"
    assert data["horizon"] == 8 and data["exhaustive"] is False
    low, high = data["exact_epsilon_interval"]
    # the upper end is null (inf) when a law's L1 error exceeds some outcome's probability
    # (possible at delta = 0, Thompson's default)
    assert low <= data["exact_epsilon"] and (high is None or data["exact_epsilon"] <= high)
    assert found.epsilon_lower_bound == pytest.approx(low)
    # a per-step (1, 0.01) guarantee lets 8 actions leak well above 1 (DP-FTPL-New); a
    # non-private policy leaks more still
    assert data["exact_epsilon"] > (1.5 if name == "dp-ftpl-new" else 5.0)
    assert math.isfinite(data["exact_epsilon"])


@pytest.mark.parametrize("name", ["dp-ftpl-new", "ldp-tbp-fixed-budget"])
def test_sampled_trajectory_attack_stays_below_the_exact_figure(name):
    """The running code attacked on the exact search's worst pair with the exact-chosen
    event: a valid lower bound, so above the pair's exact eps with probability at most the
    alpha used here (1e-3: the false-failure probability of this seeded test). How close it
    gets (issue 22's target: within 0.5 of the exact figure) is a power figure, measured by
    benchmarks/bench_trajectory.py and reported there, not asserted here: at this quick budget
    the gap of dp-ftpl-new at T = 8 moved from 0.28 to 0.72 when the running code's random
    stream changed (compiled kernels), so a seeded assertion would test the stream."""
    spec = all_audits()[name]
    ctx = CheckContext(spec.default_epsilon, spec.default_delta, quick=True, alpha=1e-3,
                       variant=spec.variant)
    (finding,) = [f for f in spec.findings if f.id == "trajectory-sampled"]
    ev = finding.evaluate(ctx)
    exact = ev.data["reference_exact_epsilon"]
    bound = epsilon_from_counts(ev.count_p, ev.n_p, ev.count_q, ev.n_q, delta=ctx.delta,
                                alpha=ctx.alpha)[0]
    assert bound <= exact + 1e-9
    assert bound > 0.0  # the attack finds a leak on the worst pair
    assert ev.n_select == 0 and ev.data["observes"] == "trajectory"


def test_exact_event_picks_the_largest_log_ratios():
    p = np.array([0.5, 0.3, 0.2])
    q = np.array([0.1, 0.3, 0.6])
    codes, direction, mass = exact_event(p, q, delta=0.0, n=10**6, alpha=0.05)
    assert direction == "D vs D'" and codes.tolist() == [0] and mass == 0.5
    # an outcome only D' can produce wins at delta = 0 (log-ratio infinite)
    codes, direction, mass = exact_event(np.append(p, 0.0), np.append(q, 0.2) / 1.2,
                                         delta=0.0, n=10**6, alpha=0.05)
    assert direction == "D' vs D" and codes.tolist() == [3]


@settings(max_examples=15, deadline=None)
@given(epsilon=st.floats(0.05, 10.0), quick=st.booleans())
def test_dp_se_trajectory_is_within_eps_over_the_domain(epsilon, quick):
    """A correct DP-SE is never VIOLATED: the exact pure loss of its two-arm action sequence
    (exhaustive over attainable epoch means) stays below eps (approaching it from below)."""
    from dpaudit.algorithms.baselines.dp_se import DPSE
    from dpaudit.audits.azize_basu_2022.dp_se_trajectory import DP_SE_TRAJECTORY
    ctx = CheckContext(epsilon, 0.0, quick=quick, variant=DPSE)
    ev = DP_SE_TRAJECTORY.evaluate(ctx, DP_SE_TRAJECTORY)
    assert ev.epsilon_at_delta <= epsilon * (1 + 1e-9)
    assert ev.delta_at_epsilon <= ev.error
    if ev.data["epochs"]:
        assert ev.epsilon_at_delta > 0.9 * epsilon  # the far tails approach eps


def test_laplace_difference_tail_matches_quadrature():
    """log P(D > z) for D = L0 - L1 against scipy quadrature of the density
    (1 + |x|/b) e^(-|x|/b) / (4b), an independent route."""
    from scipy import integrate

    from dpaudit.audits.azize_basu_2022.dp_se_trajectory import log_tail
    b = 0.3
    for z in (-2.0, -0.1, 0.0, 0.4, 3.0):
        def dens(x: float) -> float:
            return (1 + abs(x) / b) * math.exp(-abs(x) / b) / (4 * b)
        # split at the kink x = 0 so the quadrature is smooth on each piece
        pieces = [(z, 0.0), (0.0, np.inf)] if z < 0 else [(z, np.inf)]
        val = sum(integrate.quad(dens, lo, hi, epsabs=1e-15, epsrel=1e-13)[0]
                  for lo, hi in pieces)
        assert float(log_tail(np.array([z]), b)[0]) == pytest.approx(math.log(val), rel=1e-9)
