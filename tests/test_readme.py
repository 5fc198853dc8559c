"""The README's "Three workflows" section, run verbatim.

Every line of every ```bash block in that section is one shell command. Each runs, as written,
in a fresh folder that holds a copy of ``examples/``, the way a
user runs it from a checkout. The test checks each command's exit code (0, or the ``# exit N``
the line ends with) and that every path the command names after ``--out``, ``--json``,
``--html`` or ``--junit`` exists afterwards (a folder: with a file in it). The whole section
takes about a minute on 2 cores, so it runs in the default suite: what the README teaches
cannot drift from what the tool does.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Three workflows"
OUTPUT_FLAGS = ("--out", "--json", "--html", "--junit")


def workflow_commands() -> list[tuple[str, int]]:
    """``(command, expected exit code)`` for every command of the section, in order."""
    readme = (ROOT / "README.md").read_text()
    assert readme.count(SECTION) == 1, f"README.md must have one {SECTION!r} section"
    section = readme.split(SECTION, 1)[1].split("\n## ", 1)[0]
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S):
        for line in block.splitlines():
            if not line.strip():
                continue
            code = re.search(r"#\s*exit\s+(\d+)\s*$", line)
            commands.append((line, int(code.group(1)) if code else 0))
    return commands


def named_outputs(command: str) -> list[str]:
    """Paths after an output flag, relative to the folder the command ends in."""
    words = shlex.split(command, comments=True)
    cwd = ""
    if "cd" in words and "&&" in words:
        cwd = words[words.index("cd") + 1]
    return [os.path.join(cwd, words[i + 1]) for i, w in enumerate(words[:-1])
            if w in OUTPUT_FLAGS and words[i + 1] != "-"]


def test_the_section_teaches_three_workflows() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split(SECTION, 1)[1].split("\n## ", 1)[0]
    for who in ("**The reviewer**", "**The engineer**", "**The researcher**"):
        assert who in section
    commands = [c for c, _ in workflow_commands()]
    assert len(commands) >= 9 and all("python -m" in c for c in commands)
    assert any(code == 1 for _, code in workflow_commands()), "a VIOLATED example is shown"


@pytest.mark.parametrize("command,expected", workflow_commands(),
                         ids=[c.split("#")[0].strip()[:60] for c, _ in workflow_commands()])
def test_readme_workflow_command_runs_verbatim(command: str, expected: int, tmp_path) -> None:
    # a copy, not a link: `cd examples && ... ../gate/x.json` must land in tmp_path
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DPAUDIT_", "PYTEST_"))}
    env["MPLBACKEND"] = "Agg"
    bindir = os.path.dirname(sys.executable)  # `python` is this interpreter, as in a venv
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == expected, (
        f"{command!r} exited {proc.returncode}, the README says {expected}\n"
        f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}")
    assert "Traceback" not in proc.stderr
    for name in named_outputs(command):
        path = tmp_path / name
        assert path.exists(), f"{command!r} did not write {name}"
        if path.is_dir():
            assert any(path.iterdir()), f"{command!r} wrote an empty folder {name}"
        else:
            assert path.stat().st_size > 0, f"{command!r} wrote an empty file {name}"
