"""Event families and their selection (dpaudit.stats.events): CP limits, thresholds, subsets,
scores."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.mechanisms import Laplace, RandomizedResponse
from dpaudit.stats.blackbox import AuditBudget, audit_mechanism
from dpaudit.stats.events import (
    DIRECTIONS,
    SubsetEvent,
    ThresholdEvent,
    best_subset_event,
    best_threshold_event,
    cp_lower,
    cp_upper,
    default_feature_map,
    fit_logistic_score,
    histogram_edges,
    inverted_cdf_quantiles,
    projected_bound,
)
from dpaudit.stats.rng import generator


@given(st.integers(min_value=0, max_value=500), st.integers(min_value=1, max_value=500),
       st.floats(min_value=1e-6, max_value=0.4))
def test_vectorised_cp_matches_statsmodels(k, n, a):
    # independent implementation: statsmodels' Clopper-Pearson ("beta") interval at 2a
    from statsmodels.stats.proportion import proportion_confint

    def clopper_pearson_lower(k, n, a):
        return 0.0 if k <= 0 else proportion_confint(k, n, alpha=2 * a, method="beta")[0]

    def clopper_pearson_upper(k, n, a):
        return 1.0 if k >= n else proportion_confint(k, n, alpha=2 * a, method="beta")[1]

    k = min(k, n)
    assert float(cp_lower(k, n, a)) == pytest.approx(clopper_pearson_lower(k, n, a), rel=1e-9,
                                                     abs=1e-15)
    assert float(cp_upper(k, n, a)) == pytest.approx(clopper_pearson_upper(k, n, a), rel=1e-9,
                                                     abs=1e-15)


@given(st.floats(min_value=0.0, max_value=1.0), st.floats(min_value=0.0, max_value=1.0))
def test_projected_bound_never_nan_and_wilson_close_to_exact(p, q):
    exact = projected_bound(p, q, 10_000, 100_000, delta=0.0, alpha=0.05)
    approx = projected_bound(p, q, 10_000, 100_000, delta=0.0, alpha=0.05, exact=False)
    assert not np.isnan(exact) and not np.isnan(approx)
    if np.isfinite(exact) and p > 0.01 and q > 0.01:
        assert float(approx) == pytest.approx(float(exact), abs=0.02)


def test_projected_bound_prefers_large_counts_at_equal_ratio():
    # same ratio e, ten times the mass: a narrower interval, hence a larger projected bound
    small = projected_bound(0.05, 0.05 / math.e, 10_000, 100_000, delta=0.0, alpha=0.05)
    large = projected_bound(0.5, 0.5 / math.e, 10_000, 100_000, delta=0.0, alpha=0.05)
    assert large > small


def test_threshold_events_contain_the_right_side():
    y = np.array([-1.0, 0.0, 1.0, 2.0])
    assert ThresholdEvent(1.0, True).contains(y).tolist() == [False, False, True, True]
    assert ThresholdEvent(0.0, False).contains(y).tolist() == [True, True, False, False]
    assert SubsetEvent((0, 2)).contains(np.array([0, 1, 2, 3])).tolist() == [True, False,
                                                                            True, False]


def test_best_threshold_on_laplace_is_a_likely_tail_with_ratio_near_e():
    mech = Laplace(1.0)
    rng = generator(5, "sel")
    a, b = mech.sample(0.0, 100_000, rng), mech.sample(1.0, 100_000, rng)
    cand = best_threshold_event(a, b, n_measure=400_000, delta=0.0, alpha=0.05)
    ev = cand.event
    # the event must be the likely one for its P side: upper tail for D' = 1, lower for D = 0
    assert (cand.direction == DIRECTIONS[1]) == ev.upper
    # the exact law: the ratio of the chosen tail is close to e^1 and its mass is substantial
    p_side, q_side = (1.0, 0.0) if ev.upper else (0.0, 1.0)
    law = mech.sf if ev.upper else mech.cdf
    p, q = float(law(ev.threshold, p_side)), float(law(ev.threshold, q_side))
    assert math.log(p / q) > 0.95 and p > 0.1


def test_best_subset_picks_the_reported_value():
    mech = RandomizedResponse(1.0, k=4)
    rng = generator(6, "sel")
    a, b = mech.sample(0, 50_000, rng), mech.sample(1, 50_000, rng)
    cand = best_subset_event(a, b, 4, n_measure=200_000, delta=0.0, alpha=0.05)
    assert cand.event.outcomes in {(0,), (1,)}
    assert cand.projected_bound > 0.9


def test_feature_map_has_fixed_columns():
    fmap = default_feature_map(np.array([[0, 1, 2], [2, 2, 0]]))
    out = fmap(np.array([[0, 0, 0]]))
    assert out.shape == (1, 3 * 3 + 3)  # one-hot per position + counts of each value
    assert out[0, -3:].tolist() == [3.0, 0.0, 0.0]
    assert default_feature_map(np.zeros((2, 3)))(np.ones((4, 3))).shape == (4, 3)


def test_logistic_score_finds_the_shift_direction():
    rng = generator(7, "fit")
    shift = np.array([1.0, 0.0, -0.5, 0.0])
    a = rng.standard_normal((4000, 4)) + shift
    b = rng.standard_normal((4000, 4))
    score = fit_logistic_score(a, b)
    w = score.weights / score.scale
    cos = w @ shift / (np.linalg.norm(w) * np.linalg.norm(shift))
    assert cos > 0.95
    assert score(a).mean() > score(b).mean()


@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=2, max_value=6),
       st.integers(min_value=1, max_value=12), st.integers(min_value=-2, max_value=3),
       st.booleans())
def test_indicator_score_table_equals_the_matrix_form(seed, levels, length, lo, onehot):
    """A learned score on indicator features is evaluated by table look-up and fitted on a
    sparse design; both must be the dense matrix computation (features, standardisation,
    product) up to rounding, including values outside the fitted range (no indicator)."""
    from dpaudit.stats.events import LogisticScore, _DiscreteFeatures, _standardised

    rng = np.random.default_rng(seed)
    a = rng.integers(lo, lo + levels, (300, length))
    b = np.where(rng.random((300, length)) < 0.3, lo, rng.integers(lo, lo + levels, (300, length)))
    feats = _DiscreteFeatures(np.arange(lo, lo + levels), onehot)
    score = fit_logistic_score(a, b, features=feats)
    dense = LogisticScore(score.weights, score.intercept, score.mean, score.scale,
                          lambda y: feats(y))  # a plain callable: the matrix form
    test = np.concatenate([a[:50], rng.integers(lo - 2, lo + levels + 2, (50, length))])
    assert np.allclose(score(test), dense(test), rtol=1e-12, atol=1e-12)
    x = feats(np.concatenate([a, b]))
    mean, scale, times, times_t = _standardised(feats, np.concatenate([a, b]))
    s_dense = x.std(axis=0)
    assert np.allclose(mean, x.mean(axis=0), atol=1e-12)
    assert np.allclose(scale, np.where(s_dense > 0, s_dense, 1.0), rtol=1e-9, atol=1e-12)
    xs = (x - x.mean(axis=0)) / scale
    w, g = rng.standard_normal(x.shape[1]), rng.standard_normal(len(x))
    assert np.allclose(times(w), xs @ w, rtol=1e-9, atol=1e-9)
    assert np.allclose(times_t(g), xs.T @ g, rtol=1e-9, atol=1e-9)


class _NoSignal:
    """Two inputs with the *same* output law; any bound above a tiny claim is a false alarm."""

    epsilon, delta = 1e-3, 0.0
    neighbours = ((0, 1),)

    def sample(self, data, size, rng):
        return rng.standard_normal(size)


@pytest.mark.statistical
def test_bound_is_valid_when_there_is_nothing_to_find():
    # With identical laws, P[bound > 1e-3] <= alpha = 0.05 per audit if selection and
    # measurement are honestly separated. Over 150 independent audits the count of false
    # alarms is stochastically below Binomial(150, 0.05); we fail only if it exceeds the
    # 1 - 1e-4 quantile of that binomial: false-failure probability <= 1e-4.
    runs, alpha = 150, 0.05
    limit = int(stats.binom.ppf(1 - 1e-4, runs, alpha))
    hits = sum(
        audit_mechanism(_NoSignal(), alpha=alpha, budget=AuditBudget(samples=2000),
                        seed=s, key="nosignal").verdict.value == "VIOLATED"
        for s in range(runs))
    assert hits <= limit


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=300),
       st.lists(st.floats(0.0, 1.0), min_size=1, max_size=50))
def test_inverted_cdf_quantiles_are_numpys(values, levels):
    """The indexed quantiles of the selection histogram's edges are numpy's inverted_cdf
    quantiles bit for bit (so the edges, and every event chosen from them, are unchanged)."""
    x = np.asarray(values, float)
    q = np.asarray(levels, float)
    assert np.array_equal(inverted_cdf_quantiles(np.sort(x), q),
                          np.quantile(x, q, method="inverted_cdf"))


@pytest.mark.parametrize("n", [5000, 123457])
def test_histogram_edges_at_the_pilot_sizes(n):
    """On pilots larger than the bins (continuous and heavily tied), the edges equal those
    computed with np.unique and np.quantile directly."""
    from scipy.special import expit

    rng = np.random.default_rng(n)
    for a, b in ((rng.normal(size=n), rng.normal(1.0, 1.0, size=n)),
                 (np.round(rng.normal(size=n), 2), np.round(rng.laplace(size=n), 2))):
        v = np.concatenate([a, b])
        u = np.unique(v)
        lo = 1.0 / (2.0 * len(v))
        levels = expit(np.linspace(np.log(lo / (1 - lo)), np.log((1 - lo) / lo), 4096))
        core = np.unique(np.concatenate([np.quantile(v, levels, method="inverted_cdf"),
                                         u[[0, -1]]]))
        step = (core[-1] - core[0]) / (2.0 * 256)
        ext = step * np.arange(1, 257)
        want = u if len(u) <= 4096 else np.unique(np.concatenate([core[0] - ext[::-1], core,
                                                                  core[-1] + ext]))
        assert np.array_equal(histogram_edges(a, b), want)



@given(st.integers(min_value=0, max_value=10**6), st.floats(0.0, 3.0),
       st.sampled_from([10**3, 10**5, 10**7]), st.integers(min_value=2, max_value=4))
def test_best_mu_is_the_same_on_any_number_of_threads(seed, shift, n, threads):
    """The Gaussian-DP event search computes its candidates in slices on threads when the
    audit has a second core: the same event, bound and frequencies as in one thread."""
    from dpaudit.stats.events import ThresholdFamily

    rng = np.random.default_rng(seed)
    edges = np.sort(rng.normal(0.0, 3.0, size=int(rng.integers(300, 1500))))
    cells = np.r_[-np.inf, edges, np.inf]
    counts_a = rng.multinomial(n, np.diff(stats.norm.cdf(cells)))
    counts_b = rng.multinomial(n, np.diff(stats.norm.cdf(cells, loc=shift)))
    fam = ThresholdFamily.of(edges, counts_a, counts_b)
    one = fam.best_mu(n_measure=10**6, alpha=0.05)
    assert fam.best_mu(n_measure=10**6, alpha=0.05, threads=threads) == one


@given(st.lists(st.integers(-3, 5), min_size=1, max_size=60),
       st.lists(st.integers(-3, 5), min_size=1, max_size=7, unique=True),
       st.sampled_from([np.int64, np.int8, np.float64]))
def test_a_subset_event_contains_what_isin_does(outputs, outcomes, dtype):
    """A few outcomes are matched by comparisons (np.isin's table is slow on large samples);
    the answer is np.isin's for any number of outcomes and any output type."""
    y = np.asarray(outputs).astype(dtype)
    got = SubsetEvent(tuple(outcomes)).contains(y)
    assert got.dtype == bool and np.array_equal(got, np.isin(y, outcomes))
