"""Issue 26, item 8: the forms people type for a user's module are accepted, or the error says
exactly which forms work."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dpaudit.cli import main

MECH = '''
import numpy as np

class Coin:
    """A fair coin whatever the data: 0-DP."""
    epsilon, delta, neighbours = 1.0, 0.0, [(0, 1)]
    def sample(self, data, size, rng):
        return rng.integers(0, 2, size)
'''


@pytest.fixture()
def elsewhere(tmp_path, monkeypatch):
    """A user's file in a folder that is not the current one, importing a sibling module."""
    folder = tmp_path / "user code"
    folder.mkdir()
    (folder / "coin_helpers_x1.py").write_text(textwrap.dedent(MECH))
    (folder / "coin_mech_x1.py").write_text("from coin_helpers_x1 import Coin\n")
    monkeypatch.chdir(tmp_path)
    return folder


def test_audit_takes_a_file_path_with_an_object(elsewhere, capsys) -> None:
    assert main(["audit", "user code/coin_mech_x1.py:Coin", "--samples", "2000"]) == 0
    assert "verdict:" in capsys.readouterr().out


def test_check_takes_the_minimal_example_by_its_file_path(capsys) -> None:
    path = Path(__file__).resolve().parents[1] / "examples" / "minimal_audit.py"
    assert main(["check", str(path), "--quick", "--no-regret"]) == 0
    assert "verdict:" in capsys.readouterr().out


@pytest.mark.parametrize("target, needle", [
    ("module:Class", "give MODULE as a dotted path importable from the current folder"),
    ("missing/file.py:Class", "no such file"),
    ("some/folder/notes.txt:Class", "is not a .py file"),
])
def test_a_refused_name_says_which_forms_work(target, needle, tmp_path, monkeypatch,
                                              capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["audit", target]) == 2
    assert needle in capsys.readouterr().err
