"""The exact failure probability of AdaP-UCB's index (Azize & Basu 2022, Eq. 7; experiment
``adap-ucb-index-exact``). Deterministic: closed forms and the full binomial sum as references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.audits.azize_basu_2022 import index_exact as ix


@pytest.mark.parametrize("reading", ix.BONUSES)
@pytest.mark.parametrize("mu", [0.1, 0.5, 0.9])
def test_one_reward_episode_matches_the_two_term_closed_form(reading: str, mu: float) -> None:
    t, eps = 1e5, 0.7
    b = ix.bonus(reading, 1, t, eps)
    lap = stats.laplace(scale=1 / eps)
    expected = (1 - mu) * lap.cdf(mu - b) + mu * lap.cdf(mu - b - 1)
    assert ix.failure_probability(mu, 1, t, eps, reading) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("m", [64, 4096])
def test_windowed_sum_equals_the_full_binomial_sum(m: int) -> None:
    mu, t, eps = 0.5, 1e5, 0.3
    k = np.arange(m + 1)
    full = float(np.sum(stats.binom.pmf(k, m, mu) * stats.laplace.cdf(
        mu - ix.bonus("printed", m, t, eps) - k / m, scale=1 / (eps * m))))
    assert ix.failure_probability(mu, m, t, eps, "printed") == pytest.approx(full, rel=1e-12)


def test_bonus_readings_agree_with_the_algorithm() -> None:
    from dpaudit.algorithms.azize_basu_2022.adap import AdaPUCB

    n, t, eps = np.array([[8.0]]), np.array([1000.0]), 0.5
    for reading in ix.BONUSES:
        index = AdaPUCB(eps, bonus=reading).index(np.zeros((1, 1)), n, t)
        assert float(index[0, 0]) == pytest.approx(ix.bonus(reading, 4, 1000.0, eps))


def test_the_proof_step_holds_for_the_outside_reading_and_fails_for_the_printed_one() -> None:
    # the facts the finding rests on, at one cell each (t = 1e5, eps = 1)
    assert ix.worst_ratio(1e5, 1.0, "outside")[0] <= 1.0
    ratio, m, _, _ = ix.worst_ratio(1e5, 1.0, "printed")
    assert ratio > 1.0 and m == 1
    assert math.isfinite(ratio)


def test_regret_cells_are_the_rule_at_eps_071_and_1_for_both_initial_releases() -> None:
    """Theorem 7's regret cells (Eq. (7) as printed) at eps 0.71 and 1, one per initial
    release, each the rule's interval on [0, T * 0.25] with its bound as the paper's value;
    labels free of the run count so the confirmation matches them."""
    from dpaudit.algorithms.azize_basu_2022.bounds import thm7_adap_ucb_upper
    from dpaudit.registry import all_experiments

    assert ix.REGRET_EPS == (0.71, 1.0) and set(ix.RELEASES) == {"episode-rule", "lemma1"}
    exp = all_experiments()["adap-ucb-index-exact"]
    settings = exp.settings(horizon=4000, runs=30, quick=True)
    cells = ix._regret_cells(settings)
    assert len(cells) == 4
    for m in cells:
        eps = float(m.label.split("eps = ")[1].split(",")[0])
        assert m.paper_value == pytest.approx(thm7_adap_ucb_upper((0.75, 0.5), 4000, eps))
        assert (m.summary.low, m.summary.high) == (0.0, 1000.0) and m.direction == "at most"
        assert "30" not in m.label
