"""Reproduction of Wang & Zhu (2023), Figure 4: (eps, delta)-DP algorithms over time.

Panels (a)-(d): Instance 1 and Instance 2, ``(eps, delta) = (1, 0.01)`` and ``(1, e^-10)``;
DP-FTPL-Gauss, DP-FTPL-Beta, DP-FTPL-New and DP-UCB-Int (when
``dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb``
exists), plus, beyond the paper, Gauss and Beta with the exact Lemma-8 start phase
(``start_phase="tight"``). Writes ``wang_zhu_fig4.png``, ``.csv`` and ``.md``.

The paper's statements checked in the Markdown (Section 8): DP-FTPL-New has the lowest regret
of the four; DP-FTPL-Beta's regret does not increase after its start phase; our algorithms
outperform DP-UCB-Int.
"""

from __future__ import annotations

import math
from pathlib import Path

from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta
from dpaudit.audits.wang_zhu_2023._experiments import (
    INSTANCES,
    available,
    experiment,
    final,
    lowest_statement,
    plot_panels,
    regret_at,
    run_panel,
    settings,
    write_outputs,
)

AUDITS: list = []  # a reproduction, not a check
NAME = "wang-zhu-fig4"
PAPER_ALGS = ("DP-FTPL-Gauss", "DP-FTPL-Beta", "DP-FTPL-New", "DP-UCB-Int")
EXTRA_ALGS = ("DP-FTPL-Gauss (tight)", "DP-FTPL-Beta (tight)")
PRIVACY = ((1.0, 0.01, "(1, 0.01)"), (1.0, math.exp(-10), "(1, e^-10)"))


def compute(horizon: int, runs: int, seed: int, quick: bool = False):
    """The four panels: ``(figure, CSV rows, Markdown)``."""
    drawn, missing = available(PAPER_ALGS + EXTRA_ALGS)
    rows: list[dict] = []
    panels = []
    for inst, means in INSTANCES.items():
        for eps, dl, label in PRIVACY:
            panel = f"{inst}, (eps, delta) = {label}"
            panels.append((panel, means, eps, dl))
            rows += run_panel(NAME, panel, means, eps, dl, drawn, horizon, runs, seed)
    fig = plot_panels([p[0] for p in panels], rows, drawn,
                      f"Wang & Zhu 2023, Fig. 4 (T = {horizon}, {runs} runs; band: +- 1 sd)")
    return fig, rows, _markdown(rows, panels, drawn, missing, horizon, runs)


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = 20221122) -> list[Path]:
    """Run the four panels and write PNG, CSV and Markdown into ``out_dir``."""
    horizon, runs = settings(quick, horizon, runs)
    return write_outputs(out_dir, "wang_zhu_fig4", *compute(horizon, runs, seed, quick))


EXPERIMENTS = [experiment(NAME, "Figure 4: (eps, delta)-DP algorithms over time on Instances "
                                "1 and 2", compute)]


def _markdown(rows, panels, drawn, missing, horizon, runs) -> str:
    lines = [f"# Wang & Zhu 2023, Figure 4 (T = {horizon}, {runs} runs)", "",
             "| panel | " + " | ".join(drawn) + " |", "|---" * (len(drawn) + 1) + "|"]
    for panel, *_ in panels:
        cells = [f"{m:.0f} +- {s:.0f}" for m, s, _ in (final(rows, panel, a) for a in drawn)]
        lines.append(f"| {panel} | " + " | ".join(cells) + " |")
    lines += ["", "Mean final regret +- one standard deviation over runs.", "",
              "## The paper's statements in these runs", ""]
    paper_drawn = [a for a in PAPER_ALGS if a in drawn]
    for panel, means, eps, dl in panels:
        finals = {a: final(rows, panel, a)[0] for a in paper_drawn}
        lines.append(f"* {panel}: " + lowest_statement(rows, panel, paper_drawn) + ".")
        n_b = DPFTPLBeta(eps, dl, horizon=horizon).start_phase
        end = n_b * len(means)
        if end >= horizon:
            lines.append(f"  DP-FTPL-Beta: start phase {n_b} pulls x {len(means)} arms = {end}"
                         f" >= T: the whole run is start phase (linear regret).")
        else:
            r_end, r_t = (regret_at(rows, panel, "DP-FTPL-Beta", end),
                          final(rows, panel, "DP-FTPL-Beta")[0])
            lines.append(f"  DP-FTPL-Beta: start phase ends at t = {end}; regret there "
                         f"{r_end:.0f}, at T {r_t:.0f} (+{100 * (r_t - r_end) / r_t:.1f}% after"
                         " it) -> 'its regret does not increase at all' after the start phase"
                         f" {'holds (within 5%)' if r_t - r_end <= 0.05 * r_t else 'fails'}.")
        if "DP-FTPL-Beta (tight)" in drawn:
            tb = final(rows, panel, "DP-FTPL-Beta (tight)")[0]
            tg = final(rows, panel, "DP-FTPL-Gauss (tight)")[0]
            lines.append(f"  Exact Lemma-8 start phase (beyond the paper): Beta {tb:.0f} "
                         f"(paper's {finals.get('DP-FTPL-Beta', math.nan):.0f}), Gauss {tg:.0f}"
                         f" (paper's {finals.get('DP-FTPL-Gauss', math.nan):.0f}).")
    if missing:
        lines += ["", "Not drawn (no implementation on this branch): " + ", ".join(missing)
                  + ". They are added by one line in `audits/wang_zhu_2023/_experiments.py`."]
    lines += ["", f"Reproduce: `python -m dpaudit reproduce {NAME}` (or `--quick`)."]
    return "\n".join(lines) + "\n"
