"""Shared machinery of the Wang & Zhu (2023) Section-8 reproductions (Figures 4-7).

The algorithms every figure may draw are listed once, in :data:`ALGORITHMS` (name ->
factory ``(epsilon, delta, horizon) -> policy``). The algorithms of other packages (DP-SE, a
baseline; the DP-UCB family of Tossou & Dimitrakakis 2016) are taken from the registry by
their registered names (``all_policies()["dp-ucb"]``), never imported; an entry that is
``None`` is not drawn and the figures say so in their Markdown. Adding an algorithm is one
line here.

Instances (Section 8): Instance 1, 9 Bernoulli arms ``0.30, 0.35, ..., 0.70``; Instance 2,
101 arms ``mu_i = 0.3 + 0.004 (i - 1)``. ``T = 10^5`` and 100 runs in the paper (``--quick``:
``T = 10^4``, 20 runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta, DPFTPLGauss
from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_INSTANCE_1, WANG_ZHU_INSTANCE_2
from dpaudit.experiments import (
    Experiment,
    ExperimentOutput,
    ExperimentSettings,
    Table,
    cached,
    run_experiment,
)
from dpaudit.registry import all_policies
from dpaudit.sim.bandits import BernoulliRewards, checkpoint_grid
from dpaudit.stats.evidence import ExperimentEvidence, Measurement, decide_experiment
from dpaudit.stats.rng import generator

INSTANCE_1 = WANG_ZHU_INSTANCE_1.means
INSTANCE_2 = WANG_ZHU_INSTANCE_2.means
INSTANCES = {"Instance 1": INSTANCE_1, "Instance 2": INSTANCE_2}


def _registered(name: str, **keywords: str) -> Callable:
    """``(epsilon, delta, horizon) -> policy`` for the policy registered as ``name`` in another
    package, taken from the registry by name; ``keywords`` maps the factory's parameter names
    to ``"epsilon"``, ``"delta"`` or ``"horizon"``."""

    def make(eps: float, dl: float, t: int) -> Any:
        values = {"epsilon": eps, "delta": dl, "horizon": t}
        return all_policies()[name].factory(**{k: values[v] for k, v in keywords.items()})

    return make


ALGORITHMS: dict[str, Callable | None] = {
    "DP-FTPL-Gauss": lambda eps, dl, t: DPFTPLGauss(eps, dl, horizon=t),
    "DP-FTPL-Gauss (tight)": lambda eps, dl, t: DPFTPLGauss(eps, dl, horizon=t,
                                                           start_phase="tight"),
    "DP-FTPL-Beta": lambda eps, dl, t: DPFTPLBeta(eps, dl, horizon=t),
    "DP-FTPL-Beta (tight)": lambda eps, dl, t: DPFTPLBeta(eps, dl, horizon=t,
                                                         start_phase="tight"),
    "DP-FTPL-New": lambda eps, dl, t: DPFTPLNew(eps, dl, horizon=t),
    "DP-SE": _registered("dp-se", epsilon="epsilon"),
    "DP-UCB": _registered("dp-ucb", epsilon="epsilon", horizon="horizon"),
    "DP-UCB-Bound": _registered("dp-ucb-bound", epsilon="epsilon", horizon="horizon"),
    "DP-UCB-Int": _registered("dp-ucb-int", epsilon="epsilon", delta="delta"),
}


def factory(name: str) -> Callable:
    """``ALGORITHMS[name]``, which is ``None`` when its policy is not registered."""
    make = ALGORITHMS[name]
    if make is None:
        raise ValueError(f"name={name!r} is not a registered policy here")
    return make


def settings(quick: bool, horizon: int | None, runs: int | None) -> tuple[int, int]:
    return (horizon or (10**4 if quick else 10**5)), (runs or (20 if quick else 100))


def simulate(name: str, epsilon: float, delta: float, means: Sequence[float], horizon: int,
             runs: int, rng: np.random.Generator, marks: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Final regret per run and regret at ``marks`` (runs x marks) of one algorithm."""
    alg = factory(name)(epsilon, delta, horizon)
    res = alg.simulate(BernoulliRewards(means), horizon, runs, rng=rng, checkpoints=marks)
    return res.regret, res.curve


