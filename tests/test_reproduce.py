"""``python -m dpaudit reproduce NAME`` (reduced settings): registered experiments, files."""

from __future__ import annotations

import pytest

from dpaudit.cli import main


@pytest.mark.parametrize("name", ["azize-basu-fig2", "azize-basu-fig3"])
def test_reproduce_writes_png_and_table(name: str, tmp_path, capsys) -> None:
    code = main(["reproduce", name, "--quick", "--horizon", "20000", "--runs", "3",
                 "--out", str(tmp_path)])
    assert code == 0
    stem = name.replace("-", "_")
    png, md, csv = (tmp_path / f"{stem}.{ext}" for ext in ("png", "md", "csv"))
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    text = md.read_text()
    assert "AdaP-KLUCB" in text and "|" in text and "95%" in text
    rows = csv.read_text().splitlines()
    assert rows[0].count(",") == rows[1].count(",") and len(rows) >= 4
    if name == "azize-basu-fig2":
        # DP-UCB (Tossou & Dimitrakakis 2016) is registered now, so it is drawn
        assert "| DP-UCB |" in text and "not registered yet" not in text


def test_reproduce_usage_errors(tmp_path, capsys) -> None:
    assert main(["reproduce", "azize-basu-fig4", "--out", str(tmp_path)]) == 2
    assert "did you mean" in capsys.readouterr().err
    assert main(["reproduce", "azize-basu-fig2", "--runs", "0", "--out", str(tmp_path)]) == 2
    # a degenerate horizon is refused with its reason, not run into a NaN
    assert main(["reproduce", "azize-basu-fig2", "--horizon", "5", "--out", str(tmp_path)]) == 2
    assert "horizon=5 must be an integer in [500, inf)" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit) as exc:  # --out is a file: refused before any work
        main(["reproduce", "azize-basu-fig2", "--out", str(tmp_path / "file")])
    assert exc.value.code == 2


def test_reproduce_list_and_missing_folder_created(tmp_path, capsys) -> None:
    assert main(["reproduce", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "azize-basu-fig2" in listed and "azize-basu-fig3" in listed
    out = tmp_path / "new" / "folder"
    assert main(["reproduce", "azize-basu-fig2", "--horizon", "1e3", "--runs", "2",
                 "--out", str(out)]) == 0
    assert sorted(p.suffix for p in out.iterdir()) == [".csv", ".json", ".md", ".png"]


def test_reproduce_imports_no_algorithm() -> None:
    # the command knows no figure and no algorithm: the experiment files declare them
    import ast
    from pathlib import Path

    import dpaudit.commands.reproduce as cmd

    tree = ast.parse(Path(cmd.__file__).read_text())
    imported = [alias.name if isinstance(node, ast.Import) else (node.module or "")
                for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names]
    # names in imports, not words in comments: a docstring may speak of algorithms
    assert imported and not [m for m in imported
                             if m.startswith(("dpaudit.algorithms", "dpaudit.audits"))
                             or "azize" in m.lower()]
    strings = [node.value for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    assert not [s for s in strings if "azize" in s.lower()]


@pytest.mark.parametrize("name", ["azize-basu-fig2", "azize-basu-fig3"])
def test_bands_say_what_they_are(name: str) -> None:
    from dpaudit.registry import get_experiment

    exp = get_experiment(name)
    output = exp.run(exp.settings(horizon=2000, runs=3, quick=True))
    legend = output.figure.axes[0].get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert any("95% Student-t interval" in t for t in texts), texts
    assert output.table.columns[2:4] == ("95% CI low", "95% CI high")


def test_mean_interval_is_the_student_t_interval() -> None:
    # independent source: scipy.stats.t.interval on the same sample
    import numpy as np
    from scipy import stats

    from dpaudit.experiments import mean_interval

    x = np.array([[1.0, 10.0], [2.0, 12.0], [4.0, 11.0], [7.0, 15.0]])
    mean, low, high = mean_interval(x)
    for j in range(2):
        lo, hi = stats.t.interval(0.95, 3, loc=x[:, j].mean(), scale=stats.sem(x[:, j]))
        assert (low[j], high[j]) == pytest.approx((lo, hi), rel=1e-12)
    single = mean_interval(x[:1])
    assert np.array_equal(single[1], single[2])  # one run: no spread to estimate
