"""Rate tests: a regret theorem stated as an order (``O(log T)``, ``O~(T^(3/4))``, ...) tested as
a growth rate over decades of ``T``.

An order with unstated constants says nothing at one horizon: any finite regret is below
``C f(T)`` for a large enough ``C``. What it does say is how regret grows: past the point where
the order's asymptotics hold, the regret added per decade of ``T`` grows no faster than what
``f`` adds per decade. That is what a rate test measures, on one fixed instance and setting,
over decades ``T_0 < T_1 = 10 T_0 < ... < T_S = 10^S T_0`` (``S >= 3``) fixed in advance:

* every run is one simulation to ``T_S``, its pseudo-regret read at each ``T_j``;
* the regret added in decade ``j`` by one run, ``R(T_j) - R(T_{j-1})``, lies in ``[0, (T_j -
  T_{j-1}) * max gap]`` (pseudo-regret does not decrease, and no step costs more than the
  largest gap), so its mean ``I_j`` has an anytime-valid interval (the betting confidence
  sequence of :mod:`dpaudit.stats.sequential`, on that known range);
* the *local constant* of decade ``j`` is ``c_j = I_j / (f(T_j) - f(T_{j-1}))``: for regret
  ``C f(T) + o(f)`` it tends to ``C``; for regret growing like ``f(T) T^g`` it grows by
  ``10^g`` per decade;
* the compared cell is ``c_S / c_1`` (the last decade against the first), the ratio of two
  means of the same runs scaled by the known ``(f(T_1) - f(T_0)) / (f(T_S) - f(T_{S-1}))``,
  its interval the union bound of the two means' intervals at half the cell's share each
  (:meth:`~dpaudit.stats.evidence.Measurement.of_ratio` with ``scale``; the two means need not
  be independent). The statement allows ``c_S / c_1 <= RATE_FACTOR = 2``.

The decision (by :func:`dpaudit.stats.evidence.decide_experiment`, alpha split over the cells):
**reproduced** when the upper limit of ``c_S / c_1`` is at most 2 (the regret added per unit of
the order's growth at most doubled from the first decade to the last); **not reproduced** when
its lower limit is above 2 (it more than doubled: over ``S - 1`` decades that is a growth faster
than the order by ``T^(log10(2) / (S - 1))``, ``T^0.15`` for three decades); else INCONCLUSIVE
with the runs that would settle it. Wording: it is the growth *over the measured decades*; an
order is asymptotic, so a "not reproduced" says the regret had not reached the order's regime
by ``T_S`` or does not have it, and a "reproduced" says nothing beyond ``T_S``. The factor 2
also lets one log factor through (``f log T`` against ``f`` over ``10^3 .. 10^6`` is about
1.6): the order is read with the log factors the theorem prints (in ``order``), and hidden ones
(``O~``) of degree one are within the margin, higher ones are not.

Why the first and last decades, not the level ``R(T) / f(T)``: regret of an order-``log T``
algorithm approaches ``C log T`` from below (the ratio ``R / log T`` grows for decades while the
algorithm still explores), so a rule on the level would call a correct algorithm too fast. The
local constant of a log-``T`` algorithm is flat or falls once its first phase is over, and the
rule compares the last decade with the first one it measured.

Algorithms tuned to the horizon (a step size ``T^(-2/3)``, a radius ``log T / T``: Zheng et al.
2020's): the theorem bounds the regret at ``T`` of the algorithm tuned to ``T``, which one run
tuned to ``T_S`` and read at ``T_j`` is not. Each ``T_j`` is then its own simulation (``runs``
runs tuned to ``T_j``, fresh seeds), the local constant of a decade is ``(mean R(T_j) - mean
R(T_{j-1})) / (f(T_j) - f(T_{j-1}))``, and the cell's interval is the union bound of the four
means' intervals (each at a quarter of the cell's share:
:meth:`~dpaudit.stats.evidence.Measurement.of_difference_ratio`).

Runs added while undecided: the cells keep their runs, so ``reproduce NAME --max-runs N`` adds
doubling batches with fresh seeds until they decide (:mod:`dpaudit.runtime.batches`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.experiments import Experiment, ExperimentOutput, ExperimentSettings, Table, new_figure
from dpaudit.registry import all_policies
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.stats.evidence import ExperimentEvidence, Measurement, decide_experiment

__all__ = ["RATE_FACTOR", "RateAlgorithm", "RateTest", "curve_of", "log_order",
           "policy_rate", "power_order", "rate_experiment"]

#: the most the local constant may grow from the first decade to the last (module docstring)
RATE_FACTOR = 2.0
ALPHA = 0.05

#: ``simulate(horizons, runs, rng) -> (runs, len(horizons))`` pseudo-regret at each horizon
#: (of one simulation per run to the last horizon)
Simulate = Callable[[Sequence[int], int, np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class RateAlgorithm:
    """One algorithm under a rate test: ``label``, ``simulate`` (see :data:`Simulate`) and
    ``max_gap``, the most one step can add to a run's pseudo-regret (the known range)."""

    label: str
    simulate: Simulate
    max_gap: float


