"""The CI recipe people copy (``examples/ci/``, ``.pre-commit-hooks.yaml``, docs/ci-gate.md):
the workflow's structure is what GitHub Actions reads, its steps run as shell commands on the
example project (and stop a broken copy of it), and the pre-commit hook audits what a change
touches."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dpaudit.precommit import audit_files_touched

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / "examples" / "ci"
WORKFLOW = CI / "privacy-gate.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
LOCAL_HOOKS = CI / "pre-commit-config.yaml"
#: pre-commit's languages (https://pre-commit.com/#supported-languages) a Python hook may use
LANGUAGES = {"python", "system", "script"}


def _workflow() -> dict:
    doc = yaml.safe_load(WORKFLOW.read_text())
    # YAML 1.1 (PyYAML) reads the key `on` as True; GitHub reads it as "on"
    if True in doc:
        doc["on"] = doc.pop(True)
    return doc


def _steps() -> list[dict]:
    (job,) = _workflow()["jobs"].values()
    return job["steps"]


def _project(tmp_path: Path) -> Path:
    """A copy of the example project, as the root of the user's repository."""
    repo = tmp_path / "repo"
    shutil.copytree(CI, repo, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return repo


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DPAUDIT_", "PYTEST_"))}
    env["MPLBACKEND"] = "Agg"
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def _run_step(step: dict, cwd: Path) -> subprocess.CompletedProcess[str]:
    # GitHub runs a `run:` step with bash -e -o pipefail on its Linux runners
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                           step["run"]], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=600)


def _break(repo: Path) -> None:
    """Halve the mechanism's noise: its true epsilon is twice the claim."""
    mech = repo / "mechanism.py"
    text = mech.read_text()
    assert "self.scale = 1.0 / epsilon" in text
    mech.write_text(text.replace("self.scale = 1.0 / epsilon", "self.scale = 0.5 / epsilon"))


def test_the_workflow_has_the_structure_github_actions_reads() -> None:
    doc = _workflow()
    assert set(doc) >= {"name", "on", "jobs"}
    assert {"push", "pull_request"} <= set(doc["on"])
    (job,) = doc["jobs"].values()
    assert job["runs-on"].startswith("ubuntu")
    steps = job["steps"]
    assert all(isinstance(s, dict) and (("uses" in s) != ("run" in s)) for s in steps), steps
    uses = [s["uses"].split("@")[0] for s in steps if "uses" in s]
    assert uses[:2] == ["actions/checkout", "actions/setup-python"]
    runs = [s["run"] for s in steps if "run" in s]
    assert re.search(r"pip install .*\bdpaudit\b", runs[0]), runs[0]
    audit = next(r for r in runs if "python -m dpaudit check" in r)
    assert "--fail-on-inconclusive" in audit and "--junit reports/" in audit
    gate = next(r for r in runs if "python -m pytest" in r)
    assert "--junitxml reports/" in gate
    publish = next(s for s in steps if "junit" in s.get("uses", ""))
    assert publish["if"] == "always()" and publish["with"]["report_paths"] == "reports/*.xml"
    assert job["permissions"]["checks"] == "write"


def test_the_workflow_steps_run_on_the_example_and_stop_a_broken_copy(tmp_path: Path) -> None:
    """Every `run:` step but the install (dpaudit is installed here) runs as written in a copy
    of the example project and exits 0, writing JUnit reports; the same audit step on a copy
    whose noise is halved exits 1 (VIOLATED), and its pytest gate fails."""
    steps = [s for s in _steps() if "run" in s and "pip install" not in s["run"]]
    assert len(steps) == 2
    repo = _project(tmp_path / "good")
    for step in steps:
        proc = _run_step(step, repo)
        assert proc.returncode == 0, (step["name"], proc.stdout[-3000:], proc.stderr[-3000:])
    reports = sorted((repo / "reports").glob("*.xml"))
    assert [p.name for p in reports] == ["audit.xml", "pytest.xml"]
    for report in reports:
        root = ET.parse(report).getroot()
        suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
        assert suites and all(int(s.get("failures", 0)) == 0 for s in suites), report
        assert sum(int(s.get("tests", 0)) for s in suites) >= 1
    broken = _project(tmp_path / "broken")
    _break(broken)
    audit, gate = (_run_step(step, broken) for step in steps)
    assert audit.returncode == 1 and "VIOLATED" in audit.stdout, audit.stdout[-2000:]
    assert gate.returncode == 1 and "PrivacyAssertionError" in gate.stdout, gate.stdout[-2000:]
    failures = ET.parse(broken / "reports" / "audit.xml").getroot().iter("failure")
    assert any(True for _ in failures)


def test_the_pre_commit_hooks_are_well_formed() -> None:
    hooks = yaml.safe_load(HOOKS.read_text())
    assert isinstance(hooks, list) and hooks
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook), hook
        assert hook["language"] in LANGUAGES
        assert re.fullmatch(r"[a-z0-9-]+", hook["id"])
    (hook,) = hooks
    assert hook["entry"] == "python -m dpaudit.precommit"
    local = yaml.safe_load(LOCAL_HOOKS.read_text())
    (repo,) = local["repos"]
    (same,) = repo["hooks"]
    assert repo["repo"] == "local" and same["id"] == hook["id"]
    assert same["entry"] == hook["entry"] and same["language"] in LANGUAGES


def test_the_hook_audits_what_a_change_touches(tmp_path: Path) -> None:
    """A changed mechanism re-audits the audit file that imports it (exit 1 once broken); a
    change that touches no audit file runs nothing."""
    repo = _project(tmp_path)
    (repo / "unrelated.py").write_text("X = 1\n")
    assert audit_files_touched([repo / "mechanism.py"], repo) == [repo / "privacy_audit.py"]
    assert audit_files_touched([repo / "privacy_audit.py"], repo) == [repo / "privacy_audit.py"]
    assert audit_files_touched([repo / "unrelated.py"], repo) == []
    (hook,) = yaml.safe_load(HOOKS.read_text())
    entry = hook["entry"].split()

    def commit(*files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *entry[1:], *files], cwd=repo, env=_env(),
                              capture_output=True, text=True, timeout=600)

    quiet = commit("unrelated.py")
    assert quiet.returncode == 0 and "dpaudit check" not in quiet.stdout
    good = commit("mechanism.py", "unrelated.py")
    assert good.returncode == 0, good.stdout[-2000:] + good.stderr[-2000:]
    assert "check privacy_audit --no-state --quick" in good.stdout
    _break(repo)
    bad = commit("mechanism.py")
    assert bad.returncode == 1 and "VIOLATED" in bad.stdout, bad.stdout[-2000:]


def test_the_docs_page_shows_the_workflow_and_the_hooks_as_they_are() -> None:
    page = (ROOT / "docs" / "ci-gate.md").read_text()
    for path in (WORKFLOW, HOOKS, LOCAL_HOOKS):
        assert f"```yaml\n{path.read_text()}```" in page, path
