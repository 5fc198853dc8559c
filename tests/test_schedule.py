"""One scheduler for every command (:mod:`dpaudit.runtime.schedule`): the pieces of ``check``,
``claims`` and ``reproduce --all`` run on a pool or a Dask cluster, longest first, with their
chunks sharing the workers, and every report and stored output is the one a serial run makes.
Deterministic tests (fixed seeds, no statistics decided here): no false-failure budget."""

from __future__ import annotations

import json
import os
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpaudit.engine import run_check
from dpaudit.registry import all_statements, get_audit
from dpaudit.runtime.parallel import in_piece, map_chunks, map_items
from dpaudit.runtime.schedule import Piece, _Graph, run_graph, upward_ranks
from dpaudit.validation import InvalidParameterError


def _draws(size: int, rng: np.random.Generator) -> tuple[int, float]:
    return os.getpid(), float(rng.random())


def _mapping_piece(n: int, cost: float, imports: dict) -> tuple[list, dict]:
    def chunk(size: int, rng: np.random.Generator) -> tuple[int, float]:
        time.sleep(cost)  # slow enough that a helper is worth forking
        return _draws(size, rng)
    return map_chunks(chunk, n * 10, seed=7, key=f"piece-{n}", chunk=10, workers=2), {}


def test_pieces_and_their_chunks_give_the_serial_results_on_two_workers() -> None:
    pieces = [Piece("long", partial(_mapping_piece, 12, 0.03), cost=2.0),
              Piece("short", partial(_mapping_piece, 3, 0.03), cost=1.0)]
    serial = run_graph(pieces, workers=1)
    local = run_graph(pieces, workers=2)
    for key in ("long", "short"):
        assert [u for _, u in local[key].value] == [u for _, u in serial[key].value]
        assert len(local[key].value) == {"long": 12, "short": 3}[key]
    assert os.getpid() not in {pid for pid, _ in local["long"].value}  # ran on the workers


def test_longest_first_and_dependencies_wait() -> None:
    noop = partial(_mapping_piece, 1, 0.0)
    graph = _Graph([Piece("a", noop, 1.0), Piece("b", noop, 5.0, after=("c",)),
                    Piece("c", noop, 3.0), Piece("d", noop, 0.0)])
    first = [graph.pieces[i].key for i in graph.ready()]
    assert first == ["c", "a", "d"]  # b waits for c; the rest by cost, then declared order
    graph.results["c"] = None  # type: ignore[assignment]
    assert [graph.pieces[i].key for i in graph.ready()] == ["b"]


def test_the_longest_chain_starts_first_and_a_late_piece_jumps_the_short_ones() -> None:
    # check dp-ftpl-new's shape: an exact search (6 s) whose worst pair a sampled attack (7 s)
    # reuses, beside independent pieces (5 s, and short ones): the search's rank is its chain
    noop = partial(_mapping_piece, 1, 0.0)
    pieces = [Piece("short-1", noop, 1.0), Piece("short-2", noop, 0.5),
              Piece("search", noop, 6.0), Piece("alone", noop, 5.0),
              Piece("attack", noop, 7.0, after=("search",))]
    assert upward_ranks(pieces) == {
        "short-1": 1.0, "short-2": 0.5, "search": 13.0, "alone": 5.0, "attack": 7.0}
    graph = _Graph(pieces)
    # two free workers take the two best ready pieces; the short ones are not queued yet
    assert [graph.pieces[i].key for i in graph.ready(most=2)] == ["search", "alone"]
    graph.results["search"] = None  # type: ignore[assignment]
    # the search's worker is free: the attack, ready only now, comes before the short ones
    assert [graph.pieces[i].key for i in graph.ready(most=1)] == ["attack"]
    assert [graph.pieces[i].key for i in graph.ready()] == ["short-1", "short-2"]


def test_a_dependency_cycle_is_a_usage_error() -> None:
    noop = partial(_mapping_piece, 1, 0.0)
    with pytest.raises(InvalidParameterError, match="cycle"):
        _Graph([Piece("a", noop, 1.0, after=("b",)), Piece("b", noop, 1.0, after=("a",))])


def _exporting(store: str, imports: dict) -> tuple[int, dict]:
    Path(store, f"computed-{os.getpid()}-{time.monotonic_ns()}").write_text("")
    return 1, {"shared": np.arange(3)}


def _importing(imports: dict) -> tuple[list, dict]:
    return [int(x) for x in imports["shared"]], {}


