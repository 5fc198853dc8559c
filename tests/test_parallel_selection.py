"""The sampled engine's selection in parallel: same evidence whatever the workers.

With ``AuditBudget(select_chunk=...)`` the ranking and selection samples are drawn in fixed
chunks by the workers (the event is chosen from the merged sample); the evidence (counts,
event, direction, ranking) is identical on 1 worker, 2 local workers (one pool shared by every
stage) and a Dask scheduler. Without it, the selection draws the stream it always drew. Tasks
that batch several chunks return what the chunks return one by one.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.runtime import parallel
from dpaudit.runtime.parallel import SharedPool, map_chunks, task_batches
from dpaudit.stats.blackbox import AuditBudget
from dpaudit.stats.rng import generator
from dpaudit.stats.sampled import SamplerPair, sampled_audit


def _shifted(shift, n, rng):
    return rng.laplace(shift, 1.0, n)


def _binary(p, n, rng):
    return {"bit": (rng.random(n) < p).astype(np.int64), "value": rng.normal(p, 1.0, n)}


def _pairs():
    from functools import partial
    return [SamplerPair("laplace shift 1", partial(_shifted, 0.0), partial(_shifted, 1.0)),
            SamplerPair("laplace shift 0.5", partial(_shifted, 0.0), partial(_shifted, 0.5))]


def _evidence(pairs, budget, **placement):
    ev = sampled_audit(pairs, delta=0.0, alpha=0.05, budget=budget, seed=3, key="sel",
                       **placement)
    return (ev.count_p, ev.count_q, ev.event, ev.direction, ev.p_select, ev.data["ranking"])


@pytest.mark.parametrize("summaries", [False, True])
def test_chunked_selection_gives_the_same_evidence_on_any_number_of_workers(monkeypatch,
                                                                             summaries):
    monkeypatch.setattr(parallel, "POOL_START_SECONDS", 0.0)  # always worth a pool
    from functools import partial
    pairs = [SamplerPair("bits", partial(_binary, 0.3), partial(_binary, 0.5))] if summaries \
        else _pairs()
    budget = AuditBudget(samples=20_000, rank_samples=2_000, select_chunk=700)
    one = _evidence(pairs, budget, workers=1)
    two = _evidence(pairs, budget, workers=2)
    assert one == two
    assert one[0] != one[1]  # the shifted laws are told apart: the evidence is not empty


def test_chunked_selection_on_a_dask_scheduler(loopback_scheduler):
    budget = AuditBudget(samples=6_000, rank_samples=1_000, select_chunk=500)
    assert _evidence(_pairs(), budget, workers=1) == \
        _evidence(_pairs(), budget, scheduler=loopback_scheduler)


def test_auto_chunks_follow_the_sample_size_alone():
    budget = AuditBudget()
    assert budget.select_chunk == "auto"
    assert budget.chunk_for(200_000) == 12_500  # 16 chunks of the default selection sample
    assert budget.chunk_for(800) == 1000        # one chunk, never smaller than 1000 draws
    assert AuditBudget(select_chunk=None).chunk_for(10**6) is None
    assert AuditBudget(select_chunk=700).chunk_for(10**6) == 700


def test_auto_chunked_selection_is_the_same_on_every_placement(monkeypatch,
                                                                loopback_scheduler):
    monkeypatch.setattr(parallel, "POOL_START_SECONDS", 0.0)  # always worth a pool
    budget = AuditBudget(samples=40_000, rank_samples=2_000)  # the default select_chunk
    one = _evidence(_pairs(), budget, workers=1)
    assert one == _evidence(_pairs(), budget, workers=2)
    assert one == _evidence(_pairs(), budget, scheduler=loopback_scheduler)


def test_without_select_chunk_the_selection_draws_its_one_stream():
    """``select_chunk=None`` keeps the stream ``(seed, key, "select")``: p's draws, then
    q's."""
    from dpaudit.stats.rng import child_seed
    from dpaudit.stats.sampled import _Source
    pair = _pairs()[0]
    rng = generator(3, "sel", "select")
    a, b = pair.sample_p(500, rng), pair.sample_q(500, rng)
    got = _Source(child_seed(3, "sel", "select"), None).sample(pair, 500, "t")
    assert np.array_equal(got[0], a) and np.array_equal(got[1], b)


def _uniforms(size, rng):
    return rng.random(size)


def test_batched_tasks_return_what_single_chunks_return(monkeypatch):
    monkeypatch.setattr(parallel, "POOL_START_SECONDS", 0.0)
    monkeypatch.setattr(parallel, "MIN_TASK_SECONDS", 10.0)  # forces several chunks per task
    with SharedPool(2) as pool:
        batched = map_chunks(_uniforms, 1000, seed=5, key="b", chunk=37, pool=pool)
        assert pool.started
    alone = map_chunks(_uniforms, 1000, seed=5, key="b", chunk=37, workers=1)
    assert len(batched) == len(alone) == 28
    assert all(np.array_equal(x, y) for x, y in zip(batched, alone, strict=True))


def test_task_batches_follow_the_measured_cost():
    assert task_batches(100, 1.0, 2) == 1          # expensive chunks: one per task
    assert task_batches(100, 1e-4, 2) == 25        # cheap: batched, but 2 tasks per process
    assert task_batches(1000, 1e-3, 2) == 50       # MIN_TASK_SECONDS / cost
    assert task_batches(3, 1e-6, 2) == 1           # too few chunks to batch


def test_select_chunk_is_validated():
    from dpaudit.validation import InvalidParameterError
    with pytest.raises(InvalidParameterError):
        AuditBudget(select_chunk=10)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16, np.int8, bool, np.float64])
def test_selection_chunks_cross_processes_packed_and_come_back_exact(dtype):
    """Integer chunks travel in their narrowest type; merged, the sample has the values and
    the type that concatenating the raw chunks gives (negative values, dicts included)."""
    from dpaudit.stats.sampled import _draw_chunk, _merge

    def sampler(n, rng):
        raw = rng.integers(-3 if np.dtype(dtype).kind == "i" else 0, 200, (n, 5))
        return {"a": raw.astype(dtype), "b": raw[:, 0].astype(np.int64) * 10**12}

    chunks = [sampler(40, np.random.default_rng(i)) for i in range(3)]
    shipped = [_draw_chunk(sampler, "t", 40, np.random.default_rng(i)) for i in range(3)]
    merged = _merge(shipped, "t")
    for name in ("a", "b"):
        expect = np.concatenate([c[name] for c in chunks])
        assert merged[name].dtype == expect.dtype and np.array_equal(merged[name], expect)
