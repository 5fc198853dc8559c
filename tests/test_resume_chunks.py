"""Chunk-level resume (dpaudit.runtime.state, "Chunks"): a run interrupted inside a piece
resumes at the piece's last saved chunk, for ``check``, ``audit``, ``audit-policy`` and
``simulate``, and its report is the uninterrupted run's.

Interruptions are injected with the state's test hook ``$DPAUDIT_STOP_AFTER_CHUNKS=K`` (a
``KeyboardInterrupt`` right after the K-th saved chunk is written, as Ctrl-C would), and once
with a real SIGINT to a subprocess. Reports are compared whole except the wall-clock fields
(``seconds``, ``pulls_per_second``) and, for ``audit-policy``, the work counters of the
invocation (``runs``, ``runs_per_second`` and the details line stating them).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from dpaudit.cli import main
from dpaudit.runtime import state as state_mod
from dpaudit.runtime.parallel import map_chunks
from dpaudit.runtime.state import CheckState, chunk_scope
from dpaudit.stats.rng import child_seed

ROOT = Path(__file__).resolve().parents[1]
TIMING = {"seconds", "pulls_per_second"}
WORK = {"runs", "runs_per_second"}  # audit-policy: what this invocation ran


def comparable(doc, drop=frozenset(TIMING)):
    if isinstance(doc, dict):
        return {k: comparable(v, drop) for k, v in doc.items() if k not in drop}
    if isinstance(doc, list):
        return [comparable(v, drop) for v in doc
                if not (isinstance(v, str) and " runs of the code in " in v)]
    return doc


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A fresh current folder, every chunk written at once, no stop hook."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(state_mod.STATE_DIR_ENV, raising=False)
    monkeypatch.delenv(state_mod.STOP_ENV, raising=False)
    monkeypatch.setenv(state_mod.FLUSH_ENV, "0")
    return tmp_path


def saved_chunks(folder: Path) -> int:
    [path] = folder.glob("*.json")
    return sum(len(c) for c in json.loads(path.read_text())["chunks"].values())


# -- the engine --------------------------------------------------------------------------------
def _draw(size: int, rng: np.random.Generator) -> np.ndarray:
    return rng.random(size)


def test_chunk_randomness_depends_only_on_seed_key_and_index():
    """Chunk i's generator is child i of (seed, key): the same whatever the number of chunks,
    so a resumed call that computes only chunks k.. draws what the whole call draws there."""
    for n, m in ((3, 8), (5, 16)):
        a = child_seed(7, "claim:x").spawn(n)
        b = child_seed(7, "claim:x").spawn(m)
        for i in range(n):
            assert a[i].entropy == b[i].entropy and a[i].spawn_key == b[i].spawn_key
    full = map_chunks(_draw, 50, seed=7, key="k", chunk=10)
    seqs = child_seed(7, "k").spawn(5)
    for i, part in enumerate(full):
        np.testing.assert_array_equal(part, np.random.Generator(np.random.PCG64(seqs[i]))
                                      .random(10))
    other = map_chunks(_draw, 50, seed=7, key="other", chunk=10)
    assert not np.array_equal(full[0], other[0])


def test_an_interrupted_map_resumes_at_its_last_saved_chunk(fresh, monkeypatch):
    calls: list[int] = []

    def counted(size: int, rng: np.random.Generator) -> int:
        calls.append(size)
        return int(rng.integers(1 << 30))

    reference = map_chunks(counted, 95, seed=3, key="m", chunk=10)
    calls.clear()
    state = CheckState(fresh / "st", "unit", "k" * 64, resume=False, prefix="unit")
    monkeypatch.setenv(state_mod.STOP_ENV, "4")
    with pytest.raises(KeyboardInterrupt), chunk_scope(state, piece="p"):
        map_chunks(counted, 95, seed=3, key="m", chunk=10)
    assert len(calls) == 4 and saved_chunks(fresh / "st") == 4
    monkeypatch.delenv(state_mod.STOP_ENV)
    calls.clear()
    resumed = CheckState(fresh / "st", "unit", "k" * 64, resume=True, prefix="unit")
    with chunk_scope(resumed, piece="p"):
        out = map_chunks(counted, 95, seed=3, key="m", chunk=10)
    assert out == reference
    assert calls == [10] * 5 + [5]  # chunks 4..9 only
    assert resumed.chunks_restored == 4
    # another key (other parameters) reads nothing
    calls.clear()
    other = CheckState(fresh / "st", "unit", "x" * 64, resume=True, prefix="unit")
    with chunk_scope(other, piece="p"):
        assert map_chunks(counted, 95, seed=3, key="m", chunk=10) == reference
    assert len(calls) == 10 and other.chunks_restored == 0


def test_calls_are_told_apart_and_nested_calls_are_part_of_their_chunk(fresh, monkeypatch):
    def inner(size: int, rng: np.random.Generator) -> float:
        return float(sum(map_chunks(_draw, 4, seed=int(rng.integers(99)), key="in", chunk=2)
                         [0]))

    state = CheckState(fresh / "st", "unit", "n" * 64, resume=False, prefix="unit")
    with chunk_scope(state, piece="p"):
        a = map_chunks(inner, 6, seed=1, key="a", chunk=2)
        b = map_chunks(inner, 6, seed=1, key="a", chunk=2)  # same call again: its own entry
    assert a == b
    # two top-level calls of 3 chunks each; the inner calls are not saved on their own
    assert sorted(len(c) for c in state.chunks.values()) == [3, 3]
    assert all(k.endswith(("#0", "#1")) for k in state.chunks)
    # a completed piece drops its chunks
    state.save("p", 1, 0.0)
    assert state.chunks == {}


def test_chunk_writes_are_throttled(fresh, monkeypatch):
    writes = []
    real = state_mod._write_atomic
    monkeypatch.setattr(state_mod, "_write_atomic",
                        lambda path, text: (writes.append(path), real(path, text)))
    monkeypatch.setenv(state_mod.FLUSH_ENV, "3600")
    state = CheckState(fresh / "st", "unit", "t" * 64, resume=False, prefix="unit")
    with chunk_scope(state, piece="p"):
        map_chunks(_draw, 200, seed=1, key="t", chunk=10)
    # the first chunk, then one write when the call ends (not one per chunk)
    assert len(writes) == 2 and saved_chunks(fresh / "st") == 20


@pytest.mark.parametrize("uptime", [5.0, 1800.0, 1e7])
def test_first_chunk_is_written_whatever_the_machine_uptime(fresh, monkeypatch, uptime):
    """time.monotonic() counts from boot on Linux: a machine up 5 s, 30 min or 4 months
    writes its first chunk at once and then throttles (the state once compared the clock with
    0.0, so a machine up less than the flush interval never wrote the first chunk)."""
    clock = [uptime]

    def fake_monotonic() -> float:
        clock[0] += 1e-3  # each look at the clock: one millisecond later
        return clock[0]

    writes = []
    real = state_mod._write_atomic
    monkeypatch.setattr(state_mod.time, "monotonic", fake_monotonic)
    monkeypatch.setattr(state_mod, "_write_atomic",
                        lambda path, text: (writes.append(path), real(path, text)))
    monkeypatch.setenv(state_mod.FLUSH_ENV, "3600")
    state = CheckState(fresh / "st", "unit", "c" * 64, resume=False, prefix="unit")
    with chunk_scope(state, piece="p"):
        map_chunks(_draw, 200, seed=1, key="c", chunk=10)
    assert len(writes) == 2 and saved_chunks(fresh / "st") == 20


def test_pool_workers_never_write_and_results_do_not_depend_on_them(fresh):
    from concurrent.futures import ProcessPoolExecutor

    reference = map_chunks(_draw, 60, seed=5, key="w", chunk=10)
    state = CheckState(fresh / "st", "unit", "w" * 64, resume=False, prefix="unit")
    with ProcessPoolExecutor(max_workers=2) as pool, chunk_scope(state, piece="p"):
        out = map_chunks(_draw, 60, seed=5, key="w", chunk=10, executor=pool)
    assert all(np.array_equal(x, y) for x, y in zip(out, reference, strict=True))
    assert saved_chunks(fresh / "st") == 6
    assert not list((fresh / "st").glob(".*.tmp"))


# -- the commands ------------------------------------------------------------------------------
def _run(argv: list[str], out: str) -> tuple[int, dict | None]:
    code = main([*argv, "--json", out])
    path = Path(out)
    return code, json.loads(path.read_text()) if path.exists() else None


def _interrupt_resume(argv: list[str], k: int, monkeypatch, capsys, drop=frozenset(TIMING),
                      saved: int | None = None):
    """Reference run (no state), a run stopped after k chunks, a resumed run: the resumed
    report must equal the reference. ``saved``: the chunks left in the state (default k; fewer
    when a piece completed, dropping its chunks, before the stop)."""
    saved = k if saved is None else saved
    code, ref = _run([*argv, "--no-state"], "reference.json")
    assert code in (0, 1) and ref is not None
    monkeypatch.setenv(state_mod.STOP_ENV, str(k))
    capsys.readouterr()
    assert _run(argv, "first.json")[0] == 130
    err = capsys.readouterr().err
    assert "--resume continues" in err and "Traceback" not in err
    assert saved_chunks(Path(".dpaudit-state")) == saved
    monkeypatch.delenv(state_mod.STOP_ENV)
    code_r, resumed = _run([*argv, "--resume"], "resumed.json")
    err = capsys.readouterr().err
    assert f"{saved} finished chunk(s) saved)" in err, err
    assert code_r == code and comparable(resumed, drop) == comparable(ref, drop)
    assert not Path(".dpaudit-state").exists()  # a completed run deletes its state
    return ref


def test_check_resumes_inside_a_sampled_claim(fresh, monkeypatch, capsys):
    _interrupt_resume(["check", "randomized-response", "--quick", "--no-regret"], 3,
                      monkeypatch, capsys)


def test_audit_resumes_at_its_last_chunk(fresh, monkeypatch, capsys):
    _interrupt_resume(["audit", "laplace", "--samples", "300000"], 5, monkeypatch, capsys)


def test_simulate_resumes_at_its_last_chunk(fresh, monkeypatch, capsys):
    ref = _interrupt_resume(["simulate", "ucb", "--horizon", "500", "--runs", "160",
                             "--workers", "1"], 6, monkeypatch, capsys)
    assert ref["chunks"] == 16


TOY_CHECK = """
import os
from functools import partial

