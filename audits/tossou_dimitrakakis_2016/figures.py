"""Tossou & Dimitrakakis 2016 (AAAI), Figure 6: ``python -m dpaudit reproduce tossou-fig6``.

Four panels: two instances (2 arms 0.9 / 0.6; 10 arms 0.1 x 8, 0.55, 0.2) times two targets
(epsilon 1 and 0.1), 100 runs each, regret over time of DP-UCB-Int, DP-UCB, DP-UCB-Bound,
Private-UCB (Mishra & Thakurta 2015) and the non-private UCB. Settings and choices:

* DP-UCB-Int runs with the paper's printed input epsilons (0.00396431694945 for target 1,
  0.000253053596336 for target 0.1) and v = 1.1, as its legends state;
* the horizon is stripped in the extracted text: default 10^5, the public re-implementations'
  choice (``--horizon`` overrides it; ``--quick``: 10^4 and 20 runs);
* Private-UCB's failure probability is stripped: gamma = 0.1, Azize & Basu 2022's choice.

The summary checks the paper's statements (Sec. 4, figure narration): DP-UCB-Int is the best
private algorithm; Private-UCB performs worse than all others; the best-minus-worst regret over
the runs is under 664.5 for the DP-UCB variants and UCB on two arms.
"""

from __future__ import annotations

import numpy as np

from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCB, DPUCBBound, DPUCBInt
from dpaudit.algorithms.tossou_dimitrakakis_2016.instances import (
    TOSSOU_DIMITRAKAKIS_2016,
    TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS,
    TOSSOU_DIMITRAKAKIS_FIG6_10_ARMS,
)
from dpaudit.registry import all_policies
from dpaudit.sim.experiments import (
    Experiment,
    ExperimentOutput,
    ExperimentSettings,
    Table,
    mean_interval,
)

PAPER = f"{TOSSOU_DIMITRAKAKIS_2016} (AAAI)"
SPREAD_BOUND = 664.5
PRINTED_INPUT = TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS.settings["dp_ucb_int_input_epsilon"]
PRIVATE = ("DP-UCB-Int", "DP-UCB", "DP-UCB-Bound", "Private-UCB")
INSTANCES = (TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS, TOSSOU_DIMITRAKAKIS_FIG6_10_ARMS)


def _algorithms(eps: float, horizon: int) -> list:
    policies = all_policies()  # the baselines (Private-UCB, UCB): from the registry, by name
    return [DPUCBInt(PRINTED_INPUT[eps], v=1.1), DPUCB(eps), DPUCBBound(eps),
            policies["private-ucb"].factory(epsilon=eps, horizon=horizon, gamma=0.1),
            policies["ucb"].factory()]


def statements(final: dict[str, np.ndarray], two_arms: bool) -> list[str]:
    """The paper's Sec. 4 statements for one panel, from each algorithm's final regrets."""
    mean = {n: float(r.mean()) for n, r in final.items()}
    spread = {n: float(np.ptp(r)) for n, r in final.items()}
    best = min(PRIVATE, key=lambda n: mean[n])
    worst_other = max((n for n in mean if n != "Private-UCB"), key=lambda n: mean[n])
    ratio = mean["Private-UCB"] / max(mean[worst_other], 1e-12)
    lines = [
        f"- DP-UCB-Int best of the private algorithms: "
        f"{'holds' if best == 'DP-UCB-Int' else 'does not hold'} (lowest: {best}, "
        f"{mean[best]:.1f})",
        f"- Private-UCB worse than all others: "
        f"{'holds' if mean['Private-UCB'] > mean[worst_other] else 'does not hold'} "
        f"({mean['Private-UCB']:.1f} vs the next worst, {worst_other}, "
        f"{mean[worst_other]:.1f}: ratio {ratio:.2f})",
    ]
    if two_arms:
        ours = {n: spread[n] for n in ("DP-UCB-Int", "DP-UCB", "DP-UCB-Bound", "UCB")}
        ok = all(v < SPREAD_BOUND for v in ours.values())
        lines.append(
            f"- best-minus-worst regret over the runs < {SPREAD_BOUND} for the DP-UCB variants "
            f"and UCB: {'holds' if ok else 'does not hold'} ("
            + ", ".join(f"{n}: {v:.1f}" for n, v in ours.items())
            + f"; Private-UCB: {spread['Private-UCB']:.1f})")
    return lines


