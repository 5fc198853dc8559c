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

import csv
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta, DPFTPLGauss
from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_INSTANCE_1, WANG_ZHU_INSTANCE_2
from dpaudit.registry import all_policies
from dpaudit.sim.bandits import BernoulliRewards, checkpoint_grid
from dpaudit.sim.experiments import (
    Experiment,
    ExperimentOutput,
    ExperimentSettings,
    Table,
    cached,
)
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


def settings(quick: bool, horizon: int | None, runs: int | None) -> tuple[int, int]:
    return (horizon or (10**4 if quick else 10**5)), (runs or (20 if quick else 100))


def simulate(name: str, epsilon: float, delta: float, means: Sequence[float], horizon: int,
             runs: int, rng: np.random.Generator, marks: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Final regret per run and regret at ``marks`` (runs x marks) of one algorithm."""
    alg = ALGORITHMS[name](epsilon, delta, horizon)
    res = alg.simulate(BernoulliRewards(means), horizon, runs, rng=rng, checkpoints=marks)
    return res.regret, res.curve


def available(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(drawn, missing)``: names with an implementation on this branch, and the rest."""
    have = [n for n in names if ALGORITHMS.get(n) is not None]
    return have, [n for n in names if n not in have]


def marks_for(horizon: int) -> np.ndarray:
    return checkpoint_grid(horizon, 40)


def run_panel(fig: str, panel: str, means: Sequence[float], epsilon: float, delta: float,
              names: Sequence[str], horizon: int, runs: int, seed: int) -> list[dict]:
    """Regret curves of ``names`` on one panel: rows for the CSV (one per algorithm and mark)."""
    marks = marks_for(horizon)
    rows = []
    for name in names:
        def cell(name=name):
            rng = generator(seed, fig, panel, name)
            return simulate(name, epsilon, delta, means, horizon, runs, rng, marks)

        regret, curve = cached(("panel", fig, panel, name, epsilon, delta, tuple(means),
                                horizon, runs, seed), cell)
        for j, m in enumerate(marks):
            rows.append({"figure": fig, "panel": panel, "epsilon": epsilon, "delta": delta,
                         "algorithm": name, "t": int(m), "mean_regret": float(curve[:, j].mean()),
                         "std_regret": float(curve[:, j].std(ddof=1)) if runs > 1 else 0.0,
                         "runs": runs})
    return rows


def write_csv(path: Path, rows: list[dict]) -> Path:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def slope_fit(x: np.ndarray, regrets: np.ndarray, horizon: int, gaps_mean: float, *,
              seed: int, boot: int = 2000) -> dict:
    """Log-log slope of the *extra* regret against ``x`` (``1/delta`` or ``1/eps``), 95% CI.

    The paper's rates (Section 8: Gauss ``~ 1/delta^2``, New ``~ 1/delta``) are about the extra
    regret the privacy costs, so the fit is on ``mean(x) - mean(x_min)`` (the regret at the
    least private end of the sweep is the baseline). Fit window, fixed in advance: points whose
    extra regret is at least the baseline (the privacy term dominates) and whose regret is at
    most ``0.5 T`` times the mean gap (the horizon does not cap it). The interval is a
    percentile bootstrap over runs (runs resampled at every point independently).
    """
    def extra(means: np.ndarray) -> np.ndarray:
        return means - means[np.argmin(x)]

    mean = regrets.mean(axis=1)
    base = mean[np.argmin(x)]
    use = (extra(mean) >= base) & (mean <= 0.5 * horizon * gaps_mean)
    if use.sum() < 3:
        return {"slope": math.nan, "lo": math.nan, "hi": math.nan, "points": int(use.sum())}
    lx = np.log(x[use])
    slope = float(np.polyfit(lx, np.log(extra(mean)[use]), 1)[0])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, regrets.shape[1], size=(boot, regrets.shape[0], regrets.shape[1]))
    slopes = []
    for b in range(boot):
        m = np.take_along_axis(regrets, idx[b], axis=1).mean(axis=1)
        e = extra(m)[use]
        if np.all(e > 0):
            slopes.append(np.polyfit(lx, np.log(e), 1)[0])
    lo, hi = np.percentile(slopes, [2.5, 97.5])
    return {"slope": slope, "lo": float(lo), "hi": float(hi), "points": int(use.sum()),
            "x_min": float(x[use].min()), "x_max": float(x[use].max()),
            "boot_used": len(slopes)}


