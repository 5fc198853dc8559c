"""The CI gate: assert_private, the pytest plugin, the versioned JSON, JUnit XML, the example."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dpaudit.cli import main
from dpaudit.mechanisms import RandomizedResponse
from dpaudit.mechanisms import _twins as twins
from dpaudit.reports.junit import to_junit
from dpaudit.stats.results import CheckReport, ClaimResult, Method, Notion, Verdict
from dpaudit.testing import PrivacyAssertionError, assert_private, sample_scale
from dpaudit.validation import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.statistical
def test_assert_private_passes_a_correct_mechanism() -> None:
    """Binary randomized response is exactly eps-DP: a correct mechanism fails with
    probability at most alpha = 1e-3 (the bound is valid at 1 - alpha); seed fixed."""
    result = assert_private(RandomizedResponse(1.0, k=2), samples=50_000, alpha=1e-3)
    assert result.verdict is not Verdict.VIOLATED
    assert result.epsilon_lower_bound <= 1.0


@pytest.mark.statistical
def test_assert_private_fails_with_verdict_witness_and_bound() -> None:
    """4-ary response with the binary keep probability has true loss 1 + ln 3 = 2.10; with
    50000 samples the test catches losses above ~1.1 with power >= 80% (the engine's own
    statement), so a seeded miss is far outside that power."""
    with pytest.raises(PrivacyAssertionError) as info:
        assert_private(twins.FaultyRandomizedResponseMislabelled(1.0), samples=50_000)
    text = str(info.value)
    assert "VIOLATED" in text
    assert re.search(r"bound: epsilon >= (\d+\.\d+)", text)
    assert float(re.search(r"bound: epsilon >= (\d+\.\d+)", text).group(1)) > 1.0
    assert "witness: inputs" in text and "samples=50000" in text


def test_assert_private_runs_audits_by_name() -> None:
    report = assert_private("laplace")
    assert {c.verdict for c in report.claims} <= {Verdict.PROVED, Verdict.EXACT}
    with pytest.raises(PrivacyAssertionError, match="laplace-faulty"):
        assert_private("laplace-faulty")
    with pytest.raises(InvalidParameterError, match="target=int"):
        assert_private(3)


def test_sample_scale_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("DPAUDIT_SAMPLE_SCALE", "0.01")
    assert sample_scale() == 0.01
    result = assert_private(RandomizedResponse(1.0, k=2), samples=100_000)
    assert result.n_measure + result.n_select == 1_000  # 100000 x 0.01 per input
    monkeypatch.setenv("DPAUDIT_SAMPLE_SCALE", "-1")
    with pytest.raises(InvalidParameterError, match="DPAUDIT_SAMPLE_SCALE=-1.0 must be"):
        sample_scale()


def test_pytest_plugin_option_and_marker(tmp_path) -> None:
    """The entry-point plugin: ``--dpaudit-scale`` sets the scale, the marker overrides it."""
    (tmp_path / "test_scaled.py").write_text(textwrap.dedent("""
        import pytest
        from dpaudit.testing import sample_scale

        def test_option():
            assert sample_scale() == 0.25

        @pytest.mark.dpaudit(scale=3.0)
        def test_marker():
            assert sample_scale() == 3.0
    """))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--strict-markers", "--dpaudit-scale", "0.25", "test_scaled.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout


def _validate(doc: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.schema import load_schema

    jsonschema.Draft202012Validator.check_schema(load_schema())
    jsonschema.validate(doc, load_schema())


def test_check_json_and_junit_follow_the_schema(tmp_path, capsys) -> None:
    out, junit = tmp_path / "r" / "laplace.json", tmp_path / "laplace.xml"
    assert main(["check", "laplace", "--quick", "--json", str(out), "--junit", str(junit)]) == 0
    doc = json.loads(out.read_text())
    _validate(doc)
    from dpaudit import __version__

    assert (doc["schema_version"], doc["command"], doc["exit_code"]) == (1, "check", 0)
    assert doc["dpaudit_version"] == __version__
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("tests") == str(len(doc["claims"])) and suite.get("failures") == "0"
    assert [c.get("name") for c in suite.iter("testcase")] == [c["id"] for c in doc["claims"]]


@pytest.mark.statistical
def test_audit_violation_json_exit_code_and_junit_failure(tmp_path, capsys) -> None:
    """Same faulty mechanism as above (true loss 2.10), 20000 samples at alpha = 0.05."""
    junit = tmp_path / "a.xml"
    code = main(["audit", "randomized-response-faulty", "--samples", "20000", "--json", "-",
                 "--junit", str(junit)])
    doc = json.loads(capsys.readouterr().out)  # --json -: only the JSON on stdout
    _validate(doc)
    assert code == 1 and doc["exit_code"] == 1 and doc["command"] == "audit"
    case = ET.parse(junit).getroot().find("testsuite/testcase")
    failure = case.find("failure")
    assert failure is not None and failure.get("message").startswith("VIOLATED")


def test_junit_marks_inconclusive_as_skipped_with_the_reason() -> None:
    claim = ClaimResult("c", Notion.LDP, 1.0, 0.0, Verdict.INCONCLUSIVE, Method.SAMPLED,
                        "s", "ref", details=("needs 10x more samples",))
    xml = to_junit(CheckReport("n", "d", "p", {}, (claim,)))
    skipped = ET.fromstring(xml.split("?>", 1)[1]).find("testsuite/testcase/skipped")
    assert skipped.get("message") == "INCONCLUSIVE: needs 10x more samples"


def test_minimal_example_is_in_the_readme_and_runs_as_shown() -> None:
    source = (ROOT / "examples" / "minimal_audit.py").read_text()
    readme = (ROOT / "docs" / "ci-gate.md").read_text()
    assert f"```python\n{source}```" in readme
    assert "`cd examples && python -m dpaudit check minimal_audit`" in readme
    proc = subprocess.run([sys.executable, "-m", "dpaudit", "check", "minimal_audit"],
                          cwd=ROOT / "examples", capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "[EXACT       ] exact" in proc.stdout and "[CONSISTENT  ] sampled" in proc.stdout


class _Tty:
    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self.text += s
        return len(s)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("json_arg, drawn", [([], True), (["--json", "-"], False)])
def test_progress_line_on_a_terminal_only(monkeypatch, capsys, json_arg, drawn) -> None:
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["check", "laplace", "--quick", *json_arg]) == 0
    assert ("check laplace:" in tty.text and "claim 1/2: lemma1-ratio-symbolic" in tty.text
            and "piece/s" in tty.text) is drawn
    if not drawn:
        json.loads(capsys.readouterr().out)  # stdout is one JSON document, nothing else


def test_no_progress_when_not_a_terminal(capsys) -> None:
    assert main(["check", "laplace", "--quick"]) == 0
    assert "claim 1/2" not in capsys.readouterr().err


def test_audit_policy_json_follows_the_schema(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "uniform_policy_for_schema.py").write_text(textwrap.dedent("""
        class Uniform:
            def __init__(self, n_arms):
                self.k, self.t = n_arms, 0
            def select(self):
                self.t += 1
                return self.t % self.k
            def update(self, arm, reward):
                pass
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["audit-policy", "uniform_policy_for_schema:Uniform", "--arms", "2",
                 "--horizon", "6", "--epsilon", "1", "--samples", "400", "--search-budget", "2",
                 "--json", "-"])
    doc = json.loads(capsys.readouterr().out)
    _validate(doc)
    assert code == 0 and doc["command"] == "audit-policy" and doc["exit_code"] == 0


