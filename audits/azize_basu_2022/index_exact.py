"""AdaP-UCB's index (Azize & Basu 2022, Eq. 7): the exact probability that it falls below the
arm's mean, against what the proof of Theorem 7 needs, and the regret ratio at stable run counts.

``python -m dpaudit reproduce adap-ucb-index-exact``.

What the paper says. Theorem 7 (sufficient: an upper bound on regret for every instance and
every eps) rests on the index being optimistic with high probability: Remark 1, "the real mean
is smaller than the optimistic index with high probability, i.e. with probability
``1 - 1/t^alpha`` at step ``t``", and Example 2 ("a high probability upper bound of the real
mean mu_1 with confidence ``t_4^-alpha``"). The index uses the last episode's ``m = N_a / 2``
rewards and ``Lap(1 / (eps m))`` noise (Lemma 1); the published Eq. (7) puts the privacy term
``alpha ln t / (eps m)`` inside the square root, an earlier version outside it
(:class:`~dpaudit.algorithms.azize_basu_2022.adap.AdaPUCB`, parameter ``bonus``).

What is computed (no sampling). For Bernoulli rewards with mean ``mu`` the failure probability
of the step is an exact finite sum,

    P(I < mu) = sum_k Binom(k; m, mu) * F_Lap(mu - B(m, t) - k / m; scale 1 / (eps m)),

with ``B`` the reading's bonus. Its ratio to the proof's budget ``t^-alpha`` is reported, the
worst case over the dyadic episode sizes ``m = 1, 2, 4, ..`` (``m <= t``) and a grid of means;
a ratio above 1 means the step the proof uses fails there. The first episodes (``m = 1``) are
where the printed reading fails most: its bonus ``sqrt(alpha ln t / 2 + alpha ln t / eps)``
is far below the Laplace deviation ``alpha ln t / eps`` the noise reaches with probability
``t^-alpha / 2``.

The regret part re-runs AdaP-UCB (printed reading) on Theorem 7's two-arm instance at the
epsilons where the earlier finding's 50-run intervals straddled the bound, with 50, 200 and
1000 runs, so a reader sees whether the ratio to the bound is stable at the run count where it
is quoted (Student-t interval of the mean; regret is heavy-tailed, so the interval is read as
indicative, and a ratio is quoted only where the intervals at 200 and 1000 runs agree on its
side of 1).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from dpaudit.algorithms.azize_basu_2022.adap import AdaPUCB
from dpaudit.algorithms.azize_basu_2022.bounds import thm7_adap_ucb_upper
from dpaudit.audits.azize_basu_2022.findings import PAPER, THM7_INSTANCE, THM7_MEANS
from dpaudit.sim.experiments import (
    Experiment,
    ExperimentOutput,
    ExperimentSettings,
    Table,
    mean_interval,
    new_figure,
)
from dpaudit.stats.evidence import ExperimentEvidence, Measurement
from dpaudit.validation import check_choice, check_int, check_real

ALPHA = 3.1
BONUSES = ("printed", "outside")
MEANS = (0.05, 0.25, 0.5, 0.75, 0.95)
STEPS = (10**3, 10**5, 10**7)
#: epsilons of the regret part: where 50-run intervals straddled Theorem 7's bound
REGRET_EPS = (0.19, 0.29, 0.45, 0.71)
RUN_COUNTS = (50, 200, 1000)
WINDOW = 12.0


def bonus(reading: str, m: int, t: float, epsilon: float, alpha: float = ALPHA) -> float:
    """AdaP-UCB's bonus with ``m`` rewards in the last episode at step ``t`` (Eq. 7)."""
    conf = alpha * math.log(t) / m
    priv = alpha * math.log(t) / (epsilon * m)
    if check_choice("reading", reading, BONUSES) == "outside":
        return math.sqrt(0.5 * conf) + priv
    return math.sqrt(0.5 * conf + priv)


