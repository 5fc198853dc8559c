"""``ldp-linear-bandit``: LDP contextual linear bandits, Zheng et al. 2020 Sec. 4.1 (Thms 7-8).

Each user sends ``x x^T + B`` (symmetric, ``N(0, sigma^2)`` on the upper triangle) and
``y x + xi``; reconstructed calibration ``sigma = 4 sqrt(2 ln(2.5/delta))/eps`` (two releases
of sensitivity 2, each ``(eps/2, delta/2)``; see
:mod:`dpaudit.algorithms.zheng_et_al_2020.ldp_contextual`).
Both releases carry the same ``sigma``, so one user's report is a Gaussian vector whose
privacy loss is that of a shift by the joint L2 distance of the two released means over
``sigma``; its supremum over the unit ball with ``|y| <= 1`` is ``sqrt(4.5)`` (at unit
vectors with cosine 1/2 and ``y = -y' = 1``; :func:`linear_mu_sup`), smaller than the
``sqrt(2 + 4)`` the blocks' separate worst cases would give. Decided exactly and attacked at
that pair. Regret: Theorem 8's ``O~((dT)^(3/4)/eps)``.
"""

from __future__ import annotations

import numpy as np

from dpaudit.algorithms.zheng_et_al_2020.ldp_contextual import (
    LDPLinUCB,
    UnitBallContexts,
    linear_witness,
)
from dpaudit.audits.zheng_et_al_2020._ldp_zheng import (
    PAPER,
    RegretCase,
    Report,
    gaussian_claims,
    regret_at,
    regret_finding,
    spec,
)
from dpaudit.engine import Budget, CheckContext

CONTEXTS = UnitBallContexts([0.3, -0.3], n_actions=10, noise=0.5)
# budgets (full run, --quick): the regret-growth finding's horizons and runs per horizon,
# and the main regret experiment
GROWTH_HORIZONS = Budget(full=(1000, 4000, 16000), quick=(250, 1000, 4000))
GROWTH_RUNS = Budget(full=100, quick=30)
REGRET_HORIZON = Budget(full=16000, quick=4000)
REGRET_RUNS = Budget(full=100, quick=30)


def flat(v: np.ndarray, u: np.ndarray) -> np.ndarray:
    """A report as one vector: upper triangle of ``V`` (the noise's coordinates), then ``u``."""
    iu = np.triu_indices(v.shape[-1])
    return np.concatenate([v[:, iu[0], iu[1]], u], axis=1)


def _report(ctx: CheckContext) -> Report:
    alg = (ctx.variant or LDPLinUCB)(ctx.epsilon, ctx.delta)
    rel = alg.release()
    x, y, xp, yp = linear_witness(1.0)

    def sampler(xv: np.ndarray, yv: float):
        def draw(n: int, rng) -> np.ndarray:
            return flat(*alg.report(np.tile(xv, (n, 1)), np.full(n, yv), rng))
        return draw

    mean = flat(np.outer(x, x)[None], (y * x)[None]) - flat(np.outer(xp, xp)[None],
                                                            (yp * xp)[None])
    # candidate data: the witness pair, then corners of the domain (unit and zero contexts,
    # rewards -1, 0, 1; an out-of-domain context the user clips)
    s = 1.0 / np.sqrt(2.0)
    corners = [np.array(v) for v in ([1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [s, s], [s, -s],
                                     [0.0, 0.0], [3.0, 4.0])]
    data = ((x, y), (xp, yp), *((c, float(r)) for c in corners for r in (-1.0, 0.0, 1.0)))
    return Report(rel.mu_witness, rel.mu_upper, sampler(x, y), sampler(xp, yp), mean[0],
                  f"(x, y) = ({np.round(x, 4).tolist()}, {y:g}) vs ({np.round(xp, 4).tolist()}, "
                  f"{yp:g})", (f"sigma = 4 sqrt(2 ln(2.5/delta))/eps = {alg.sigma:.6g} on both "
                               "releases (reconstructed; Appendix D is not in our copy)",),
                  run=lambda d, rng: alg.report(d[0][None], np.array([d[1]]), rng), data=data,
                  describe=lambda d: f"(x, y) = ({np.round(d[0], 4).tolist()}, {d[1]:g})")


def _run(eps: float, private: bool, horizon: int, runs: int, rng) -> np.ndarray:
    return LDPLinUCB(eps, 1e-5, private=private).simulate(CONTEXTS, horizon, runs,
                                                         rng=rng).regret


CASE = RegretCase("LinUCB-LDP, d=2, 10 actions", 0.75, _run)


def _mu(eps: float, delta: float) -> float:
    return LDPLinUCB(eps, delta).release().mu_upper


AUDITS = [spec(
    "ldp-linear-bandit", "LDP contextual linear bandit (LinUCB on noisy x x^T and y x)",
    PAPER + ", Section 4.1, Algorithm 5, Theorems 7-8",
    gaussian_claims(_report, "each user's (x x^T + B, y x + xi)", "Theorem 7",
                    name="ldp-linear-bandit"),
    _mu, "sigma = 4 sqrt(2 ln(2.5/delta))/eps (reconstructed)",
    findings=[regret_finding([CASE], GROWTH_HORIZONS, GROWTH_RUNS,
                             "Non-private LinUCB's order is sqrt(T) (up to logs).")],
    regret=regret_at(CASE, REGRET_HORIZON, REGRET_RUNS), variant=LDPLinUCB)]
