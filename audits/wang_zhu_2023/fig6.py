"""Reproduction of Wang & Zhu (2023), Figure 6: regret against delta at fixed eps.

Instance 1, ``T = 10^5``, 100 runs; DP-FTPL-Gauss and DP-FTPL-New; panel (a) ``eps = 0``,
panel (b) ``eps = 0.1``; ``delta`` swept on a log grid; log-log axes. Writes
``wang_zhu_fig6.png``, ``.csv`` and ``.md``.

The paper's statement checked (Section 8): with ``eps = 0`` the regret of DP-FTPL-Gauss grows
like ``1/delta^2`` and that of DP-FTPL-New like ``1/delta`` once ``delta < 0.01``: the fitted
log-log slopes against ``1/delta`` are printed with bootstrap confidence intervals.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from dpaudit.audits.wang_zhu_2023._experiments import (
    experiment,
    settings,
    sweep_figure,
    write_outputs,
)

AUDITS: list = []  # a reproduction, not a check
NAME = "wang-zhu-fig6"


def _pair(epsilon: float, delta: float) -> tuple[float, float]:
    return epsilon, delta


def compute(horizon: int, runs: int, seed: int, quick: bool = False):
    """Both panels and the fitted slopes: ``(figure, CSV rows, Markdown)``."""
    deltas = np.geomspace(0.5, 1e-3, 8) if quick else np.geomspace(0.5, 1e-4, 13)
    panels = [(label, "delta", deltas, partial(_pair, eps))
              for label, eps in (("(a) eps = 0", 0.0), ("(b) eps = 0.1", 0.1))]
    fig, rows, lines = sweep_figure(NAME, "Wang & Zhu 2023, Fig. 6", panels, horizon, runs,
                                    seed, 0, {"DP-FTPL-Gauss": 2.0, "DP-FTPL-New": 1.0})
    md = "\n".join([
        f"# Wang & Zhu 2023, Figure 6 (Instance 1, T = {horizon}, {runs} runs)", "",
        "Regret at T against delta (table: `wang_zhu_fig6.csv`).", "",
        "## Fitted slopes at eps = 0 (paper: Gauss ~ 1/delta^2, New ~ 1/delta)", "", *lines, "",
        "Fit of the extra regret (regret minus the regret at the largest delta); window fixed "
        "in advance: extra regret at least the baseline and regret at most 0.5 T times the mean "
        "gap (the horizon does not cap it).", "",
        f"Reproduce: `python -m dpaudit reproduce {NAME}` (or `--quick`)."]) + "\n"
    return fig, rows, md


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = 20221122) -> list[Path]:
    """Run both panels and write PNG, CSV and Markdown into ``out_dir``."""
    horizon, runs = settings(quick, horizon, runs)
    return write_outputs(out_dir, "wang_zhu_fig6", *compute(horizon, runs, seed, quick))


EXPERIMENTS = [experiment(NAME, "Figure 6: regret against delta at eps = 0 and 0.1 "
                                "(Instance 1, log-log)", compute)]
