"""``--seconds`` on check, audit and simulate: a cooperative deadline between chunks, decided
on what was drawn, with a hard kill as the backstop (dpaudit.runtime.limits,
dpaudit.commands.deadline).

Timing-sensitive parts run on a fake clock (each sampler call advances it by one second), so
where the cut falls is deterministic; the two real-clock tests only bound how late a command
stops.
"""

import json
import textwrap
import time

import pytest

from dpaudit.cli import main
from dpaudit.commands.deadline import skipping_store
from dpaudit.runtime import limits
from dpaudit.runtime.parallel import chunk_sizes, map_chunks
from dpaudit.stats.evidence import InconclusiveEvidence, SampledEvidence
from dpaudit.stats.sampled import AuditBudget, SamplerPair, sampled_audit


class FakeClock:
    """``time.monotonic`` that moves only when told (``tick``)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def tick(self, seconds: float = 1.0) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(time, "monotonic", fake)
    return fake


def _uniform(clock, shift):
    def sample(n, rng):
        clock.tick()
        return rng.random(n) + shift
    return sample


def test_map_chunks_deadline_gives_the_prefix_of_the_uncut_result(clock):
    def fn(size, rng):
        clock.tick()
        return float(rng.random(size).sum())

    full = map_chunks(fn, 100, seed=1, key="k", chunk=10)
    deadline = clock() + 4
    cut = map_chunks(fn, 100, seed=1, key="k", chunk=10, deadline=deadline)
    assert cut == full[:4]  # chunks started at t = 0, 1, 2, 3; none at the deadline
    assert map_chunks(fn, 100, seed=1, key="k", chunk=10, deadline=clock() - 1) == []


def test_sampled_measurement_is_decided_on_the_prefix_drawn_by_the_deadline(clock):
    pair = SamplerPair("u vs u+0.5", _uniform(clock, 0.0), _uniform(clock, 0.5))
    # 8 measurement chunks of 10^4 a side; the selection in one call per side (the clock
    # below counts calls)
    budget = AuditBudget(samples=100_000, selection_fraction=0.2, select_chunk=None)
    full = sampled_audit([pair], delta=0.0, alpha=0.05, budget=budget, seed=3, key="t")
    assert full.n_p == full.n_q == 80_000
    with limits.deadline_scope(10):
        cut = sampled_audit([pair], delta=0.0, alpha=0.05, budget=budget, seed=3, key="t")
    # selection: 2 calls (t = 2); side one until t = 6: probe + 3 chunks; side two until
    # t = 10: probe + 3 chunks -- a cut chosen by the clock, at chunk boundaries
    assert cut.n_p == cut.n_q == 30_000
    assert cut.data["deadline_hit"] is True
    assert cut.data["samples_used"] == {"select": 20_000, "measure_p": 30_000,
                                        "measure_q": 30_000, "measure_planned": 80_000}
    assert cut.event == full.event and cut.direction == full.direction
    assert any("deadline reached during the measurement" in d for d in cut.details)
    # the same chunks (same seeds) as the uncut run: its counts are a prefix of the full ones
    assert cut.count_p <= full.count_p and cut.count_q <= full.count_q


def test_a_deadline_met_leaves_the_evidence_unchanged(clock):
    pair = SamplerPair("u vs u+0.5", _uniform(clock, 0.0), _uniform(clock, 0.5))
    budget = AuditBudget(samples=20_000)
    plain = sampled_audit([pair], delta=0.0, alpha=0.05, budget=budget, seed=5, key="t")
    with limits.deadline_scope(1e6):
        timed = sampled_audit([pair], delta=0.0, alpha=0.05, budget=budget, seed=5, key="t")
    assert (timed.count_p, timed.count_q, timed.n_p) == (plain.count_p, plain.count_q,
                                                         plain.n_p)
    assert timed.data["deadline_hit"] is False and "deadline_hit" not in plain.data


def test_a_deadline_during_selection_is_no_bound(clock):
    pair = SamplerPair("u vs u+0.5", _uniform(clock, 0.0), _uniform(clock, 0.5))
    with limits.deadline_scope(1.5), pytest.raises(limits.DeadlineReached) as info:
        sampled_audit([pair], delta=0.0, alpha=0.05, budget=AuditBudget(samples=20_000),
                      seed=5, key="t")
    assert info.value.where == "event selection"


def test_deadline_scope_refuses_bad_seconds_and_nests():
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            with limits.deadline_scope(bad):
                pass
    with limits.deadline_scope(100) as outer:
        with limits.deadline_scope(None):
            assert limits.current_deadline() is None
        assert limits.current_deadline() == outer
    assert limits.current_deadline() is None


@pytest.mark.parametrize("command", [["check", "laplace"], ["audit", "laplace"],
                                     ["simulate", "adap-ucb", "--horizon", "10", "--runs", "2"]])
def test_bad_seconds_exit_2(command, capsys):
    assert main([*command, "--seconds", "0"]) == 2
    assert "seconds" in capsys.readouterr().err


def test_check_pieces_not_started_are_not_run(tmp_path):
    out = tmp_path / "r.json"
    # a deadline far shorter than any claim: every claim is "not run", the exit code is 0
    assert main(["check", "adap-ucb", "--quick", "--no-state", "--seconds", "1e-6",
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["deadline_hit"] is True and doc["verdict"] == "INCONCLUSIVE"
    ids = [c["id"] for c in doc["claims"]]
    assert doc["deadline"]["claims_not_run"] == ids and doc["deadline"]["hard_kill"] is False
    assert doc["deadline"]["regret_not_run"] is True and doc["regret"] is None
    for claim in doc["claims"]:
        assert claim["verdict"] == "INCONCLUSIVE"
        assert any(d.startswith("not run: deadline") for d in claim["details"])
    assert all(f["data"]["not_run"] for f in doc["findings"])


def test_pieces_cut_by_the_deadline_are_not_saved_for_resume():
    saved = {}

    class Store:
        def load(self, piece):
            return None

        def save(self, piece, value, seconds):
            saved[piece] = value

    store = skipping_store(Store())
    whole = SampledEvidence(1, 10, 0, 10, "e", "D vs D'", 0.1, 10,
                            data={"deadline_hit": False})
    store.save("claim:1:a", whole, 1.0)
    store.save("claim:2:b", InconclusiveEvidence("not run", data={"deadline_hit": True}), 0.0)
    store.save("regret", None, 0.0)
    assert list(saved) == ["claim:1:a"]


SLOW = """
import time
import numpy as np