def final(rows: list[dict], panel: str, alg: str) -> tuple[float, float, int]:
    """Mean, standard deviation and runs of the final regret of ``alg`` on ``panel``."""
    last = [r for r in rows if r["panel"] == panel and r["algorithm"] == alg][-1]
    return last["mean_regret"], last["std_regret"], last["runs"]


def regret_at(rows: list[dict], panel: str, alg: str, t: int) -> float:
    pts = [r for r in rows if r["panel"] == panel and r["algorithm"] == alg]
    return float(np.interp(t, [r["t"] for r in pts], [r["mean_regret"] for r in pts]))


def lowest_statement(rows: list[dict], panel: str, names: Sequence[str],
                     target: str = "DP-FTPL-New") -> str:
    """Whether ``target`` has the lowest mean final regret, with ties at 2 standard errors."""
    m0, s0, n0 = final(rows, panel, target)
    worse, tied, better = [], [], []
    for a in names:
        if a == target:
            continue
        m, s, n = final(rows, panel, a)
        se = math.sqrt(s0**2 / n0 + s**2 / n)
        (better if m < m0 - 2 * se else tied if m < m0 + 2 * se else worse).append(
            f"{a} {m:.0f}")
    verdict = ("holds" if not better and not tied else
               "holds up to a tie within 2 standard errors" if not better else "does not hold")
    text = f"{target} {m0:.0f}; higher: {', '.join(worse) or '-'}"
    if tied:
        text += f"; tied (within 2 SE): {', '.join(tied)}"
    if better:
        text += f"; lower: {', '.join(better)}"
    return f"'{target} has the lowest regret' {verdict} ({text})"


def plot_panels(panels: Sequence[str], rows: list[dict], drawn: Sequence[str], title: str, *,
                logy: bool = False):
    """Regret curves of ``drawn`` on every panel (mean +- 1 sd band); returns the figure."""
    plt = pyplot()
    n = len(panels)
    cols = 2 if n > 1 else 1
    fig, axes = plt.subplots((n + 1) // 2, cols, figsize=(6 * cols, 4.5 * ((n + 1) // 2)),
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


SWEEP_ALGS = ("DP-FTPL-Gauss", "DP-FTPL-New")


REFINE_POINTS = 6  # extra points in a fit window that holds fewer than 4 grid points


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


def _window(x: np.ndarray, means: np.ndarray, horizon: int, gaps_mean: float) -> np.ndarray:
    base = means[np.argmin(x)]
    return (means - base >= base) & (means <= 0.5 * horizon * gaps_mean)


def _refine(x: np.ndarray, means: np.ndarray, horizon: int, gaps_mean: float
            ) -> np.ndarray | None:
    """``REFINE_POINTS`` values of ``x`` strictly between the grid points that bracket the fit
    window (the last below it and the first above it), when it holds fewer than 4 points."""
    order = np.argsort(x)
    xs, inside = x[order], _window(x, means, horizon, gaps_mean)[order]
    if inside.sum() >= 4:
        return None
    above_base = np.flatnonzero(means[order] - means[order][0] >= means[order][0])
    if above_base.size == 0:
        return None
    lo = xs[max(above_base[0] - 1, 0)]
    capped = np.flatnonzero(inside[above_base[0]:] == 0)
    hi_i = above_base[0] + (capped[0] if capped.size else xs.size - above_base[0] - 1)
    hi = xs[min(hi_i, xs.size - 1)]
    if hi <= lo:
        return None
    return np.geomspace(lo, hi, REFINE_POINTS + 2)[1:-1]


def sweep_figure(fig: str, title: str, panels: Sequence[tuple[str, str, np.ndarray,
                                                              Callable]],
                 horizon: int, runs: int, seed: int, fit_panel: int,
                 paper_slopes: dict[str, float]) -> tuple[Any, list[dict], list[str]]:
    """Run a sweep figure (Fig. 6 or 7): log-log final regret against the swept parameter.

    ``panels``: ``(label, swept name, swept values, value -> (eps, delta))``. The log-log slope
    of the extra regret against ``1/x`` is fitted on panel ``fit_panel`` (see
    :func:`slope_fit`); when an algorithm's fit window holds fewer than 4 grid points,
    ``REFINE_POINTS`` log-spaced values between the grid points that bracket it are added
    (rule fixed in advance; the window is a property of the algorithm's start phase or noise
    scale and a coarse grid can step over it).
    """
    plt = pyplot()
    fig_, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    rows, lines = [], []
    gaps_mean = float(np.mean(max(INSTANCE_1) - np.array(INSTANCE_1)))
    for p, (label, swept, values, make_pair) in enumerate(panels):
        pairs = [make_pair(float(v)) for v in values]
        res = run_sweep(fig, label, pairs, horizon, runs, seed)
        ax = axes[0, p]
        for name, finals in res.items():
            xs, pr = np.asarray(values, dtype=float), list(pairs)
            extra = _refine(1.0 / xs, finals.mean(axis=1), horizon, gaps_mean) \
                if p == fit_panel else None
            if extra is not None:  # denser points inside this algorithm's fit window
                new_x = 1.0 / extra
                new_pairs = [make_pair(float(v)) for v in new_x]
                more = run_sweep(fig, label, new_pairs, horizon, runs, seed, (name,),
                                 "refine")[name]
                order = np.argsort(np.concatenate([xs, new_x]))
                xs = np.concatenate([xs, new_x])[order]
                finals = np.concatenate([finals, more])[order]
                pr = [(pr + new_pairs)[i] for i in order]
            m, s = finals.mean(axis=1), finals.std(axis=1, ddof=1)
            ax.errorbar(xs, m, yerr=s, marker="o", ms=3, capsize=2, label=name)
            for (eps, dl), mm, ss in zip(pr, m, s, strict=True):
                rows.append({"figure": fig, "panel": label, "algorithm": name, "epsilon": eps,
                             "delta": dl, "mean_regret": float(mm), "std_regret": float(ss),
                             "runs": runs, "horizon": horizon})
            if p == fit_panel:
                f = slope_fit(1.0 / xs, finals, horizon, gaps_mean, seed=seed)
                refined = (f" ({REFINE_POINTS} points added inside the window)"
                           if extra is not None else "")
                if f["points"] >= 3:
                    lines.append(
                        f"* {label}, {name}: log-log slope of the extra regret against "
                        f"1/{swept} = **{f['slope']:.2f}** (95% bootstrap CI {f['lo']:.2f} .. "
                        f"{f['hi']:.2f}; {f['points']} points{refined}, 1/{swept} from "
                        f"{f['x_min']:.3g} to {f['x_max']:.3g}); paper: about "
                        f"{paper_slopes[name]:g}.")
                else:
                    lines.append(f"* {label}, {name}: fewer than 3 points in the fit window "
                                 "(extra regret >= baseline, regret <= 0.5 T mean gap); no "
                                 "slope.")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(swept)
        ax.set_ylabel(f"regret at T = {horizon}")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=8)
    fig_.suptitle(f"{title} (Instance 1, T = {horizon}, {runs} runs; bars: +- 1 sd)")
    return fig_, rows, lines


