"""What causes AdaP-UCB's heavy regret tail: a 2x2 factorial control, ``python -m dpaudit
reproduce azize-basu-initial-release-cause``.

On Fig. 2's instance (Azize & Basu 2022, Sec. 5: eps = 1, T = 10^7) a few runs per thousand of
AdaP-UCB pay 10^4-10^6 regret while the median is about 4000. Two suspects, both in the first
episodes, where an arm's index rests on one reward:

* **the index**: Eq. (7) as printed puts the privacy term ``alpha ln t / (eps N/2)`` under the
  square root (``bonus="printed"``); the proof's Laplace tail needs it outside the root
  (``bonus="outside"``). With ``N = 1`` the printed bonus is far below the noise it must cover
  (``adap-ucb-index-exact``);
* **the initial release**: Algorithm 1 pulls every arm once (line 3) but does not say how that
  one-reward mean is released. dpaudit's default extrapolates the episode rule
  ``Lap(2/(eps N_a))`` to ``N_a = 1``, i.e. ``Lap(2/eps)`` (``initial_noise="episode-rule"``);
  Lemma 1's scale for a one-reward mean is ``Lap(1/eps)`` (``"lemma1"``; Example 2 releases a
  one-reward episode as "r_6 + Lap(1/eps)").

A cause is isolated by changing one factor at a time. The four private combinations (index
printed/outside x initial release ``Lap(2/eps)``/``Lap(1/eps)``) run on the same instance; for
each, the tail share (runs whose regret at ``T`` exceeds :data:`TAIL`, a fixed threshold about
2.5x the median at ``T = 10^7``) is a Clopper-Pearson count. The compared cells are the effects,
each the difference of two tail shares, with the interval ``[lo_A - hi_B, hi_A - lo_B]`` from
two Clopper-Pearson intervals at half the cell's share each (both cover with the cell's
confidence by the union bound): the initial release alone (printed index), the index alone
(under each release) and both together. An effect is shown when its interval lies above 0,
under the rule (:mod:`dpaudit.stats.rule`: the same side on a confirmation at 4x the runs with
a fresh seed). Two diagnostic variants without initial noise (**not private**, never
registered) are shown, not compared.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from dpaudit.algorithms.azize_basu_2022.adap import AdaPUCB
from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_FIG2
from dpaudit.audits.azize_basu_2022.findings import PAPER, max_regret, regret_runs
from dpaudit.experiments import (
    Experiment,
    ExperimentOutput,
    ExperimentSettings,
    Table,
    new_figure,
)
from dpaudit.stats.events import cp_lower, cp_upper
from dpaudit.stats.evidence import ExperimentEvidence, Measurement

NAME = "azize-basu-initial-release-cause"
TAIL = 1e4  # regret at T counted as "tail" (about 2.5x the median at T = 1e7)
#: the level the compared cells share (Bonferroni over :data:`EFFECTS`)
ALPHA = 0.05


class _NoInitialNoise(AdaPUCB):
    """AdaP-UCB whose initial one-sample release carries no noise. NOT PRIVATE: a diagnostic
    that removes the initial noise altogether; never registered."""

    def _initial_scale(self) -> float:
        return 0.0


INDEX = {"printed": "Eq. (7) printed", "outside": "term outside the root"}
RELEASE = {"episode-rule": "initial Lap(2/eps) (extrapolated)",
           "lemma1": "initial Lap(1/eps) (Lemma 1)"}
#: the factorial: (index reading, initial release) -> label
FACTORIAL = {(b, r): f"{INDEX[b]}, {RELEASE[r]}" for b in INDEX for r in RELEASE}
DEFAULT = ("printed", "episode-rule")
DIAGNOSTICS = {"Eq. (7) printed, no initial noise (diagnostic, not private)": "printed",
               "term outside the root, no initial noise (diagnostic, not private)": "outside"}
VARIANTS: dict[str, Callable[[float], AdaPUCB]] = {
    **{label: partial(AdaPUCB, bonus=b, initial_noise=r) for (b, r), label in FACTORIAL.items()},
    **{label: partial(_NoInitialNoise, bonus=b) for label, b in DIAGNOSTICS.items()}}
#: the compared effects: (name, (index, release) with the suspected cause, without it)
EFFECTS = (
    ("initial release alone (printed index): Lap(2/eps) minus Lap(1/eps)",
     ("printed", "episode-rule"), ("printed", "lemma1")),
    ("index alone (initial Lap(2/eps)): printed minus outside",
     ("printed", "episode-rule"), ("outside", "episode-rule")),
    ("index alone (initial Lap(1/eps)): printed minus outside",
     ("printed", "lemma1"), ("outside", "lemma1")),
    ("both together: printed with Lap(2/eps) minus outside with Lap(1/eps)",
     ("printed", "episode-rule"), ("outside", "lemma1")),
)
#: shown beside the effects, not compared: the initial release under the outside index
SHOWN = (("initial release alone (outside index): Lap(2/eps) minus Lap(1/eps)",
          ("outside", "episode-rule"), ("outside", "lemma1")),)
RUNS, QUICK_RUNS = 100_000, 50_000


def tail_row(regret: np.ndarray, alpha: float = 0.05) -> tuple[int, float, float, float]:
    """``(tail runs, fraction, CP low, CP high)``: the two-sided Clopper-Pearson interval at
    ``1 - alpha`` (``alpha / 2`` each side) of the share of runs above :data:`TAIL`."""
    k = int(np.sum(regret > TAIL))
    n = regret.size
    return k, k / n, float(cp_lower(k, n, alpha / 2)), float(cp_upper(k, n, alpha / 2))


def difference_interval(a: np.ndarray, b: np.ndarray, alpha: float) -> tuple[float, float,
                                                                            float]:
    """``(difference, low, high)`` of the tail shares of ``a`` and ``b``: the interval
    ``[lo_a - hi_b, hi_a - lo_b]`` from two Clopper-Pearson intervals at ``alpha / 2`` each
    (each two-sided), so it covers with probability ``>= 1 - alpha`` (union bound)."""
    _, fa, la, ha = tail_row(a, alpha / 2)
    _, fb, lb, hb = tail_row(b, alpha / 2)
    return fa - fb, la - hb, ha - lb


def cause(settings: ExperimentSettings) -> ExperimentOutput:
    eps = AZIZE_BASU_FIG2.settings["epsilon"]
    env = AZIZE_BASU_FIG2.source()
    horizon, runs = settings.horizon, settings.runs
    top = max_regret(AZIZE_BASU_FIG2.means, horizon)
    def cause_runs(make: Callable[[float], AdaPUCB], label: str) -> np.ndarray:
        return regret_runs(make(eps), env, horizon, runs, settings.rng("cause", label))

    regret = {label: np.asarray(settings.cached(("cause", label),
                                                partial(cause_runs, make, label)))
              for label, make in VARIANTS.items()}
    share = ALPHA / len(EFFECTS)
    cells: list[Measurement] = []
    for label, r in regret.items():
        k = int(np.sum(r > TAIL))
        cells.append(Measurement(f"tail share: {label}", None, k / r.size, r.size, "at most",
                                 count=k, note=f"runs with regret above {TAIL:g}"))
        cells.append(Measurement.of_runs(f"mean regret: {label}", None, r, low=0.0, high=top))
    effect_rows = []
    for compared, group in ((True, EFFECTS), (False, SHOWN)):
        for name, with_cause, without in group:
            d, lo, hi = difference_interval(regret[FACTORIAL[with_cause]],
                                            regret[FACTORIAL[without]], share)
            cells.append(Measurement(
                f"effect on the tail share, {name}", 0.0 if compared else None, d, runs,
                direction="at least", ci_low=lo, ci_high=hi, ci_confidence=1.0 - share,
                ci_method="difference of two Clopper-Pearson intervals, each at half the "
                          f"cell's share {share:g} (union bound)",
                note="above 0: the change removes tail runs"))
            side = ("above 0" if lo > 0 else "below 0" if hi < 0 else "straddles 0")
            effect_rows.append((name, round(d, 6), round(lo, 6), round(hi, 6),
                                side if compared else f"{side} (shown, not compared)"))
    evidence = ExperimentEvidence(
        "dpaudit's cause test: each of Eq. (7) as printed and the extrapolated initial release "
        "Lap(2/eps) raises AdaP-UCB's tail share on Fig. 2's instance (changing it removes "
        "tail runs), alone and together", tuple(cells))
    rows = []
    for label, r in regret.items():
        k, frac, lo, hi = tail_row(r)
        med = float(np.median(r))
        rows.append((label, r.size, round(float(r.mean()), 1), med, float(r.max()), k, frac,
                     lo, hi, float(np.mean(r > 10 * med))))
    fig, ax = new_figure()
    for label, r in regret.items():
        ax.hist(np.log10(np.maximum(r, 1.0)), bins=60, histtype="step", label=label)
    ax.axvline(np.log10(TAIL), color="k", linestyle=":")
    ax.set(xlabel="log10 regret at T", ylabel="runs", yscale="log")
    ax.set_title(f"AdaP-UCB on Fig. 2's instance, eps = {eps:g}, T = {horizon}", fontsize=9)
    ax.legend(fontsize=5)
    table = Table(("variant", "runs", "mean regret", "median regret", "max regret",
                   f"runs > {TAIL:g}", "tail share", "95% CP low", "95% CP high",
                   "share > 10x median"), tuple(rows))
    lines = [f"- {r[0]}: {r[5]} of {r[1]} runs above {TAIL:g} (95% CP {r[7]:.2g} .. "
             f"{r[8]:.2g}); mean {r[2]:.0f}, median {r[3]:.0f}, largest {r[4]:.4g}"
             for r in rows]
    effects = [f"- {n}: {d:.3g} [{lo:.3g}, {hi:.3g}]: {side}"
               for n, d, lo, hi, side in effect_rows]
    summary = "\n".join([
        "**Question.** Which of two suspects, Eq. (7) as printed or the extrapolated initial "
        "release Lap(2/eps), causes AdaP-UCB's heavy regret tail on Fig. 2's instance "
        f"(eps = {eps:g}, alpha = 3.1)? A 2x2 factorial control changes each alone and both "
        "together.",
        "**Tail share per variant** (95% Clopper-Pearson):", *lines,
        f"**Effects** (difference of tail shares; interval at 1 - {share:g} each, Bonferroni "
        f"over the {len(EFFECTS)} compared effects; the status below also needs the "
        "confirmation at 4x the runs):", *effects,
    ])
    return ExperimentOutput(fig, table, summary, evidence=evidence,
                            verdict="2x2 factorial: index reading x initial release")


EXPERIMENTS = [
    Experiment(name=NAME, paper=PAPER,
               description="what causes AdaP-UCB's regret tail: a 2x2 factorial of Eq. (7)'s "
                           "reading (printed, outside) and the initial release (Lap(2/eps), "
                           "Lap(1/eps)), with two non-private diagnostics",
               run=cause, horizon=10**7, runs=RUNS, quick_horizon=10**6,
               quick_runs=QUICK_RUNS, min_horizon=100,
               min_horizon_reason="every arm needs a few episodes"),
]

__all__ = ["EFFECTS", "EXPERIMENTS", "FACTORIAL", "TAIL", "VARIANTS", "difference_interval",
           "tail_row"]