class SlowSteps:
    '''Each output costs 10 ms (a policy taking 10 ms a step): a chunk never ends in time.'''
    epsilon, delta = 1.0, 0.0
    neighbours = [(0.0, 1.0)]

    def sample(self, data, size, rng):
        out = np.empty(size)
        for i in range(size):
            time.sleep(0.01)
            out[i] = data + rng.laplace()
        return out
"""


def test_code_that_never_returns_is_killed_soon_after_the_deadline(tmp_path, monkeypatch):
    (tmp_path / "slow_steps_mod.py").write_text(textwrap.dedent(SLOW))
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "r.json"
    code = main(["audit", "slow_steps_mod:SlowSteps", "--samples", "1000", "--seconds", "0.5",
                 "--json", str(out), "--no-graybox"])  # the sampled route (the stage reads it)
    assert code == 0
    doc = json.loads(out.read_text())
    # 2 x 1000 outputs at 10 ms would take 20 s or more; killed when the grace ran out
    assert doc["deadline"]["killed_after_seconds"] < 0.5 + limits.HARD_KILL_GRACE + 1.0
    claim = doc["claims"][0]
    assert doc["deadline"]["hard_kill"] is True and doc["deadline_hit"] is True
    assert claim["verdict"] == "INCONCLUSIVE" and claim["epsilon_lower_bound"] is None
    assert claim["notion"] == "global"  # declares none: central DP on its inputs, not ldp


STAGE_HANGS = """
import time


class Hangs:
    '''Never returns: the gray-box stage's first run is the one the deadline must stop.'''
    epsilon, delta = 1.0, 0.0
    neighbours = [(0.0, 1.0)]

    def sample(self, data, size, rng):
        time.sleep(3600)