import numpy as np

from dpaudit.engine import AuditSpec, ClaimSpec
from dpaudit.mechanisms import Laplace
from dpaudit.runtime.parallel import map_chunks
from dpaudit.sim.regret import summarise_regret
from dpaudit.stats.blackbox import blackbox_evaluator
from dpaudit.stats.results import Notion


def _log(what):
    with open(os.environ["TOY_LOG"], "a") as fh:
        fh.write(what + "\\n")


def _runs(size, rng):
    _log("regret-chunk")
    return rng.random(size) * 10


def regret(ctx):
    parts = map_chunks(_runs, 400, seed=ctx.seed, key="regret", chunk=25)
    return summarise_regret(np.concatenate(parts), instance="toy", algorithm="toy",
                            horizon=10, bound=None, bound_name="none")


AUDIT = AuditSpec(
    "toy-chunks", "a sampled claim and a chunked regret experiment", "Toy 2024",
    [ClaimSpec("lap", Notion.LDP, "Laplace(1) is 1-DP", "Toy 2024",
               blackbox_evaluator(lambda e, d: Laplace(e), samples=400_000,
                                  quick_samples=400_000))],
    default_epsilon=1.0, default_delta=0.0, regret=regret)
"""


@pytest.mark.parametrize("k", [3, 20], ids=["in-the-claim", "in-the-regret"])
def test_check_resumes_inside_a_claim_or_its_regret_experiment(fresh, monkeypatch, capsys, k):
    """A toy audit: a sampled claim (its measurement streams 16 chunks of event counts) and a
    regret experiment of 16 chunks of runs; stopped inside either, resumed to the same report,
    and the regret chunks saved before the stop are not run again."""
    name = "toy_chunks_" + fresh.name.replace("-", "_")
    (fresh / f"{name}.py").write_text(TOY_CHECK)
    monkeypatch.syspath_prepend(str(fresh))
    log = fresh / "log.txt"
    monkeypatch.setenv("TOY_LOG", str(log))
    in_regret = max(0, k - 16)  # the claim's measurement saves 16 chunks first, and drops
    try:                        # them when the claim's evidence is saved
        _interrupt_resume(["check", name], k, monkeypatch, capsys,
                          saved=in_regret if in_regret else k)
    finally:
        sys.modules.pop(name, None)
    # 16 regret chunks in the reference run, then 16 in the stopped and resumed runs
    # together: none saved before the stop is run again
    assert len(log.read_text().split()) == 32


POLICY = """
import math
import numpy as np

