"""Reproduction of Wang & Zhu (2023), Figure 4: (eps, delta)-DP algorithms over time.

Panels (a)-(d): Instance 1 and Instance 2, ``(eps, delta) = (1, 0.01)`` and ``(1, e^-10)``;
DP-FTPL-Gauss, DP-FTPL-Beta, DP-FTPL-New and DP-UCB-Int (when
``dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb``
exists), plus, beyond the paper, Gauss and Beta with the exact Lemma-8 start phase
(``start_phase="tight"``). Writes ``wang_zhu_fig4.png``, ``.csv`` and ``.md``.

The paper's statements decided (Section 8, see :func:`compute`): DP-FTPL-New is the optimal one
of the four; DP-FTPL-Beta's regret does not increase at all after its start phase. "Our
algorithms outperform DP-UCB-INT" is decided on the same runs by ``wang-zhu-fig4-narration``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta
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
from dpaudit.stats.evidence import ExperimentEvidence, Measurement
from dpaudit.stats.rng import DEFAULT_SEED

AUDITS: list = []  # a reproduction, not a check
NAME = "wang-zhu-fig4"
PAPER_ALGS = ("DP-FTPL-Gauss", "DP-FTPL-Beta", "DP-FTPL-New", "DP-UCB-Int")
EXTRA_ALGS = ("DP-FTPL-Gauss (tight)", "DP-FTPL-Beta (tight)")
PRIVACY = ((1.0, 0.01, "(1, 0.01)"), (1.0, math.exp(-10), "(1, e^-10)"))
QUOTE = ("DP-FTPL-Beta suffers from a long start phase, and it behaves much worse when delta "
         "is small. However, we can see that after the start phase, its regret does not "
         "increase at all. [...] On the other hand, DP-FTPL-New is always the optimal one in "
         "these four algorithms, since its extra regret term is the smallest.")


def beta_start_end(eps: float, dl: float, n_arms: int, horizon: int) -> int:
    """The step at which DP-FTPL-Beta's start phase (``N_B`` pulls of every arm) ends."""
    return DPFTPLBeta(eps, dl, horizon=horizon).start_phase * n_arms


def compute(horizon: int, runs: int, seed: int, quick: bool = False):
    """The four panels: ``(figure, CSV rows, Markdown, evidence)``.

    Evidence (Sec. 8 on Fig. 4): "DP-FTPL-New is always the optimal one in these four
    algorithms": per panel, the ratio of mean regrets at ``T`` of each other algorithm to
    DP-FTPL-New, at least 1 (valid intervals on ``[0, T * max gap]``); "after the start
    phase, its [DP-FTPL-Beta's] regret does not increase at all": per panel where the start
    phase ends before ``T``, the share of runs whose regret increased after it (some
    sub-optimal pull), at most 0 (Clopper-Pearson).
    """
    drawn, missing = available(PAPER_ALGS + EXTRA_ALGS)
    rows: list[dict] = []
    panels, cells, flat = [], [], []
    for inst, means in INSTANCES.items():
        for eps, dl, label in PRIVACY:
            panel = f"{inst}, (eps, delta) = {label}"
            panels.append((panel, means, eps, dl))
            end = beta_start_end(eps, dl, len(means), horizon)
            finals: dict[str, np.ndarray] = {}
            at: dict[tuple[str, int], np.ndarray] = {}
            if end < horizon and "DP-FTPL-Beta" in drawn:
                at[("DP-FTPL-Beta", end)] = np.empty(0)
            rows += run_panel(NAME, panel, means, eps, dl, drawn, horizon, runs, seed,
                              finals=finals, at=at)
            for other in (a for a in PAPER_ALGS if a in drawn and a != "DP-FTPL-New"):
                if "DP-FTPL-New" in drawn:
                    cells.append(ratio_cell(f"{panel}: {other} / DP-FTPL-New", finals[other],
                                            finals["DP-FTPL-New"], means, horizon,
                                            note="ratio of mean regrets at T"))
            if ("DP-FTPL-Beta", end) in at:
                grew = finals["DP-FTPL-Beta"] - at[("DP-FTPL-Beta", end)]
                k = int(np.sum(grew > 1e-9))
                share = float(grew.mean() / max(finals["DP-FTPL-Beta"].mean(), 1e-300))
                cells.append(Measurement(
                    f"{panel}: share of DP-FTPL-Beta runs whose regret increased after the "
                    "start phase", 0.0, k / runs, runs, "at most", count=k,
                    note=f"start phase ends at t = {end}; mean increase after it "
                         f"{grew.mean():.4g} ({100 * share:.2f}% of the regret at T)"))
                flat.append(f"  DP-FTPL-Beta: start phase ends at t = {end}; regret increased "
                            f"after it in {k} of {runs} runs, by {grew.mean():.4g} on average "
                            f"({100 * share:.2f}% of the regret at T, largest "
                            f"{grew.max():.4g}).")
            else:
                flat.append(f"  DP-FTPL-Beta: start phase {end // len(means)} pulls x "
                            f"{len(means)} arms = {end} >= T: the whole run is start phase "
                            "(linear regret); nothing to compare after it.")
    fig = plot_panels([p[0] for p in panels], rows, drawn,
                      f"Wang & Zhu 2023, Fig. 4 (T = {horizon}, {runs} runs; mean, band: "
                      "+- 1 sd, descriptive only)")
    evidence = ExperimentEvidence(
        "Sec. 8 on Fig. 4: DP-FTPL-New is always the optimal one of the four; DP-FTPL-Beta's "
        "regret does not increase at all after its start phase", tuple(cells))
    return fig, rows, _markdown(rows, panels, drawn, missing, horizon, runs, evidence,
                                flat), evidence