"""


def test_code_that_hangs_in_the_gray_box_stage_is_killed_at_the_deadline(tmp_path,
                                                                         monkeypatch):
    """The stage runs inside the work --seconds bounds: a run that never returns there is
    killed like one in the sampling."""
    (tmp_path / "stage_hangs_mod.py").write_text(textwrap.dedent(STAGE_HANGS))
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "r.json"
    assert main(["audit", "stage_hangs_mod:Hangs", "--samples", "1000", "--seconds", "0.5",
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["deadline"]["hard_kill"] is True and doc["deadline_hit"] is True
    assert doc["deadline"]["killed_after_seconds"] < 0.5 + limits.HARD_KILL_GRACE + 1.0
    assert doc["claims"][0]["verdict"] == "INCONCLUSIVE"


def test_simulate_reports_the_runs_done_by_the_deadline(clock, monkeypatch):
    from dpaudit.sim import simulation

    real = simulation._run_chunk

    def timed(*args):
        clock.tick()
        return real(*args)

    monkeypatch.setattr(simulation, "_run_chunk", timed)
    full = simulation.simulate_policy("adap-ucb", horizon=50, runs=40, workers=1)
    cut = simulation.simulate_policy("adap-ucb", horizon=50, runs=40, workers=1,
                                     deadline=clock() + 2)
    assert full.deadline_hit is False and full.runs == full.runs_planned == 40
    assert cut.deadline_hit is True and cut.runs_planned == 40
    assert cut.runs == sum(chunk_sizes(40, 10)[:2]) == 20
    assert cut.to_dict()["deadline_hit"] is True
    with pytest.raises(limits.DeadlineReached):
        simulation.simulate_policy("adap-ucb", horizon=50, runs=40, workers=1,
                                   deadline=clock() - 1)


def test_simulate_cli_with_nothing_done_says_so(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["simulate", "adap-ucb", "--horizon", "50", "--runs", "4", "--seconds",
                 "1e-9", "--json", str(out)]) == 0
    assert "0 of the 4 runs" in capsys.readouterr().out
    doc = json.loads(out.read_text())
    assert doc["deadline_hit"] is True and doc["runs"] == 0


def test_audit_notion_follows_the_declaration(tmp_path, monkeypatch, capsys):
    (tmp_path / "declared_mod.py").write_text(textwrap.dedent("""
        import numpy as np

        class Local:
            '''A randomiser of one user's value, declared local.'''
            epsilon, delta, notion = 1.0, 0.0, "ldp"
            neighbours = [(0.0, 1.0)]

            def sample(self, data, size, rng):
                return data + rng.laplace(size=size)

        class Odd(Local):
            '''A notion outside the three.'''
            notion = "central"
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "r.json"
    assert main(["audit", "declared_mod:Local", "--samples", "2000", "--json", str(out)]) == 0
    claim = json.loads(out.read_text())["claims"][0]
    assert (claim["notion"], claim["observes"]) == ("ldp", "reports")
    assert main(["audit", "declared_mod:Odd", "--samples", "2000"]) == 2
    assert "notion='central'" in capsys.readouterr().err


HANGS = """
import time

from dpaudit.engine import AuditSpec, ClaimSpec
from dpaudit.stats.evidence import ExactEvidence
from dpaudit.stats.results import Notion


def fast(ctx, spec):
    return ExactEvidence(0.0, 1e-12)


def hangs(ctx, spec):
    while True:  # user code that never comes back to a chunk boundary
        time.sleep(0.01)


AUDIT = AuditSpec("hangs-second", "second claim never returns", "Toy 2024",
                  [ClaimSpec("c1", Notion.LDP, "fast", "Toy 2024", fast),
                   ClaimSpec("c2", Notion.LDP, "hangs", "Toy 2024", hangs),
                   ClaimSpec("c3", Notion.LDP, "after", "Toy 2024", fast)], 1.0, 0.0)
"""


def test_a_hard_kill_keeps_the_claims_completed_before_it(tmp_path, monkeypatch, capsys):
    (tmp_path / "hangs_second_mod.py").write_text(textwrap.dedent(HANGS))
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "r.json"
    code = main(["check", "hangs_second_mod", "--seconds", "0.5", "--state-dir",
                 str(tmp_path / "state"), "--json", str(out)])
    assert code == 0  # it returns at all: c2 never does
    doc = json.loads(out.read_text())
    # killed when the grace ran out (the clock of the deadline, not start-up), give or take
    # the parent's wake-up on a loaded machine
    assert doc["deadline"]["killed_after_seconds"] < 0.5 + limits.HARD_KILL_GRACE + 1.0
    verdicts = [(c["id"], c["verdict"]) for c in doc["claims"]]
    assert verdicts == [("c1", "EXACT"), ("c2", "INCONCLUSIVE"), ("c3", "INCONCLUSIVE")]
    assert doc["deadline"]["hard_kill"] is True and doc["deadline_hit"] is True
    assert doc["deadline"]["claims_cut"] == ["c2", "c3"]
    assert "not finished: the run was killed" in doc["claims"][1]["details"][0]
    # c1 stays saved: the same command with --resume (and a longer deadline) continues
    assert "--resume" in capsys.readouterr().err
    assert list((tmp_path / "state").glob("check-*.json"))


