"""Global-DP auditing through the one sampled engine (named summaries, whole-sequence codes)
and the four global-DP audits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.engine import CheckContext
from dpaudit.registry import get_audit
from dpaudit.stats.events import best_category_subset
from dpaudit.stats.evidence import epsilon_from_counts
from dpaudit.stats.families import code_outcomes
from dpaudit.stats.sampled import AuditBudget, SamplerPair, sampled_audit
from dpaudit.validation import InvalidParameterError


def _rr(eps: float):
    """Randomized response on one bit: P(1 | x=1) = e^eps / (1 + e^eps)."""
    p1 = math.exp(eps) / (1 + math.exp(eps))

    def make(bit: int):
        def sample(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
            keep = rng.random(n) < p1
            out = np.where(keep, bit, 1 - bit)
            return {"bit": out, "pair": np.stack([out, np.zeros(n, int)], axis=1)}
        return sample
    return make(1), make(0)


def test_code_outcomes_agree_across_arrays() -> None:
    a = np.array([[0, 1], [1, 1], [0, 1]])
    b = np.array([[1, 1, -1], [0, 1, -1]])
    (ca, cb), n = code_outcomes(a, b)
    assert n == 2 and ca[0] == ca[2] == cb[1] and ca[1] == cb[0]


def test_select_event_prefers_the_lopsided_category() -> None:
    chosen, direction, *_ = best_category_subset(np.array([500, 300, 200]),
                                                 np.array([500, 450, 50]), n_measure=1000,
                                                 delta=0.0, alpha=0.05)
    assert 2 in chosen and 0 not in chosen and direction == "D vs D'"


def _bound(pair, *, epsilon, alpha, samples, seed):
    ev = sampled_audit([pair], delta=0.0, alpha=alpha, budget=AuditBudget(samples=samples),
                       seed=seed, key="rr")
    return epsilon_from_counts(ev.count_p, ev.n_p, ev.count_q, ev.n_q, delta=0.0,
                               alpha=alpha)[0], ev


@pytest.mark.statistical
def test_bound_is_valid_on_a_mechanism_with_known_epsilon() -> None:
    """Randomized response with true eps = 0.5 audited at claim 0.5. The bound exceeds the
    true loss with probability <= alpha = 1e-3 (the false-failure probability, seed fixed)."""
    bound, ev = _bound(SamplerPair("1 vs 0", *_rr(0.5)), epsilon=0.5, alpha=1e-3,
                       samples=40_000, seed=0)
    assert bound <= 0.5
    assert bound > 0.3  # power: 32k measured runs get close to the truth
    assert ev.event.startswith(("bit", "pair"))


@pytest.mark.statistical
def test_bound_catches_an_understated_epsilon() -> None:
    """True eps = 1 claimed as 0.2. With 20k runs per sample the expected bound is ~0.95;
    missing the violation would need the Clopper-Pearson limits to be off by far more than
    their 1 - alpha coverage allows (probability << 1e-3)."""
    bound, _ = _bound(SamplerPair("1 vs 0", *_rr(1.0)), epsilon=0.2, alpha=1e-3,
                      samples=40_000, seed=2)
    assert bound > 0.2


def test_different_summaries_are_a_usage_error() -> None:
    sp, _ = _rr(1.0)
    with pytest.raises(InvalidParameterError):
        sampled_audit([SamplerPair("x", sp, lambda n, g: {"nope": np.zeros(n, int)})],
                      delta=0.0, alpha=0.05, budget=AuditBudget(samples=1000), seed=0,
                      key="x")


# the end-to-end checks of adap-ucb, adap-klucb, dp-se, gdp-elim-new and adap-ucb-faulty run
# once, in the registry battery (tests/test_registry.py)


def test_coupled_runs_count_the_releases_one_reward_touches() -> None:
    """Theorem 6's premise measured on the code: exactly one release for AdaP-UCB and
    AdaP-KLUCB, several for the all-rewards variant (deterministic given the seed)."""
    for name, expect_one in (("adap-ucb", True), ("adap-klucb", True),
                             ("adap-ucb-faulty", False)):
        spec = get_audit(name)
        ctx = CheckContext(epsilon=1.0, delta=0.0, quick=True, variant=spec.variant)
        (finding,) = [f.evaluate(ctx) for f in spec.findings if f.id == "releases-touched"]
        if expect_one:
            assert finding.data["max_touched"] == 1
        else:
            assert finding.data["max_touched"] > 2


@given(st.lists(st.lists(st.integers(-1, 4), min_size=1, max_size=6), min_size=1, max_size=40),
       st.integers(1, 39))
def test_code_outcomes_equal_codes_iff_equal_padded_rows(rows, cut) -> None:
    width = max(len(r) for r in rows)
    mat = np.array([r + [-1] * (width - len(r)) for r in rows])
    cut = min(cut, len(rows))
    (ca, cb), n = code_outcomes(mat[:cut], mat[cut:]) if cut < len(rows) else (
        (code_outcomes(mat)[0][0], np.zeros(0, int)), code_outcomes(mat)[1])
    codes = np.concatenate([ca, cb])
    keys = [tuple(r) for r in mat]
    assert n == len(set(keys))
    for i in range(len(keys)):
        for j in range(len(keys)):
            assert (codes[i] == codes[j]) == (keys[i] == keys[j])


def test_code_outcomes_wide_rows_use_the_row_comparison_path() -> None:
    rng = np.random.default_rng(0)
    mat = rng.integers(-1, 5, size=(200, 40))  # 40 * log2(6) > 62 bits: several packed words
    mat[100:] = mat[:100]
    (codes,), n = code_outcomes(mat)
    assert n == 100 and np.array_equal(codes[:100], codes[100:])


@given(st.integers(0, 2**32 - 1), st.integers(1, 120), st.integers(1, 300),
       st.sampled_from([2, 3, 9, 64, 2**20, 2**31, 2**40, 2**62]), st.integers(-5, 5))
def test_code_outcomes_number_rows_as_numpy_unique_does(seed, width, n, levels, lo) -> None:
    """Rows packed into int64 words (or compared whole when a value needs more than 62 bits)
    get exactly ``np.unique(rows, axis=0)``'s numbering: lexicographic, so a choice among
    categories that breaks ties by code is the same on every path."""
    rng = np.random.default_rng(seed)
    mat = lo + rng.integers(0, levels, size=(n, width), dtype=np.int64)
    mat[n // 2:] = mat[:n - n // 2]  # repeats
    (codes,), count = code_outcomes(mat)
    _, expect = np.unique(mat, axis=0, return_inverse=True)
    assert count == int(expect.max()) + 1
    assert np.array_equal(codes, expect.reshape(-1))
