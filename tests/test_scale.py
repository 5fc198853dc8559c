"""The sampled engine's measurement: streamed, and the same evidence wherever chunks run."""

import tracemalloc

import numpy as np
import pytest

from dpaudit.mechanisms import Laplace
from dpaudit.stats.blackbox import AuditBudget, audit_mechanism
from dpaudit.stats.rng import child_seed
from dpaudit.stats.sampled import _count, _Counter

BUDGET = AuditBudget(samples=60_000)


def _evidence(**placement):
    res = audit_mechanism(Laplace(1.0), budget=BUDGET, seed=11, key="scale", **placement)
    ev = res.evidence
    return (ev.count_p, ev.count_q, ev.n_p, ev.event, ev.direction, res.epsilon_lower_bound)


def test_measurement_is_the_same_on_two_workers_and_on_a_dask_cluster():
    distributed = pytest.importorskip("distributed")
    one = _evidence()
    assert _evidence(workers=2) == one  # lambdas go to the pool through cloudpickle
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        assert _evidence(scheduler=cluster.scheduler_address) == one


class _Above:
    def contains(self, x):
        return x > 0.5


def _peak(n: int, chunk_bytes: int) -> int:
    tracemalloc.start()
    try:
        _count(lambda m, g: g.random(m), _Counter(events=(_Above(),)), n, child_seed(1, "m"),
               "p", chunk_bytes, "sample", 1, None)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_measurement_memory_does_not_grow_with_samples():
    # 10^5 and 10^6 draws of 8 bytes with chunks of at most 2^16 bytes (8192 rows): the peak is
    # a few chunks (outputs, the boolean event, the generator), never the 8 MB of all draws
    small, large = _peak(100_000, 1 << 16), _peak(1_000_000, 1 << 16)
    assert large < 8 * (1 << 16) + 200_000
    assert large < 1.5 * small + 100_000


def test_measured_counts_follow_the_law():
    # 10^6 uniform draws, P(x > 0.5) = 1/2: |hits - n/2| > 5.5 sd has probability < 1e-7,
    # this test's false-failure probability (seeded)
    n = 1_000_000
    (hits,), draws = _count(lambda m, g: g.random(m), _Counter(events=(_Above(),)), n,
                            child_seed(2, "m"), "p", 1 << 16, "sample", 1, None)
    assert draws == n  # no deadline: every planned draw is measured
    assert abs(hits - n / 2) < 5.5 * np.sqrt(n / 4)


def test_selection_is_capped_so_audit_memory_does_not_grow_with_samples():
    assert AuditBudget(samples=10**8).n_select == 200_000
    assert AuditBudget(samples=10**6).n_select == 200_000  # budgets up to 10^6 are unchanged
    assert AuditBudget(samples=10**8, max_select=None).n_select == 2 * 10**7
    with pytest.raises(Exception, match="max_select=5"):
        AuditBudget(max_select=5)

    def peak(n):
        tracemalloc.start()
        try:
            audit_mechanism(Laplace(1.0), budget=AuditBudget(samples=n), seed=3, key="m")
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(10**6), peak(5 * 10**6)
    assert large < 1.1 * small + 2**20
