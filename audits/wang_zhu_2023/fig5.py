"""Reproduction of Wang & Zhu (2023), Figure 5: (eps, 0)-DP algorithms over time.

Panels (a)-(d): Instance 1 and Instance 2, ``eps = 1`` and ``0.1``, ``delta = 0``: DP-FTPL-New
against DP-SE (Sajed & Sheffet 2019) and DP-UCB, DP-UCB-Bound (Tossou & Dimitrakakis 2016, drawn
when ``dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb`` exists). Writes ``wang_zhu_fig5.png``,
``.csv``, ``.md`` and ``.json``.

The paper's statements decided (Section 8, see :func:`compute`): DP-FTPL-New outperforms all
the other algorithms significantly; DP-SE behaves even worse than DP-UCB and DP-UCB-Bound
("large constant").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dpaudit.audits.wang_zhu_2023._experiments import (
    INSTANCES,
    available,
    cell_lines,
    experiment,
    final,
    plot_panels,
    ratio_cell,
    run_direct,
    run_panel,
)
from dpaudit.stats.evidence import ExperimentEvidence
from dpaudit.stats.rng import DEFAULT_SEED

AUDITS: list = []  # a reproduction, not a check
NAME = "wang-zhu-fig5"
PAPER_ALGS = ("DP-FTPL-New", "DP-UCB", "DP-UCB-Bound", "DP-SE")
EPSILONS = (1.0, 0.1)
QUOTE = ("From these experiments, we can see that DP-FTPL-New outperforms all the other "
         "algorithms significantly. [...] As a contrast, another optimal algorithm DP-SE is an "
         "elimination-based algorithm and suffers from a large constant factor in its regret "
         "upper bound. Therefore it behaves even worse than the non-optimal UCB-based "
         "algorithms, e.g., DP-UCB and DP-UCB-BOUND.")


def compute(horizon: int, runs: int, seed: int, quick: bool = False):
    """The four panels: ``(figure, CSV rows, Markdown, evidence)``.

    Evidence (Sec. 8 on Fig. 5), per panel, ratios of mean regrets at ``T`` with valid
    intervals on ``[0, T * max gap]``, each "at least 1": every other algorithm / DP-FTPL-New
    ("DP-FTPL-New outperforms all the other algorithms significantly"), and DP-SE / DP-UCB,
    DP-SE / DP-UCB-Bound ("it behaves even worse than [...] DP-UCB and DP-UCB-BOUND").
    """
    drawn, missing = available(PAPER_ALGS)
    rows: list[dict] = []
    panels, cells = [], []
    for inst, means in INSTANCES.items():
        for eps in EPSILONS:
            panel = f"{inst}, eps = {eps:g}, delta = 0"
            panels.append(panel)
            finals: dict[str, np.ndarray] = {}
            rows += run_panel(NAME, panel, means, eps, 0.0, drawn, horizon, runs, seed,
                              finals=finals)
            pairs = [(a, "DP-FTPL-New") for a in PAPER_ALGS[1:]]
            pairs += [("DP-SE", a) for a in ("DP-UCB", "DP-UCB-Bound")]
            for num, den in pairs:
                if num in drawn and den in drawn:
                    cells.append(ratio_cell(f"{panel}: {num} / {den}", finals[num],
                                            finals[den], means, horizon,
                                            note="ratio of mean regrets at T"))
    fig = plot_panels(panels, rows, drawn, "Wang & Zhu 2023, Fig. 5 (mean, band: +- 1 sd, "
                                           "descriptive only)")
    evidence = ExperimentEvidence(
        "Sec. 8 on Fig. 5: DP-FTPL-New outperforms all the other algorithms significantly; "
        "DP-SE behaves even worse than DP-UCB and DP-UCB-BOUND", tuple(cells))
    lines = [f"Figure 5 at T = {horizon}, {runs} runs: mean final regret +- one standard "
             "deviation over runs (descriptive).", "",
             "| panel | " + " | ".join(drawn) + " |", "|---" * (len(drawn) + 1) + "|"]
    for panel in panels:
        row = [f"{m:.0f} +- {s:.0f}" for m, s, _ in (final(rows, panel, a) for a in drawn)]
        lines.append(f"| {panel} | " + " | ".join(row) + " |")
    lines += ["", f"**Claim** (Sec. 8, Fig. 5): \"{QUOTE}\"", "",
              "**Cells** (valid interval of the ratio of mean regrets on [0, T * max gap], "
              "all cells sharing 5%; 'right side': the numerator's algorithm has the higher "
              "mean regret):", "", *cell_lines(evidence)]
    if missing:
        lines += ["", "Not drawn (no implementation on this branch): " + ", ".join(missing)
                  + ". They are added by one line in `audits/wang_zhu_2023/_experiments.py`."]
    return fig, rows, "\n".join(lines) + "\n", evidence


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = DEFAULT_SEED) -> list[Path]:
    """Write PNG, CSV, Markdown and JSON into ``out_dir`` (with the confirmation run)."""
    return run_direct(EXPERIMENTS[0], out_dir, quick=quick, horizon=horizon, runs=runs,
                      seed=seed)


EXPERIMENTS = [experiment(NAME, "Figure 5: (eps, 0)-DP algorithms over time on Instances 1 "
                                "and 2", compute)]