def failure_probability(mu: float, m: int, t: float, epsilon: float, reading: str, *,
                        alpha: float = ALPHA) -> float:
    """Exact ``P(I < mu)`` for Bernoulli(``mu``) rewards (module docstring)."""
    mu = check_real("mu", mu, low=0.0, high=1.0)
    m = check_int("m", m, low=1)
    # the sum runs over k within WINDOW sqrt(m) of m mu; by Hoeffding the left-out binomial
    # mass is at most 2 exp(-2 WINDOW^2) = 1.2e-125, under 1e-102 of the smallest budget
    # t^-alpha used here (t <= 1e7), so the ratio is exact to double precision
    half = math.ceil(WINDOW * math.sqrt(m))
    k = np.arange(max(0, math.floor(m * mu) - half), min(m, math.ceil(m * mu) + half) + 1)
    pmf = stats.binom.pmf(k, m, mu)
    x = mu - bonus(reading, m, t, epsilon, alpha) - k / m
    return float(np.sum(pmf * stats.laplace.cdf(x, scale=1.0 / (epsilon * m))))


def worst_ratio(t: float, epsilon: float, reading: str) -> tuple[float, int, float, int | None]:
    """``(ratio, m, mu, m_holds)``: the largest ``P(I < mu) / t^-alpha`` over the dyadic
    ``m <= t`` and :data:`MEANS`, where it is reached, and the smallest ``m`` from which the
    ratio stays at most 1 for every larger ``m`` of the grid (``None``: never)."""
    sizes = [2**j for j in range(int(math.log2(t)) + 1)]
    per_m = []
    for m in sizes:
        ratios = [failure_probability(mu, m, t, epsilon, reading) / t ** -ALPHA for mu in MEANS]
        j = int(np.argmax(ratios))
        per_m.append((ratios[j], m, MEANS[j]))
    ratio, m, mu = max(per_m)
    holds = None
    for r, size, _ in reversed(per_m):
        if r > 1.0:
            break
        holds = size
    return ratio, m, mu, holds


def _regret_rows(settings: ExperimentSettings) -> list[tuple[object, ...]]:
    horizon = settings.horizon
    env = THM7_INSTANCE.source()
    rows: list[tuple[object, ...]] = []
    most = settings.runs
    for eps in REGRET_EPS:
        regret = settings.cached(("regret", f"{eps:g}", most), lambda e=eps: AdaPUCB(
            e, bonus="printed").simulate(env, horizon, most,
                                         rng=settings.rng("regret", f"{e:g}")).regret)
        bound = thm7_adap_ucb_upper(THM7_MEANS, horizon, eps)
        for runs in sorted({r for r in RUN_COUNTS if r < most} | {most}):
            m, lo, hi = (float(x) for x in mean_interval(np.asarray(regret)[:runs]))
            side = "above" if lo > bound else ("below" if hi < bound else "straddles")
            rows.append((eps, runs, m / bound, lo / bound, hi / bound, side,
                         float(np.mean(np.asarray(regret)[:runs])),
                         float(np.std(np.asarray(regret)[:runs], ddof=1)), bound))
    return rows


