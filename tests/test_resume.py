"""``--resume`` of ``check`` and ``reproduce`` (dpaudit.runtime.state): an interrupted run continues
from its completed pieces and prints the report (writes the files) an uninterrupted run does.

Reports are compared whole, except the documented wall-clock fields: ``seconds`` (the report's
and each reduced inequality's) and durations printed in text (``"(0.04 s)"``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpaudit.cli import main
from dpaudit.engine import run_check
from dpaudit.experiments import ExperimentSettings, cached
from dpaudit.registry import get_audit
from dpaudit.runtime import state as state_mod
from dpaudit.runtime.state import CheckState, StateFormatError, decode, encode
from dpaudit.stats.evidence import SampledEvidence
from dpaudit.stats.results import Notion, Verdict

TOY = '''
import math
import os
import signal

from dpaudit.engine import AuditSpec, ClaimSpec, FindingSpec
from dpaudit.stats.evidence import ExactEvidence, SampledEvidence
from dpaudit.stats.results import Notion, RegretResult


def _log(piece):
    with open(os.environ["TOY_LOG"], "a") as fh:
        fh.write(piece + "\\n")
    if os.environ.get("TOY_STOP") == piece:
        if os.environ.get("TOY_SIGNAL"):
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C
        raise KeyboardInterrupt


def exact(ctx, spec):
    _log(spec.id)
    return ExactEvidence(delta_at_epsilon=ctx.delta / 2, error=1e-12,
                         epsilon_at_delta=ctx.epsilon / 2)


def sampled(ctx, spec):
    _log(spec.id)
    rng = ctx.rng("claim", spec.id)
    n = 5000
    return SampledEvidence(
        count_p=int(rng.binomial(n, 0.5)), n_p=n,
        count_q=int(rng.binomial(n, 0.5 * math.exp(-ctx.epsilon / 2))), n_q=n,
        event="x > 0", direction="D vs D'", p_select=0.5, n_select=n,
        data={"draws": rng.random(3), "pair": (1, 2.5), 7: [float("inf"), None]})


def finding(ctx):
    _log("f1")
    rng = ctx.rng("finding")
    n = 4000
    return SampledEvidence(count_p=int(rng.binomial(n, 0.4)), n_p=n,
                           count_q=int(rng.binomial(n, 0.3)), n_q=n, event="y",
                           direction="D' vs D", p_select=0.4, n_select=n)


def regret(ctx):
    _log("regret")
    x = ctx.rng("regret").random(10) * 100
    return RegretResult("toy", "toy", 100, 10, float(x.mean()), float(x.min()),
                        float(x.max()), 0.95, None, "none", None,
                        checkpoints=(10, 100), mean_curve=(1.0, float(x.mean())))


AUDIT = AuditSpec(
    "toy-resume", "a toy audit with three sampled claims", "Toy 2024",
    [ClaimSpec(f"c{i}", Notion.LDP, f"claim {i}", "Toy 2024", exact if i == 1 else sampled)
     for i in range(1, 5)],
    default_epsilon=1.0, default_delta=0.01,
    findings=[FindingSpec("f1", finding, "toy finding")], regret=regret)
'''

PIECES = ["c1", "c2", "c3", "c4", "f1", "regret"]
_DURATION = re.compile(r"(?:< 1|\d+(\.\d+)?) m?s\b")


def comparable(doc):
    """A report without its wall-clock fields (documented in docs/auditor.md, "Long runs")."""
    if isinstance(doc, dict):
        return {k: comparable(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [comparable(v) for v in doc]
    if isinstance(doc, str):
        return _DURATION.sub("<duration>", doc)
    return doc


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A user audit module in a fresh current folder; returns ``(module name, log reader)``."""
    name = "toy_" + re.sub(r"\W", "_", tmp_path.name)
    (tmp_path / f"{name}.py").write_text(TOY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(state_mod.STATE_DIR_ENV, raising=False)
    monkeypatch.delenv("TOY_STOP", raising=False)
    log = tmp_path / "evaluated.log"
    monkeypatch.setenv("TOY_LOG", str(log))
    yield name, log
    sys.modules.pop(name, None)


def evaluated(log: Path) -> list[str]:
    """The pieces evaluated since the last call (the log is emptied)."""
    text = log.read_text() if log.exists() else ""
    log.write_text("")
    return text.split()


def check(name: str, *extra: str) -> int:
    return main(["check", name, *extra])


def reference(name: str, tmp_path: Path, *extra: str) -> dict:
    """An uninterrupted run that neither reads nor writes state."""
    out = tmp_path / "reference.json"
    assert check(name, "--no-state", "--json", str(out), *extra) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("stop", ["c2", "c3", "f1", "regret"])
def test_interrupted_check_resumes_to_the_uninterrupted_report(toy, tmp_path, monkeypatch,
                                                               capsys, stop):
    name, log = toy
    ref = reference(name, tmp_path)
    evaluated(log)
    monkeypatch.setenv("TOY_STOP", stop)
    assert check(name, "--json", "first.json") == 130
    err = capsys.readouterr().err
    done = PIECES[:PIECES.index(stop)]
    assert evaluated(log) == [*done, stop]
    assert f"{len(done)} completed piece(s) saved in" in err and "--resume" in err
    assert "Traceback" not in err
    saved = list((tmp_path / ".dpaudit-state").glob("check-toy-resume-*.json"))
    assert len(saved) == 1 and len(json.loads(saved[0].read_text())["pieces"]) == len(done)

    monkeypatch.delenv("TOY_STOP")
    assert check(name, "--resume", "--json", "resumed.json") == 0
    out = capsys.readouterr()
    assert evaluated(log) == PIECES[len(done):]  # completed pieces are not recomputed
    assert f"resuming from .dpaudit-state/{saved[0].name}" in out.err
    resumed = json.loads(Path("resumed.json").read_text())
    assert comparable(resumed) == comparable(ref)
    # the Bonferroni split saw every sampled claim, saved or not
    assert resumed["alpha_split"]["sampled_claims"] == 3
    # a completed run deletes its state (and the default folder, now empty)
    assert not (tmp_path / ".dpaudit-state").exists()


def test_text_report_of_a_resumed_check_is_the_uninterrupted_one(toy, tmp_path, monkeypatch,
                                                                 capsys):
    name, _ = toy
    assert check(name, "--no-state") == 0
    plain = capsys.readouterr().out
    monkeypatch.setenv("TOY_STOP", "c4")
    assert check(name) == 130
    monkeypatch.delenv("TOY_STOP")
    capsys.readouterr()
    assert check(name, "--resume") == 0
    resumed = capsys.readouterr().out
    assert _DURATION.sub("<d>", resumed) == _DURATION.sub("<d>", plain)


def test_state_is_keyed_by_every_parameter_that_changes_results(toy, tmp_path, monkeypatch,
                                                                capsys):
    name, log = toy
    monkeypatch.setenv("TOY_STOP", "c3")
    assert check(name) == 130
    monkeypatch.delenv("TOY_STOP")
    evaluated(log)
    capsys.readouterr()
    for other in (["--seed", "7"], ["--epsilon", "0.5"], ["--delta", "0.02"],
                  ["--alpha", "0.01"], ["--quick"]):
        assert check(name, "--resume", *other) == 0
        err = capsys.readouterr().err
        assert "no saved state for these arguments" in err, other
        assert evaluated(log) == PIECES, other  # nothing reused
    # the interrupted run's state is still there, untouched by the runs above
    assert len(list((tmp_path / ".dpaudit-state").glob("*.json"))) == 1
    # editing the audit module invalidates it too
    module = tmp_path / f"{name}.py"
    original = module.read_text()
    module.write_text(original + "\n# edited\n")
    assert check(name, "--resume", "--json", "edited.json") == 0
    assert "no saved state" in capsys.readouterr().err
    assert evaluated(log) == PIECES
    module.write_text(original)
    # the number of workers is not part of the key (results do not depend on it)
    assert check(name, "--resume", "--workers", "2") == 0
    assert "resuming from" in capsys.readouterr().err
    # two workers evaluate the remaining pieces concurrently: which finishes first varies
    assert sorted(evaluated(log)) == sorted(PIECES[2:])


def test_without_resume_everything_runs_and_the_state_is_replaced(toy, monkeypatch, capsys):
    name, log = toy
    monkeypatch.setenv("TOY_STOP", "c3")
    assert check(name) == 130
    monkeypatch.setenv("TOY_STOP", "c4")
    evaluated(log)
    assert check(name) == 130  # no --resume: c1 and c2 run again
    assert evaluated(log) == ["c1", "c2", "c3", "c4"]
    monkeypatch.delenv("TOY_STOP")
    assert check(name, "--resume") == 0
    assert evaluated(log) == ["c4", "f1", "regret"]


def test_corrupt_state_is_ignored_with_a_warning(toy, tmp_path, monkeypatch, capsys):
    name, log = toy
    ref = reference(name, tmp_path)
    monkeypatch.setenv("TOY_STOP", "c3")
    assert check(name) == 130
    monkeypatch.delenv("TOY_STOP")
    [path] = (tmp_path / ".dpaudit-state").glob("*.json")
    doc = json.loads(path.read_text())
    forged = dict(doc, pieces={"claim:1:c1": {"seconds": 0.0, "value": {
        "__dataclass__": "os:system", "fields": {"command": "echo hi"}}}})
    for content in ("{not json", json.dumps(forged), json.dumps(dict(doc, key="other")), ""):
        path.parent.mkdir(exist_ok=True)
        path.write_text(content)
        evaluated(log)
        capsys.readouterr()
        assert check(name, "--resume", "--json", "out.json") == 0
        err = capsys.readouterr().err
        assert "warning: ignoring the unreadable saved state" in err and "Traceback" not in err
        assert evaluated(log) == PIECES
        assert comparable(json.loads(Path("out.json").read_text())) == comparable(ref)


def test_unwritable_state_is_a_warning_not_a_failure(toy, tmp_path, monkeypatch, capsys):
    name, _ = toy

    def refuse(path, text):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(state_mod, "_write_atomic", refuse)
    assert check(name, "--json", "out.json") == 0
    err = capsys.readouterr().err
    assert err.count("cannot save the run's state") == 1 and "Permission denied" in err
    assert comparable(json.loads(Path("out.json").read_text())) == comparable(
        reference(name, tmp_path))


def test_state_options(toy, tmp_path, monkeypatch, capsys):
    name, log = toy
    assert check(name, "--resume", "--no-state") == 2
    assert "--resume reads saved state and --no-state forbids it" in capsys.readouterr().err
    assert check(name, "--state-dir", "x", "--no-state") == 2
    # --state-dir and $DPAUDIT_STATE_DIR choose the folder (a named folder is kept)
    monkeypatch.setenv("TOY_STOP", "c2")
    assert check(name, "--state-dir", "mine") == 130
    assert len(list(Path("mine").glob("check-*.json"))) == 1
    monkeypatch.setenv(state_mod.STATE_DIR_ENV, str(tmp_path / "env"))
    assert check(name) == 130
    assert len(list((tmp_path / "env").glob("check-*.json"))) == 1
    monkeypatch.delenv("TOY_STOP")
    evaluated(log)
    assert check(name, "--resume", "--state-dir", "mine") == 0
    assert evaluated(log) == PIECES[1:]
    assert Path("mine").is_dir() and not list(Path("mine").iterdir())
    # --no-state writes nothing
    monkeypatch.delenv(state_mod.STATE_DIR_ENV)
    monkeypatch.setenv("TOY_STOP", "c2")
    assert check(name, "--no-state") == 130
    assert not Path(".dpaudit-state").exists()


def test_cli_end_to_end_interrupt_exits_130_and_resumes(toy, tmp_path):
    """One real process interrupted by SIGINT, then resumed by another."""
    name, log = toy
    ref = reference(name, tmp_path)
    env = {**os.environ, "TOY_STOP": "c3", "TOY_SIGNAL": "1",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    env.pop(state_mod.STATE_DIR_ENV, None)
    cmd = [sys.executable, "-m", "dpaudit", "check", name, "--json", "e2e.json"]
    first = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=120)
    assert first.returncode == 130, first.stderr
    assert "dpaudit: interrupted" in first.stderr and "--resume" in first.stderr
    assert "Traceback" not in first.stderr
    env.pop("TOY_STOP")
    evaluated(log)
    second = subprocess.run([*cmd, "--resume"], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert evaluated(log) == ["c3", "c4", "f1", "regret"]
    assert comparable(json.loads((tmp_path / "e2e.json").read_text())) == comparable(ref)


# -- a real audit: each piece restored or recomputed gives the same report ------------------
@pytest.mark.parametrize("audit", ["dp-se", "dp-ftpl-gauss"])
def test_registered_audit_resumed_midway_gives_the_same_report(audit, tmp_path):
    spec = get_audit(audit)
    first = CheckState(tmp_path / "full", audit, "k" * 64, resume=False)
    full = run_check(spec, quick=True, state=first)
    pieces = list(first.pieces)
    assert len(pieces) >= 3
    # the first half of the pieces, as a run interrupted there saved them
    done = pieces[:len(pieces) // 2]
    partial = CheckState(tmp_path / "partial", audit, "k" * 64, resume=False)
    for piece in done:
        partial.save(piece, decode(first.pieces[piece]["value"]), 0.0)
    resumed_state = CheckState(tmp_path / "partial", audit, "k" * 64, resume=True)
    assert resumed_state.found and list(resumed_state.pieces) == done
    resumed = run_check(spec, quick=True, state=resumed_state)
    assert resumed_state.restored == done
    assert comparable(resumed.to_dict()) == comparable(full.to_dict())
    assert resumed.exit_code == full.exit_code


# -- the format ------------------------------------------------------------------------------
def test_format_round_trips_exact_values_and_types():
    value = {
        "a": (1, 2.5, float("inf"), -0.0, 0.1 + 0.2),
        3: [Notion.LDP, Verdict.VIOLATED, None, True, np.float64(0.1), np.int32(-4)],
        ("k", 1): np.arange(12, dtype=np.float32).reshape(3, 4).T,
        "nested": [{"x": np.array([[1, 2], [3, 4]], dtype=np.int16)}],
        "evidence": SampledEvidence(3, 10, 1, 10, "e", "D vs D'", 0.3, 10,
                                    details=("a",), data={"z": np.bool_(True)}),
    }
    back = decode(json.loads(json.dumps(encode(value))))
    assert list(back) == list(value)
    assert back["a"] == value["a"] and type(back["a"]) is tuple
    assert repr(back["a"][3]) == "-0.0" and back["a"][4] == 0.1 + 0.2
    assert [type(v) for v in back[3]] == [type(v) for v in value[3]] and back[3] == value[3]
    arr = back[("k", 1)]
    assert arr.dtype == np.float32 and np.array_equal(arr, value[("k", 1)])
    assert arr.strides == value[("k", 1)].strides  # same layout: same summation order
    assert back["nested"][0]["x"].dtype == np.int16
    assert back["evidence"] == value["evidence"]  # the dataclass, rebuilt (arrays aside)
    nan = decode(json.loads(json.dumps(encode(float("nan")))))
    assert np.isnan(nan)


@pytest.mark.parametrize("forged", [
    {"__dataclass__": "os:system", "fields": {}},
    {"__dataclass__": "subprocess:Popen", "fields": {"args": "ls"}},
    {"__dataclass__": "dpaudit.commands.common:write_text_output", "fields": {}},
    {"__enum__": "builtins:eval", "value": "1"},
    {"__ndarray__": "|O", "shape": [1], "data": ""},
    {"__float__": "1e999999"},
    {"surprise": 1},
])
def test_decoding_builds_only_dpaudit_types_and_plain_values(forged):
    with pytest.raises(StateFormatError):
        decode(forged)


def test_a_value_the_format_cannot_hold_is_not_saved(tmp_path):
    warnings = []
    st = CheckState(tmp_path, "x", "k" * 64, resume=False, warn=warnings.append)
    st.save("claim:1:a", {"fine": 1}, 0.1)
    st.save("claim:2:b", {"bad": object()}, 0.1)
    st.save("claim:3:c", {"bad": object()}, 0.1)
    assert list(st.pieces) == ["claim:1:a"]
    assert len(warnings) == 2 and "builtins.object" in warnings[0]
    with pytest.raises(StateFormatError):
        encode(Path("x"))


# -- reproduce -------------------------------------------------------------------------------
def _interrupt_after(monkeypatch, cells: int) -> None:
    """Make the reproduction's ``cells + 1``-th cell raise KeyboardInterrupt (a Ctrl-C)."""
    original = state_mod.ExperimentCache.get
    left = {"n": cells}

    def get(self, key, compute):
        if left["n"] == 0:
            raise KeyboardInterrupt
        left["n"] -= 1
        return original(self, key, compute)

    monkeypatch.setattr(state_mod.ExperimentCache, "get", get)
    return original


@pytest.mark.parametrize(("name", "args", "cells"), [
    # settings.cached: 8 eps + 3 decision cells (their runs are kept, so they are decided on
    # the betting confidence sequence: no confirmation run, and here no batch is added)
    # (8 runs: the decision cells' 4000 runs decide at T = 500 without an added batch)
    ("azize-basu-fig3", ["--horizon", "500", "--runs", "8"], 11),
    ("wang-zhu-fig6", ["--horizon", "200", "--runs", "2"], 68),  # experiments.cached
])
def test_reproduce_resumed_from_a_partial_cache_writes_the_same_files(
        name, args, cells, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(state_mod.STATE_DIR_ENV, raising=False)
    common = ["reproduce", name, "--quick", *args]
    stem = name.replace("-", "_")
    assert main([*common, "--out", str(tmp_path / "plain"), "--no-state"]) == 0
    original = _interrupt_after(monkeypatch, cells // 2)
    out = tmp_path / "resumed"
    assert main([*common, "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert f"{cells // 2} completed cell(s) saved in" in err and "--resume" in err
    assert len(list((out / ".dpaudit-state").rglob("*.json"))) == cells // 2
    monkeypatch.setattr(state_mod.ExperimentCache, "get", original)
    assert main([*common, "--out", str(out), "--resume"]) == 0
    err = capsys.readouterr().err
    assert f"resumed: {cells // 2} cell(s) read back, {cells - cells // 2} computed" in err
    for ext in ("csv", "md", "png"):
        assert (out / f"{stem}.{ext}").read_bytes() == \
            (tmp_path / "plain" / f"{stem}.{ext}").read_bytes(), ext
    assert not (out / ".dpaudit-state").exists()


def test_reproduce_cache_is_keyed_by_settings(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(state_mod.STATE_DIR_ENV, raising=False)
    common = ["reproduce", "azize-basu-fig3", "--quick", "--horizon", "500", "--runs", "8",
              "--out", str(tmp_path)]
    original = _interrupt_after(monkeypatch, 3)
    assert main(common) == 130
    monkeypatch.setattr(state_mod.ExperimentCache, "get", original)
    capsys.readouterr()
    assert main([*common, "--resume", "--seed", "5"]) == 0
    err = capsys.readouterr().err
    assert "no saved cells for these arguments" in err
    assert "resumed: 0 cell(s) read back, 11 computed" in err
    assert main([*common, "--resume", "--no-state"]) == 2


def test_cached_without_a_cache_just_computes(tmp_path):
    settings = ExperimentSettings(horizon=10, runs=2)
    calls = []
    assert settings.cached(("a", 1), lambda: calls.append(1) or 5) == 5
    assert cached(("a", 1), lambda: calls.append(1) or 6) == 6
    assert calls == [1, 1]
    cache = state_mod.ExperimentCache(tmp_path, "x", "k" * 64, resume=True)
    with_cache = ExperimentSettings(horizon=10, runs=2, cache=cache)
    assert with_cache == settings  # the cache is not part of the settings' value
    assert with_cache.cached(("a", 0.1), lambda: np.arange(3)).tolist() == [0, 1, 2]
    assert with_cache.cached(("a", 0.1), lambda: pytest.fail("recomputed")).tolist() == \
        [0, 1, 2]
    assert with_cache.cached(("a", 0.1 + 1e-16), lambda: 7) == 7  # keys are exact
    with pytest.raises(StateFormatError):
        with_cache.cached(("a", object()), lambda: 1)


def test_docs_describe_long_runs():
    text = (Path(__file__).resolve().parents[1] / "docs" / "auditor.md").read_text()
    section = text.split("## Long runs", 1)[1]
    for needle in ("--resume", "--state-dir", "DPAUDIT_STATE_DIR", "--no-state", "seconds",
                   "workers"):
        assert needle in section, needle