def test_a_piece_after_another_receives_its_shared_work(tmp_path) -> None:
    pieces = [Piece("uses", _importing, 9.0, after=("makes",)),
              Piece("makes", partial(_exporting, str(tmp_path)), 1.0)]
    got = run_graph(pieces, workers=2)
    assert got["uses"].value == [0, 1, 2]
    assert len(list(tmp_path.iterdir())) == 1  # computed once


def _chained(name: str, imports: dict) -> tuple[list, dict]:
    return sorted(imports), {name: np.arange(2)}


def test_a_piece_receives_the_work_of_every_piece_before_it_each_sent_once() -> None:
    # c comes after b, which comes after a: c receives a's work too, though b does not send
    # on what it received (a large table of laws crossed the pool twice that way)
    pieces = [Piece("a", partial(_chained, "x"), 3.0),
              Piece("b", partial(_chained, "y"), 2.0, after=("a",)),
              Piece("c", partial(_chained, "z"), 1.0, after=("b",))]
    for workers in (1, 2):
        got = run_graph(pieces, workers=workers)
        assert got["b"].value == ["x"]
        assert got["c"].value == ["x", "y"]
        assert list(got["b"].exports) == ["y"]


def _first_waits_for_the_second(items_started: Any, item: int) -> int:
    """Item 0 returns only once item 1 has started (at most 60 s): quickly only when item 1
    ran in another process at the same time."""
    if item == 1:
        items_started.set()
        return os.getpid()
    items_started.wait(timeout=60.0)
    return os.getpid() if items_started.is_set() else -1


_STARTED: Any = None


def _two_items(imports: dict) -> tuple[list, dict]:
    return map_items(partial(_first_waits_for_the_second, _STARTED), [0, 1]), {}


def _short(imports: dict) -> tuple[int, dict]:
    return os.getpid(), {}


def test_items_take_a_worker_that_becomes_free_while_the_first_runs() -> None:
    # two items (the two sides of a sampled attack) in a piece that starts while the other
    # worker is busy with a short piece: once that one ends, no piece is ready, and its
    # worker takes the second item while the first still runs (the first waits for it; after
    # the first item, with one item left, no helper would ever be recruited)
    global _STARTED
    import multiprocessing

    _STARTED = multiprocessing.get_context("fork").Event()
    got = run_graph([Piece("items", _two_items, 2.0), Piece("short", _short, 1.0)],
                    workers=2)
    first, second = got["items"].value
    assert first != -1, "the second item did not start while the first ran"
    assert first != second


def test_the_scheduler_hands_a_token_to_a_ready_piece_before_the_helpers() -> None:
    import multiprocessing

    from dpaudit.runtime import schedule

    sem = multiprocessing.get_context("fork").Semaphore(2)
    tokens = schedule._Tokens(sem, 2)
    assert sem.get_value() == 0  # the scheduler holds both: no helper can take one
    assert tokens.take(running=False) and tokens.take(running=True)
    assert not tokens.take(running=True)  # a third piece waits (the helpers hold none)
    tokens.back()  # a piece ended: its token goes to the next ready piece, not to a helper
    assert sem.get_value() == 0 and tokens.take(running=True)
    tokens.back()
    tokens.free()  # no piece is ready: now a helper may take it
    assert sem.get_value() == 1
    assert sem.acquire(False)  # a helper took it
    assert not tokens.take(running=True)
    sem.release()  # the helper's map ended
    assert tokens.take(running=True)


def test_a_token_lost_with_a_stopped_helper_does_not_stop_the_graph(monkeypatch) -> None:
    import multiprocessing

    from dpaudit.runtime import schedule

    monkeypatch.setattr(schedule, "TOKEN_LOST_SECONDS", 0.01)
    sem = multiprocessing.get_context("fork").Semaphore(1)
    tokens = schedule._Tokens(sem, 1)
    tokens.take(running=False)
    tokens.free()  # nothing held
    assert tokens.take(running=False)  # no piece runs, none comes back: go on without


def test_the_heap_is_frozen_while_a_pool_forks_from_it_and_given_back_after() -> None:
    import gc

    from dpaudit.runtime.parallel import frozen_heap

    before = gc.get_freeze_count()
    with frozen_heap():
        inner = gc.get_freeze_count()
        with frozen_heap():  # nested: the outer one gives them back
            pass
        assert gc.get_freeze_count() == inner > 0
    assert gc.get_freeze_count() == before == 0


def _failing(imports: dict) -> tuple[int, dict]:
    raise ValueError("boom in a piece")