def available(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(drawn, missing)``: names with an implementation on this branch, and the rest."""
    have = [n for n in names if ALGORITHMS.get(n) is not None]
    return have, [n for n in names if n not in have]


def marks_for(horizon: int) -> np.ndarray:
    return checkpoint_grid(horizon, 40)


def run_panel(fig: str, panel: str, means: Sequence[float], epsilon: float, delta: float,
              names: Sequence[str], horizon: int, runs: int, seed: int,
              finals: dict[str, np.ndarray] | None = None,
              at: dict[tuple[str, int], np.ndarray] | None = None) -> list[dict]:
    """Regret curves of ``names`` on one panel: rows for the CSV (one per algorithm and mark).

    ``finals``: when given, filled with each algorithm's regret at ``T`` per run (what the
    evidence of a figure compares; the rows keep only means and standard deviations).
    ``at``: keys ``(algorithm, t)`` to fill with that algorithm's regret at ``t`` per run
    (``t`` is added to the checkpoints, which record and do not change the runs)."""
    marks = marks_for(horizon)
    targets: dict[tuple[str, int], np.ndarray] = {} if at is None else at
    wanted = sorted({t for _, t in targets if 0 < t < horizon})
    if wanted:
        marks = np.unique(np.concatenate([marks, np.asarray(wanted, dtype=marks.dtype)]))
    rows = []
    for name in names:
        def cell(name=name):
            rng = generator(seed, fig, panel, name)
            return simulate(name, epsilon, delta, means, horizon, runs, rng, marks)

        regret, curve = cached(("panel", fig, panel, name, epsilon, delta, tuple(means),
                                horizon, runs, seed, tuple(wanted)), cell)
        if finals is not None:
            finals[name] = np.asarray(regret, dtype=float)
        for key in [k for k in targets if k[0] == name]:
            targets[key] = np.asarray(curve[:, int(np.searchsorted(marks, key[1]))], dtype=float)
        for j, m in enumerate(marks):
            rows.append({"figure": fig, "panel": panel, "epsilon": epsilon, "delta": delta,
                         "algorithm": name, "t": int(m), "mean_regret": float(curve[:, j].mean()),
                         "std_regret": float(curve[:, j].std(ddof=1)) if runs > 1 else 0.0,
                         "runs": runs})
    return rows


def regret_range(means: Sequence[float], horizon: int) -> tuple[float, float]:
    """The known range of one run's pseudo-regret at ``horizon``: ``[0, T * max gap]`` (every
    pull costs at most the largest gap); what makes the rule's intervals distribution-free."""
    return 0.0, float(horizon) * (max(means) - min(means))


def ratio_cell(label: str, numerator: np.ndarray, denominator: np.ndarray,
               means: Sequence[float], horizon: int, note: str = "") -> Measurement:
    """The rule's cell "``mean(numerator) / mean(denominator)`` is at least 1" (the
    denominator's algorithm has the lower mean regret), from the two valid intervals of the
    means on the instance's range (:meth:`~dpaudit.stats.evidence.Measurement.of_ratio`)."""
    rng_ = regret_range(means, horizon)
    return Measurement.of_ratio(label, 1.0, numerator, denominator, numerator_range=rng_,
                                denominator_range=rng_, direction="at least", note=note)


