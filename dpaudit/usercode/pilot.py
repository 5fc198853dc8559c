"""How fast the user's code runs, measured, and what an audit of it will cost.

The guard that runs before the user's module is imported knows only the arguments, so it can
bound memory but not time: a 20-line Python class runs about 5e5 steps a second, a numba
function 1e8. After the import, :func:`measure_speed` times a few runs at short horizons
(``32, 128, 512, ...``, two runs each, the faster of the two kept, until a run takes
:data:`PILOT_RUN_SECONDS` or the horizon is reached) and :class:`RunSpeed` scales the time of
one run to any horizon: linearly, or by the growth exponent the last two horizons show when
it is clearly above one (code whose steps cost more as the run goes on). :func:`search_runs`
and :func:`sampling_runs` count the runs an audit makes (the neighbour search's, whatever its
outcome, and the samples'), so the command can refuse, with the estimate, an audit that does
not fit ``--seconds`` or the default ceiling, and advise settings that do.

The pilot's runs are not part of any measurement: they use their own seeds and the numpy and
``random`` global states are restored afterwards.
"""

from __future__ import annotations

import math
import os
import random
import time
from dataclasses import dataclass

import numpy as np

from dpaudit.usercode.adapters import PolicyCode, play, with_horizon
from dpaudit.usercode.conventions import numba_seed
from dpaudit.validation import check_int

__all__ = ["ADVICE_MARGIN", "PILOT_RUN_SECONDS", "PLAN_RESERVE", "PLAN_SHARE", "Advice",
           "RunSpeed", "advise", "effective_workers", "measure_speed", "sampling_runs",
           "search_runs"]

#: the pilot stops lengthening its runs once one takes this long (seconds)
PILOT_RUN_SECONDS = 0.05
#: and stops altogether after this long, whatever it reached (seconds)
PILOT_SECONDS = 1.5
#: the shortest pilot horizon, and the factor between two
PILOT_START, PILOT_FACTOR = 32, 4
#: a growth exponent below this is taken to be 1 (timing noise, fixed costs per run)
SUPERLINEAR = 1.25


@dataclass(frozen=True)
class RunSpeed:
    """Seconds per run of the user's code, measured at ``horizons`` (the faster of two runs
    at each, in one process), and how it grows: ``exponent`` (1: linear in the horizon)."""

    horizons: tuple[int, ...]
    seconds: tuple[float, ...]
    exponent: float
    runs: int
    pilot_seconds: float

    def run_seconds(self, horizon: int) -> float:
        """Seconds one run at ``horizon`` takes, in one process."""
        h0, s0 = self.horizons[-1], self.seconds[-1]
        ratio = max(int(horizon), 1) / h0
        return s0 * (ratio ** self.exponent if ratio >= 1 else ratio)

    def steps_per_second(self) -> float:
        """Steps a second at the longest pilot horizon (one process)."""
        return self.horizons[-1] / max(self.seconds[-1], 1e-12)

    def text(self, horizon: int) -> str:
        """``about 4.6e+05 steps/s (pilot: 8 runs at T = 32 .. 2048 in 0.2 s); 0.22 s per run
        at T = 100000``."""
        span = (f"T = {self.horizons[0]}" if len(self.horizons) == 1 else
                f"T = {self.horizons[0]} .. {self.horizons[-1]}")
        grows = ("" if self.exponent == 1.0 else
                 f", time per run growing as T^{self.exponent:.2g}")
        return (f"about {self.steps_per_second():.3g} steps/s (pilot: {self.runs} runs at "
                f"{span} in {self.pilot_seconds:.1f} s{grows}); "
                f"{_seconds(self.run_seconds(horizon))} per run at T = {horizon}")


def _seconds(s: float) -> str:
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"