def test_an_error_in_a_piece_is_raised_here() -> None:
    pieces = [Piece("ok", partial(_mapping_piece, 1, 0.0)), Piece("bad", _failing)]
    with pytest.raises(ValueError, match="boom in a piece"):
        run_graph(pieces, workers=2)


def _square(x: int) -> int:
    return x * x


def _items_piece(imports: dict) -> tuple[tuple[bool, list], dict]:
    return (in_piece(), map_items(_square, range(30))), {}


def test_map_items_is_a_list_comprehension_wherever_it_runs() -> None:
    assert map_items(_square, range(30)) == [x * x for x in range(30)]
    got = run_graph([Piece("a", _items_piece), Piece("b", _items_piece)], workers=2)
    assert got["a"].value == (True, [x * x for x in range(30)])


def _timeless(o):
    """``o`` (parsed JSON) without its wall-clock fields."""
    if isinstance(o, dict):
        return {k: _timeless(v) for k, v in o.items() if k != "seconds"}
    if isinstance(o, list):
        return [_timeless(v) for v in o]
    return o


def _numbers(report) -> dict:
    """A check report without its wall-clock fields (and the worker count it records)."""
    doc = _timeless(json.loads(json.dumps(report.to_dict(), default=str)))
    doc["parameters"].pop("workers")
    return doc


#: a check whose pieces depend on one another (the sampled trajectory finding reuses the
#: exact search) and whose exact search splits into independent evaluations
NAME = "thompson"


def test_check_is_the_same_on_one_and_two_workers() -> None:
    spec = get_audit(NAME)
    one = run_check(spec, quick=True, workers=1)
    two = run_check(spec, quick=True, workers=2)
    assert _numbers(two) == _numbers(one)


def test_check_is_the_same_on_a_dask_cluster(loopback_scheduler, monkeypatch) -> None:
    from dpaudit.runtime import schedule

    sent = []
    real = schedule._run_dask
    monkeypatch.setattr(schedule, "_run_dask", lambda g, a, d: (sent.append(a), real(g, a, d)))
    spec = get_audit("randomized-response")
    one = run_check(spec, quick=True, workers=1)
    monkeypatch.setenv("DPAUDIT_SCHEDULER", loopback_scheduler)
    cluster = run_check(spec, quick=True, workers=1)
    assert sent == [loopback_scheduler]
    assert _numbers(cluster) == _numbers(one)


def _mode(imports: dict) -> tuple[str, dict]:
    from dpaudit.runtime.parallel import _PIECE

    return str(_PIECE.get()), {}


def test_on_a_cluster_only_the_last_pieces_spread_their_chunks(loopback_scheduler) -> None:
    # two threads: a piece handed out while others wait to start runs its maps in its own
    # task (a task waiting for its chunks would leave its thread to another piece); the last
    # piece handed out sends its chunks to the cluster
    pieces = [Piece(f"p{k}", _mode, float(4 - k)) for k in range(4)]
    got = run_graph(pieces, scheduler=loopback_scheduler)
    assert got["p0"].value == got["p1"].value == "chunk"
    assert got["p3"].value == "dask"


class _Interrupting:
    """A piece store that stops the run (as Ctrl-C) after its first saved piece."""

    def __init__(self, stop: bool) -> None:
        self.saved: dict = {}
        self.loaded: list[str] = []
        self.stop = stop

    def load(self, piece: str):
        got = self.saved.get(piece)
        if got is not None:
            self.loaded.append(piece)
        return got

    def save(self, piece: str, value, seconds: float) -> None:
        from dpaudit.runtime.state import Saved

        self.saved[piece] = Saved(value, seconds)
        if self.stop:
            raise KeyboardInterrupt


def test_an_interrupted_scheduled_check_resumes_per_piece() -> None:
    spec = get_audit(NAME)
    whole = run_check(spec, quick=True, workers=2)
    store = _Interrupting(stop=True)
    with pytest.raises(KeyboardInterrupt):
        run_check(spec, quick=True, workers=2, state=store)
    assert len(store.saved) == 1
    store.stop = False
    resumed = run_check(spec, quick=True, workers=2, state=store)
    assert store.loaded == list(store.saved)[:1]  # the piece done before is read back
    assert _numbers(resumed) == _numbers(whole)


#: statements whose tests are cheap checks and an exact experiment
CHEAP = {"laplace", "privbern", "hybrid-counter", "ldp-thresholding-exponents"}