def fig6(settings: ExperimentSettings) -> ExperimentOutput:
    """Regret over time in the four panels of Fig. 6 (module docstring)."""
    from matplotlib.figure import Figure

    horizon, runs = settings.horizon, settings.runs
    cps = np.unique(np.round(np.geomspace(10, horizon, 40)).astype(np.int64))
    fig = Figure(figsize=(11, 8), dpi=110)
    axes = fig.subplots(2, 2)
    rows, summary = [], []
    for i, inst in enumerate(INSTANCES):
        for j, eps in enumerate((1.0, 0.1)):
            ax, final = axes[i, j], {}
            for alg in _algorithms(eps, horizon):
                def cell(inst=inst, eps=eps, alg=alg):
                    res = alg.simulate(inst.source(), horizon, runs, checkpoints=cps,
                                       rng=settings.rng("fig6", inst.name, eps, alg.name))
                    return res.regret, res.curve

                regret, curve = settings.cached(("fig6", inst.name, eps, alg.name), cell)
                final[alg.name] = regret
                m, lo, hi = mean_interval(curve)
                label = (f"{alg.name} ({PRINTED_INPUT[eps]:.4g}, 1.1)" if alg.name ==
                         "DP-UCB-Int" else alg.name if alg.name == "UCB" else
                         f"{alg.name} ({eps:g})")
                ax.plot(cps, m, label=label)
                ax.fill_between(cps, lo, hi, alpha=0.2)
                fm, flo, fhi = (float(x) for x in mean_interval(regret))
                rows.append((f"{inst.n_arms} arms", eps, alg.name, round(fm, 1),
                             round(flo, 1), round(fhi, 1), round(float(regret.min()), 1),
                             round(float(regret.max()), 1),
                             round(float(np.ptp(regret)), 1)))
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("time step")
            ax.set_ylabel("average regret")
            ax.set_title(f"{inst.n_arms} arms, eps = {eps:g} (shaded: 95% Student-t "
                         "interval of the mean)", fontsize=9)
            ax.legend(fontsize=7)
            summary += [f"{inst.n_arms} arms, eps = {eps:g}:",
                        *statements(final, inst.n_arms == 2), ""]
    fig.suptitle(f"{PAPER}, Fig. 6 (T = {horizon}, {runs} runs)")
    table = Table(("instance", "epsilon", "algorithm", "mean regret at T", "95% CI low",
                   "95% CI high", "best run", "worst run", "best-minus-worst"), tuple(rows))
    notes = ["T is stripped in the paper's text (10^5 is the public re-implementations' "
             "choice); Private-UCB gamma = 0.1 (Azize & Basu 2022's choice; the paper's is "
             "stripped); DP-UCB-Int runs with the printed input epsilons and v = 1.1.", "",
             "Paper's statements (Sec. 4, figure narration, not theorems):", ""]
    return ExperimentOutput(fig, table, "\n".join(notes + summary))


EXPERIMENTS = [
    Experiment(name="tossou-fig6", paper=PAPER,
               description="Figure 6: regret over time of DP-UCB-Int, DP-UCB, DP-UCB-Bound, "
                           "Private-UCB and UCB (2 and 10 arms; eps 1 and 0.1)",
               run=fig6, horizon=10**5, runs=TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS.runs,
               quick_horizon=10**4, quick_runs=20, min_horizon=20,
               min_horizon_reason="every arm needs a few pulls before any index is defined"),
]
