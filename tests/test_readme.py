"""The README's blocks, run as pasted.

Each ```bash block of the "Three workflows" section runs as one script in one shell, from a
folder laid out as the repository's root (a copy of ``examples/`` and ``pyproject.toml``), the
way a user pastes it into a terminal: what one line does to the shell (a ``cd``, a variable)
is still there for the next. The test checks each line's exit code (0, or the ``# exit N`` the
line ends with; the shell goes on after a failing line, as a terminal does) and that every path
a line names after ``--out``, ``--json``, ``--html`` or ``--junit`` exists afterwards (a folder:
with a file in it), relative to the folder the line ran in. The section takes about a minute on
2 cores, so it runs in the default suite: what the README teaches cannot drift from what the
tool does.

The README's other two blocks are the install-and-check line and the test command; CI runs
them (``.ci/run``: the install, then the test command, checked to be the README's by
``tests/test_ci_gate.py``), and ``tests/test_readme_figures.py`` runs ``check dp-ftpl-new``.
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
#: the line the test adds after each line of a block: the line's exit code and the folder the
#: shell is in afterwards, appended to a file the shell's later lines never read
RECORD = 'printf "%s\\t%s\\n" "$?" "$PWD" >> "$DPAUDIT_README_RECORD"'


def _section() -> str:
    readme = (ROOT / "README.md").read_text()
    assert readme.count(SECTION) == 1, f"README.md must have one {SECTION!r} section"
    return readme.split(SECTION, 1)[1].split("\n## ", 1)[0]


def workflow_blocks() -> list[list[tuple[str, int]]]:
    """Each block of the section as ``(line, expected exit code)`` pairs, in order."""
    blocks = []
    for block in re.findall(r"```bash\n(.*?)```", _section(), flags=re.S):
        lines = []
        for line in block.splitlines():
            if not line.strip():
                continue
            code = re.search(r"#\s*exit\s+(\d+)\s*$", line)
            lines.append((line, int(code.group(1)) if code else 0))
        blocks.append(lines)
    return blocks


def workflow_commands() -> list[tuple[str, int]]:
    """``(command, expected exit code)`` for every command of the section, in order."""
    return [pair for block in workflow_blocks() for pair in block]


def named_outputs(command: str) -> list[str]:
    """Paths after an output flag, relative to the folder the command runs in."""
    words = shlex.split(command, comments=True)
    return [words[i + 1] for i, w in enumerate(words[:-1])
            if w in OUTPUT_FLAGS and words[i + 1] != "-"]


def test_the_section_teaches_three_workflows() -> None:
    section = _section()
    for who in ("**The reviewer**", "**The engineer**", "**The researcher**"):
        assert who in section
    commands = [c for c, _ in workflow_commands()]
    assert len(commands) >= 9 and all("python -m" in c for c in commands)
    assert any(code == 1 for _, code in workflow_commands()), "a VIOLATED example is shown"


def test_every_readme_block_is_run_by_a_test_or_by_ci() -> None:
    """No block escapes: those outside the section are the two CI runs."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    section = re.findall(r"```bash\n(.*?)```", _section(), flags=re.S)
    others = [b for b in blocks if b not in section]
    ci = (ROOT / ".ci" / "run").read_text()
    assert len(others) == 2, others
    install, tests = (b.strip() for b in others)
    assert install.startswith("python -m pip install -e '.[test]' && ")
    assert "pip install --quiet -e '.[test]'" in ci
    assert install.endswith("python -m dpaudit check dp-ftpl-new")
    assert tests in ci.splitlines()


def _layout(tmp_path: Path) -> None:
    """The repository's root as far as the section's commands see it."""
    # copies, not links: outputs must land in tmp_path
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    # the stored reproductions a line reads (`claims PAPER --stored docs`): read, never written
    (tmp_path / "docs").symlink_to(ROOT / "docs", target_is_directory=True)


@pytest.mark.parametrize("block", workflow_blocks(),
                         ids=["reviewer", "engineer", "researcher"][:len(workflow_blocks())])
def test_readme_block_runs_as_pasted(block: list[tuple[str, int]], tmp_path: Path) -> None:
    _layout(tmp_path)
    record = tmp_path.parent / f"{tmp_path.name}.record"
    script = "".join(f"{line}\n{RECORD}\n" for line, _ in block)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DPAUDIT_", "PYTEST_"))}
    env.update(MPLBACKEND="Agg", DPAUDIT_README_RECORD=str(record))
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    # one shell reads the block from standard input, line by line, as a terminal would
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-s"], input=script, cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=900)
    done = [line.split("\t", 1) for line in record.read_text().splitlines()]
    assert len(done) == len(block), (
        f"the shell stopped after {len(done)} of {len(block)} lines (exit "
        f"{proc.returncode})\nstderr:\n{proc.stderr[-3000:]}")
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    for (line, expected), (code, folder) in zip(block, done, strict=True):
        assert int(code) == expected, (
            f"{line!r} exited {code}, the README says {expected}\n"
            f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}")
        for name in named_outputs(line):
            path = Path(folder) / name
            assert path.exists(), f"{line!r} did not write {name}"
            if path.is_dir():
                assert any(path.iterdir()), f"{line!r} wrote an empty folder {name}"
            else:
                assert path.stat().st_size > 0, f"{line!r} wrote an empty file {name}"
    assert Path(done[-1][1]) == tmp_path, "the block leaves the shell in another folder"


def test_a_block_that_leaves_the_root_fails_the_next_line(tmp_path: Path) -> None:
    """The check is not vacuous: a ``cd`` that stays in force breaks the line after it, as it
    broke the pasted block, and the record shows it."""
    _layout(tmp_path)
    record = tmp_path.parent / f"{tmp_path.name}.record"
    lines = ["cd examples && true", "test -d examples"]
    script = "".join(f"{line}\n{RECORD}\n" for line in lines)
    subprocess.run(["bash", "--noprofile", "--norc", "-s"], input=script, cwd=tmp_path,
                   env={**os.environ, "DPAUDIT_README_RECORD": str(record)},
                   capture_output=True, text=True, timeout=60)
    codes = [int(line.split("\t")[0]) for line in record.read_text().splitlines()]
    assert codes == [0, 1]