def test_the_ledger_is_the_same_on_two_workers(tmp_path) -> None:
    from dpaudit.commands.claims import schedule_tests
    from dpaudit.reports.ledger import Runner, build_ledger, ledger_json

    statements = [s for s in all_statements() if {r.name for r in s.tests} <= CHEAP]
    assert len(statements) >= 3
    serial = ledger_json(build_ledger(statements, runner=Runner()))
    runner = Runner(save=tmp_path)
    schedule_tests(statements, runner, workers=2)
    assert {p.name for p in tmp_path.iterdir()} == {"laplace.json", "privbern.json",
                                                    "hybrid-counter.json"}
    assert ledger_json(build_ledger(statements, runner=runner)) == serial


def _stripped(path: Path) -> dict:
    return _timeless(json.loads(path.read_text()))


def test_claims_json_and_a_reproduction_are_the_same_on_a_dask_cluster(
        tmp_path, monkeypatch, loopback_scheduler, capsys) -> None:
    from dpaudit.cli import main

    cheap = tuple(s for s in all_statements() if {r.name for r in s.tests} <= CHEAP)
    assert len(cheap) >= 3
    monkeypatch.setattr("dpaudit.commands.claims.all_statements", lambda: cheap)
    for where, extra in (("here", []), ("cluster", ["--scheduler", loopback_scheduler])):
        assert main(["claims", *extra, "--json", str(tmp_path / f"{where}.json")]) == 0
        assert main(["reproduce", "ldp-thresholding-exponents", "--quick", "--no-state",
                     *extra, "--out", str(tmp_path / where)]) == 0
    assert _stripped(tmp_path / "cluster.json") == _stripped(tmp_path / "here.json")
    files = sorted(p.name for p in (tmp_path / "here").iterdir())
    assert files and files == sorted(p.name for p in (tmp_path / "cluster").iterdir())
    for name in files:
        if name.endswith(".json"):
            assert _stripped(tmp_path / "cluster" / name) == _stripped(tmp_path / "here" / name)
        else:
            assert (tmp_path / "cluster" / name).read_bytes() == \
                (tmp_path / "here" / name).read_bytes(), name
    capsys.readouterr()


def test_reproduce_all_writes_the_same_files_on_two_workers(tmp_path, monkeypatch,
                                                             capsys) -> None:
    from dpaudit import registry
    from dpaudit.cli import main

    keep = ("ldp-thresholding-exponents", "wang-zhu-start-phase-constants")
    table = {k: v for k, v in registry.all_experiments().items() if k in keep}
    monkeypatch.setattr("dpaudit.commands.reproduce.all_experiments", lambda: table)
    assert main(["reproduce", "--all", "--quick", "--no-state", "--out",
                 str(tmp_path / "one")]) == 0
    assert main(["reproduce", "--all", "--quick", "--no-state", "--workers", "2", "--out",
                 str(tmp_path / "two")]) == 0
    one = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert len(one) == 8 and one == sorted(p.name for p in (tmp_path / "two").iterdir())
    for name in one:
        a, b = (tmp_path / "one" / name).read_bytes(), (tmp_path / "two" / name).read_bytes()
        assert a == b, name
    assert main(["reproduce", "--all", "ldp-thresholding"]) == 2
    capsys.readouterr()


def test_the_ledgers_time_in_its_help_and_docs_is_the_measured_one(capsys) -> None:
    """``claims --help`` and docs/ledger.md say how long the ledger takes: the seconds
    benchmarks/bench_schedule.py measured on 1 and 2 workers, rounded to 10 s."""
    from dpaudit.cli import main
    from dpaudit.commands.claims import LEDGER_SECONDS

    root = Path(__file__).resolve().parents[1]
    doc = json.loads((root / "benchmarks" / "results" / "schedule-scaling.json").read_text())
    row = doc["claims (all papers, --quick tests)"]
    measured = {1: row["seconds_1_worker"], 2: row["seconds_2_workers"]}
    for w in (1, 2):
        assert LEDGER_SECONDS[w] == 10 * round(measured[w] / 10)
    ledger = (root / "docs" / "ledger.md").read_text()
    for w in (1, 2):
        assert f"<!-- ledger-seconds: {w} -->{LEDGER_SECONDS[w]}<!-- /ledger-seconds -->" \
            in ledger
    with pytest.raises(SystemExit):
        main(["claims", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"about {LEDGER_SECONDS[1]} s on one worker and {LEDGER_SECONDS[2]} s on two" in out
