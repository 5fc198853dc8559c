"""``python -m dpaudit plot cdf NAME --out FILE.png`` (Agg backend, no display)."""

from dpaudit.cli import main


def test_plot_writes_png(tmp_path, capsys):
    out = tmp_path / "lemma15.png"
    assert main(["plot", "cdf", "lemma15-perturbation", "--n", "5", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_list_and_beta(tmp_path, capsys):
    assert main(["plot", "cdf", "--list"]) == 0
    names = capsys.readouterr().out.split()
    assert {"gauss-perturbation", "beta-perturbation", "lemma15-perturbation"} <= set(names)
    out = tmp_path / "beta.png"
    assert main(["plot", "cdf", "beta-perturbation-unpadded", "--n", "10",
                 "--out", str(out)]) == 0
    assert out.exists()


def test_plot_usage_errors(tmp_path, capsys):
    assert main(["plot", "cdf", "no-such-perturbation", "--out", str(tmp_path / "a.png")]) == 2
    assert main(["plot", "cdf", "gauss-perturbation", "--out", str(tmp_path / "a.txt")]) == 2
    assert main(["plot", "cdf", "gauss-perturbation"]) == 2
    assert main(["plot", "cdf", "gauss-perturbation", "--epsilon", "-1",
                 "--out", str(tmp_path / "a.png")]) == 2
    assert "error" in capsys.readouterr().err
