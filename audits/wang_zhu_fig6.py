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

from ._wang_zhu_experiments import REPRODUCE, settings, sweep_figure

AUDITS: list = []  # a reproduction, not a check
NAME = "wang-zhu-fig6"


def _pair(epsilon: float, delta: float) -> tuple[float, float]:
    return epsilon, delta


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = 20221122) -> list[Path]:
    horizon, runs = settings(quick, horizon, runs)
    deltas = np.geomspace(0.5, 1e-3, 8) if quick else np.geomspace(0.5, 1e-4, 13)
    panels = [(label, "delta", deltas, partial(_pair, eps))
              for label, eps in (("(a) eps = 0", 0.0), ("(b) eps = 0.1", 0.1))]
    out_dir = Path(out_dir)
    paths, lines = sweep_figure(NAME, "Wang & Zhu 2023, Fig. 6", panels, horizon, runs, seed,
                                out_dir, 0, {"DP-FTPL-Gauss": 2.0, "DP-FTPL-New": 1.0})
    md = out_dir / "wang_zhu_fig6.md"
    md.write_text("\n".join([
        f"# Wang & Zhu 2023, Figure 6 (Instance 1, T = {horizon}, {runs} runs)", "",
        "Regret at T against delta (table: `wang_zhu_fig6.csv`).", "",
        "## Fitted slopes at eps = 0 (paper: Gauss ~ 1/delta^2, New ~ 1/delta)", "", *lines, "",
        "Fit of the extra regret (regret minus the regret at the largest delta); window fixed "
        "in advance: extra regret at least the baseline and regret at most 0.5 T times the mean "
        "gap (the horizon does not cap it).", "",
        f"Reproduce: `python -m dpaudit reproduce {NAME}` (or `--quick`) once the name is "
        f"registered; directly: `{REPRODUCE.format(module=__name__)}`."]) + "\n")
    return [*paths, md]