def measure_speed(code: PolicyCode, *, contexts: np.ndarray | None = None,
                  seed: int = 0) -> RunSpeed:
    """Time ``code``'s runs at short horizons (module docstring); the tables are Bernoulli
    1/2 rewards, so the code takes its ordinary paths."""
    t_max = code.horizon
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x9110]))
    horizons: list[int] = []
    seconds: list[float] = []
    runs = 0
    start = time.perf_counter()
    state, pystate = np.random.get_state(), random.getstate()
    try:
        h = min(PILOT_START, t_max)
        while True:
            short = with_horizon(code, h)
            table = (rng.random((h, code.n_arms)) < 0.5).astype(float)
            ctx = None if contexts is None else np.resize(
                np.asarray(contexts, dtype=float), (h, np.shape(contexts)[1]))
            best = math.inf
            for i in range(2):
                if code.numba:
                    numba_seed(i)
                t0 = time.perf_counter()
                play(short, table, np.random.SeedSequence([seed, h, i]), contexts=ctx)
                best = min(best, time.perf_counter() - t0)
                runs += 1
            horizons.append(h)
            seconds.append(max(best, 1e-9))
            if (h >= t_max or best >= PILOT_RUN_SECONDS
                    or time.perf_counter() - start >= PILOT_SECONDS):
                break
            h = min(t_max, h * PILOT_FACTOR)
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    exponent = 1.0
    if len(horizons) >= 2 and horizons[-1] > horizons[-2]:
        grown = math.log(seconds[-1] / seconds[-2]) / math.log(horizons[-1] / horizons[-2])
        if grown >= SUPERLINEAR:
            exponent = min(grown, 2.0)
    return RunSpeed(tuple(horizons), tuple(seconds), exponent, runs,
                    time.perf_counter() - start)


def effective_workers(workers: int) -> int:
    """Processes that run at once: the workers asked for, at most the machine's cores."""
    return max(1, min(int(workers), os.cpu_count() or 1))


#: the constants of :class:`~dpaudit.usercode.policy_audit.GlobalPolicyTarget` the counts
#: below follow (pilot runs per base input, proposals per requested pair, coupled runs per
#: screened pair), its timed probe, and the decision pilot's bisection (at most 24 steps
#: plus its two ends) and coupled runs
PILOT_RUNS, SCREEN, SCREEN_RUNS, TIMED_RUNS, BISECTION, COUPLED = 16, 3, 16, 20, 26, 4


def search_runs(n_arms: int, search_budget: int, *, contexts: bool = False,
                rewards: str = "table") -> int:
    """At most how many runs the global-DP neighbour search makes (the timed probe, the
    decision pilot, the pilot runs on the base inputs and the screening of every candidate
    on coupled runs), when the actions depend on the rewards; without that dependence the
    search proposes no decision pairs and instead tries longer horizons (capped separately,
    see :class:`~dpaudit.usercode.policy_audit.GlobalPolicyTarget`)."""
    k = check_int("n_arms", n_arms, low=1)
    b = check_int("search_budget", search_budget, low=0)
    table = rewards == "table"
    bases = (3 if k > 1 else 2) if table else 1
    ends = len({0, k - 1}) if table else 0
    decision_pairs = ends * 2 * (2 * k) * 2  # boundaries x gaps x steps before x values
    proposals = SCREEN * b * (3 if contexts else 1)
    return (TIMED_RUNS + COUPLED * (k + 1) + BISECTION * ends + PILOT_RUNS * bases
            + 2 * SCREEN_RUNS * (1 + decision_pairs + proposals))