EXPERIMENTS = [experiment(NAME, "Figure 4: (eps, delta)-DP algorithms over time on Instances "
                                "1 and 2", compute)]


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = DEFAULT_SEED) -> list[Path]:
    """Write PNG, CSV, Markdown and JSON into ``out_dir`` (with the confirmation run)."""
    return run_direct(EXPERIMENTS[0], out_dir, quick=quick, horizon=horizon, runs=runs,
                      seed=seed)


def _markdown(rows, panels, drawn, missing, horizon, runs, evidence, flat) -> str:
    lines = [f"Figure 4 at T = {horizon}, {runs} runs: mean final regret +- one standard "
             "deviation over runs (descriptive).", "",
             "| panel | " + " | ".join(drawn) + " |", "|---" * (len(drawn) + 1) + "|"]
    for panel, *_ in panels:
        cells = [f"{m:.0f} +- {s:.0f}" for m, s, _ in (final(rows, panel, a) for a in drawn)]
        lines.append(f"| {panel} | " + " | ".join(cells) + " |")
    lines += ["", f"**Claim** (Sec. 8, Fig. 4): \"{QUOTE}\"", "",
              "**Cells** (ratio: valid interval of the ratio of mean regrets on [0, T * max "
              "gap]; Beta after its start phase: Clopper-Pearson on the runs that increased):",
              "", *cell_lines(evidence), "", *(f"* {p[0]}:\n{f}" for p, f in
                                               zip(panels, flat, strict=True))]
    if "DP-FTPL-Beta (tight)" in drawn:
        lines += ["", "Beyond the paper, with the exact Lemma-8 start phase (`start_phase="
                  "\"tight\"`), mean regret at T = " + f"{horizon}" + " (in parentheses: the "
                  "mean regret with the paper's start phase; descriptive, not compared): "
                  + "; ".join(
            f"{p[0]}: Beta {final(rows, p[0], 'DP-FTPL-Beta (tight)')[0]:.0f} (paper's "
            f"{final(rows, p[0], 'DP-FTPL-Beta')[0]:.0f}), Gauss "
            f"{final(rows, p[0], 'DP-FTPL-Gauss (tight)')[0]:.0f} (paper's "
            f"{final(rows, p[0], 'DP-FTPL-Gauss')[0]:.0f})" for p in panels) + "."]
    if missing:
        lines += ["", "Not drawn (no implementation on this branch): " + ", ".join(missing)
                  + ". They are added by one line in `audits/wang_zhu_2023/_experiments.py`."]
    return "\n".join(lines) + "\n"