Compute = Callable[[int, int, int, bool], tuple[Any, list[dict], str]]


def write_outputs(out_dir: Path, stem: str, fig: Any, rows: list[dict], md: str
                  ) -> list[Path]:
    """Write ``<stem>.png``, ``.csv`` and ``.md`` (the direct-call form of a reproduction)."""
    out_dir = Path(out_dir)
    png = out_dir / f"{stem}.png"
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    pyplot().close(fig)
    md_path = out_dir / f"{stem}.md"
    md_path.write_text(md)
    return [png, write_csv(out_dir / f"{stem}.csv", rows), md_path]


def experiment(name: str, description: str, compute: Compute) -> Experiment:
    """The registry entry (``python -m dpaudit reproduce NAME``) of a reproduction whose
    ``compute(horizon, runs, seed, quick)`` returns ``(figure, rows, markdown)``."""

    def run(settings: ExperimentSettings) -> ExperimentOutput:
        fig, rows, md = compute(settings.horizon, settings.runs, settings.seed, settings.quick)
        if "t" in rows[0]:  # curves: the table keeps the final regret of each panel/algorithm
            rows = [r for r in rows if r["t"] == settings.horizon]
        table = Table(tuple(rows[0]), tuple(tuple(r.values()) for r in rows))
        return ExperimentOutput(fig, table, md)

    return Experiment(name=name, paper="Wang & Zhu 2023", description=description, run=run,
                      horizon=WANG_ZHU_INSTANCE_1.horizon, runs=WANG_ZHU_INSTANCE_1.runs,
                      quick_horizon=10**4, quick_runs=20, min_horizon=len(INSTANCE_2),
                      min_horizon_reason="Instance 2 has 101 arms")