def index_experiment(settings: ExperimentSettings) -> ExperimentOutput:
    grid = np.geomspace(0.05, 10.0, 7 if settings.quick else 13)
    rows: list[tuple[object, ...]] = []
    for eps in grid:
        for t in STEPS:
            for reading in BONUSES:
                ratio, m, mu, holds = settings.cached(
                    ("exact", f"{eps:.6g}", t, reading),
                    lambda e=float(eps), tt=t, r=reading: worst_ratio(tt, e, r))
                rows.append((round(float(eps), 4), t, reading, ratio, m, mu,
                             "-" if holds is None else holds))
    regret_rows = _regret_rows(settings)
    fig, ax = new_figure()
    for reading, style in zip(BONUSES, ("-", "--"), strict=True):
        for t in STEPS:
            ys = [r[3] for r in rows if r[1] == t and r[2] == reading]
            ax.plot(grid, ys, style, marker="o", markersize=3,
                    label=f'bonus="{reading}", t = {t:.0e}')
    ax.axhline(1.0, color="k", linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("max P(index < mean) / t^-alpha")
    ax.set_title("AdaP-UCB: exact failure probability of the index against the proof's budget",
                 fontsize=9)
    ax.legend(fontsize=6)
    table = Table(("epsilon", "t", "reading", "worst P(I<mu)/t^-alpha", "at m", "at mu",
                   "holds from m"), tuple(rows))
    fails = {r: [row[0] for row in rows if row[2] == r and row[3] > 1.0] for r in BONUSES}
    worst_out = max(row[3] for row in rows if row[2] == "outside")
    regret_lines = [f"  eps = {e:g}, {n} runs: mean regret / bound = {m:.3g} "
                    f"(95% t-interval {lo:.3g} .. {hi:.3g}): {side}"
                    for e, n, m, lo, hi, side, *_ in regret_rows]
    most = max(r[1] for r in regret_rows)
    evidence = ExperimentEvidence(
        "Theorem 7's proof step (Remark 1): P(index < mean) <= t^-alpha for the printed Eq. (7); "
        "and Theorem 7's regret bound",
        tuple(Measurement(f"printed index, eps = {row[0]:g}, t = {row[1]:.0e}: worst "
                          "P(I < mu) / t^-alpha", 1.0, float(row[3]), 0, direction="at most",
                          note="exact finite sum, no sampling")
              for row in rows if row[2] == "printed")
        + tuple(Measurement(f"regret at T, eps = {r[0]:g}, {r[1]} runs", float(r[8]),
                            float(r[6]), int(r[1]), direction="at most", std=float(r[7]))
                for r in regret_rows if r[1] == most))
    summary = "\n".join([
        "**Claim.** Theorem 7 (sufficient): AdaP-UCB's regret is at most sum_a 16 alpha / "
        "min(Delta_a, eps) ln T + 3 alpha/(alpha - 3). Its proof uses (Remark 1) that the index "
        "exceeds the mean except with probability t^-alpha.",
        f"**Exact.** The printed index breaks that step (ratio > 1) at "
        f"{len(set(fails['printed']))} of {grid.size} epsilons of the grid (from "
        f"{min(fails['printed']) if fails['printed'] else '-'} to "
        f"{max(fails['printed']) if fails['printed'] else '-'}), always in the first episodes "
        "(small m); the reading with the privacy term outside the root never does (largest "
        f"ratio {worst_out:.3g}).",
        "**Regret at stable run counts** (printed reading, Theorem 7's instance "
        f"{THM7_MEANS}, T = {settings.horizon}):", *regret_lines,
        "**Reading.** A failed proof step does not by itself make the regret exceed the bound: "
        "the failures sit in the first episodes, whose cost the bound's ln T term can absorb "
        "at large eps. Where the regret intervals at 200 and 1000 runs both lie above the "
        "bound, Theorem 7 as printed is contradicted on this instance; where they straddle, "
        "the measurement cannot say.",
    ])
    return ExperimentOutput(fig, table, summary, evidence=evidence,
                            verdict="the proof's concentration step, exactly, for both "
                                    "readings of Eq. (7)")


EXPERIMENTS = [
    Experiment(name="adap-ucb-index-exact", paper=PAPER,
               description="AdaP-UCB: exact P(index < mean) against the proof's t^-alpha over "
                           "eps in [0.05, 10], both readings of Eq. (7); regret ratio at 50, "
                           "200 and 1000 runs",
               run=index_experiment, horizon=10**7, runs=1000, quick_horizon=10**6,
               quick_runs=200),
]

__all__ = ["EXPERIMENTS", "bonus", "failure_probability", "index_experiment", "worst_ratio"]
