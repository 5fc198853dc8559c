"""``python -m dpaudit reproduce azize-basu-fig2|fig3`` (reduced settings)."""

from __future__ import annotations

import pytest

from dpaudit.cli import main


@pytest.mark.parametrize("name", ["azize-basu-fig2", "azize-basu-fig3"])
def test_reproduce_writes_png_and_table(name: str, tmp_path, capsys) -> None:
    code = main(["reproduce", name, "--quick", "--horizon", "20000", "--runs", "3",
                 "--out", str(tmp_path)])
    assert code == 0
    stem = name.replace("-", "_")
    png, md = tmp_path / f"{stem}.png", tmp_path / f"{stem}.md"
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    text = md.read_text()
    assert "AdaP-KLUCB" in text and "|" in text
    if name == "azize-basu-fig2":
        assert "DP-UCB" in text  # named as missing


def test_reproduce_usage_errors(tmp_path, capsys) -> None:
    assert main(["reproduce", "azize-basu-fig4", "--out", str(tmp_path)]) == 2
    assert "did you mean" in capsys.readouterr().err
    assert main(["reproduce", "azize-basu-fig2", "--out", str(tmp_path / "nope")]) == 2
    assert main(["reproduce", "azize-basu-fig2", "--runs", "0", "--out", str(tmp_path)]) == 2
