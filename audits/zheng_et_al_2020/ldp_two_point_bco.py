"""``ldp-two-point-bco``: Zheng et al. 2020, Algorithm 2 (Theorems 5-6).

Each user sends ``f(x_1) - f(x_2) + n^T (x_1 - x_2)`` with ``n ~ N(0, sigma^2 I_d)``,
``sigma = 2G sqrt(2 ln(1.25/delta))/eps`` and ``x_1 - x_2 = 2 rho u`` (``|u| = 1``): a scalar
Gaussian report whose mean ranges over ``[-2 rho G, 2 rho G]`` for ``G``-Lipschitz losses,
attained by the linear losses ``+-G u^T x``. So the exact distance is ``4 rho G / (2 rho
sigma) = 2G / sigma`` whatever ``rho``; the attack samples :meth:`TwoPointBCO.report` at that
pair. Regret: Theorem 6 claims ``O~(d^3 sqrt(T)/eps^2)`` for convex Lipschitz losses;
measured on ``0.25 |x - theta|^2 + U[-0.1, 0.1]`` in ``R^2`` (``G = 1``).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.algorithms.zheng_et_al_2020.ldp_reductions import QuadraticLosses, TwoPointBCO
from dpaudit.audits.zheng_et_al_2020._ldp_zheng import (
    PAPER,
    TAIL_SAMPLES,
    RegretCase,
    Report,
    gaussian_claims,
    regret_at,
    regret_finding,
    spec,
)
from dpaudit.engine import Budget, CheckContext

LOSSES = QuadraticLosses([0.3, -0.2], a=0.25, b=0.1)
# budgets (full run, --quick): the regret-growth finding's horizons and runs per horizon,
# and the main regret experiment
GROWTH_HORIZONS = Budget(full=(1000, 4000, 16000, 64000), quick=(250, 1000, 4000))
GROWTH_RUNS = Budget(full=200, quick=50)
REGRET_HORIZON = Budget(full=64000, quick=4000)
REGRET_RUNS = Budget(full=200, quick=50)
RHO = math.log(1000) / 1000  # Algorithm 2's rho = log T / T at T = 1000 (any rho: same loss)


def _report(ctx: CheckContext) -> Report:
    g = LOSSES.lipschitz
    alg = (ctx.variant or TwoPointBCO)(ctx.epsilon, ctx.delta, lipschitz=g)
    rel = alg.release(RHO)
    u = np.array([1.0, 0.0])
    x1, x2 = RHO * u, -RHO * u

    def sampler(sign: float):
        def draw(n: int, rng) -> np.ndarray:
            f1, f2 = np.full(n, sign * g * RHO), np.full(n, -sign * g * RHO)
            return alg.report(f1, f2, np.tile(x1, (n, 1)), np.tile(x2, (n, 1)), rng)
        return draw

    # candidate data (f(x1), f(x2)) at the public points x1, x2: the witness pair (the linear
    # losses +-G u^T x), then interior and out-of-range differences (clipped by the user)
    gr = g * RHO
    data = ((gr, -gr), (-gr, gr), (0.0, 0.0), (gr, 0.0), (0.0, gr), (3 * gr, -3 * gr),
            (0.5, 0.5 - 2 * gr))
    return Report(rel.mu_witness, rel.mu_upper, sampler(1.0), sampler(-1.0), np.ones(1),
                  f"losses +G u^T x (D) vs -G u^T x (D'), G = {g:g}, rho = {RHO:.4g}",
                  (f"report = f(x1) - f(x2) + 2 rho n^T u: range [-2 rho G, 2 rho G], noise std "
                   f"2 rho sigma, sigma = {alg.sigma:.6g}",),
                  run=lambda f, rng: alg.report(np.array([f[0]]), np.array([f[1]]), x1[None],
                                                x2[None], rng),
                  data=data, describe=lambda f: f"(f(x1), f(x2)) = ({f[0]:.4g}, {f[1]:.4g})")


def _run(eps: float, private: bool, horizon: int, runs: int, rng) -> np.ndarray:
    alg = TwoPointBCO(eps, 1e-5, lipschitz=LOSSES.lipschitz, private=private)
    return alg.simulate(LOSSES, horizon, runs, rng=rng).regret


CASE = RegretCase("two-point BCO, quadratic in R^2", 0.5, _run)


def _mu(eps: float, delta: float) -> float:
    return TwoPointBCO(eps, delta, lipschitz=1.0).release(RHO).mu_upper


AUDITS = [spec(
    "ldp-two-point-bco", "two-point LDP bandit convex optimisation (noise on the difference)",
    PAPER + ", Algorithm 2, Theorems 5-6",
    gaussian_claims(_report, "each user's noisy loss difference", "Algorithm 2, Theorem 5",
                    samples=TAIL_SAMPLES, name="ldp-two-point-bco"),
    _mu, "sigma = 2 G sqrt(2 ln(1.25/delta))/eps on n, times |x1 - x2| = 2 rho",
    findings=[regret_finding([CASE], GROWTH_HORIZONS, GROWTH_RUNS,
                             "Theorem 6's order is sqrt(T)/eps^2: the noise enters the "
                             "gradient as d (n^T u) u, whose variance does not grow as rho "
                             "shrinks.")],
    regret=regret_at(CASE, REGRET_HORIZON, REGRET_RUNS), variant=TwoPointBCO)]