def test_progress_line_draws_a_bar_and_the_elapsed_time() -> None:
    """A tqdm bar: pieces done before this one, elapsed time, ETA, and the piece's label."""
    import argparse

    from dpaudit.commands.common import ProgressLine

    tty = _Tty()
    line = ProgressLine(argparse.Namespace(json=None), "check x", stream=tty)
    first = line.render("claim 1/4: a")
    assert first.startswith("check x:") and "0/4" in first and "claim 1/4: a" in first
    third = line.render("claim 3/4: c")
    assert "2/4" in third and " 50%" in third and "00:00<" in third  # elapsed < ETA
    assert "4/4" in line.render("regret experiment")  # every claim done by then
    line.close()


def test_progress_clock_moves_between_pieces() -> None:
    """The bar is redrawn every tick while one piece runs: its elapsed time does not freeze."""
    import time

    from dpaudit.runtime.progress import Bar

    tty = _Tty()
    bar = Bar(3, desc="x", enabled=True, stream=tty, tick=0.05)
    before = len(tty.text)
    time.sleep(0.3)
    bar.close()
    assert len(tty.text) > before  # redrawn without any update()


def test_no_bar_when_disabled() -> None:
    from dpaudit.runtime.progress import Bar

    tty = _Tty()
    bar = Bar(3, desc="x", enabled=False, stream=tty)
    bar.update(1)
    bar.set(done=2, label="y")
    bar.close()
    assert tty.text == ""


