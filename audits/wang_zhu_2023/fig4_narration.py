"""Wang & Zhu 2023, Fig. 4's narration "our algorithms outperform DP-UCB-INT significantly",
decided per algorithm and per panel: ``python -m dpaudit reproduce wang-zhu-fig4-narration``.

What the paper says (Sec. 8, on Fig. 4: ``(eps, delta)``-DP algorithms on Instances 1 and 2 at
``(1, 0.01)`` and ``(1, e^-10)``, ``T = 10^5``, 100 runs): "we compare the regret performances
of our algorithms (DP-FTPL-Gauss, DP-FTPL-Beta and DP-FTPL-New) with DP-UCB-INT [...] From
these experiments, we can see that our algorithms outperform DP-UCB-INT significantly". The
same paragraph adds that DP-FTPL-Beta "behaves much worse when delta is small". No test or
interval is given in the text; the figure shows average regret.

What is measured. In each of the four panels the three algorithms the sentence names and
DP-UCB-Int (Tossou & Dimitrakakis 2016, registered ``dp-ucb-int``, taken from the registry by
name) run on the same instance, privacy and horizon; the runs are those of ``wang-zhu-fig4``
(same seeds), so both reproductions report the same numbers. One compared cell per algorithm
and panel (12 cells): the ratio of mean regrets at ``T``, DP-UCB-Int / ours, "at least 1",
its interval from the two means' distribution-free intervals on the instance's range
``[0, T * max gap]`` (:meth:`~dpaudit.stats.evidence.Measurement.of_ratio`; Bonferroni over
the cells; a side is kept only when the rule's confirmation at 4x the runs agrees). A cell
above 1 supports "ours outperforms DP-UCB-Int significantly" in that panel; below 1
contradicts it (DP-UCB-Int lower); otherwise the runs do not decide it. The ledger status is
the worst cell's.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from dpaudit.audits.wang_zhu_2023._experiments import (
    INSTANCES,
    cell_lines,
    experiment,
    ratio_cell,
    run_direct,
    run_panel,
    subplots,
)
from dpaudit.stats.evidence import ExperimentEvidence, decide_experiment
from dpaudit.stats.rng import DEFAULT_SEED

PAPER = "Wang & Zhu 2023"
NAME = "wang-zhu-fig4-narration"
#: the runs are those of Fig. 4's reproduction (the same seed keys)
RUNS_OF = "wang-zhu-fig4"
PRIVACY = ((1.0, 0.01, "(1, 0.01)"), (1.0, math.exp(-10.0), "(1, e^-10)"))
BASELINE = "DP-UCB-Int"
OURS = ("DP-FTPL-Gauss", "DP-FTPL-Beta", "DP-FTPL-New")
QUOTE = ("Here we compare the regret performances of our algorithms (DP-FTPL-Gauss, "
         "DP-FTPL-Beta and DP-FTPL-New) with DP-UCB-INT. [...] From these experiments, we can "
         "see that our algorithms outperform DP-UCB-INT significantly.")


def panel_reading(low: float, high: float) -> str:
    """What a ratio interval DP-UCB-Int / ours says of "ours outperforms DP-UCB-Int"."""
    if math.isnan(low):
        return "interval undefined"
    if low > 1.0:
        return "supports: ours significantly lower"
    if high < 1.0:
        return "contradicts: DP-UCB-Int lower"
    return "does not support: the interval reaches 1"


def label(panel: str, name: str) -> str:
    """The cell's label (independent of the runs, so the confirmation matches it)."""
    return f"{panel}: {BASELINE} / {name}"


