"""``ldp-one-point`` and ``ldp-one-point-faulty``: Zheng et al. 2020, Algorithm 1 (Theorem 2).

Each user sends ``f_t(x_t) + N(0, sigma^2)`` with ``sigma = 2B sqrt(2 ln(1.25/delta))/eps`` for
losses in ``[-B, B]`` (range ``2B``). The report is a one-dimensional Gaussian: between two
users the privacy loss is that of a shift by ``|f - f'| / sigma <= 2B / sigma``, attained at
``(B, -B)``, so the claim is decided exactly (Balle & Wang 2018's curve) and attacked by
sampling :meth:`OnePointUCB.report` at that pair. The broken twin (:class:`BoundCalibrated`)
calibrates ``sigma`` for ``B`` while the losses still range over ``2B`` (``range_factor=1``)
and must come out VIOLATED. ``reports-sampled`` attacks the reports the running algorithm
sends (the recording hook), where an unnoised warm-up pull or a noise draw shared by users
shows; the planted twins are in :mod:`dpaudit.audits.zheng_et_al_2020.twins`.

Regret: the MAB instantiation (UCB black box, losses ``1/2 - r`` of Bernoulli arms 0.9 and
0.1) and the convex one (one-point sphere sampling on ``0.25 |x - theta|^2 + U[-0.1, 0.1]``
in ``R^2``; Corollary 4's orders ``sqrt(T)/eps`` for smooth strongly convex and
``T^(2/3)/eps`` for smooth convex losses).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from dpaudit.algorithms.zheng_et_al_2020.ldp_reductions import (
    ZHENG_2020_MAB,
    OnePointFKM,
    OnePointUCB,
    QuadraticLosses,
)
from dpaudit.audits.recipes.ldp import gaussian_epsilon
from dpaudit.audits.zheng_et_al_2020._ldp_zheng import (
    PAPER,
    TAIL_SAMPLES,
    RegretCase,
    Report,
    gaussian_claims,
    regret_at,
    regret_finding,
    simulated_claim,
    spec,
)
from dpaudit.engine import Budget, CheckContext
from dpaudit.sim.bandits import BernoulliRewards

MAB_MEANS = ZHENG_2020_MAB.means  # defined once, beside the policy
CONVEX = QuadraticLosses([0.3, -0.2], a=0.25, b=0.1)
# budgets (full run, --quick): the regret-growth finding's horizons and runs per horizon,
# and the main regret experiment
GROWTH_HORIZONS = Budget(full=(1000, 4000, 16000, 64000), quick=(250, 1000, 4000))
GROWTH_RUNS = Budget(full=200, quick=50)
REGRET_HORIZON = Budget(full=64000, quick=4000)
REGRET_RUNS = Budget(full=200, quick=50)


@dataclass(frozen=True)
class RangeCalibrated:
    """``sigma`` calibrated for the range 2B of losses in [-B, B] (Algorithm 1)."""

    range_factor: float = 2.0


@dataclass(frozen=True)
class BoundCalibrated(RangeCalibrated):
    """Calibrates sigma for B while the losses still range over 2B (range_factor = 1): the
    shift between users is twice what the noise was calibrated for.

    True loss at the default (1, 1e-5): the report is a Gaussian shift by twice the correct
    Mahalanobis distance, whose exact ``eps`` at ``delta = 1e-5`` (Balle & Wang 2018) is 1.6103
    (``_bound_calibrated_epsilon``, ``ldp-one-point-bound-calibrated``).
    """

    range_factor: float = 1.0


def _algorithm(ctx: CheckContext) -> OnePointUCB:
    """The audited algorithm: :class:`OnePointUCB` at the variant's calibration, or a planted
    twin class (:mod:`dpaudit.audits.zheng_et_al_2020.twins`)."""
    if isinstance(ctx.variant, RangeCalibrated):
        return OnePointUCB(ctx.epsilon, ctx.delta, range_factor=ctx.variant.range_factor)
    return ctx.variant(ctx.epsilon, ctx.delta)


def _report(ctx: CheckContext) -> Report:
    alg = _algorithm(ctx)
    range_factor = alg.range_factor
    rel, b = alg.release(), alg.loss_bound
    # candidate losses: the witness (B, -B), then interior points and out-of-domain values
    # (which the user clips)
    data = (b, -b, 0.5 * b, 0.0, -0.5 * b, 2.0 * b, -2.0 * b)
    return Report(
        rel.mu_witness, rel.mu_upper,
        lambda n, rng: alg.report(np.full(n, b), rng),
        lambda n, rng: alg.report(np.full(n, -b), rng),
        np.ones(1), f"losses B = {b:g} (D) vs -B (D')",
        (f"sigma = {range_factor:g} B sqrt(2 ln(1.25/delta))/eps = {alg.sigma:.6g} for "
         f"losses in [-{b:g}, {b:g}] (range {2 * b:g})",),
        run=partial(_first_users, alg), data=data,
        describe=lambda loss: f"first user's loss {loss:g}")


#: the users whose reports ``report-ldp-code-exact`` reads: the first user (whose loss
#: changes) and the next ones (loss 0), on two arms, as ``simulate`` sends them
FIRST_USERS, PROBE_ARMS = 3, 2


def _first_users(alg: OnePointUCB, loss: float, rng: np.random.Generator) -> np.ndarray:
    """The reports of the first :data:`FIRST_USERS` users of one run, built by the code path
    ``simulate`` uses (``_send``, its state shared across users): only the first user's loss
    is the datum. For a correct algorithm the later reports do not depend on it, so the loss
    is the first report's own; an unnoised first pull or a noise draw shared by users shows
    as a shift outside the noise's range."""
    state: dict = {"shape": (1, PROBE_ARMS)}
    return np.concatenate([np.asarray(alg._send(np.array([loss if t == 1 else 0.0]), t, rng,
                                                 state), float).ravel()
                           for t in range(1, FIRST_USERS + 1)])