@dataclass(frozen=True)
class RateTest:
    """A theorem's order tested as a growth rate (module docstring).

    ``order`` is the order in words (``"log T"``), ``f`` its function of ``T`` (with the log
    factors the theorem prints); ``decades``: ``(T_0, S)``, the first horizon and the number of
    decades; ``quick_decades`` the same for ``--quick``. ``setting`` names the instance and the
    privacy parameters; ``statement`` quotes what the paper states; ``note``: what the reader
    should know (why this instance or eps, what a larger budget would add).
    """

    name: str
    paper: str
    statement: str
    order: str
    f: Callable[[float], float]
    algorithms: tuple[RateAlgorithm, ...]
    decades: tuple[int, int]
    quick_decades: tuple[int, int]
    runs: int
    quick_runs: int
    setting: str
    note: str = ""
    #: the algorithms take the horizon as a parameter (a step size or radius tuned to ``T``):
    #: each ``T_j`` is then its own simulation, tuned to ``T_j``, and the local constants are
    #: differences of mean regrets at the ends of a decade (module docstring)
    tuned: bool = False


def curve_of(make: Callable[[], Any], source: Callable[[], Any]) -> Simulate:
    """A :data:`Simulate` for an algorithm built by ``make()`` whose ``simulate(source, T,
    runs, rng=..., checkpoints=...)`` returns a
    :class:`~dpaudit.sim.bandits.SimulationResult` (every simulator of dpaudit does): one
    simulation per run to the last horizon, read at each horizon."""
    def simulate(ts: Sequence[int], runs: int, rng: np.random.Generator) -> np.ndarray:
        res = make().simulate(source(), int(ts[-1]), runs, rng=rng, checkpoints=list(ts))
        where = {int(c): j for j, c in enumerate(np.asarray(res.checkpoints))}
        return np.asarray(res.curve, dtype=float)[:, [where[int(t)] for t in ts]]
    return simulate


def policy_rate(name: str, means: Sequence[float], label: str = "",
                **overrides: Any) -> RateAlgorithm:
    """The registered policy ``name`` (its factory with ``overrides``) on Bernoulli arms
    ``means``; a step costs at most ``max(means) - min(means)``."""
    mu = tuple(float(m) for m in means)

    def make() -> Any:
        return all_policies()[name].factory(**overrides)

    return RateAlgorithm(label or name, curve_of(make, lambda: BernoulliRewards(mu)),
                         max(mu) - min(mu))


def log_order(t: float) -> float:
    """``f(T) = ln T``."""
    return math.log(t)


def power_order(a: float, log_power: float = 0.0, shift: float = 1.0
                ) -> Callable[[float], float]:
    """``f(T) = T^a (ln(shift T))^log_power``."""
    def f(t: float) -> float:
        return float(t) ** a * (math.log(shift * float(t)) ** log_power if log_power else 1.0)
    return f


def _horizons(first: int, decades: int) -> list[int]:
    return [int(first * 10**j) for j in range(decades + 1)]


