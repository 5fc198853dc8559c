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

from ._wang_zhu_experiments import REPRODUCE, settings, sweep_figure

AUDITS: list = []  # a reproduction, not a check
NAME = "wang-zhu-fig7"


def _pair(epsilon: float, *, delta: float) -> tuple[float, float]:
    return epsilon, delta


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = 20221122) -> list[Path]:
    horizon, runs = settings(quick, horizon, runs)
    eps_grid = np.geomspace(10.0, 1e-2, 8) if quick else np.geomspace(10.0, 1e-3, 11)
    panels = [(label, "eps", eps_grid, partial(_pair, delta=dl))
              for label, dl in (("(a) delta = 1e-10", 1e-10), ("(b) delta = 1e-3", 1e-3))]
    out_dir = Path(out_dir)
    paths, lines = sweep_figure(NAME, "Wang & Zhu 2023, Fig. 7", panels, horizon, runs, seed,
                                out_dir, 0, {"DP-FTPL-Gauss": 2.0, "DP-FTPL-New": 1.0})
    md = out_dir / "wang_zhu_fig7.md"
    md.write_text("\n".join([
        f"# Wang & Zhu 2023, Figure 7 (Instance 1, T = {horizon}, {runs} runs)", "",
        "Regret at T against eps (table: `wang_zhu_fig7.csv`).", "",
        "## Fitted slopes at delta = 1e-10 (paper: Gauss ~ 1/eps^2, New ~ 1/eps)", "", *lines,
        "", "Fit of the extra regret (regret minus the regret at the largest eps); window fixed "
        "in advance: extra regret at least the baseline, regret at most 0.5 T times the mean "
        "gap.", "",
        f"Reproduce: `python -m dpaudit reproduce {NAME}` (or `--quick`) once the name is "
        f"registered; directly: `{REPRODUCE.format(module=__name__)}`."]) + "\n")
    return [*paths, md]