def test_audit_policy_bar_on_a_terminal_only(tmp_path, monkeypatch, capsys) -> None:
    """audit-policy draws its tqdm bar of runs on a terminal, and not under --json -."""
    (tmp_path / "uniform_policy_for_bar.py").write_text(textwrap.dedent("""
        class Uniform:
            def __init__(self, n_arms):
                self.k, self.t = n_arms, 0
            def select(self):
                self.t += 1
                return self.t % self.k
            def update(self, arm, reward):
                pass
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["audit-policy", "uniform_policy_for_bar:Uniform", "--arms", "2", "--horizon", "6",
            "--epsilon", "1", "--samples", "400", "--search-budget", "2"]
    for extra, drawn in (([], True), (["--json", "-"], False)):
        tty = _Tty()
        monkeypatch.setattr(sys, "stderr", tty)
        assert main(argv + extra) == 0
        assert ("run/s" in tty.text and "audit-policy:" in tty.text) is drawn, tty.text
    capsys.readouterr()


def test_ci_runs_exactly_the_readme_test_command() -> None:
    """The README's second bash block is the command `.ci/run` ends with, and the suite it
    runs type-checks (mypy, configured in pyproject.toml to check the engine and the three
    paper packages) as its first test."""
    import tomllib

    readme = (ROOT / "README.md").read_text()
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```bash\n")[1:]]
    command = blocks[1]
    assert command == "python -m pytest -q -n auto --durations=20"
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert ci[-1] == command
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert {"dpaudit", "algorithms", "audits", "mechanisms"} <= set(
        project["tool"]["mypy"]["files"])
    assert any(dep.startswith("mypy") for dep in project["project"]["optional-dependencies"]
               ["test"])
    assert "api.run" in (ROOT / "tests" / "test_types.py").read_text()


def test_audit_policy_prints_plain_progress_lines_when_stderr_is_not_a_terminal(
        tmp_path, monkeypatch, capsys) -> None:
    """Without a terminal (a CI log, nohup) audit-policy writes one plain line of its counts
    every few seconds (here every 0.05 s), no control characters; none under --json -."""
    from dpaudit.runtime import progress

    (tmp_path / "greedy_policy_for_lines.py").write_text(textwrap.dedent("""
        import numpy as np
        class NoisyGreedy:
            def __init__(self, n_arms):
                self.s, self.n = np.zeros(n_arms), np.ones(n_arms)
            def select(self):
                return int(np.argmax(self.s / self.n + np.random.laplace(0, 1, len(self.s))))
            def update(self, arm, reward):
                self.s[arm] += reward
                self.n[arm] += 1
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.05)
    argv = ["audit-policy", "greedy_policy_for_lines:NoisyGreedy", "--arms", "2", "--horizon",
            "8", "--epsilon", "1", "--samples", "400", "--search-budget", "2", "--no-state"]
    assert main(argv) in (0, 1)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("audit-policy: ")]
    assert len(lines) >= 2, err
    assert "\r" not in err and "\x1b" not in err
    assert all(" runs [" in line and "run/s" in line for line in lines)
    assert any("neighbour search" in line or "sampling" in line for line in lines)
    assert main([*argv, "--json", "-"]) in (0, 1)
    captured = capsys.readouterr()
    assert "audit-policy: " not in captured.err
    json.loads(captured.out)
