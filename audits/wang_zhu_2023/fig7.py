"""Reproduction of Wang & Zhu (2023), Figure 7: regret against eps at fixed delta.

Instance 1, ``T = 10^5``, 100 runs; DP-FTPL-Gauss and DP-FTPL-New; panel (a)
``delta = 10^-10`` (the paper's stand-in for 0, which the Gaussian cannot take), panel (b)
``delta = 10^-3``; ``eps`` swept on a log grid; log-log axes. Writes ``wang_zhu_fig7.png``,
``.csv`` and ``.md``.

The paper's statement checked (Section 8): at ``delta = 10^-10`` the regret of DP-FTPL-Gauss
grows like ``1/eps^2`` (extra regret ``O(N log(1/delta)/eps^2)``) and that of DP-FTPL-New like
``1/eps`` (``O(N log T / eps)``): fitted log-log slopes against ``1/eps`` with bootstrap CIs.
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
NAME = "wang-zhu-fig7"


def _pair(epsilon: float, *, delta: float) -> tuple[float, float]:
    return epsilon, delta


def compute(horizon: int, runs: int, seed: int, quick: bool = False):
    """Both panels and the fitted slopes: ``(figure, CSV rows, Markdown)``."""
    eps_grid = np.geomspace(10.0, 1e-2, 8) if quick else np.geomspace(10.0, 1e-3, 11)
    panels = [(label, "eps", eps_grid, partial(_pair, delta=dl))
              for label, dl in (("(a) delta = 1e-10", 1e-10), ("(b) delta = 1e-3", 1e-3))]
    fig, rows, lines = sweep_figure(NAME, "Wang & Zhu 2023, Fig. 7", panels, horizon, runs,
                                    seed, 0, {"DP-FTPL-Gauss": 2.0, "DP-FTPL-New": 1.0})
    md = "\n".join([
        f"# Wang & Zhu 2023, Figure 7 (Instance 1, T = {horizon}, {runs} runs)", "",
        "Regret at T against eps (table: `wang_zhu_fig7.csv`).", "",
        "## Fitted slopes at delta = 1e-10 (paper: Gauss ~ 1/eps^2, New ~ 1/eps)", "", *lines,
        "", "Fit of the extra regret (regret minus the regret at the largest eps); window fixed "
        "in advance: extra regret at least the baseline, regret at most 0.5 T times the mean "
        "gap.", "",
        f"Reproduce: `python -m dpaudit reproduce {NAME}` (or `--quick`)."]) + "\n"
    return fig, rows, md


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = 20221122) -> list[Path]:
    """Run both panels and write PNG, CSV and Markdown into ``out_dir``."""
    horizon, runs = settings(quick, horizon, runs)
    return write_outputs(out_dir, "wang_zhu_fig7", *compute(horizon, runs, seed, quick))


EXPERIMENTS = [experiment(NAME, "Figure 7: regret against eps at delta = 1e-10 and "
                                "1e-3 (Instance 1, log-log)", compute)]
