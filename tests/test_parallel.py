"""Seeded chunked parallelism: same numbers whatever the number of workers."""

from functools import partial

import numpy as np
import pytest

from dpaudit.audits.wang_zhu_2023.dp_ftpl_new import _regret_chunk
from dpaudit.sim.parallel import chunk_sizes, map_chunks


def test_chunk_sizes():
    assert chunk_sizes(25, 10) == [10, 10, 5]
    assert chunk_sizes(20, 10) == [10, 10]


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_do_not_change_results(workers):
    fn = partial(_regret_chunk, 1.0, 0.01, 60, (10, 60))
    one = map_chunks(fn, 25, seed=4, key="t", chunk=10, workers=1)
    many = map_chunks(fn, 25, seed=4, key="t", chunk=10, workers=workers)
    assert len(one) == 3
    for (r1, c1), (r2, c2) in zip(one, many, strict=True):
        assert np.array_equal(r1, r2) and np.array_equal(c1, c2)
    # different keys give different streams
    other = map_chunks(fn, 25, seed=4, key="u", chunk=10, workers=1)
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(one, other, strict=True))
