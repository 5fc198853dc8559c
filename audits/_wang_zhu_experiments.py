"""Shared machinery of the Wang & Zhu (2023) Section-8 reproductions (Figures 4-7).

The algorithms every figure may draw are listed once, in :data:`ALGORITHMS` (name ->
factory ``(epsilon, delta, horizon) -> policy``). The DP-UCB family of Tossou & Dimitrakakis
(2016) is looked up in ``dpaudit.algorithms.dp_ucb`` and drawn when that module exists; when it
does not, the figures say so in their Markdown and draw the rest. Adding an algorithm is one
line here.

Instances (Section 8): Instance 1, 9 Bernoulli arms ``0.30, 0.35, ..., 0.70``; Instance 2,
101 arms ``mu_i = 0.3 + 0.004 (i - 1)``. ``T = 10^5`` and 100 runs in the paper (``--quick``:
``T = 10^4``, 20 runs).
"""

from __future__ import annotations

import csv
import importlib
import inspect
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from dpaudit.algorithms._episodic import BernoulliRewards, checkpoint_grid
from dpaudit.algorithms.dp_se import DPSE
from dpaudit.algorithms.ftpl import DPFTPLNew
from dpaudit.algorithms.ftpl_gauss_beta import DPFTPLBeta, DPFTPLGauss
from dpaudit.rng import generator

INSTANCE_1 = tuple(round(0.30 + 0.05 * i, 2) for i in range(9))
INSTANCE_2 = tuple(round(0.3 + 0.004 * i, 3) for i in range(101))
INSTANCES = {"Instance 1": INSTANCE_1, "Instance 2": INSTANCE_2}


def _dp_ucb(name: str) -> Callable | None:
    try:
        module = importlib.import_module("dpaudit.algorithms.dp_ucb")
    except ModuleNotFoundError:
        return None
    cls = getattr(module, name, None)
    if cls is None:
        return None
    if name == "DPUCBInt":
        return lambda eps, dl, t: cls.for_target(eps, dl)
    return lambda eps, dl, t: cls(eps, horizon=t)


ALGORITHMS: dict[str, Callable | None] = {
    "DP-FTPL-Gauss": lambda eps, dl, t: DPFTPLGauss(eps, dl, horizon=t),
    "DP-FTPL-Gauss (tight)": lambda eps, dl, t: DPFTPLGauss(eps, dl, horizon=t,
                                                           start_phase="tight"),
    "DP-FTPL-Beta": lambda eps, dl, t: DPFTPLBeta(eps, dl, horizon=t),
    "DP-FTPL-Beta (tight)": lambda eps, dl, t: DPFTPLBeta(eps, dl, horizon=t,
                                                         start_phase="tight"),
    "DP-FTPL-New": lambda eps, dl, t: DPFTPLNew(eps, dl, t),
    "DP-SE": lambda eps, dl, t: DPSE(eps),
    "DP-UCB": _dp_ucb("DPUCB"),
    "DP-UCB-Bound": _dp_ucb("DPUCBBound"),
    "DP-UCB-Int": _dp_ucb("DPUCBInt"),
}


def settings(quick: bool, horizon: int | None, runs: int | None) -> tuple[int, int]:
    return (horizon or (10**4 if quick else 10**5)), (runs or (20 if quick else 100))


def simulate(name: str, epsilon: float, delta: float, means: Sequence[float], horizon: int,
             runs: int, rng: np.random.Generator, marks: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Final regret per run and regret at ``marks`` (runs x marks) of one algorithm."""
    alg = ALGORITHMS[name](epsilon, delta, horizon)
    params = list(inspect.signature(alg.simulate).parameters)
    if params[0] == "means":  # DP-FTPL-New before its port to the Policy protocol
        return alg.simulate(means, runs, rng, checkpoints=tuple(int(m) for m in marks))
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
        rng = generator(seed, fig, panel, name)
        regret, curve = simulate(name, epsilon, delta, means, horizon, runs, rng, marks)
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
    """Log-log slope of mean regret against ``x`` (``1/delta`` or ``1/eps``) with a 95% CI.

    Fit window, fixed in advance: points whose mean regret is at least 3 times the value at
    the smallest ``x`` (the privacy term dominates) and at most 0.3 ``T`` times the mean gap
    (the horizon does not cap it). The interval is a percentile bootstrap over runs
    (resampling runs at every point independently), ``boot`` resamples.
    """
    mean = regrets.mean(axis=1)
    base = mean[np.argmin(x)]
    use = (mean >= 3 * base) & (mean <= 0.3 * horizon * gaps_mean)
    if use.sum() < 3:
        return {"slope": math.nan, "lo": math.nan, "hi": math.nan, "points": int(use.sum())}
    lx = np.log(x[use])
    slope = float(np.polyfit(lx, np.log(mean[use]), 1)[0])
    rng = np.random.default_rng(seed)
    sub = regrets[use]
    idx = rng.integers(0, sub.shape[1], size=(boot, sub.shape[1]))
    slopes = np.empty(boot)
    for b in range(boot):
        slopes[b] = np.polyfit(lx, np.log(sub[:, idx[b]].mean(axis=1)), 1)[0]
    lo, hi = np.percentile(slopes, [2.5, 97.5])
    return {"slope": slope, "lo": float(lo), "hi": float(hi), "points": int(use.sum()),
            "x_min": float(x[use].min()), "x_max": float(x[use].max())}


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


def plot_panels(path: Path, panels: Sequence[str], rows: list[dict], drawn: Sequence[str],
                title: str, *, logy: bool = False) -> Path:
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
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