def _mab(eps: float, private: bool, horizon: int, runs: int, rng) -> np.ndarray:
    alg = OnePointUCB(eps, 1e-5, private=private)
    return alg.simulate(BernoulliRewards(MAB_MEANS), horizon, runs, rng=rng).regret


def _convex(schedule: str):
    def run(eps: float, private: bool, horizon: int, runs: int, rng) -> np.ndarray:
        alg = OnePointFKM(eps, 1e-5, loss_bound=CONVEX.loss_bound, schedule=schedule,
                          strong_convexity=2 * CONVEX.a, private=private)
        return alg.simulate(CONVEX, horizon, runs, rng=rng).regret
    return run


CASES = [
    RegretCase("MAB (0.9, 0.1), UCB black box", 0.5, _mab),
    RegretCase("convex, one-point, strongly-convex schedule", 0.5, _convex("strongly-convex")),
    RegretCase("convex, one-point, smooth schedule", 2 / 3, _convex("smooth"), 2 / 3),
]


def _mu(range_factor: float):
    def mu(eps: float, delta: float) -> float:
        alg = OnePointUCB(eps, delta, range_factor=range_factor)
        return alg.release().mu_upper
    return mu


ONE_POINT = spec(
    "ldp-one-point", "one-point LDP reduction: loss + N(0, sigma^2)",
    PAPER + ", Algorithm 1, Theorems 2-3, Corollary 4",
    [*gaussian_claims(_report, "each user's noisy loss", "Algorithm 1, Theorem 2",
                      samples=TAIL_SAMPLES, name="ldp-one-point"),
     simulated_claim(_algorithm, "Algorithm 1, Theorem 2")],
    _mu(2.0), "sigma = 2 B sqrt(2 ln(1.25/delta))/eps",
    findings=[regret_finding(
        CASES, GROWTH_HORIZONS, GROWTH_RUNS,
        "At eps = 1 the Gaussian noise (sigma about 4.8 B) keeps the convex runs in "
        "their linear phase at these horizons (local slopes near 1): a pre-asymptotic "
        "measurement, not evidence against Corollary 4.")],
    regret=regret_at(CASES[0], REGRET_HORIZON, REGRET_RUNS), variant=RangeCalibrated())


def _bound_calibrated_epsilon(eps: float = 1.0, delta: float = 1e-5) -> float:
    """The twin's true loss at the defaults: sigma calibrated for ``B`` is half the correct
    one, so the report is a Gaussian shift by twice the correct Mahalanobis distance."""
    return gaussian_epsilon(delta, 2 * _mu(2.0)(eps, delta))


# the twin's findings are dropped: the calibration finding describes the correct sigma
_BOUND = ONE_POINT.twin(BoundCalibrated(), findings=[], bug="bound-calibrated",
                        true_epsilon=_bound_calibrated_epsilon())
# ldp-one-point-faulty: the twin's first name (README, docs, benchmark results), an alias
AUDITS = [ONE_POINT, _BOUND, replace(_BOUND, name="ldp-one-point-faulty")]
