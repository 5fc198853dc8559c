"""Reproduction ``tossou-fig6``: Tossou & Dimitrakakis 2016, Sec. 4, Figure 6.

Four panels: two instances (2 arms 0.9 / 0.6; 10 arms 0.1 x 8, 0.55, 0.2) times two targets
(epsilon 1 and 0.1), 100 runs each, regret over time of DP-UCB-Int, DP-UCB, DP-UCB-Bound,
Private-UCB and the non-private UCB. Settings and choices:

* DP-UCB-Int runs with the paper's printed input epsilons (0.00396431694945 for target 1,
  0.000253053596336 for target 0.1) and v = 1.1, as the legends state;
* the horizon is stripped in the extracted text: default 10^5, the public re-implementations'
  choice (``horizon`` overrides it);
* Private-UCB's failure probability is stripped: gamma = 0.1, Azize & Basu 2022's choice.

The paper's statements checked in the table: DP-UCB-Int is the best private algorithm;
Private-UCB performs worse than all others; the best-minus-worst regret over the 100 runs is
under 664.5 for the DP-UCB variants and UCB on two arms (much larger for Private-UCB).
Writes ``tossou_fig6.png``, ``tossou_fig6.csv`` and ``tossou_fig6.md``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from dpaudit.algorithms.dp_ucb import DPUCB, DPUCBBound, DPUCBInt
from dpaudit.algorithms.papers import (
    TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS,
    TOSSOU_DIMITRAKAKIS_FIG6_10_ARMS,
)
from dpaudit.algorithms.private_ucb import PrivateUCB
from dpaudit.algorithms.ucb import UCB
from dpaudit.rng import generator
from dpaudit.validation import check_int

NAME = "tossou-fig6"
AUDITS: list = []  # a reproduction, not a check (registry: no audit here)
DEFAULT_HORIZON = 10**5
SPREAD_BOUND = 664.5
PRINTED_INPUT = TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS.settings["dp_ucb_int_input_epsilon"]
PRIVATE = ("DP-UCB-Int", "DP-UCB", "DP-UCB-Bound", "Private-UCB")


def _algorithms(eps: float, horizon: int) -> list:
    return [DPUCBInt(PRINTED_INPUT[eps], v=1.1), DPUCB(eps), DPUCBBound(eps),
            PrivateUCB(eps, horizon=horizon, gamma=0.1), UCB()]


def _panel(instance, eps: float, horizon: int, runs: int, seed: int, cps: np.ndarray) -> dict:
    out = {}
    for alg in _algorithms(eps, horizon):
        res = alg.simulate(instance.source(), horizon, runs,
                           rng=generator(seed, NAME, instance.name, eps, alg.name),
                           checkpoints=cps)
        out[alg.name] = res
    return out


def _statements(panel: dict, two_arms: bool) -> list[str]:
    final = {name: float(r.regret.mean()) for name, r in panel.items()}
    spread = {name: float(np.ptp(r.regret)) for name, r in panel.items()}
    best_private = min(PRIVATE, key=lambda n: final[n])
    others = [n for n in final if n != "Private-UCB"]
    worst_other = max(others, key=lambda n: final[n])
    lines = [
        f"- DP-UCB-Int best of the private algorithms: "
        f"{'holds' if best_private == 'DP-UCB-Int' else 'does not hold'} (lowest: "
        f"{best_private}, {final[best_private]:.1f})",
        f"- Private-UCB worse than all others: "
        f"{'holds' if final['Private-UCB'] > final[worst_other] else 'does not hold'} "
        f"({final['Private-UCB']:.1f} vs the next worst, {worst_other}, "
        f"{final[worst_other]:.1f}: ratio {final['Private-UCB'] / final[worst_other]:.2f})",
    ]
    if two_arms:
        ours = {n: spread[n] for n in ("DP-UCB-Int", "DP-UCB", "DP-UCB-Bound", "UCB")}
        ok = all(v < SPREAD_BOUND for v in ours.values())
        lines.append(
            f"- best-minus-worst regret over the runs < {SPREAD_BOUND} for the DP-UCB "
            f"variants and UCB: {'holds' if ok else 'does not hold'} ("
            + ", ".join(f"{n}: {v:.1f}" for n, v in ours.items())
            + f"; Private-UCB: {spread['Private-UCB']:.1f})")
    return lines


def run(out_dir: Path, *, quick: bool = False, horizon: int | None = None,
        runs: int | None = None, seed: int = 0) -> list[Path]:
    """Run the four panels and write the PNG, CSV and Markdown; returns their paths.

    ``quick``: T = 10^4 and 20 runs (under a minute) unless given.
    """
    out = Path(out_dir)
    horizon = check_int("horizon", horizon if horizon is not None else
                        (10**4 if quick else DEFAULT_HORIZON), low=10)
    runs = check_int("runs", runs if runs is not None else (20 if quick else 100), low=1)
    seed = check_int("seed", seed, low=0)
    cps = np.unique(np.round(np.geomspace(10, horizon, 40)).astype(np.int64))
    instances = (TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS, TOSSOU_DIMITRAKAKIS_FIG6_10_ARMS)
    panels = {(inst.name, eps): _panel(inst, eps, horizon, runs, seed, cps)
              for inst in instances for eps in (1.0, 0.1)}
    return [_plot(out, panels, cps, horizon, runs), _csv(out, panels, cps),
            _markdown(out, panels, horizon, runs, seed)]


def _plot(out: Path, panels: dict, cps: np.ndarray, horizon: int, runs: int) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for ax, ((inst, eps), panel) in zip(axes.ravel(), panels.items(), strict=True):
        for name, res in panel.items():
            label = f"{name} ({PRINTED_INPUT[eps]:.4g}, 1.1)" if name == "DP-UCB-Int" else \
                name if name == "UCB" else f"{name} ({eps:g})"
            ax.plot(cps, res.curve.mean(axis=0), label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("time step")
        ax.set_ylabel("average regret")
        ax.set_title(f"eps = {eps:g}, {inst.split('(')[-1].rstrip(')')}", fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(f"Tossou & Dimitrakakis 2016, Fig. 6 (T = {horizon}, {runs} runs)")
    fig.tight_layout()
    path = out / "tossou_fig6.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _csv(out: Path, panels: dict, cps: np.ndarray) -> Path:
    path = out / "tossou_fig6.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["instance", "epsilon", "algorithm", "t", "mean_regret", "std_regret"])
        for (inst, eps), panel in panels.items():
            for name, res in panel.items():
                for j, t in enumerate(cps):
                    col = res.curve[:, j]
                    w.writerow([inst, eps, name, int(t), f"{col.mean():.4f}",
                                f"{col.std(ddof=1) if col.size > 1 else 0.0:.4f}"])
    return path


def _markdown(out: Path, panels: dict, horizon: int, runs: int, seed: int) -> Path:
    lines = [f"# Tossou & Dimitrakakis 2016, Figure 6: T = {horizon}, {runs} runs, seed {seed}",
             "", "T is stripped in the paper's text (10^5 is the public re-implementations' "
             "choice); Private-UCB gamma = 0.1 (Azize & Basu 2022's choice; the paper's is "
             "stripped); DP-UCB-Int with the printed input epsilons and v = 1.1.", ""]
    for (inst, eps), panel in panels.items():
        lines += [f"## {inst}, epsilon = {eps:g}", "",
                  "| algorithm | mean regret at T | std | best run | worst run | "
                  "best-minus-worst |", "|---|---|---|---|---|---|"]
        for name, res in panel.items():
            r = res.regret
            lines.append(f"| {name} | {r.mean():.1f} | {r.std(ddof=1) if r.size > 1 else 0:.1f}"
                         f" | {r.min():.1f} | {r.max():.1f} | {np.ptp(r):.1f} |")
        lines += ["", "Paper's statements (Sec. 4, figure narration):", "",
                  *_statements(panel, "2 arms" in inst), ""]
    path = out / "tossou_fig6.md"
    path.write_text("\n".join(lines))
    return path


if __name__ == "__main__":  # pragma: no cover - manual use until the CLI registers it
    import sys

    for p in run(Path(sys.argv[1] if len(sys.argv) > 1 else "."),
                 quick="--quick" in sys.argv):
        print(f"wrote {p}")
