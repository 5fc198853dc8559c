"""Referee findings on Azize & Basu 2022 (NeurIPS), as reproducible experiments.

* ``adap-ucb-index-thm7``: AdaP-UCB's regret at ``T`` against Theorem 7's upper bound over an
  epsilon grid from 0.05 to 10, for both readings of Eq. (7) (``bonus="printed"``: the privacy
  term inside the square root, as the published text prints it; ``bonus="outside"``: the term
  outside the root, as an earlier version prints it and the Laplace tail in the proof needs).
  Means (0.75, 0.5), ``T = 10^7``, 50 runs. Theorem 7 states a *sufficient* guarantee (an upper
  bound for every instance), so one instance and epsilon with mean regret above it, beyond the
  run-to-run spread, contradicts it for that reading.
* ``azize-basu-fig2-ratio``: Fig. 2's narration ("about 10x lower regret than DP-SE") measured
  as the ratio of DP-SE's regret (published constants, ``beta = 1/T``) to each AdaP variant's,
  on Fig. 2's instance at ``eps = 1``, with both readings of Eq. (7).

* ``azize-basu-fig3-variants``: Fig. 3's narration (a regime change near eps = 0.3, flat
  above) measured for several readings: AdaP-KLUCB with both initial releases, AdaP-UCB with
  both readings of Eq. (7); where each one's regret settles, against Theorem 3's regime
  change ``d_inf / (6 t_inf)``.

The written findings are ``docs/findings.md``; each names the command that reproduces it.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms.azize_basu_2022.adap import AdaPKLUCB, AdaPUCB, bernoulli_kl
from dpaudit.algorithms.azize_basu_2022.bounds import thm7_adap_ucb_upper
from dpaudit.algorithms.azize_basu_2022.instances import (
    AZIZE_BASU_2022,
    AZIZE_BASU_FIG2,
    AZIZE_BASU_FIG3,
)
from dpaudit.registry import all_policies
from dpaudit.sim.bandits import Instance
from dpaudit.sim.experiments import (
    Experiment,
    ExperimentOutput,
    ExperimentSettings,
    Table,
    mean_interval,
    new_figure,
)
from dpaudit.stats.evidence import ExperimentEvidence, Measurement
from dpaudit.stats.intervals import ratio_interval

PAPER = f"{AZIZE_BASU_2022} (NeurIPS)"
THM7_MEANS = (0.75, 0.5)
THM7_INSTANCE = Instance("two arms (0.75, 0.5)", THM7_MEANS,
                         "the two best arms of Azize & Basu 2022, Fig. 2")
BONUSES = ("printed", "outside")


def epsilon_grid(quick: bool) -> np.ndarray:
    """Geometric grid from 0.05 to 10 (7 points under ``--quick``, 13 otherwise; the
    episodic simulation makes T = 10^7 with 50 runs cost well under a second per point, so
    ``--quick`` keeps the full horizon and runs)."""
    return np.geomspace(0.05, 10.0, 7 if quick else 13)


def thm7_grid(settings: ExperimentSettings) -> ExperimentOutput:
    """Regret of AdaP-UCB against Theorem 7 for both readings of Eq. (7)."""
    horizon, runs = settings.horizon, settings.runs
    env = THM7_INSTANCE.source()
    grid = epsilon_grid(settings.quick)
    rows, curves, cells_ev = [], {b: [] for b in BONUSES}, []
    for eps in grid:
        bound = thm7_adap_ucb_upper(THM7_MEANS, horizon, float(eps))
        for bonus in BONUSES:
            regret = settings.cached(("thm7", bonus, f"{eps:.6g}"), lambda eps=eps, bonus=bonus:
                                     AdaPUCB(float(eps), bonus=bonus).simulate(
                env, horizon, runs, rng=settings.rng("thm7", bonus, f"{eps:.6g}")).regret)
            m, lo, hi = (float(x) for x in mean_interval(regret))
            if bonus == "printed":  # the statement tested: Theorem 7 for Eq. (7) as printed
                cells_ev.append(Measurement(f"eps={eps:.4g}", float(bound), m, int(regret.size),
                                            "at most", std=float(regret.std(ddof=1))))
            # "above" only when the whole 95% interval of the mean is above the bound
            verdict = "above" if lo > bound else ("within" if hi <= bound else "unclear")
            rows.append((round(float(eps), 4), bonus, round(m, 1), round(lo, 1), round(hi, 1),
                         round(bound, 1), round(m / bound, 3), verdict))
            curves[bonus].append((m, lo, hi))
    fig, ax = new_figure()
    for bonus in BONUSES:
        arr = np.array(curves[bonus])
        ax.errorbar(grid, arr[:, 0], yerr=[arr[:, 0] - arr[:, 1], arr[:, 2] - arr[:, 0]],
                    marker="o", label=f'bonus="{bonus}" (mean of {runs} runs; bars: 95% '
                                      "Student-t interval)")
    ax.plot(grid, [thm7_adap_ucb_upper(THM7_MEANS, horizon, float(e)) for e in grid], "k--",
            label="Theorem 7 upper bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("regret at T")
    ax.set_title(f"AdaP-UCB, means {THM7_MEANS}, T = {horizon}", fontsize=10)
    ax.legend(fontsize=7)
    table = Table(("epsilon", "bonus", "mean regret", "95% CI low", "95% CI high",
                   "Theorem 7 bound", "ratio to bound", "vs bound"), tuple(rows))
    above = {b: [r[0] for r in rows if r[1] == b and r[7] == "above"] for b in BONUSES}
    summary = "\n".join([
        f"Bernoulli means {THM7_MEANS}; alpha = 3.1; initial release Lap(2/eps) (the episode "
        "rule extrapolated; the paper does not specify it).", "",
        "Paper's claim (Theorem 7, sufficient): for every instance and eps, AdaP-UCB's regret "
        "is at most sum_a 16 alpha / min(Delta_a, eps) ln T + 3 alpha / (alpha - 3).", "",
        *(f'Measured, bonus="{b}": mean regret above the bound (whole 95% interval) at eps = '
          + (", ".join(f"{e:g}" for e in above[b]) if above[b] else "none of the grid")
          for b in BONUSES)])
    # Theorem 7 is reproduced for a reading when no grid point has its whole 95% interval
    # above the bound (Student-t interval; regret is heavy-tailed, so this is indicative)
    verdict = "; ".join(f'bonus="{b}": above the bound at {len(above[b])} of {grid.size} eps'
                        for b in BONUSES)
    evidence = ExperimentEvidence(
        "Theorem 7: AdaP-UCB's regret <= sum_a 16 alpha / min(Delta_a, eps) ln T + 3 alpha / "
        "(alpha - 3), for Eq. (7) as printed", tuple(cells_ev))
    return ExperimentOutput(fig, table, summary, verdict=verdict, evidence=evidence)


def fig2_ratio(settings: ExperimentSettings) -> ExperimentOutput:
    """DP-SE's regret over each AdaP variant's at T on Fig. 2's instance (eps = 1)."""
    eps, horizon, runs = AZIZE_BASU_FIG2.settings["epsilon"], settings.horizon, settings.runs
    env = AZIZE_BASU_FIG2.source()
    registered = all_policies()
    algs = {
        'AdaP-UCB (bonus="printed")': AdaPUCB(eps),
        'AdaP-UCB (bonus="outside")': AdaPUCB(eps, bonus="outside"),
        "AdaP-KLUCB": AdaPKLUCB(eps),
    }
    baselines = {n: registered[n].factory(epsilon=eps) for n in ("dp-se", "dp-ucb")
                 if n in registered}
    finals = {}
    for label, alg in {**baselines, **algs}.items():
        finals[label] = settings.cached(("fig2-ratio", label), lambda label=label, alg=alg:
                                        alg.simulate(env, horizon, runs,
                                                     rng=settings.rng("fig2-ratio", label))
                                        .regret)
    rows, cells_ev = [], []
    level = RATIO_ALPHA / max(len(baselines) * len(algs), 1)
    for base in baselines:
        base_regret = finals[base]
        for label in algs:
            ratio, r_lo, r_hi = ratio_interval(base_regret, finals[label], alpha=level)
            rows.append((base, label, round(float(base_regret.mean()), 1),
                         round(float(finals[label].mean()), 1), round(ratio, 3)))
            cells_ev.append(Measurement(
                f"{base} / {label}", RATIO_READING, ratio, int(base_regret.size), "at least",
                ci_low=r_lo, ci_high=r_hi, ci_confidence=1.0 - level,
                note="delta method on the log ratio, Bonferroni over the pairs"))
    fig, ax = new_figure()
    names = list(finals)
    stats = [mean_interval(finals[n]) for n in names]
    ax.bar(range(len(names)), [float(s[0]) for s in stats],
           yerr=[[float(s[0] - s[1]) for s in stats], [float(s[2] - s[0]) for s in stats]],
           label=f"mean regret at T over {runs} runs (bars: 95% Student-t interval)")
    ax.set_xticks(range(len(names)), names, rotation=20, fontsize=7)
    ax.set_ylabel("regret at T")
    ax.set_title(f"Azize & Basu 2022, Fig. 2 instance, eps = {eps:g}, T = {horizon}",
                 fontsize=10)
    ax.legend(fontsize=7)
    table = Table(("baseline", "AdaP variant", "baseline regret", "AdaP regret",
                   "baseline / AdaP"), tuple(rows))
    missing = [n for n in ("dp-se", "dp-ucb") if n not in registered]
    summary = "\n".join([
        f"Bernoulli means {AZIZE_BASU_FIG2.means}; eps = {eps:g}; AdaP alpha = 3.1; DP-SE "
        "beta = 1/T with Sajed & Sheffet 2019's published constants.",
        *([f"Not registered yet (no ratio): {', '.join(missing)}."] if missing else []), "",
        "Paper's claim (Fig. 2 narration, no numbers in the text): AdaP-UCB and AdaP-KLUCB "
        "have about 10x lower regret than DP-SE and DP-UCB.", "",
        "The ratio depends on the horizon, on DP-SE's beta and constants, on the reading of "
        "Eq. (7) and on the unspecified initial release (heavy tail over few runs)."])
    ratios = [r[4] for r in rows]
    verdict = (f"baseline / AdaP ratios {min(ratios):.2f} to {max(ratios):.2f} (paper: about "
               f"10x; compared with a ratio of at least {RATIO_READING:g})" if ratios
               else "no baseline registered")
    evidence = ExperimentEvidence(
        "Fig. 2 narration: AdaP-UCB and AdaP-KLUCB have about 10x lower regret than DP-SE and "
        f"DP-UCB (read as a ratio of at least {RATIO_READING:g})", tuple(cells_ev))
    return ExperimentOutput(fig, table, summary + "\n\n" + verdict, verdict=verdict,
                            evidence=evidence)