def subplots(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float],
             squeeze: bool = True) -> tuple[Any, Any]:
    """A matplotlib ``(figure, axes)`` outside pyplot's registry (a long process such as
    ``claims``, which runs many reproductions, keeps no figure alive)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, squeeze=squeeze)


def final(rows: list[dict], panel: str, alg: str) -> tuple[float, float, int]:
    """Mean, standard deviation and runs of the final regret of ``alg`` on ``panel``."""
    last = [r for r in rows if r["panel"] == panel and r["algorithm"] == alg][-1]
    return last["mean_regret"], last["std_regret"], last["runs"]


def regret_at(rows: list[dict], panel: str, alg: str, t: int) -> float:
    pts = [r for r in rows if r["panel"] == panel and r["algorithm"] == alg]
    return float(np.interp(t, [r["t"] for r in pts], [r["mean_regret"] for r in pts]))


def plot_panels(panels: Sequence[str], rows: list[dict], drawn: Sequence[str], title: str, *,
                logy: bool = False):
    """Regret curves of ``drawn`` on every panel (mean, band +- 1 sd: descriptive, it decides
    nothing); returns the figure."""
    n = len(panels)
    cols = 2 if n > 1 else 1
    fig, axes = subplots((n + 1) // 2, cols, figsize=(6 * cols, 4.5 * ((n + 1) // 2)),
                          squeeze=False)
    for ax, panel in zip(axes.ravel(), panels, strict=False):
        for alg in drawn:
            pts = [r for r in rows if r["panel"] == panel and r["algorithm"] == alg]
            t = [r["t"] for r in pts]
            m = np.array([r["mean_regret"] for r in pts])
            s = np.array([r["std_regret"] for r in pts])
            line, = ax.plot(t, m, "--" if "tight" in alg else "-", label=alg)
            ax.fill_between(t, np.maximum(m - s, 0), m + s, alpha=0.15, color=line.get_color())
        ax.set_title(panel, fontsize=9)
        ax.set_xlabel("t")
        ax.set_ylabel("cumulative regret")
        if logy:
            ax.set_yscale("log")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(title)
    return fig


def cell_lines(evidence: ExperimentEvidence, alpha: float = 0.05) -> list[str]:
    """One Markdown line per compared cell of ``evidence``: measured value, the valid interval
    at the cell's Bonferroni share of ``alpha`` and the side it lies on in this run alone (the
    status printed below it also asks the confirmation run to agree)."""
    d = decide_experiment(evidence, alpha=alpha)
    out = []
    for c in d.cells:
        m = c.measurement
        if c.outcome == "not compared":
            continue
        tail = "" if m.tail_share is None else f"; tail share {m.tail_share:.2f}"
        out.append(f"- {m.label}: {m.measured:.4g}, interval [{c.ci_low:.4g}, {c.ci_high:.4g}]"
                   f" ({c.method}, {m.runs} runs{tail}); paper {m.direction} "
                   f"{m.paper_value:g}: {c.outcome}")
    return out


SWEEP_ALGS = ("DP-FTPL-Gauss", "DP-FTPL-New")
#: "about x^-k" read as: the measured exponent is nearer to k than to k - 1 or k + 1 (the
#: paper's rates are integer exponents); the two compared cells are k - 1/2 and k + 1/2
ABOUT = 0.5


def median_interval(values: np.ndarray, alpha: float) -> tuple[float, float]:
    """Distribution-free interval of the median of the law of ``values`` at ``1 - alpha``.

    The order statistics ``(x_(k), x_(n+1-k))`` with ``k`` the largest count such that
    ``P(Bin(n, 1/2) < k) <= alpha / 2``: for any law and any median ``m`` of it,
    ``P(x_(k) > m) <= P(#{x_i <= m} < k) <= P(Bin(n, 1/2) < k)`` (the binomial sign-test
    interval, the Clopper-Pearson construction at p = 1/2); ``(min, max)`` widened to the
    whole sample when no ``k >= 1`` qualifies is not valid, so ``(-inf, inf)`` is returned.
    """
    from scipy import stats

    x = np.sort(np.asarray(values, dtype=float).ravel())
    n = x.size
    k = int(stats.binom.ppf(alpha / 2.0, n, 0.5))  # P(Bin < k) <= alpha/2 for this k
    while k >= 1 and stats.binom.cdf(k - 1, n, 0.5) > alpha / 2.0:
        k -= 1
    if k < 1:
        return -math.inf, math.inf
    return float(x[k - 1]), float(x[n - k])


def slope_interval(x: tuple[float, float], extra: tuple[tuple[float, float],
                                                        tuple[float, float]]
                   ) -> tuple[float, float]:
    """Limits of the log-log slope between two points from intervals of the two values.

    ``x = (x_1, x_2)`` with ``x_2 > x_1 > 0``; ``extra = ((lo_1, hi_1), (lo_2, hi_2))``. If
    both intervals cover, the slope ``(log e_2 - log e_1) / (log x_2 - log x_1)`` lies in
    ``[(log lo_2 - log hi_1), (log hi_2 - log lo_1)] / (log x_2 - log x_1)``; a non-positive
    lower limit makes the upper slope ``inf`` (and the lower ``-inf`` when ``lo_2 <= 0``).
    """
    (lo1, hi1), (lo2, hi2) = extra
    span = math.log(x[1]) - math.log(x[0])
    low = -math.inf if lo2 <= 0 or hi1 <= 0 else (math.log(lo2) - math.log(hi1)) / span
    high = math.inf if lo1 <= 0 or hi2 <= 0 else (math.log(hi2) - math.log(lo1)) / span
    return low, high


def horizon_cap(name: str, make_pair: Callable, values: Sequence[float] | np.ndarray, horizon: int
                ) -> float | None:
    """The smallest swept value (on a fine log grid from the largest of ``values`` down) at
    which the start phase of ``name`` still fills at most half the horizon, ``N * N_0 <= T/2``
    (below it the regret is capped by ``T`` and no rate can show); ``None``: never capped
    within ``values`` (or no start phase)."""
    grid = np.geomspace(max(values), min(values), 400)
    n_arms = len(INSTANCE_1)
    last = None
    for v in grid:
        eps, dl = make_pair(float(v))
        n0 = getattr(factory(name)(eps, dl, horizon), "start_phase", 0)
        if n_arms * n0 > horizon / 2:
            return last if last is not None else float(v)
        last = float(v)
    return None


def run_sweep(fig: str, panel: str, pairs: Sequence[tuple[float, float]], horizon: int,
              runs: int, seed: int, names: Sequence[str] = SWEEP_ALGS,
              key: str = "grid") -> dict[str, np.ndarray]:
    """Final regret per run (``len(pairs) x runs``) of the sweep algorithms on Instance 1."""
    marks = np.array([horizon])
    out = {}
    for name in names:
        finals = np.empty((len(pairs), runs))
        for i, (eps, dl) in enumerate(pairs):
            def cell(name=name, i=i, eps=eps, dl=dl):
                rng = generator(seed, fig, panel, name, key, i)
                return simulate(name, eps, dl, INSTANCE_1, horizon, runs, rng, marks)[0]

            finals[i] = cached(("sweep", fig, panel, name, key, i, eps, dl, horizon, runs,
                                seed), cell)
        out[name] = finals
    return out


def sweep_figure(fig: str, title: str, panels: Sequence[tuple[str, str, np.ndarray,
                                                              Callable]],
                 horizon: int, runs: int, seed: int, fit_panel: int,
                 paper_slopes: dict[str, float], window: tuple[float, float],
                 ) -> tuple[Any, list[dict], list[str], ExperimentEvidence]:
    """Run a sweep figure (Fig. 6 or 7): log-log final regret against the swept parameter,
    and the evidence on the paper's rates (Sec. 8: regret ``~ (1/x)^k``).

    ``panels``: ``(label, swept name, swept values, value -> (eps, delta))``; the first swept
    value is the least private end (the baseline). On panel ``fit_panel`` each algorithm's
    rate is measured between two swept values fixed in advance, ``window = (start, end)``
    (``end`` moved up to the value where the start phase fills half the horizon, when that
    comes first: :func:`horizon_cap`); both end points are added to the grid. The *extra*
    regret ``m(x) - m(base)`` (``m``: the median regret at ``T`` of the runs, base: the least
    private end) has an interval from the three medians' distribution-free intervals
    (:func:`median_interval`), and the slope an interval from the two end points
    (:func:`slope_interval`); every compared cell holds its share of 5% (Bonferroni), each
    median a third of it. Compared cells: slope at least ``k - 1/2`` and at most ``k + 1/2``
    (:data:`ABOUT`). The figure's bars (+- 1 sd) are descriptive and decide nothing.
    """
    fig_, axes = subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    rows, lines, cells = [], [], []
    windows: dict[str, tuple[float, float]] = {}
    label_f, swept_f, values_f, pair_f = panels[fit_panel]
    if not values_f[0] > values_f[-1]:
        raise ValueError("swept values must run from the least private end down")
    for name in SWEEP_ALGS:
        start, end = window
        cap = horizon_cap(name, pair_f, values_f, horizon)
        if cap is not None:
            end = max(end, cap)
        if end < start:
            windows[name] = (start, end)
    n_cells = 2 * len(windows)
    share = 0.05 / max(n_cells, 1)
    for p, (label, swept, values, make_pair) in enumerate(panels):
        xs = np.asarray(values, dtype=float)
        if p == fit_panel:
            extra = [v for w in windows.values() for v in w]
            xs = np.array(sorted(set(xs.tolist()) | set(extra), reverse=True))
        pairs = [make_pair(float(v)) for v in xs]
        res = run_sweep(fig, label, pairs, horizon, runs, seed)
        ax = axes[0, p]
        for name, finals in res.items():
            m, s = finals.mean(axis=1), finals.std(axis=1, ddof=1) if runs > 1 else 0 * xs
            ax.errorbar(xs, m, yerr=s, marker="o", ms=3, capsize=2, label=name)
            for (eps, dl), mm, ss, row in zip(pairs, m, s, finals, strict=True):
                rows.append({"figure": fig, "panel": label, "algorithm": name, "epsilon": eps,
                             "delta": dl, "mean_regret": float(mm), "std_regret": float(ss),
                             "median_regret": float(np.median(row)), "runs": runs,
                             "horizon": horizon})
            if p != fit_panel:
                continue
            if name not in windows:
                lines.append(f"* {label}, {name}: no window: the start phase fills half the "
                             f"horizon before {swept} reaches {window[0]:g}; no slope.")
                continue
            a, b = windows[name]
            idx = {float(v): i for i, v in enumerate(xs)}
            base = median_interval(finals[0], share / 3.0)
            ends = [median_interval(finals[idx[v]], share / 3.0) for v in (a, b)]
            ext = ((ends[0][0] - base[1], ends[0][1] - base[0]),
                   (ends[1][0] - base[1], ends[1][1] - base[0]))
            lo, hi = slope_interval((1.0 / a, 1.0 / b), ext)
            med = [float(np.median(finals[i])) for i in (0, idx[a], idx[b])]
            e1, e2 = med[1] - med[0], med[2] - med[0]
            point = ((math.log(e2) - math.log(e1)) / (math.log(a) - math.log(b))
                     if e1 > 0 and e2 > 0 else math.nan)
            k = paper_slopes[name]
            what = (f"{label}, {name}: log-log slope of the extra median regret against "
                    f"1/{swept} from {swept} = {a:g} to {b:g}")
            note = (f"medians at {swept} = {xs[0]:g} (base), {a:g}, {b:g}: "
                    + ", ".join(f"{v:.5g}" for v in med)
                    + f"; extra-regret intervals {ext[0][0]:.4g}..{ext[0][1]:.4g} and "
                      f"{ext[1][0]:.4g}..{ext[1][1]:.4g}")
            method = ("order-statistic (sign-test) intervals of the three medians, each at a "
                      "third of the cell's share, combined by the union bound")
            for bound, direction in ((k - ABOUT, "at least"), (k + ABOUT, "at most")):
                cells.append(Measurement(f"{what}, {direction} {bound:g}", bound, point, runs,
                                         direction, ci_low=lo, ci_high=hi,
                                         ci_confidence=1.0 - share, ci_method=method,
                                         note=note))
            lines.append(f"* {what}: **{point:.2f}** (interval {lo:.2f} .. {hi:.2f} at "
                         f"{100 * (1 - share):.4g}%; {note}); paper: about {k:g}, read as "
                         f"between {k - ABOUT:g} and {k + ABOUT:g}.")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(swept)
        ax.set_ylabel(f"regret at T = {horizon}")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=8)
    fig_.suptitle(f"{title} (Instance 1, T = {horizon}, {runs} runs; mean, bars: +- 1 sd, "
                  "descriptive only)")
    evidence = ExperimentEvidence(
        f"{title}: " + ", ".join(f"{n} regret ~ (1/{swept_f})^{paper_slopes[n]:g}"
                                 for n in SWEEP_ALGS) + f" ({label_f})", tuple(cells))
    return fig_, rows, lines, evidence


Compute = Callable[[int, int, int, bool], tuple[Any, list[dict], str, ExperimentEvidence]]


def experiment(name: str, description: str, compute: Compute) -> Experiment:
    """The registry entry (``python -m dpaudit reproduce NAME``) of a reproduction whose
    ``compute(horizon, runs, seed, quick)`` returns ``(figure, rows, markdown, evidence)``."""

    def run(settings: ExperimentSettings) -> ExperimentOutput:
        fig, rows, md, evidence = compute(settings.horizon, settings.runs, settings.seed,
                                          settings.quick)
        if "t" in rows[0]:  # curves: the table keeps the final regret of each panel/algorithm
            rows = [r for r in rows if r["t"] == settings.horizon]
        table = Table(tuple(rows[0]), tuple(tuple(r.values()) for r in rows))
        return ExperimentOutput(fig, table, md, evidence=evidence)

    return Experiment(name=name, paper="Wang & Zhu 2023", description=description, run=run,
                      horizon=WANG_ZHU_INSTANCE_1.horizon, runs=WANG_ZHU_INSTANCE_1.runs,
                      quick_horizon=10**4, quick_runs=20, min_horizon=len(INSTANCE_2),
                      min_horizon_reason="Instance 2 has 101 arms")


def run_direct(exp: Experiment, out_dir: Path, *, quick: bool, horizon: int | None,
               runs: int | None, seed: int) -> list[Path]:
    """The direct-call form of ``python -m dpaudit reproduce NAME --out DIR``: PNG, CSV,
    Markdown and JSON, with the rule's confirmation run."""
    settings_ = exp.settings(horizon=horizon, runs=runs, seed=seed, quick=quick)
    return list(run_experiment(exp, settings_, Path(out_dir)))