def rate_experiment(test: RateTest) -> Experiment:
    """The registry entry of ``test``: ``python -m dpaudit reproduce NAME``; ``--horizon``
    sets the last horizon ``T_S`` (the decades keep their number: ``T_0 = T_S / 10^S``)."""
    first, n_dec = test.decades
    q_first, q_dec = test.quick_decades

    def run(settings: ExperimentSettings) -> ExperimentOutput:
        dec = q_dec if settings.quick else n_dec
        top = settings.horizon
        if top % 10**dec or top // 10**dec < 1:
            raise ValueError(f"horizon={top} must be a multiple of 10^{dec} (the decades of "
                             f"{test.name})")
        return _run(test, settings, _horizons(top // 10**dec, dec))

    t_top = first * 10**n_dec
    return Experiment(name=test.name, paper=test.paper,
                      description=f"rate test: regret against {test.order} over "
                                  f"{n_dec} decades of T ({test.setting})",
                      run=run, horizon=t_top, runs=test.runs,
                      quick_horizon=q_first * 10**q_dec, quick_runs=test.quick_runs,
                      min_horizon=10**n_dec,
                      min_horizon_reason=f"the test needs {n_dec} decades of T")


def _run(test: RateTest, settings: ExperimentSettings, ts: list[int]) -> ExperimentOutput:
    runs = settings.runs
    f = [test.f(float(t)) for t in ts]
    df = [f[j] - f[j - 1] for j in range(1, len(ts))]
    if not all(d > 0 for d in df):
        raise ValueError(f"the order {test.order} must increase over the decades {ts}")
    scale = df[0] / df[-1]
    rows, cells, lines = [], [], []
    fig, ax_level = new_figure(figsize=(10.0, 4.2))
    ax_level.remove()
    ax_level, ax_local = fig.subplots(1, 2)
    for alg in test.algorithms:
        key = ("rate", alg.label, tuple(ts))

        def cell(alg: RateAlgorithm = alg, key: tuple = key) -> np.ndarray:
            return np.asarray(alg.simulate(ts, runs, settings.rng(*map(str, key))), float)

        if test.tuned:
            def tuned_cell(alg: RateAlgorithm = alg, key: tuple = key) -> np.ndarray:
                cols = [np.asarray(alg.simulate([t], runs, settings.rng(*map(str, key), t)),
                                   float).reshape(runs) for t in ts]
                return np.stack(cols, axis=1)

            reg = np.asarray(settings.cached(key, tuned_cell), dtype=float).reshape(runs,
                                                                                   len(ts))
            inc = np.diff(reg, axis=1)  # of independent runs: per run, descriptive only
            label = (f"{alg.label}: local constant over T in [{ts[-2]:g}, {ts[-1]:g}] / over "
                     f"[{ts[0]:g}, {ts[1]:g}] (order {test.order}; each horizon its own runs, "
                     f"tuned to it)")
            cols = (len(ts) - 1, len(ts) - 2, 1, 0)
            m = Measurement.of_difference_ratio(
                label, RATE_FACTOR, [reg[:, j] for j in cols],
                [(0.0, ts[j] * alg.max_gap) for j in cols], direction="at most", scale=scale,
                note=f"(mean R(T_S) - mean R(T_S-1)) / (mean R(T_1) - mean R(T_0)), each "
                     f"regret in [0, T x {alg.max_gap:.6g}]; scale (f(T_1) - f(T_0)) / "
                     f"(f(T_S) - f(T_S-1)) = {scale:.6g}")
        else:
            reg = np.asarray(settings.cached(key, cell), dtype=float).reshape(runs, len(ts))
            inc = np.diff(reg, axis=1)
            if float(inc.min(initial=0.0)) < -1e-9 * max(1.0, float(reg.max())):
                raise ValueError(f"{alg.label}: pseudo-regret decreased between horizons")
            inc = np.maximum(inc, 0.0)
            ranges = [(ts[j] - ts[j - 1]) * alg.max_gap for j in range(1, len(ts))]
            label = (f"{alg.label}: local constant over T in [{ts[-2]:g}, {ts[-1]:g}] / over "
                     f"[{ts[0]:g}, {ts[1]:g}] (order {test.order})")
            m = Measurement.of_ratio(label, RATE_FACTOR, inc[:, -1], inc[:, 0],
                                     numerator_range=(0.0, ranges[-1]),
                                     denominator_range=(0.0, ranges[0]), direction="at most",
                                     scale=scale,
                                     note=f"increments' ranges [0, {ranges[-1]:.6g}] and "
                                          f"[0, {ranges[0]:.6g}]; scale (f(T_1) - f(T_0)) / "
                                          f"(f(T_S) - f(T_S-1)) = {scale:.6g}")
        cells.append(m)
        mean = reg.mean(axis=0)
        for j, t in enumerate(ts):
            i_j = float(inc[:, j - 1].mean()) if j else math.nan
            rows.append((alg.label, t, round(float(mean[j]), 3),
                         round(float(np.median(reg[:, j])), 3),
                         round(float(mean[j]) / f[j], 5),
                         round(i_j, 3) if j else math.nan,
                         round(i_j / df[j - 1], 5) if j else math.nan, runs))
        ax_level.plot(ts, mean / np.asarray(f), marker="o", label=alg.label)
        ax_local.plot(ts[1:], inc.mean(axis=0) / np.asarray(df), marker="o", label=alg.label)
    for ax, title in ((ax_level, f"mean regret / {test.order}"),
                      (ax_local, f"local constant: regret added per decade / {test.order}'s")):
        ax.set_xscale("log")
        ax.set_xlabel("T")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=8)
    fig.suptitle(f"{test.paper}: {test.setting}, {runs} runs (means; the decision is the "
                 "interval of the table below)", fontsize=9)
    evidence = ExperimentEvidence(
        f"{test.statement} (order {test.order}, read as a growth rate over T = {ts[0]:g} .. "
        f"{ts[-1]:g})", tuple(cells))
    d = decide_experiment(evidence, alpha=ALPHA)
    for c in d.cells:
        m = c.measurement
        lines.append(f"* {m.label}, on this batch of {m.runs} runs: **{m.measured:.4g}**, "
                     f"interval [{c.ci_low:.4g}, {c.ci_high:.4g}] ({c.method}, at {ALPHA:g} "
                     f"split over {len(d.cells)} cell(s)); allowed at most {RATE_FACTOR:g}: "
                     f"{c.outcome}. Tails: {m.tail_text()}. (The status below decides on "
                     f"every batch of runs.)")
    grid = ", ".join(f"{t:g}" for t in ts)
    what = (
        f"every run is simulated to T = {ts[-1]:g} and its pseudo-regret read at T = {grid}. "
        f"The local constant of a decade is the mean regret added in it divided by what "
        f"{test.order} adds in it. The rule (dpaudit.audits.recipes.rates): reproduced when "
        f"the upper limit of (last decade's local constant) / (first decade's) is at most "
        f"{RATE_FACTOR:g}, not reproduced when its lower limit is above {RATE_FACTOR:g}; the "
        f"means have anytime-valid intervals (betting confidence sequence) on the known range "
        f"of one run's increment, combined by the union bound." if not test.tuned else
        f"the algorithms take the horizon as a parameter, so each T = {grid} is its own "
        f"simulation tuned to it ({runs} runs each). The local constant of a decade is the "
        f"difference of the mean regrets at its ends divided by what {test.order} adds in it. "
        f"The rule (dpaudit.audits.recipes.rates): reproduced when the upper limit of (last "
        f"decade's local constant) / (first decade's) is at most {RATE_FACTOR:g}, not "
        f"reproduced when its lower limit is above {RATE_FACTOR:g}; the four mean regrets "
        f"have anytime-valid intervals (betting confidence sequence) on the known range [0, T "
        f"x the largest cost of a step], combined by the union bound.")
    summary = "\n".join([
        f"Paper: {test.statement}",
        "",
        f"What is measured ({test.setting}; seed {settings.seed}): {what} A growth rate "
        f"measured over {len(ts) - 1} decades: it says nothing beyond T = {ts[-1]:g}.",
        "",
        *lines,
        "",
        test.note,
    ])
    table = Table(("algorithm", "T", "mean_regret", "median_regret", "mean_regret_over_f",
                   "added_in_decade", "local_constant", "runs"), tuple(rows))
    return ExperimentOutput(fig, table, summary, evidence=evidence)