class NoisyUCB:
    def __init__(self, n_arms, epsilon=1.0):
        self.k, self.eps = n_arms, epsilon
        self.n, self.s, self.t = np.zeros(n_arms), np.zeros(n_arms), 0
    def select(self):
        self.t += 1
        if self.t <= self.k:
            return self.t - 1
        m = self.s / self.n + np.random.laplace(0, 1 / (self.eps * self.n))
        return int(np.argmax(m + np.sqrt(2 * math.log(self.t) / self.n)))
    def update(self, arm, reward):
        self.n[arm] += 1
        self.s[arm] += reward
"""


@pytest.fixture
def policy(fresh, monkeypatch):
    name = "resume_policy_" + fresh.name.replace("-", "_")
    (fresh / f"{name}.py").write_text(textwrap.dedent(POLICY))
    monkeypatch.syspath_prepend(str(fresh))
    yield ["audit-policy", f"{name}:NoisyUCB", "--arms", "2", "--horizon", "6",
           "--epsilon", "1", "--samples", "1000", "--search-budget", "1"]
    sys.modules.pop(name, None)


def _chunk_calls(argv: list[str], monkeypatch) -> list[str]:
    """The function names of the chunks a run saves, in order (the run's state is deleted)."""
    names: list[str] = []
    real = CheckState._save_chunk

    def spy(self, call, i, value, seconds):
        names.append(call.split("|")[1].split(":")[0])
        return real(self, call, i, value, seconds)

    with monkeypatch.context() as m:
        m.setattr(CheckState, "_save_chunk", spy)
        assert main([*argv, "--json", "spied.json"]) in (0, 1)
    return names


@pytest.mark.parametrize("deadline", [[], ["--seconds", "300"]], ids=["in-process", "forked"])
def test_audit_policy_resumes_at_its_last_chunk(policy, monkeypatch, capsys, deadline):
    # under --seconds the audit runs in a forked child: it is the child that saves the chunks.
    # Stopped once in the runs before the measurement and once after the measurement's first
    # event count (its chunks are the sampled engine's _count_chunk)
    # the gray-box stage (seconds of replay, saved as no chunk) runs once, in the forked case
    argv = policy if deadline else [*policy, "--no-graybox"]
    names = _chunk_calls(argv, monkeypatch)
    first_count = names.index("_count_chunk") + 1
    assert 10 < first_count < len(names)
    for k in (first_count,) if deadline else (10, first_count):
        _interrupt_resume(argv + deadline, k, monkeypatch, capsys, drop=TIMING | WORK)


def test_a_deadline_during_the_sampling_names_it_and_keeps_what_finished(
        policy, monkeypatch, capsys):
    """The machine turns slow once the sampling has started (the stop hook hangs after the
    measurement's first event count): the deadline passes in the sampling, and the report
    says so (not "the neighbour search and the pilot did not fit"), gives no bound, sets
    deadline_hit, and the chunks it finished stay: --resume continues from them to the
    uninterrupted run's report."""
    # the smallest sample (never cut by --seconds); the gray-box stage, whose report line
    # states its own wall-clock time, is not what this test is about
    small = [*_with(policy, ["--samples", "200"]), "--no-graybox"]
    names = _chunk_calls(small, monkeypatch)
    first_count = names.index("_count_chunk") + 1
    timed = [*small, "--seconds", "6"]
    ref_code, ref = _run([*timed, "--no-state"], "reference.json")
    assert ref_code in (0, 1) and ref["claims"][0]["verdict"] != "INCONCLUSIVE"
    monkeypatch.setenv(state_mod.STOP_ENV, f"{first_count}:hang")
    capsys.readouterr()
    code, doc = _run(timed, "cut.json")
    err = capsys.readouterr().err
    claim = doc["claims"][0]
    assert code == 0 and claim["verdict"] == "INCONCLUSIVE"
    assert claim["epsilon_lower_bound"] is None
    assert claim["data"]["deadline_stage"].startswith("sampling")
    assert doc["deadline_hit"] is True and doc["deadline"]["claims_cut"] == ["global-dp"]
    assert any("during the sampling" in d for d in claim["details"])
    assert not any("did not fit this deadline" in d for d in claim["details"])
    assert "--resume continues" in err
    assert saved_chunks(Path(".dpaudit-state")) == first_count
    monkeypatch.delenv(state_mod.STOP_ENV)
    code_r, resumed = _run([*timed, "--resume"], "resumed.json")
    assert f"{first_count} finished chunk(s) saved)" in capsys.readouterr().err
    drop = TIMING | WORK
    assert code_r == ref_code and comparable(resumed, drop) == comparable(ref, drop)


def _with(argv: list[str], extra: list[str]) -> list[str]:
    """``argv`` with the option ``extra[0]`` set to ``extra[1]`` (replaced when present)."""
    out = list(argv)
    if extra[0] in out:
        out[out.index(extra[0]) + 1] = extra[1]
        return out
    return out + extra


def test_a_state_written_with_other_parameters_is_never_read(fresh, policy, monkeypatch,
                                                              capsys):
    runs = {
        "audit": ["audit", "laplace", "--samples", "300000"],
        "simulate": ["simulate", "ucb", "--horizon", "300", "--runs", "160", "--workers", "1"],
        "audit-policy": [*policy, "--no-graybox"],
    }
    others = {
        "audit": [["--seed", "1"], ["--samples", "300001"], ["--alpha", "0.01"],
                  ["--epsilon", "2"], ["--selection-fraction", "0.3"]],
        "simulate": [["--seed", "1"], ["--runs", "161"], ["--horizon", "301"],
                     ["--means", "0.9,0.5"]],
        "audit-policy": [["--seed", "1"], ["--seconds", "300"]],
    }
    for command, argv in runs.items():
        monkeypatch.setenv(state_mod.STOP_ENV, "2")
        assert main(argv) == 130
        monkeypatch.delenv(state_mod.STOP_ENV)
        folder = Path(".dpaudit-state")
        [path] = folder.glob(f"{command}-*.json")
        before = path.read_text()
        for extra in others[command]:
            capsys.readouterr()
            assert main([*_with(argv, extra), "--resume"]) in (0, 1), (command, extra)
            err = capsys.readouterr().err
            assert "no saved state for these arguments" in err, (command, extra)
        # the interrupted run's state is untouched, and the workers are not part of the key
        assert path.read_text() == before
        if command != "audit":
            # the verdict is the audited code's (the gray-box stage finds NoisyUCB's four
            # releases at T = 6 above eps = 1); what is checked here is that the run resumes
            assert main([*_with(argv, ["--workers", "2"]), "--resume"]) in (0, 1)
            assert "(2 finished chunk(s) saved)" in capsys.readouterr().err
            assert not path.exists()
        else:
            assert main([*argv, "--resume"]) == 0
        assert not folder.exists()


def test_corrupt_chunk_state_is_a_warning(fresh, monkeypatch, capsys):
    argv = ["simulate", "ucb", "--horizon", "300", "--runs", "160", "--workers", "1"]
    code, ref = _run([*argv, "--no-state"], "reference.json")
    monkeypatch.setenv(state_mod.STOP_ENV, "3")
    assert main(argv) == 130
    monkeypatch.delenv(state_mod.STOP_ENV)
    [path] = Path(".dpaudit-state").glob("*.json")
    doc = json.loads(path.read_text())
    call = next(iter(doc["chunks"]))
    doc["chunks"][call]["0"]["value"] = {"__dataclass__": "os:system", "fields": {}}
    path.write_text(json.dumps(doc))
    capsys.readouterr()
    code_r, resumed = _run([*argv, "--resume"], "resumed.json")
    err = capsys.readouterr().err
    assert "warning: ignoring the unreadable saved state" in err and "Traceback" not in err
    assert code_r == code and comparable(resumed) == comparable(ref)


def test_a_usage_error_deletes_the_state(fresh, monkeypatch, capsys):
    from dpaudit.commands import simulate as simulate_cmd
    from dpaudit.validation import InvalidParameterError

    real = simulate_cmd.simulate_policy

    def fails_after_its_chunks(*args, **kwargs):
        real(*args, **kwargs)
        raise InvalidParameterError("refused")

    monkeypatch.setattr(simulate_cmd, "simulate_policy", fails_after_its_chunks)
    assert main(["simulate", "ucb", "--horizon", "300", "--runs", "160", "--workers",
                 "1"]) == 2
    assert "--resume" not in capsys.readouterr().err
    assert not Path(".dpaudit-state").exists()


def test_contradictory_state_options_are_usage_errors(fresh, capsys):
    for argv in (["audit", "laplace"], ["simulate", "ucb", "--horizon", "10", "--runs", "2"]):
        assert main([*argv, "--resume", "--no-state"]) == 2
        assert main([*argv, "--no-state", "--state-dir", "x"]) == 2


def _wait_for_chunks(folder: Path, k: int, proc: subprocess.Popen, limit: float) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        try:
            if saved_chunks(folder) >= k:
                return
        except (ValueError, json.JSONDecodeError):  # no file yet
            pass
        time.sleep(0.1)
    raise AssertionError(f"no {k} saved chunks within {limit} s")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_real_sigint_keeps_the_chunks_for_resume(fresh):
    """End to end: a subprocess hangs after its 4th saved chunk, gets SIGINT (Ctrl-C), exits
    130; the same command with --resume prints the uninterrupted report."""
    argv = [sys.executable, "-m", "dpaudit", "simulate", "ucb", "--horizon", "300", "--runs",
            "160", "--workers", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), state_mod.FLUSH_ENV: "0"}
    env.pop(state_mod.STATE_DIR_ENV, None)
    subprocess.run([*argv, "--no-state", "--json", "ref.json"], env=env, check=True,
                   capture_output=True, timeout=300)
    # the child gets Ctrl-C's default disposition: a suite started in the background by a
    # non-interactive shell (`nohup ... &`) ignores SIGINT, and an ignored SIGINT is inherited
    # (Python then keeps ignoring it, as a background job should)
    proc = subprocess.Popen([*argv, "--json", "first.json"], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, env={**env, state_mod.STOP_ENV: "4:hang"},
                            preexec_fn=_default_sigint)
    try:
        _wait_for_chunks(Path(".dpaudit-state"), 4, proc, 240)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and b"--resume continues" in err
    done = subprocess.run([*argv, "--resume", "--json", "resumed.json"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "(4 finished chunk(s) saved)" in done.stderr
    ref, resumed = (json.loads(Path(p).read_text()) for p in ("ref.json", "resumed.json"))
    assert comparable(resumed) == comparable(ref)


@pytest.mark.slow
def test_audit_policy_deadline_keeps_the_childs_chunks(policy, monkeypatch, capsys):
    """--seconds kills the forked child at the deadline (here while it hangs after its 10th
    chunk): the report is INCONCLUSIVE, the state is kept, and --resume with the same
    deadline completes to the uninterrupted report."""
    argv = [*policy, "--seconds", "20"]
    code, ref = _run([*argv, "--no-state"], "reference.json")
    monkeypatch.setenv(state_mod.STOP_ENV, "10:hang")
    code_d, stopped = _run(argv, "stopped.json")
    monkeypatch.delenv(state_mod.STOP_ENV)
    assert code_d == 0 and stopped["claims"][0]["verdict"] == "INCONCLUSIVE"
    assert "--resume continues" in capsys.readouterr().err
    assert saved_chunks(Path(".dpaudit-state")) == 10
    code_r, resumed = _run([*argv, "--resume"], "resumed.json")
    assert "(10 finished chunk(s) saved)" in capsys.readouterr().err
    drop = TIMING | WORK
    assert code_r == code and comparable(resumed, drop) == comparable(ref, drop)


class _Counted:
    """AdaP-UCB with its simulate calls' run counts recorded (the release hook's sub-chunks)."""

    def __init__(self) -> None:
        from dpaudit.algorithms.azize_basu_2022.adap import AdaPUCB

        self.alg = AdaPUCB(1.0)
        self.calls: list[int] = []

    def simulate(self, source, horizon, runs, *, rng, releases=None):
        self.calls.append(runs)
        return self.alg.simulate(source, horizon, runs, rng=rng, releases=releases)


def test_a_release_chunk_resumes_inside_itself(fresh, monkeypatch):
    """A release sampler streams long horizons a few runs at a time: inside a chunk it saves
    the runs it finished with its generator's state, and a resumed chunk continues there."""
    import dpaudit.sim.releases as rel
    from dpaudit.sim.bandits import TableRewards

    monkeypatch.setattr(rel, "CHUNK_CELLS", 40 * 10)  # 10 runs per simulate call at T = 40
    policy = _Counted()
    sample = rel.release_sampler(policy, TableRewards(np.zeros((40, 2))), 40, width=2)

    def fn(size: int, rng: np.random.Generator) -> np.ndarray:
        return sample(size, rng)

    reference = map_chunks(fn, 90, seed=11, key="rel", chunk=45)
    real = state_mod.PartialProgress.save
    saves = []

    def stop_at_third(self, value):
        real(self, value)
        saves.append(value["done"])
        if len(saves) == 3:
            self.state.flush()
            raise KeyboardInterrupt

    policy.calls.clear()
    state = CheckState(fresh / "st", "unit", "r" * 64, resume=False, prefix="unit")
    with monkeypatch.context() as m:
        m.setattr(state_mod.PartialProgress, "save", stop_at_third)
        with pytest.raises(KeyboardInterrupt), chunk_scope(state, piece="p"):
            map_chunks(fn, 90, seed=11, key="rel", chunk=45)
    assert saves == [10, 20, 30] and policy.calls == [10, 10, 10]
    policy.calls.clear()
    resumed = CheckState(fresh / "st", "unit", "r" * 64, resume=True, prefix="unit")
    with chunk_scope(resumed, piece="p"):
        out = map_chunks(fn, 90, seed=11, key="rel", chunk=45)
    assert policy.calls == [10, 5] + [10, 10, 10, 10, 5]  # chunk 0 from run 30 on
    assert all(np.array_equal(a, b) for a, b in zip(out, reference, strict=True))
    assert resumed.partials == {}  # a finished chunk drops its progress


# -- reproduce: chunks inside a cell -------------------------------------------------------
def test_map_chunks_inside_a_reproduce_cell_resumes_at_its_last_saved_chunk(fresh, monkeypatch):
    """A cell of ``reproduce`` is a piece of the run's chunk state: the map_chunks calls made in
    it save their finished chunks, an interrupted cell resumes from them, and a completed cell
    drops them (its own file holds its value)."""
    from dpaudit.runtime.state import ExperimentCache

    calls: list[int] = []

    def counted(size: int, rng: np.random.Generator) -> int:
        calls.append(size)
        return int(rng.integers(1 << 30))

    def cell() -> list[int]:
        return map_chunks(counted, 95, seed=3, key="m", chunk=10)

    reference = cell()
    calls.clear()
    cache = ExperimentCache(fresh / "st", "unit", "c" * 64, resume=False)
    monkeypatch.setenv(state_mod.STOP_ENV, "4")
    with pytest.raises(KeyboardInterrupt):
        cache.get(("cell", 1), cell)
    monkeypatch.delenv(state_mod.STOP_ENV)
    assert len(calls) == 4 and cache.saved() == (0, 4)
    calls.clear()
    resumed = ExperimentCache(fresh / "st", "unit", "c" * 64, resume=True)
    assert resumed.get(("cell", 1), cell) == reference
    assert calls == [10] * 5 + [5] and resumed.chunks_restored == 4
    assert resumed.saved() == (1, 0)  # the cell is saved, its chunks are dropped
    calls.clear()
    assert resumed.get(("cell", 1), cell) == reference and calls == []  # read back whole
    resumed.discard()
    assert list((fresh / "st").iterdir()) == []  # the run's folder and its chunks/ are gone


def test_reproduce_resumes_inside_a_cell_at_its_last_saved_block(fresh, monkeypatch, capsys):
    """Azize & Basu's regret cells simulate their runs in blocks from one generator; inside
    ``reproduce`` each finished block is saved with the generator's state, so a run stopped
    mid-cell resumes at its last block and writes the uninterrupted run's files."""
    from dpaudit.audits.azize_basu_2022 import findings

    monkeypatch.setattr(findings, "CHUNK", 64)  # 300 runs: blocks of 64, 64, 64, 64, 44
    common = ["reproduce", "azize-basu-fig2-ratio", "--quick", "--horizon", "2000",
              "--runs", "300"]
    assert main([*common, "--out", "plain", "--no-state"]) == 0
    monkeypatch.setenv(state_mod.STOP_ENV, "5")  # the first cell's 4 blocks, then one more
    assert main([*common, "--out", "cut"]) == 130
    monkeypatch.delenv(state_mod.STOP_ENV)
    err = capsys.readouterr().err
    assert "1 completed cell(s) and 1 finished chunk(s) of cells in progress saved" in err
    assert main([*common, "--out", "cut", "--resume"]) == 0
    err = capsys.readouterr().err
    assert "(1 finished chunk(s) of them read back)" in err
    for ext in ("csv", "md", "png"):
        assert (fresh / "cut" / f"azize_basu_fig2_ratio.{ext}").read_bytes() == \
            (fresh / "plain" / f"azize_basu_fig2_ratio.{ext}").read_bytes(), ext
    assert not (fresh / "cut" / ".dpaudit-state").exists()