def sampling_runs(samples: int, pairs: int) -> int:
    """Runs of the sampled audit proper: ``samples`` per side for the audited pair and, with
    several candidate pairs, ``rank`` per side and pair to rank them (as ``audit_policy``
    plans them: ``rank = max(100, samples // pairs)``)."""
    n = check_int("samples", samples, low=1)
    p = check_int("pairs", pairs, low=1)
    rank = max(100, n // p) if p > 1 else 100
    return 2 * (n + (p > 1) * p * rank)


#: an audit under ``--seconds`` plans its samples to fill at most this share of the time the
#: neighbour search left it, less :data:`PLAN_RESERVE` seconds (the report, the exit): the
#: machine may run slower than the probe and the search measured (other jobs, a slower table)
PLAN_SHARE = 0.75
PLAN_RESERVE = 1.0
#: advice states ``--seconds`` this much above its own estimate (plus 5 s)
ADVICE_MARGIN = 1.3
#: advice lowers ``--samples`` (then ``--search-budget``) to fit a given ``--seconds``, not
#: below these (nor below what was asked)
ADVICE_MIN_SAMPLES, ADVICE_MIN_BUDGET = 1000, 4


@dataclass(frozen=True)
class Advice:
    """Settings that reach a verdict at ``horizon`` in one command: ``samples`` and
    ``search_budget`` within ``seconds`` (the ``--seconds`` to give), by an ``estimate`` made
    from the measured speed; ``lowered``: they were lowered to fit the ``--seconds`` given."""

    horizon: int
    samples: int
    search_budget: int
    seconds: int
    estimate: float
    lowered: bool = False

    def flags(self) -> str:
        return (f"--horizon {self.horizon} --samples {self.samples} --search-budget "
                f"{self.search_budget} --seconds {self.seconds}")

    def text(self, seconds_given: float | None = None) -> str:
        note = ""
        if self.lowered:
            note = (f" (--samples and --search-budget lowered to fit the --seconds "
                    f"{seconds_given:g} given)")
        elif seconds_given is not None and self.seconds > seconds_given:
            note = (f" (the --seconds {seconds_given:g} given does not fit it even at "
                    "the smallest settings advised)")
        return (f"at T = {self.horizon} the audit would take about {math.ceil(self.estimate)} "
                f"s at the measured speed: run it with {self.flags()}{note}")


def advise(horizon: int, *, n_arms: int, samples: int, search_budget: int, workers: int,
           run_seconds: float, seconds_given: float | None, startup: float,
           contexts: bool = False, rewards: str = "table") -> Advice:
    """The settings and ``--seconds`` of an audit at ``horizon`` (runs of ``run_seconds``
    each, in one process): the samples and search budget asked for, lowered (down to
    :data:`ADVICE_MIN_SAMPLES` and :data:`ADVICE_MIN_BUDGET`) when they would not fit the
    ``--seconds`` given; ``--seconds`` leaves the audit's own planning margin
    (:data:`PLAN_SHARE`) and :data:`ADVICE_MARGIN` on top, so the advised command samples what
    it advises and ends within its deadline. ``startup``: seconds before the search starts
    (interpreter, import, the speed pilot)."""
    w = effective_workers(workers)

    def need(s: int, b: int) -> tuple[float, float]:
        search = search_runs(n_arms, b, contexts=contexts, rewards=rewards) * run_seconds / w
        sampling = sampling_runs(s, 1 + b) * run_seconds / w
        return (startup + search + (sampling + PLAN_RESERVE) / PLAN_SHARE,
                startup + search + sampling)

    s, b, lowered = samples, search_budget, False
    floor_s, floor_b = min(samples, ADVICE_MIN_SAMPLES), min(search_budget, ADVICE_MIN_BUDGET)
    if seconds_given is not None:
        while need(s, b)[0] * ADVICE_MARGIN > seconds_given and (s > floor_s or b > floor_b):
            if s > floor_s:
                s = max(floor_s, int(s * 0.8))
            else:
                b = max(floor_b, b // 2)
            lowered = True
    planned, estimate = need(s, b)
    seconds = math.ceil(planned * ADVICE_MARGIN) + 5
    if seconds_given is not None and seconds <= seconds_given:
        seconds = math.ceil(seconds_given)
    fits = seconds_given is None or seconds <= seconds_given
    return Advice(horizon, s, b, seconds, estimate, lowered and fits)
