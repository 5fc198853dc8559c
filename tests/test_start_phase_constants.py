"""The start-phase finding under each reading of the reconstructed constants of Wang & Zhu 2023
(experiment ``wang-zhu-start-phase-constants``).
Deterministic; expected values from closed forms."""

from __future__ import annotations

import math

from scipy import stats

from dpaudit.audits.wang_zhu_2023 import start_phase_constants as spc


def _gauss_shift_delta(eps: float, n: int) -> float:
    # Balle & Wang 2018, Thm 8: N(0, 2/n) vs N(1/n, 2/n), written out independently
    shift, sigma = 1.0 / n, math.sqrt(2.0 / n)
    a, b = shift / (2 * sigma), eps * sigma / shift
    return stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)


def test_figure_point_cells_match_the_closed_forms() -> None:
    cells = {(p, r): (paper, exact) for p, r, paper, exact in spc.cells(1.0, 0.01)}
    log_term = math.log(math.e / (4 * math.pi * 1e-4))
    assert cells[("Gauss", "c = 1 (default)")][0] == math.ceil(log_term)
    assert cells[("Gauss", "c = 4")][0] == math.ceil(4 * log_term)
    exact = cells[("Gauss", "c = 1 (default)")][1]
    assert _gauss_shift_delta(1.0, exact) <= 0.01 < _gauss_shift_delta(1.0, exact - 1)
    n_b = 8000 / 81 * math.log(math.e / (2 * math.pi * 1e-4))
    assert cells[("Beta", "C = 1000e/(9 pi) (default)")][0] == math.ceil(n_b)
    assert cells[("Beta", "C = 1000 e pi / 9")][0] == math.ceil(1000 * math.e * math.pi / 9)


def test_every_reading_is_sufficient_on_a_small_grid() -> None:
    for eps, delta in [(0.5, 0.1), (2.0, 0.01)]:
        for _, _, paper, exact in spc.cells(eps, delta):
            assert exact is None or paper >= exact