#: "about 10x" (Fig. 2 narration) read generously as a ratio of mean regrets of at least 5
RATIO_READING = 5.0
#: level of the ratio intervals, split over the (baseline, AdaP variant) pairs
RATIO_ALPHA = 0.05


FIG3_VARIANTS = {
    "AdaP-KLUCB (initial Lap(2/eps))": lambda e: AdaPKLUCB(e),
    "AdaP-KLUCB (initial Lap(1/eps))": lambda e: AdaPKLUCB(e, initial_noise="lemma1"),
    'AdaP-UCB (bonus="printed")': lambda e: AdaPUCB(e),
    'AdaP-UCB (bonus="outside")': lambda e: AdaPUCB(e, bonus="outside"),
}


def settle_point(grid: np.ndarray, means: np.ndarray, *, tolerance: float = 0.1) -> float:
    """The smallest grid eps from which the regret stays within ``tolerance`` (relative) of
    its value at the largest eps (``inf``: only the last point)."""
    far = np.flatnonzero(np.abs(means - means[-1]) > tolerance * means[-1])
    if far.size == 0:
        return float(grid[0])
    return float(grid[far[-1] + 1]) if far[-1] + 1 < grid.size - 1 else math.inf


def fig3_variants(settings: ExperimentSettings) -> ExperimentOutput:
    """Where the regret stops depending on eps, for each reading (Fig. 3's instance)."""
    horizon, runs = settings.horizon, settings.runs
    means_inst = AZIZE_BASU_FIG3.means
    env = AZIZE_BASU_FIG3.source()
    grid = np.geomspace(0.05, 10.0, 9 if settings.quick else 17)
    best, worst = max(means_inst), min(means_inst)
    boundary = float(bernoulli_kl(np.array(worst), np.array(best))) / (6.0 * (best - worst))
    claimed = AZIZE_BASU_FIG3.settings["claimed_regime_boundary"]
    fig, ax = new_figure()
    rows, settles = [], {}
    for label, make in FIG3_VARIANTS.items():
        regret = np.array([settings.cached(
            ("fig3-variants", label, f"{e:.6g}"), lambda e=e, label=label, make=make:
            float(make(float(e)).simulate(
                env, horizon, runs, rng=settings.rng("fig3-variants", label, f"{e:.6g}")
            ).regret.mean())) for e in grid])
        at_claim = float(np.interp(math.log(claimed), np.log(grid), regret))
        settles[label] = settle_point(grid, regret)
        rows.append((label, round(at_claim, 1), round(float(regret[-1]), 1),
                     round(at_claim / float(regret[-1]), 2), settles[label]))
        ax.plot(grid, regret, marker="o", label=f"{label} (mean of {runs} runs)")
    ax.axvline(boundary, color="grey", lw=0.8, label=f"d_inf/(6 t_inf) = {boundary:.3f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("regret at T")
    ax.set_title(f"Azize & Basu 2022, Fig. 3 instance, T = {horizon}", fontsize=10)
    ax.legend(fontsize=7)
    table = Table(("variant", f"regret at eps = {claimed:g}", "regret at eps = 10",
                   "ratio", "settles (within 10%) from eps"), tuple(rows))
    flat = [k for k, v in settles.items() if v <= 2 * claimed]
    verdict = ("settles by eps = 0.6 for: " + ", ".join(flat) if flat else
               "no variant is flat (within 10%) from eps = 0.6 on; Theorem 3's regime change "
               f"is at {boundary:.3f}")
    summary = "\n".join([
        f"Bernoulli means {means_inst}; alpha = 3.1; grid of {grid.size} eps in [0.05, 10].", "",
        f"Paper's claim (Fig. 3 narration): regret depends on eps below about {claimed:g} and "
        "not above.",
        f"Theorem 3's lower bound changes regime at d_inf/(6 t_inf) = {boundary:.3f}.", "",
        f"Measured: {verdict}."])
    # a narration about a curve's shape read off means (no interval per point): nothing is
    # compared, the status is "run" and the measured settle points are the narration
    return ExperimentOutput(fig, table, summary, verdict=verdict)


EXPERIMENTS = [
    Experiment(name="adap-ucb-index-thm7", paper=PAPER,
               description="AdaP-UCB's regret against Theorem 7 over eps in [0.05, 10], both "
                           "readings of Eq. (7)",
               run=thm7_grid, horizon=10**7, runs=50, quick_horizon=10**6, quick_runs=10,
               min_horizon=100, min_horizon_reason="fewer than 100 steps leave AdaP-UCB in "
                                                   "its first episodes"),
    Experiment(name="azize-basu-fig2-ratio", paper=PAPER,
               description="Fig. 2's 'about 10x': DP-SE's regret over AdaP's at eps = 1",
               run=fig2_ratio, horizon=AZIZE_BASU_FIG2.horizon, runs=AZIZE_BASU_FIG2.runs,
               quick_horizon=10**5, quick_runs=10, min_horizon=500,
               min_horizon_reason="fewer than 100 pulls per arm leave every algorithm in its "
                                  "first episodes"),
    Experiment(name="azize-basu-fig3-variants", paper=PAPER,
               description="Fig. 3's plateau above eps = 0.3, for four readings of AdaP",
               run=fig3_variants, horizon=AZIZE_BASU_FIG3.horizon, runs=AZIZE_BASU_FIG3.runs,
               quick_horizon=10**6, quick_runs=10, min_horizon=500,
               min_horizon_reason="fewer than 100 pulls per arm leave every algorithm in its "
                                  "first episodes"),
]

__all__ = ["EXPERIMENTS", "epsilon_grid", "fig2_ratio", "fig3_variants", "settle_point",
           "thm7_grid"]
