"""Reproduction of Wang & Zhu (2023), Figure 5: (eps, 0)-DP algorithms over time.

Panels (a)-(d): Instance 1 and Instance 2, ``eps = 1`` and ``0.1``, ``delta = 0``: DP-FTPL-New
against DP-SE (Sajed & Sheffet 2019) and DP-UCB, DP-UCB-Bound (Tossou & Dimitrakakis 2016, drawn
when ``dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb`` exists). Writes ``wang_zhu_fig5.png``,
``.csv`` and ``.md``.

The paper's statements checked in the Markdown (Section 8): DP-FTPL-New outperforms all the
other algorithms; DP-SE behaves worse than DP-UCB and DP-UCB-Bound ("large constant").
"""

from __future__ import annotations

from pathlib import Path

from dpaudit.audits.wang_zhu_2023._experiments import (
    INSTANCES,
    available,
    experiment,
    final,
    lowest_statement,
    plot_panels,
    run_panel,
    settings,
    write_outputs,
)

AUDITS: list = []  # a reproduction, not a check
NAME = "wang-zhu-fig5"
PAPER_ALGS = ("DP-FTPL-New", "DP-UCB", "DP-UCB-Bound", "DP-SE")
EPSILONS = (1.0, 0.1)


def compute(horizon: int, runs: int, seed: int, quick: bool = False):
    """The four panels: ``(figure, CSV rows, Markdown)``."""
    drawn, missing = available(PAPER_ALGS)
    rows: list[dict] = []
    panels = []
    for inst, means in INSTANCES.items():
        for eps in EPSILONS:
            panel = f"{inst}, eps = {eps:g}, delta = 0"
            panels.append(panel)
            rows += run_panel(NAME, panel, means, eps, 0.0, drawn, horizon, runs, seed)
    fig = plot_panels(panels, rows, drawn,
                      f"Wang & Zhu 2023, Fig. 5 (T = {horizon}, {runs} runs; band: +- 1 sd)")
    lines = [f"# Wang & Zhu 2023, Figure 5 (T = {horizon}, {runs} runs)", "",
             "| panel | " + " | ".join(drawn) + " |", "|---" * (len(drawn) + 1) + "|"]
    for panel in panels:
        cells = [f"{m:.0f} +- {s:.0f}" for m, s, _ in (final(rows, panel, a) for a in drawn)]
        lines.append(f"| {panel} | " + " | ".join(cells) + " |")
    lines += ["", "Mean final regret +- one standard deviation over runs.", "",
              "## The paper's statements in these runs", ""]
    for panel in panels:
        lines.append(f"* {panel}: " + lowest_statement(rows, panel, drawn) + ".")
        ucb = [a for a in ("DP-UCB", "DP-UCB-Bound") if a in drawn]
        if ucb and "DP-SE" in drawn:
            se = final(rows, panel, "DP-SE")[0]
            worse = all(se > final(rows, panel, a)[0] for a in ucb)
            lines.append(f"  'DP-SE behaves worse than {' and '.join(ucb)}' "
                         f"{'holds' if worse else 'does not hold'} (DP-SE {se:.0f}; "
                         + ", ".join(f"{a} {final(rows, panel, a)[0]:.0f}" for a in ucb) + ").")
    if missing:
        lines += ["", "Not drawn (no implementation on this branch): " + ", ".join(missing)
                  + ". They are added by one line in `audits/wang_zhu_2023/_experiments.py`; the "
                  "DP-SE-versus-DP-UCB statement needs them."]
    lines += ["", f"Reproduce: `python -m dpaudit reproduce {NAME}` (or `--quick`)."]
    return fig, rows, "\n".join(lines) + "\n"


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = 20221122) -> list[Path]:
    """Run the four panels and write PNG, CSV and Markdown into ``out_dir``."""
    horizon, runs = settings(quick, horizon, runs)
    return write_outputs(out_dir, "wang_zhu_fig5", *compute(horizon, runs, seed, quick))


EXPERIMENTS = [experiment(NAME, "Figure 5: (eps, 0)-DP algorithms over time on Instances 1 "
                                "and 2", compute)]