def _chunk_sum(delay, size, rng):
    time.sleep(delay)
    return float(rng.random(size).sum())


def test_a_local_pool_is_stopped_at_the_deadline_and_gives_a_prefix():
    from functools import partial

    full = map_chunks(partial(_chunk_sum, 0.0), 10, seed=2, key="k", chunk=1, workers=1)
    start = time.monotonic()
    # 0.5 s a chunk: worth a 2-process pool (see map_chunks); 10 chunks need 2.5 s or more
    notes: list[str] = []
    cut = map_chunks(partial(_chunk_sum, 0.5), 10, seed=2, key="k", chunk=1, workers=2,
                     deadline=start + 2.0, placement=notes.append)
    took = time.monotonic() - start
    assert not notes  # the pool ran
    assert len(cut) < 10 and cut == full[:len(cut)]
    assert took < 2.0 + 1.0  # the running chunks were not waited for


RAISES = """
import numpy as np

from dpaudit.engine import AuditSpec, ClaimSpec
from dpaudit.stats.results import Notion


class Bad:
    epsilon, delta = 1.0, 0.0
    neighbours = [(0.0, 1.0)]

    def sample(self, data, size, rng):
        if size > 100:
            raise ValueError("boom in the sampler")
        return data + rng.laplace(size=size)


def broken(ctx, spec):
    return 1 / 0


AUDIT = AuditSpec("raises-in-claim", "a claim that raises", "Toy 2024",
                  [ClaimSpec("broken", Notion.LDP, "s", "r", broken)], 1.0, 0.0)
"""


def test_user_code_errors_keep_their_origin_across_the_deadline_process(tmp_path, monkeypatch,
                                                                          capsys):
    """Under --seconds the work runs in a forked child: an exception in user code is still
    exit 3 "error in user code" at the user's file and line (not an "internal error")."""
    (tmp_path / "raises_mod.py").write_text(textwrap.dedent(RAISES))
    monkeypatch.syspath_prepend(str(tmp_path))
    # the sampled route: its chunks of 2000 raise (the gray-box stage's single draws do not)
    assert main(["audit", "raises_mod:Bad", "--samples", "2000", "--seconds", "60",
                 "--no-graybox"]) == 3
    err = capsys.readouterr().err
    assert "error in user code" in err and "raises_mod.py" in err and "boom" in err
    assert main(["check", "raises_mod", "--no-state", "--seconds", "60"]) == 3
    err = capsys.readouterr().err
    assert "error in user code" in err and "ZeroDivisionError" in err and "raises_mod.py" in err


def test_an_audit_cut_by_its_deadline_resumes_to_the_uncut_result(tmp_path, monkeypatch):
    """The forked child that runs the work under --seconds saves its finished chunks (it
    takes over the parent's chunk scope), so --resume continues them and ends with exactly
    the report of a run without a deadline."""
    monkeypatch.setenv("DPAUDIT_STATE_DIR", str(tmp_path / "state"))
    args = ["audit", "laplace", "--samples", "100000000"]
    cut, resumed, whole = (tmp_path / f"{n}.json" for n in ("cut", "resumed", "whole"))
    assert main([*args, "--seconds", "2", "--json", str(cut)]) == 0
    used = json.loads(cut.read_text())["claims"][0]["data"].get("samples_used") or {}
    if 0 < used.get("measure_p", 0) < used.get("measure_planned", 0):
        # cut during the measurement (not before it, not after it): its chunks were saved
        assert list((tmp_path / "state").glob("audit-laplace-*.json"))
    assert main([*args, "--resume", "--json", str(resumed)]) == 0
    assert main([*args, "--no-state", "--json", str(whole)]) == 0
    a, b = (json.loads(p.read_text())["claims"][0] for p in (resumed, whole))
    for c in (a, b):
        c.pop("seconds")
    assert a == b
