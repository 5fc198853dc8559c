"""Seeded chunked parallelism: same numbers whatever the number of workers."""

import os
from functools import partial

import numpy as np
import pytest

from dpaudit.audits.wang_zhu_2023.dp_ftpl_new import _regret_chunk
from dpaudit.runtime import parallel
from dpaudit.runtime.parallel import chunk_sizes, map_chunks


def test_chunk_sizes():
    assert chunk_sizes(25, 10) == [10, 10, 5]
    assert chunk_sizes(20, 10) == [10, 10]


def _pid(size, rng):
    return os.getpid(), float(rng.random())


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_do_not_change_results(workers, monkeypatch):
    monkeypatch.setattr(parallel, "POOL_START_SECONDS", 0.0)  # always worth a pool
    fn = partial(_regret_chunk, 1.0, 0.01, 60, (10, 60))
    one = map_chunks(fn, 25, seed=4, key="t", chunk=10, workers=1)
    many = map_chunks(fn, 25, seed=4, key="t", chunk=10, workers=workers)
    assert len(one) == 3
    for (r1, c1), (r2, c2) in zip(one, many, strict=True):
        assert np.array_equal(r1, r2) and np.array_equal(c1, c2)
    # different keys give different streams
    other = map_chunks(fn, 25, seed=4, key="u", chunk=10, workers=1)
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(one, other, strict=True))


def test_small_work_stays_in_this_process_and_says_so():
    notes = []
    out = map_chunks(_pid, 40, seed=1, key="small", chunk=10, workers=2, placement=notes.append)
    assert {pid for pid, _ in out} == {os.getpid()}
    assert len(notes) == 1 and notes[0].startswith("ran in one process")
    alone = map_chunks(_pid, 40, seed=1, key="small", chunk=10, workers=1)
    assert [u for _, u in out] == [u for _, u in alone]


def test_work_worth_a_pool_goes_to_the_pool(monkeypatch):
    monkeypatch.setattr(parallel, "POOL_START_SECONDS", 0.0)
    notes = []
    out = map_chunks(_pid, 40, seed=1, key="big", chunk=10, workers=2, placement=notes.append)
    assert notes == [] and {pid for pid, _ in out}.isdisjoint({os.getpid()})
    alone = map_chunks(_pid, 40, seed=1, key="big", chunk=10, workers=1)
    assert [u for _, u in out] == [u for _, u in alone]


def test_simulate_reports_where_small_work_ran():
    from dpaudit.sim.simulation import simulate_policy

    two = simulate_policy("ucb", horizon=50, runs=20, seed=3, workers=2)
    one = simulate_policy("ucb", horizon=50, runs=20, seed=3, workers=1)
    assert two.placement is not None and two.placement.startswith("ran in one process")
    assert one.placement is None and two.numbers() == one.numbers()
    assert "placement" in two.to_dict()
