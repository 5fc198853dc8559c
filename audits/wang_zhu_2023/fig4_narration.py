"""Wang & Zhu 2023, Fig. 4's narration per panel, with intervals: ``python -m dpaudit reproduce
wang-zhu-fig4-narration``.

What the paper says (Sec. 8, figure narration on Fig. 4, ``(eps, delta)``-DP algorithms on
Instances 1 and 2 at ``(1, 0.01)`` and ``(1, e^-10)``, ``T = 10^5``, 100 runs): DP-FTPL-New
"outperforms DP-UCB-INT significantly". No test or interval is given in the text.

What is measured. In each of the four panels, DP-FTPL-New (registered ``dp-ftpl-new``) and
DP-UCB-Int (Tossou & Dimitrakakis 2016, registered ``dp-ucb-int``, taken from the registry by
name) run on the same instance, privacy and horizon, 100 independent runs each. Reported per
panel: both mean regrets at ``T``, the ratio DP-UCB-Int / New with its interval
(:func:`~dpaudit.sim.experiments.ratio_interval`, at 98.75% per panel so the four
panels share 5%), and Welch's two-sided t-test of the
difference. "Significantly" is read as: the ratio's interval lies above 1 (New better beyond
the run-to-run spread). A panel where the interval reaches 1 does not support the sentence; one
below 1 contradicts it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from dpaudit.audits.wang_zhu_2023._experiments import INSTANCES
from dpaudit.registry import all_policies
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.sim.experiments import (
    Experiment,
    ExperimentOutput,
    ExperimentSettings,
    Table,
    new_figure,
    ratio_interval,
)
from dpaudit.sim.simulation import policy_overrides
from dpaudit.stats.evidence import ExperimentEvidence, Measurement

PAPER = "Wang & Zhu 2023"
NAME = "wang-zhu-fig4-narration"
PRIVACY = ((1.0, 0.01, "(1, 0.01)"), (1.0, math.exp(-10.0), "(1, e^-10)"))
PAIR = ("dp-ucb-int", "dp-ftpl-new")


def panel_reading(low: float, high: float) -> str:
    if math.isnan(low):
        return "interval undefined"
    if low > 1.0:
        return "supports: New significantly lower"
    if high < 1.0:
        return "contradicts: DP-UCB-Int lower"
    return "does not support: the interval reaches 1"


def narration(settings: ExperimentSettings) -> ExperimentOutput:
    registered = all_policies()
    missing = [n for n in PAIR if n not in registered]
    rows: list[tuple[object, ...]] = []
    for inst, means in INSTANCES.items():
        for eps, delta, label in PRIVACY:
            if missing:
                break
            finals = {}
            for name in PAIR:
                entry = registered[name]
                policy = entry.factory(**policy_overrides(
                    name, entry, horizon=settings.horizon, epsilon=eps, delta=delta))
                finals[name] = np.asarray(settings.cached(
                    (inst, label, name), lambda p=policy, n=name, i=inst, lb=label, m=means:
                    p.simulate(BernoulliRewards(m), settings.horizon, settings.runs,
                               rng=settings.rng(i, lb, n)).regret))
            base, new = finals[PAIR[0]], finals[PAIR[1]]
            r, lo, hi = ratio_interval(base, new, confidence=1.0 - 0.05 / 4)
            p = float(stats.ttest_ind(base, new, equal_var=False).pvalue)
            rows.append((inst, label, float(base.mean()), float(new.mean()), r, lo, hi, p,
                         panel_reading(lo, hi)))
    fig, ax = new_figure()
    if rows:
        xs = np.arange(len(rows))
        ax.errorbar(xs, [r[4] for r in rows],
                    yerr=[[r[4] - r[5] for r in rows], [r[6] - r[4] for r in rows]],
                    fmt="o", capsize=3)
        ax.set_xticks(xs, [f"{r[0]}\n{r[1]}" for r in rows], fontsize=6)
    ax.axhline(1.0, color="k", linewidth=1)
    ax.set_ylabel("regret ratio DP-UCB-Int / DP-FTPL-New at T (98.75% interval)")
    ax.set_yscale("log")
    table = Table(("instance", "(eps, delta)", "DP-UCB-Int regret", "DP-FTPL-New regret",
                   "ratio", "ratio CI low", "ratio CI high", "Welch p", "reading"),
                  tuple(rows))
    lines = [f"- {r[0]}, {r[1]}: ratio {r[4]:.3g} ({r[5]:.3g} .. {r[6]:.3g}), Welch p = "
             f"{r[7]:.2g}: {r[8]}" for r in rows]
    summary = "\n".join([
        "**Claim.** Fig. 4 narration: DP-FTPL-New outperforms DP-UCB-INT significantly.",
        f"**Measured** (T = {settings.horizon}, {settings.runs} runs per algorithm and panel):",
        *(lines or [f"- not run: {', '.join(missing)} not registered"]),
        "**Reading.** 'Significantly' is read as the whole interval of the ratio above 1 "
        "(98.75% per panel, so the four panels share 5%); each panel is judged on its own.",
    ])
    evidence = ExperimentEvidence(
        "Fig. 4 narration: DP-FTPL-New outperforms DP-UCB-INT significantly",
        tuple(Measurement(f"{r[0]}, {r[1]}: DP-UCB-Int / DP-FTPL-New", 1.0, float(r[4]),
                          settings.runs, direction="at least",
                          ci_low=float(r[5]) if r[5] == r[5] else 0.0,
                          ci_high=float(r[6]) if r[6] == r[6] else float("inf"),
                          ci_confidence=1.0 - 0.05 / 4,
                          note="ratio of means; Bonferroni interval, 4 panels share 0.05")
              for r in rows))
    return ExperimentOutput(fig, table, summary, evidence=evidence if rows else None,
                            verdict="per panel, see the reading column")


EXPERIMENTS = [
    Experiment(name=NAME, paper=PAPER,
               description="Fig. 4's 'DP-FTPL-New outperforms DP-UCB-INT significantly', per "
                           "panel with intervals",
               run=narration, horizon=10**5, runs=100, quick_horizon=10**4, quick_runs=20,
               min_horizon=200, min_horizon_reason="every arm of Instance 2 (101 arms) needs "
                                                   "a pull"),
]

__all__ = ["EXPERIMENTS", "panel_reading"]