def compute(horizon: int, runs: int, seed: int, quick: bool = False):
    """``(figure, rows, Markdown, evidence)``: the 12 cells (3 algorithms x 4 panels)."""
    rows: list[dict] = []
    cells = []
    for inst, means in INSTANCES.items():
        for eps, dl, plabel in PRIVACY:
            panel = f"{inst}, (eps, delta) = {plabel}"
            finals: dict[str, np.ndarray] = {}
            run_panel(RUNS_OF, panel, means, eps, dl, (*OURS, BASELINE), horizon, runs, seed,
                      finals=finals)
            for name in OURS:
                cell = ratio_cell(label(panel, name), finals[BASELINE], finals[name], means,
                                  horizon, note="ratio of mean regrets at T")
                cells.append(cell)
                rows.append({"panel": panel, "algorithm": name, "runs": runs,
                             "mean_regret": float(finals[name].mean()),
                             f"{BASELINE} mean_regret": float(finals[BASELINE].mean()),
                             "ratio": cell.measured, "tail_share": cell.tail_share})
    evidence = ExperimentEvidence(
        "Sec. 8 on Fig. 4: our algorithms (DP-FTPL-Gauss, -Beta, -New) outperform DP-UCB-INT "
        "significantly", tuple(cells))
    decision = decide_experiment(evidence)
    by_cell = {c.measurement.label: c for c in decision.cells}
    for r in rows:
        c = by_cell[label(r["panel"], r["algorithm"])]
        r.update({"ratio_low": c.ci_low, "ratio_high": c.ci_high,
                  "reading (this run)": panel_reading(c.ci_low, c.ci_high)})
    fig = _figure(rows, horizon, runs)
    per_alg = []
    for name in OURS:
        mine = [r for r in rows if r["algorithm"] == name]
        per_alg.append(f"- {name}: " + "; ".join(
            f"{r['panel']}: {r['ratio']:.3g} [{r['ratio_low']:.3g}, {r['ratio_high']:.3g}] "
            f"({r['reading (this run)']})" for r in mine))
    md = "\n".join([
        f"**Claim** (Sec. 8, Fig. 4): \"{QUOTE}\"", "",
        f"**Measured** (T = {horizon}, {runs} runs per algorithm and panel, the runs of "
        f"`{RUNS_OF}`): ratio of mean regrets at T, {BASELINE} / ours, with its "
        "distribution-free interval (ratio of the two means' Hoeffding-Bernstein intervals on "
        "[0, T * max gap], 12 cells sharing 5%):", "", *per_alg, "", "Cells:", "",
        *cell_lines(evidence), "",
        "**Reading.** Per algorithm and panel: above 1, ours outperforms DP-UCB-Int beyond what "
        "the runs' range allows by chance; below 1, DP-UCB-Int has the lower mean regret; "
        "reaching 1, these runs do not decide it. The status below is the worst cell's and "
        "keeps a side only when the confirmation run at 4x the runs agrees.",
    ]) + "\n"
    return fig, rows, md, evidence


def _figure(rows: list[dict], horizon: int, runs: int):
    fig, ax = subplots(figsize=(8, 4.5))
    panels = list(dict.fromkeys(r["panel"] for r in rows))
    for j, name in enumerate(OURS):
        mine = [r for r in rows if r["algorithm"] == name]
        xs = np.arange(len(mine)) + (j - 1) * 0.2
        y = np.array([r["ratio"] for r in mine])
        lo = np.clip([r["ratio_low"] for r in mine], 1e-2, None)
        hi = np.clip([r["ratio_high"] for r in mine], None, 1e2)
        ax.errorbar(xs, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], fmt="o",
                    capsize=3, label=name)
    ax.set_xticks(np.arange(len(panels)), [p.replace(", (eps", "\n(eps") for p in panels],
                  fontsize=6)
    ax.axhline(1.0, color="k", linewidth=1)
    ax.set_yscale("log")
    ax.set_ylim(1e-2, 1e2)
    ax.set_ylabel("mean regret DP-UCB-Int / ours at T")
    ax.legend(fontsize=7, title="bars: valid interval (Hoeffding-Bernstein ratio, 12 cells "
                                "share 5%; clipped to the axes)", title_fontsize=6)
    ax.set_title(f"Wang & Zhu 2023, Fig. 4 narration (T = {horizon}, {runs} runs)", fontsize=9)
    return fig


EXPERIMENTS = [experiment(NAME, "Fig. 4's 'our algorithms outperform DP-UCB-INT "
                                "significantly', per algorithm and panel with valid intervals",
                          compute)]


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = DEFAULT_SEED) -> list[Path]:
    """Write PNG, CSV, Markdown and JSON into ``out_dir`` (with the confirmation run)."""
    return run_direct(EXPERIMENTS[0], out_dir, quick=quick, horizon=horizon, runs=runs,
                      seed=seed)


__all__ = ["EXPERIMENTS", "compute", "label", "panel_reading", "run"]
