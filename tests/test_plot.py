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


def test_plot_listed_check_names_and_missing_folder(tmp_path, capsys):
    # `laplace` and `gaussian` are registered checks; their CDF pairs come from the same audit
    # files, so `plot cdf laplace` draws the mechanism `check laplace` decides
    out = tmp_path / "missing" / "dir" / "laplace.png"
    assert main(["plot", "cdf", "laplace", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["plot", "cdf", "gaussian", "--out", str(tmp_path / "g.png")]) == 0
    # a registered check without a one-dimensional CDF says so (not "unknown")
    assert main(["plot", "cdf", "privbern", "--out", str(tmp_path / "p.png")]) == 2
    err = capsys.readouterr().err
    assert "registered check but declares no one-dimensional CDF pair" in err


def test_cdf_pairs_stay_inside_lemma8_region():
    # the correct mechanisms' neighbours stay inside Lemma 8's band at their claim; the
    # faulty Laplace (scale halved, loss 2 eps) leaves it
    import numpy as np

    from dpaudit.exact.conditions import feasible_band
    from dpaudit.registry import all_cdf_pairs

    pairs = all_cdf_pairs()
    for name, eps, delta, inside in (("laplace", 1.0, 0.0, True), ("gaussian", 1.0, 1e-5, True),
                                     ("laplace-faulty", 1.0, 0.0, False)):
        F, G, _, _ = pairs[name](eps, delta).numpy_functions()
        xs = np.linspace(-20, 21, 4001)
        lower, upper = feasible_band(F(xs), eps, delta)
        g = G(xs)
        ok = bool(np.all((g >= lower - 1e-12) & (g <= upper + 1e-12)))
        assert ok is inside, name
