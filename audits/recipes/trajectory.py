"""Exact whole-trajectory loss as a finding or claim (paper-neutral; issue 22, item 3).

Everything paper-specific comes in as arguments: ``policy_of(ctx, horizon, initial)`` builds a
:class:`~dpaudit.exact.trajectory.StatisticPolicy` for the algorithm the check audits
(``ctx.variant``) at the claim's ``(eps, delta)``. Two cases:

* no deterministic prefix: :func:`dpaudit.exact.trajectory_search.search_tables` over
  neighbouring ``{0, 1}`` reward tables of ``horizon`` steps (exhaustive up to
  ``EXHAUSTIVE_HORIZON``, else structured pairs plus a greedy climb);
* a deterministic start phase of ``n0`` pulls per arm (DP-FTPL-Gauss, DP-FTPL-Beta): those
  ``2 n0`` actions are fixed whatever the rewards, so the trajectory's law is the law of the
  ``horizon`` adaptive steps that follow, given the start phase's observations. A change at a
  start-phase step changes one of those observations (arm 0's sum by one; the arms are
  symmetric); a change at an adaptive step leaves them equal. Both are searched over a grid of
  start-phase sums (stated in the report), the adaptive tables as above.

The exact figure of the worst pair found is exact for that pair; it is the policy's loss only
when the search was exhaustive, and a lower bound on it otherwise (the report says which).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from dpaudit.engine import Budget, CheckContext
from dpaudit.exact.trajectory import sequence_law, sequence_loss
from dpaudit.exact.trajectory_search import EXHAUSTIVE_HORIZON, TrajectorySearch, search_tables
from dpaudit.runtime.parallel import map_items
from dpaudit.sim.rewards import TableRewards
from dpaudit.stats.events import DIRECTIONS, cp_lower, cp_upper
from dpaudit.stats.evidence import ExactEvidence, SampledEvidence
from dpaudit.stats.results import Finding, Notion
from dpaudit.stats.rng import generator

__all__ = ["exact_event", "exact_trajectory", "full_tables", "trajectory_claim",
           "trajectory_finding", "trajectory_sampled_finding"]

OBSERVES = "trajectory"
START_GRID = Budget(full=5, quick=3)  # start-phase sums per arm searched (points on 0..N_0)


def _start_grid(n0: int, points: int) -> list[float]:
    """``points`` start-phase sums evenly spread over ``0..n0`` (rounded)."""
    return sorted({float(round(v)) for v in np.linspace(0.0, n0, points)})


def _grid_point(ctx: CheckContext, policy_of: Callable, steps: int, n0: int,
                point: tuple[float, float]) -> list[tuple[float, dict, int]]:
    """The candidates of one start-phase grid point, in the search's order: ``(eps, found,
    pairs evaluated)`` for a change at an adaptive step (the structured tables after the
    same start-phase observations), then one per constant adaptive table for a change at a
    start-phase step (arm 0's observation raised by one)."""
    s0, s1 = point
    counts = np.array([n0, n0], dtype=float)
    rows = (np.zeros(2), np.ones(2), np.array([0.0, 1.0]), np.array([1.0, 0.0]))
    init = (np.array([s0, s1]), counts)
    res = search_tables(policy_of(ctx, steps, init), steps, epsilon=ctx.epsilon,
                        delta=ctx.delta, exhaustive_horizon=0, climb=0)
    out = [(res.loss.epsilon_at_delta, {"search": res, "initial": init,
                                        "where": "adaptive step"}, res.evaluated)]
    if s0 + 1 <= n0:
        init_p = (np.array([s0 + 1.0, s1]), counts)
        pol, pol_p = policy_of(ctx, steps, init), policy_of(ctx, steps, init_p)
        for row in rows:
            table = np.tile(row, (steps, 1))
            law, law_p = sequence_law(pol, table), sequence_law(pol_p, table)
            loss = sequence_loss(law, law_p, epsilon=ctx.epsilon, delta=ctx.delta)
            out.append((loss.epsilon_at_delta, {
                "search": TrajectorySearch(table, table, 0, loss, 1, 1, False, steps, 0, law,
                                           law_p),
                "initial": init, "initial_prime": init_p, "where": "start-phase step"}, 1))
    return out


def exact_trajectory(ctx: CheckContext, policy_of: Callable, *, horizon: Budget,
                     climb: Budget, start_phase: int = 0,
                     grid_points: Budget = START_GRID) -> dict:
    """The worst pair found and its exact loss (cached per check under ``ctx.shared``)."""
    def compute() -> dict:
        steps, budget = ctx.size(horizon), ctx.size(climb)
        if start_phase == 0:
            # the sequence laws of the searched tables are independent: inside a scheduled
            # check they share the workers (map_items)
            res = search_tables(policy_of(ctx, steps, None), steps, epsilon=ctx.epsilon,
                                delta=ctx.delta, climb=budget, map_laws=map_items)
            # the policy's exact loss at the largest exhaustively searched horizon
            short = min(steps, EXHAUSTIVE_HORIZON)
            full = search_tables(policy_of(ctx, short, None), short, epsilon=ctx.epsilon,
                                 delta=ctx.delta, map_laws=map_items)
            return {"search": res, "start_phase": 0, "initial": None, "where": "table",
                    "exhaustive": full}
        n0 = start_phase
        grid = _start_grid(n0, ctx.size(grid_points))
        # the grid points are independent exact searches: inside a scheduled check they
        # share the workers; their candidates are then compared in the grid's order, as one
        # loop over them would
        points = [(s0, s1) for s0 in grid for s1 in grid]
        best: dict | None = None
        evaluated = 0
        for found in map_items(partial(_grid_point, ctx, policy_of, steps, n0), points):
            for eps, cand, count in found:
                evaluated += count
                if best is None or eps > best["eps"]:
                    best = {"eps": eps, **cand}
        if best is None:  # _start_grid gives at least one point
            raise ValueError(f"no start-phase grid point for n0={n0}")
        best.update(start_phase=n0, evaluated=evaluated, grid=grid)
        return best
    return ctx.shared(("exact-trajectory", horizon, climb, start_phase), compute)


def full_tables(found: dict) -> tuple[np.ndarray, np.ndarray]:
    """The whole ``(2 n0 + T, 2)`` reward tables of a start-phase pair: arm 0's first ``s0``
    start-phase rewards are 1 (then 0), arm 1's likewise, the other arm's entry during a
    block is 0 (never observed), then the adaptive tables; a start-phase change raises arm
    0's reward at its row ``s0``."""
    res: TrajectorySearch = found["search"]
    n0 = found["start_phase"]
    s0, s1 = (int(v) for v in found["initial"][0])
    start = np.zeros((2 * n0, 2))
    start[:s0, 0] = 1.0
    start[n0:n0 + s1, 1] = 1.0
    table = np.vstack([start, res.table])
    prime = np.vstack([start, res.table_prime])
    if found["where"] == "start-phase step":
        prime[s0, 0] = 1.0
    return table, prime


def _describe(ctx: CheckContext, found: dict) -> tuple[tuple[str, ...], dict]:
    res: TrajectorySearch = found["search"]
    loss = res.loss
    n0 = found["start_phase"]
    total = res.horizon + 2 * n0
    lines = [f"K = 2, T = {total}" + (f" ({2 * n0} start-phase pulls, deterministic, then "
                                       f"{res.horizon} adaptive steps)" if n0 else ""),
             f"exact eps at delta={ctx.delta:g} of the worst pair found: "
             f"{loss.epsilon_at_delta:.6g} (interval [{loss.epsilon_low:.6g}, "
             f"{loss.epsilon_high:.6g}] from the laws' error bounds)",
             f"exact delta at eps={ctx.epsilon:g}: {float(loss.delta_at_epsilon.value):.6g} "
             f"+- {float(loss.delta_at_epsilon.error):.2g}"]
    data = {"observes": OBSERVES, "horizon": total, "exact_epsilon": loss.epsilon_at_delta,
            "exact_epsilon_interval": [loss.epsilon_low, loss.epsilon_high],
            "delta_at_epsilon": float(loss.delta_at_epsilon.value),
            "delta_error": float(loss.delta_at_epsilon.error)}
    if n0:
        g = found["grid"]
        lines.append(f"searched {found['evaluated']} pairs: start-phase sums on the grid "
                     f"{g} per arm, a change at a start-phase step (4 constant adaptive "
                     "tables) or at an adaptive step (structured tables); a lower bound on "
                     "the policy's trajectory loss")
        lines.append(f"worst change: at a {found['where']}; start-phase sums "
                     f"{found['initial'][0].tolist()}")
        table, prime = full_tables(found)
        data |= {"table": table.tolist(), "table_prime": prime.tolist(),
                 "exhaustive": False, "start_phase": n0, "where": found["where"],
                 "evaluated": found["evaluated"],
                 "start_sums": found["initial"][0].tolist(),
                 "adaptive_table": res.table.tolist(),
                 "adaptive_table_prime": res.table_prime.tolist()}
    else:
        lines.append(res.coverage)
        lines.append(f"worst pair: step {res.changed_step} changed, table {res.table.tolist()}"
                     f" vs {res.table_prime.tolist()}")
        full: TrajectorySearch = found["exhaustive"]
        lines.append(f"the policy's exact loss at T = {full.horizon} (all {full.total} "
                     f"neighbouring pairs): eps = {full.loss.epsilon_at_delta:.6g}")
        data |= res.to_dict() | {"horizon": total, "exhaustive_horizon": full.horizon,
                                 "exhaustive_epsilon": full.loss.epsilon_at_delta}
    return tuple(lines), data


def trajectory_finding(policy_of: Callable, *, horizon: Budget, climb: Budget,
                       start_phase: Callable[[CheckContext], int] | None = None,
                       note: str, simulator: Callable | None = None
                       ) -> Callable[[CheckContext], Finding]:
    """A finding's ``evaluate``: the exact trajectory loss (information, not a verdict).

    ``simulator(ctx, horizon)``, when given, builds the running algorithm (its ``simulate``)
    on which ``benchmarks/bench_trajectory.py`` measures the sampled attacks against the exact
    figure; it is kept as the ``simulator`` attribute of the returned function.
    """
    def evaluate(ctx: CheckContext) -> Finding:
        n0 = 0 if start_phase is None else start_phase(ctx)
        found = exact_trajectory(ctx, policy_of, horizon=horizon, climb=climb,
                                 start_phase=n0)
        lines, data = _describe(ctx, found)
        eps = found["search"].loss
        return Finding(
            "trajectory-exact",
            f"exact whole-trajectory loss: eps = {eps.epsilon_at_delta:.4g} at delta = "
            f"{ctx.delta:g} (observes: trajectory; {note})",
            Notion.GLOBAL, epsilon_lower_bound=float(eps.epsilon_low), alpha=None,
            details=(*lines, note), data=data)
    evaluate.simulator = simulator  # type: ignore[attr-defined]
    evaluate.exact = lambda ctx: exact_trajectory(  # type: ignore[attr-defined]
        ctx, policy_of, horizon=horizon, climb=climb,
        start_phase=0 if start_phase is None else start_phase(ctx))
    return evaluate


def trajectory_claim(policy_of: Callable, *, horizon: Budget, climb: Budget,
                     simulator: Callable | None = None
                     ) -> Callable[[CheckContext, object], ExactEvidence]:
    """A claim's ``evaluate``: the whole action sequence is (eps, delta)-DP (e.g. because it
    post-processes eps-LDP reports): EXACT when the worst pair's divergence is within delta."""
    def evaluate(ctx: CheckContext, spec: object) -> ExactEvidence:
        found = exact_trajectory(ctx, policy_of, horizon=horizon, climb=climb)
        lines, data = _describe(ctx, found)
        loss = found["search"].loss
        return ExactEvidence(float(loss.delta_at_epsilon.value),
                             float(loss.delta_at_epsilon.error),
                             epsilon_at_delta=float(loss.epsilon_at_delta), details=lines,
                             data=data)
    evaluate.simulator = simulator  # type: ignore[attr-defined]
    evaluate.exact = lambda ctx: exact_trajectory(  # type: ignore[attr-defined]
        ctx, policy_of, horizon=horizon, climb=climb)
    return evaluate


def exact_event(p: np.ndarray, q: np.ndarray, *, delta: float, n: int,
                alpha: float) -> tuple[np.ndarray, str, float]:
    """The event for a sampled attack, chosen from two exact sequence laws (no samples).

    Outcomes in decreasing log-ratio (either direction), as many as maximise the bound that
    the exact probabilities project at ``n`` draws per side (Clopper-Pearson at ``alpha / 2``
    each, as the measurement will use). Returns the outcome codes, the direction and the
    event's probability on its likely side.
    """
    best: tuple = (-1.0, np.zeros(0, dtype=np.int64), DIRECTIONS[0], 0.0)
    for a, b, direction in ((p, q, DIRECTIONS[0]), (q, p, DIRECTIONS[1])):
        with np.errstate(divide="ignore", invalid="ignore"):
            lr = np.where(a > 0, np.log(a) - np.log(b), -np.inf)
        order = np.argsort(-lr, kind="stable")
        live = order[lr[order] > -np.inf]
        if live.size == 0:
            continue
        ca, cb = np.cumsum(a[live]), np.cumsum(b[live])
        ks = np.unique(np.round(np.geomspace(1, live.size, 400)).astype(np.int64)) - 1
        lo = cp_lower(np.floor(ca[ks] * n), n, alpha / 2)
        hi = cp_upper(np.ceil(cb[ks] * n), n, alpha / 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            proj = np.where(lo > delta, np.log(np.maximum(lo - delta, 1e-300) / hi), 0.0)
        i = int(np.argmax(proj))
        if proj[i] > best[0]:
            best = (float(proj[i]), live[:ks[i] + 1], direction, float(ca[ks[i]]))
    return best[1], best[2], best[3]


def _side_hits(alg: object, tables: tuple[np.ndarray, np.ndarray], n: int, seed: int,
               fixed: int, member: np.ndarray, side: int) -> int:
    """Runs of ``alg`` on ``tables[side]`` (``n``, seeded by ``side``) whose action sequence
    is in the event ``member`` (after the deterministic start phase of ``fixed`` steps, which
    must be the round robin)."""
    tab = tables[side]
    acts = np.asarray(alg.simulate(TableRewards(tab), tab.shape[0], n,  # type: ignore[attr-defined]
                                   rng=generator(seed, "trajectory-sampled", side),
                                   record=True).actions)
    start = np.repeat(np.arange(2), fixed // 2)[None, :] if fixed else acts[:, :0]
    ok = np.all(acts[:, :fixed] == start, axis=1)
    return int((member[_codes_of(acts[:, fixed:])] & ok).sum())


def _codes_of(actions: np.ndarray, k: int = 2) -> np.ndarray:
    weights = k ** np.arange(actions.shape[1] - 1, -1, -1, dtype=np.int64)
    return (np.asarray(actions, dtype=np.int64) * weights).sum(axis=1)


def trajectory_parts(evaluate: object) -> tuple[Callable[[CheckContext], dict], Callable]:
    """``(exact, simulator)`` that an ``evaluate`` of :func:`trajectory_finding` or
    :func:`trajectory_claim` carries as attributes: the arguments of
    :func:`trajectory_sampled_finding` (a spec's ``evaluate`` is typed as a plain callable)."""
    exact, simulator = getattr(evaluate, "exact", None), getattr(evaluate, "simulator", None)
    if exact is None or simulator is None:
        raise TypeError(f"evaluate={evaluate!r} carries no exact search and simulator "
                        "(trajectory_finding or trajectory_claim with simulator=...)")
    return exact, simulator


def trajectory_sampled_finding(exact_of: Callable, simulator: Callable, *, samples: Budget
                               ) -> Callable[[CheckContext], SampledEvidence]:
    """A finding's ``evaluate``: the running algorithm (``simulator(ctx, T)``'s ``simulate``)
    attacked on the worst pair of the exact search, with the event chosen from the exact laws
    (:func:`exact_event`; no samples involved, so one fresh measurement suffices), decided by
    the engine at the check's alpha. Its bound, next to the exact figure, is the sampled
    attack's tightness against the truth; a running code whose trajectories do not follow the
    law the exact computation assumes shows up as a bound above the exact figure."""
    def evaluate(ctx: CheckContext) -> SampledEvidence:
        found = exact_of(ctx)
        res: TrajectorySearch = found["search"]
        if found["start_phase"]:
            table, prime = full_tables(found)
        else:
            table, prime = res.table, res.table_prime
        n = int(ctx.size(samples))
        if res.law_p is None or res.law_q is None:
            raise ValueError("the exact search kept no sequence laws of its worst pair")
        codes, direction, p_event = exact_event(res.law_p.probabilities,
                                                res.law_q.probabilities, delta=ctx.delta,
                                                n=n, alpha=ctx.alpha)
        member = np.zeros(res.law_p.probabilities.size, dtype=bool)
        member[codes] = True
        fixed = table.shape[0] - res.horizon  # the deterministic start phase, if any
        alg = simulator(ctx, table.shape[0])
        # the two sides are independent simulations with their own generators: inside a
        # scheduled check they run on two workers at once (map_items), with the same counts
        hits = map_items(partial(_side_hits, alg, (table, prime), n, ctx.seed, fixed, member),
                         [0, 1])
        cp_, cq_ = (hits[0], hits[1]) if direction == DIRECTIONS[0] else (hits[1], hits[0])
        return SampledEvidence(
            cp_, n, cq_, n, f"{codes.size} whole action sequences of largest exact "
            "log-ratio", direction, p_event, 0, details=(
                f"pair: the worst of the exact search (T = {table.shape[0]}), exact eps at "
                f"delta={ctx.delta:g}: {res.loss.epsilon_at_delta:.4g}",
                "event chosen from the exact laws before any draw (no selection sample)"),
            data={"observes": OBSERVES, "horizon": int(table.shape[0]),
                  "reference_exact_epsilon": float(res.loss.epsilon_at_delta)})
    return evaluate
