"""The Wang & Zhu (2023) Section-8 reproductions write their files and decide the statements
under the experiment rule (valid intervals, labels independent of the runs)."""

import csv
import json

import numpy as np
import pytest

from dpaudit.audits.wang_zhu_2023 import fig4 as wang_zhu_fig4
from dpaudit.audits.wang_zhu_2023 import fig4_narration
from dpaudit.audits.wang_zhu_2023 import fig5 as wang_zhu_fig5
from dpaudit.audits.wang_zhu_2023 import fig6 as wang_zhu_fig6
from dpaudit.audits.wang_zhu_2023 import fig7 as wang_zhu_fig7
from dpaudit.audits.wang_zhu_2023 import thm4 as wang_zhu_thm4
from dpaudit.audits.wang_zhu_2023._experiments import (
    median_interval,
    ratio_cell,
    slope_interval,
)
from dpaudit.stats.evidence import ExperimentEvidence, decide_experiment

#: false-failure probability of each statistical test below (the level of its interval)
FALSE_FAILURE = 1e-6


@pytest.mark.parametrize("module", [wang_zhu_fig5, wang_zhu_fig6, wang_zhu_fig7, wang_zhu_thm4])
def test_reproduction_writes_its_files(module, tmp_path):
    paths = module.run(tmp_path, quick=True, horizon=400, runs=3, seed=1)
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    assert {p.suffix for p in paths} >= {".csv", ".md", ".json"}
    with next(p for p in paths if p.suffix == ".csv").open() as fh:
        assert list(csv.DictReader(fh))
    md = next(p for p in paths if p.suffix == ".md").read_text()
    assert "Reproduce" in md and "Status (decided by" in md
    doc = json.loads(next(p for p in paths if p.suffix == ".json").read_text())
    assert doc["confirmation"] is None or doc["confirmation"]["runs"] == 12


def _labels(module, runs: int) -> list[str]:
    ev = module.compute(400, runs, 1, True)[3]
    return [m.label for m in ev.measurements]


@pytest.mark.parametrize("module", [wang_zhu_fig4, fig4_narration, wang_zhu_fig5,
                                    wang_zhu_fig6, wang_zhu_fig7])
def test_cell_labels_do_not_depend_on_the_runs(module):
    """The confirmation run (4x the runs) is matched to the first cell by cell."""
    assert _labels(module, 2) == _labels(module, 3)


def test_narration_is_decided_per_algorithm_and_panel():
    """Point a: the sentence names Gauss, Beta and New; one cell per algorithm and panel,
    each a ratio of mean regrets with a valid interval (never Student-t)."""
    ev = fig4_narration.compute(400, 2, 1, True)[3]
    assert len(ev.measurements) == 12
    for name in fig4_narration.OURS:
        assert sum(m.label.endswith(f"DP-UCB-Int / {name}") for m in ev.measurements) == 4
    d = decide_experiment(ev)
    assert {c.method for c in d.cells} == {"ratio of betting-cs"}  # runs kept: anytime-valid
    assert "our algorithms (DP-FTPL-Gauss, DP-FTPL-Beta and DP-FTPL-New)" in \
        fig4_narration.QUOTE


def test_ratio_cell_sides_with_the_paper_only_on_a_valid_interval():
    """Deterministic runs (no false failure): a baseline far above ours is on the right side
    of "at least 1", far below on the wrong side, close to it undecided at this range."""
    means, horizon = (0.3, 0.7), 10_000  # range [0, 4000]
    ours = np.full(400, 100.0)
    right = ratio_cell("x", np.full(400, 3000.0), ours, means, horizon)
    wrong = ratio_cell("y", np.full(400, 100.0), np.full(400, 3000.0), means, horizon)
    close = ratio_cell("z", np.full(400, 110.0), ours, means, horizon)
    d = decide_experiment(ExperimentEvidence("p", (right, wrong, close)))
    assert [c.outcome for c in d.cells] == ["right side", "wrong side", "straddles"]
    assert d.status == "not reproduced"


def test_median_interval_covers_a_heavy_tailed_median():
    """Pareto(1) runs (no mean at all) with median 2: the order-statistic interval at level
    1 - FALSE_FAILURE covers it (fails with probability at most FALSE_FAILURE)."""
    x = np.random.default_rng(20231).pareto(1.0, size=300) + 1.0  # median 2
    lo, hi = median_interval(x, FALSE_FAILURE)
    assert lo <= 2.0 <= hi and lo > 1.0
    assert median_interval(np.arange(3.0), 0.05) == (-np.inf, np.inf)  # too few runs


def test_slope_interval_recovers_a_power_law():
    """Extra regret c x^2 with multiplicative noise: the slope interval from the three medians'
    intervals (each at FALSE_FAILURE / 3) holds the exponent 2 unless one of them fails."""
    rng = np.random.default_rng(7)
    x = (10.0, 40.0)
    base = 100 + rng.uniform(-5, 5, size=400)
    ends = [100 + 0.5 * v**2 * rng.uniform(0.9, 1.1, size=400) for v in x]
    b = median_interval(base, FALSE_FAILURE / 3)
    e = [median_interval(v, FALSE_FAILURE / 3) for v in ends]
    lo, hi = slope_interval(x, tuple((lo_ - b[1], hi_ - b[0]) for lo_, hi_ in e))
    assert lo <= 2.0 <= hi and hi - lo < 0.2
    assert slope_interval(x, ((-1.0, 5.0), (10.0, 20.0)))[1] == np.inf


def test_sweep_cells_bracket_the_papers_exponents():
    """Point j: each slope is two cells, k - 1/2 and k + 1/2 (Gauss k = 2, New k = 1)."""
    ev = wang_zhu_fig7.compute(10_000, 3, 1, True)[3]
    got = sorted((m.label.split(":")[0], m.direction, m.paper_value) for m in ev.measurements)
    assert [(d, v) for _, d, v in got] == [("at least", 1.5), ("at most", 2.5),
                                           ("at least", 0.5), ("at most", 1.5)]
    assert {m.label.split(":")[0] for m in ev.measurements} == {
        "(a) delta = 1e-10, DP-FTPL-Gauss", "(a) delta = 1e-10, DP-FTPL-New"}
    assert all(m.ci_method and m.ci_confidence for m in ev.measurements)


def test_fig4_decides_new_lowest_and_beta_after_its_start_phase():
    fig, rows, md, ev = wang_zhu_fig4.compute(10_000, 2, 1, True)
    labels = [m.label for m in ev.measurements]
    assert sum(" / DP-FTPL-New" in lb for lb in labels) == 12
    beta = [m for m in ev.measurements if "start phase" in m.label]
    # Beta's start phase ends before T = 10^4 only on Instance 1 at (1, 0.01)
    assert len(beta) == 1 and beta[0].count is not None and beta[0].paper_value == 0.0
    assert "DP-FTPL-Beta: start phase" in md


def test_registered_and_reproducible_from_the_cli(tmp_path):
    from dpaudit.cli import main
    from dpaudit.registry import all_experiments

    assert {"wang-zhu-fig4", "wang-zhu-fig4-narration", "wang-zhu-fig5", "wang-zhu-fig6",
            "wang-zhu-fig7"} <= set(all_experiments())
    assert main(["reproduce", "wang-zhu-fig7", "--quick", "--horizon", "300", "--runs", "2",
                 "--out", str(tmp_path)]) == 0
    assert (tmp_path / "wang_zhu_fig7.png").read_bytes()[:4] == b"\x89PNG"
    assert "Slopes at delta = 1e-10" in (tmp_path / "wang_zhu_fig7.md").read_text()
