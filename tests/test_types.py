"""The type check: mypy on what ``pyproject.toml`` names (``[tool.mypy] files``), run as the
suite's first test (``conftest.py`` orders it) so that on two cores it overlaps the other tests
instead of running before them. Deterministic: no false-failure budget."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_type_error(monkeypatch) -> None:
    from mypy import api

    monkeypatch.chdir(ROOT)  # [tool.mypy] files are relative to the repository's root
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml")])
    assert status == 0, f"mypy (python -m mypy) reports:\n{out}{err}"
    assert "Success: no issues found" in out
