"""The one sampled-bound engine: same evidence gives the same verdict on every path, atoms are
found, and a whole check's exit code is wrong with probability at most alpha."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.engine import AuditSpec, ClaimSpec, FindingSpec, run_check
from dpaudit.mechanisms import RandomizedResponse
from dpaudit.stats.blackbox import AuditBudget, audit_mechanism, blackbox_evaluator
from dpaudit.stats.results import Notion, Verdict
from dpaudit.stats.sampled import SamplerPair, sampled_audit


def _flat_array(n, rng):
    return rng.random(n)


def _flat_summaries(n, rng):
    return {"action sequence": rng.integers(0, 2, (n, 6)), "pulls of arm 0": rng.integers(0, 9, n)}


class _Flat:
    """The same law on both inputs, claimed at delta = 0.99."""

    epsilon, delta = 1.0, 0.99
    neighbours = ((0, 1),)

    def sample(self, data, size, rng):
        return rng.random(size)


class _Id:
    def __init__(self, id):
        self.id = id


def test_same_evidence_same_verdict_on_every_path():
    # the example: the same law on both inputs, delta = 0.99, 300 samples. No event can
    # give p_lo > 0.99 on 240 measured draws, so nothing is detectable: INCONCLUSIVE everywhere
    # (deterministic: it holds for every outcome of the draws)
    budget = AuditBudget(samples=300)
    assert audit_mechanism(_Flat(), budget=budget, seed=1).verdict is Verdict.INCONCLUSIVE

    def claim(sampler):
        def evaluate(ctx, spec):
            return sampled_audit([SamplerPair("same law", sampler, sampler)], delta=ctx.delta,
                                 alpha=ctx.alpha, budget=budget, seed=ctx.seed, key=spec.id)
        return evaluate

    spec = AuditSpec(
        "flat", "same law on both inputs", "test",
        [ClaimSpec("array", Notion.LDP, "s", "r", claim(_flat_array)),
         ClaimSpec("summaries", Notion.GLOBAL, "s", "r", claim(_flat_summaries)),
         ClaimSpec("blackbox", Notion.LDP, "s", "r", blackbox_evaluator(
             lambda e, d: _Flat(), samples=300, quick_samples=300))],
        default_epsilon=1.0, default_delta=0.99,
        findings=[FindingSpec("trajectory", lambda ctx: claim(_flat_summaries)(ctx, _Id("f")),
                              summary="whole sequence")])
    report = run_check(spec, regret=False)
    assert {c.verdict for c in report.claims} == {Verdict.INCONCLUSIVE}
    assert all(c.detectable_epsilon is None for c in report.claims)
    assert report.findings[0].data["verdict"] == "INCONCLUSIVE"
    assert report.exit_code == 0
    text = report.to_dict()
    assert text["alpha_split"]["sampled_claims"] == 3
    assert all(c["data"]["detectable_at_power"] is None for c in text["claims"])  # inf -> null


class _LeakyLaplace:
    """Laplace(1/eps) on x in {0, 1}, except that with probability 1e-3 it returns x itself:
    no threshold isolates the leak, the atom {y = x} does (infinite true loss)."""

    epsilon, delta = 1.0, 0.0
    neighbours = ((0.0, 1.0),)

    def sample(self, data, size, rng):
        y = data + rng.laplace(0.0, 1.0 / self.epsilon, size)
        return np.where(rng.random(size) < 1e-3, data, y)


@pytest.mark.statistical
def test_atoms_catch_an_input_leaked_with_small_probability():
    # Selection (10^5 draws per side): an atom's projected bound beats every threshold's (at
    # most ~1, the Laplace part's loss) once it has >= 37 selection hits; both atoms {0} and
    # {1} below that has probability P[Bin(1e5, 1e-3) < 37]^2 < 1e-25. (At 200k samples, 4e4
    # selection draws per side, that was 9%: a seed could pick a threshold.) Measurement (4e5
    # per side): the atom has ~400 hits under one input and none under the other; a bound
    # below 2 needs fewer than 39 hits (probability < 1e-100).
    r = audit_mechanism(_LeakyLaplace(), budget=AuditBudget(samples=500_000), seed=11)
    assert r.verdict is Verdict.VIOLATED and "atoms" in r.event, r.event
    assert r.epsilon_lower_bound > 2.0


@pytest.mark.statistical
def test_family_wise_error_of_a_check_with_eight_sampled_claims():
    # A user audit file with 8 sampled claims of one correct randomized response (true loss
    # equal to the claim, the hardest correct case). Bonferroni makes P(exit 1) <= alpha = 0.2
    # per seed, so over 200 independent seeds the number of exits 1 is stochastically below
    # Binomial(200, 0.2). Failing above its 1 - 1e-3 quantile (58) has false-failure
    # probability <= 1e-3. Before the split the rate was 0.50 (149/300): ~100 expected here.
    seeds, alpha, false_failure = 200, 0.2, 1e-3
    limit = int(stats.binom.ppf(1 - false_failure, seeds, alpha))
    rr = blackbox_evaluator(lambda e, d: RandomizedResponse(e), samples=2_000,
                            quick_samples=2_000)
    spec = AuditSpec("user-rr", "8 sampled claims of one correct mechanism", "test",
                     [ClaimSpec(f"rr-{i}", Notion.LDP, "eps-LDP", "test", rr) for i in range(8)],
                     default_epsilon=1.0, default_delta=0.0)
    exits = sum(run_check(spec, seed=s, alpha=alpha, regret=False).exit_code for s in range(seeds))
    assert exits <= limit, (exits, limit)
    assert math.isclose(run_check(spec, seed=0, alpha=alpha).claims[0].alpha, alpha / 8)


@given(st.lists(st.lists(st.integers(0, 3), min_size=3, max_size=3), min_size=1, max_size=30),
       st.integers(1, 5))
def test_row_set_event_contains_exactly_its_rows(rows, k):
    from dpaudit.stats.families import RowSetEvent

    mat = np.array(rows)
    chosen = mat[:k]
    event = RowSetEvent(chosen)
    expected = [any((r == c).all() for c in chosen) for r in mat]
    assert event.contains(mat).tolist() == expected


def test_atom_event_is_exact_equality():
    from dpaudit.stats.families import AtomEvent

    y = np.array([0.0, 1e-12, 1.0, 0.0, -0.0])
    assert AtomEvent((0.0,)).contains(y).tolist() == [True, False, False, True, True]
