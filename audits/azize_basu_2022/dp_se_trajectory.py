"""The action sequence of DP-SE on two arms, decided exactly (a claim of ``check dp-se``).

DP-SE (Sajed & Sheffet 2019; the module docstring of ``algorithms/baselines/dp_se.py``) on
K = 2 arms: while both arms survive, epoch ``e`` pulls arm 0 then arm 1 ``R_e`` times each (a
fixed schedule), releases ``mu~_a = mu^_a(e) + Lap(1/(eps R_e))`` and eliminates arm 1 when
``mu~_0 - mu~_1 > thr_e = 2 (h_e + c_e)`` (arm 0 symmetrically); the survivor is then played to
the horizon, and a truncated last epoch decides nothing. The whole action sequence is a
function of the decisions, so its law is the law of "arm a eliminated after epoch e" or "none".

On a fixed reward table the epoch means are fixed; only ``d_e = mu^_0(e) - mu^_1(e)`` matters.
With ``D`` the difference of two independent ``Lap(b)``, ``b = 1/(eps R_e)``:
``P(eliminate 1 at e | reached) = P(D > thr_e - d_e)``, ``P(eliminate 0) = P(D > thr_e +
d_e)`` and the tail is ``P(D > z) = e^(-z/b) (2 + z/b) / 4`` for ``z >= 0`` (the density of
``D`` is ``(1 + |z|/b) e^(-|z|/b) / (4b)``), computed in log space. A changed reward moves one
epoch's ``d_e`` by ``1/R_e``; paths that end before that epoch have the same probability under
both tables and paths through it share the later factors, so the pure loss of the whole
sequence is the largest log-ratio of the three outcomes of one epoch, maximised over every
attainable ``d_e = (k_0 - k_1)/R_e`` (all ``2 R_e + 1`` values: exhaustive over binary tables).
Rewards in [0, 1] are summed as they are (``TableRewards.block_sums``), so ``d_e`` is then
continuous and a change moves it by at most ``1/R_e``; ``D`` has a log-concave density, so the
log-probability of each outcome (a tail, or an interval of fixed width) is concave in the
location and its change under a shift grows with the shift and towards the ends of ``[-1, 1]``:
the maximum is at a shift of ``1/R_e`` next to ``d_e = -1`` or ``1``, which the grid contains.
``P(none) = P(-thr_e - d_e <= D <= thr_e - d_e)`` is formed from two small tails in log space
in each regime (never as ``1 - P(elim 1) - P(elim 0)``, which cancels). For ``delta > 0``
each epoch's three-outcome divergence is computed with the epoch reached with probability 1
(exact for epoch 1; for later epochs an upper bound on their share).
"""

from __future__ import annotations

import numpy as np

from dpaudit.engine import Budget, CheckContext, ClaimSpec
from dpaudit.exact.loss import UNIT_ROUNDOFF
from dpaudit.exact.trajectory import epsilon_at_delta, hockey_stick_both
from dpaudit.stats.evidence import ExactEvidence
from dpaudit.stats.results import Notion

__all__ = ["DP_SE_TRAJECTORY", "dp_se_epochs", "log_tail"]

HORIZON = Budget(full=50_000, quick=10_000)  # 2 complete epochs at 50000, 1 at 10000


def log_tail(z: np.ndarray, b: float) -> np.ndarray:
    """``log P(D > z)`` for the difference ``D`` of two independent ``Lap(0, b)``."""
    z = np.asarray(z, dtype=float)
    u = np.abs(z) / b
    upper = np.log(0.25) - u + np.log(2.0 + u)  # log P(D > |z|)
    with np.errstate(all="ignore"):
        return np.where(z >= 0, upper, np.log1p(-np.exp(upper)))


def _logdiff(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``log(e^a - e^c)`` for ``a >= c``."""
    return a + np.log1p(-np.exp(c - a))


def dp_se_epochs(alg, horizon: int) -> list[tuple[int, int, float]]:
    """``(e, R_e, thr_e)`` of the epochs completed with both arms alive within ``horizon``."""
    beta = alg._beta(horizon)
    out: list[tuple[int, int, float]] = []
    t, e = 0, 0
    while True:
        e += 1
        r = int(alg.epoch_length(e, np.array([2]), beta)[0])
        if t + 2 * r > horizon:
            return out
        thr = float(alg.threshold(e, np.array([2]), np.array([float(r)]), beta)[0])
        out.append((e, r, thr))
        t += 2 * r


def _epoch_laws(r: int, thr: float, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Log-laws ``(elim 1, elim 0, none)`` at every attainable ``d`` and at ``d + 1/R``."""
    b = 1.0 / (epsilon * r)
    d = np.arange(-r, r) / r  # d + 1/R stays attainable (<= 1)

    def law(dd: np.ndarray) -> np.ndarray:
        e1, e0 = log_tail(thr - dd, b), log_tail(thr + dd, b)
        # none = P(lo <= D <= hi), lo = -thr - d, hi = thr - d, from two small tails in log
        # space in each regime (never 1 - P(elim 1) - P(elim 0), which cancels)
        lo, hi = -thr - dd, thr - dd
        # np.where evaluates every regime's formula everywhere: the unused ones may overflow
        with np.errstate(all="ignore"):
            right = _logdiff(log_tail(np.abs(lo), b), log_tail(np.abs(hi), b))  # lo >= 0
            left = _logdiff(log_tail(np.abs(hi), b), log_tail(np.abs(lo), b))  # hi <= 0
            middle = np.log1p(-(np.exp(log_tail(-lo, b)) + np.exp(log_tail(hi, b))))
        none = np.where(lo >= 0, right, np.where(hi <= 0, left, middle))
        return np.stack([e1, e0, none], axis=1)
    return law(d), law(d + 1.0 / r)


def _evaluate(ctx: CheckContext, spec: object) -> ExactEvidence:
    alg = ctx.variant(ctx.epsilon)
    horizon = int(ctx.size(HORIZON))
    epochs = dp_se_epochs(alg, horizon)
    lines, worst_eps, worst_delta = [], 0.0, 0.0
    per_epoch = []
    for e, r, thr in epochs:
        lp, lq = _epoch_laws(r, thr, ctx.epsilon)
        with np.errstate(invalid="ignore"):
            ratio = np.abs(lp - lq)
        finite = np.where(np.isfinite(ratio), ratio, 0.0)
        eps_e = float(finite.max())
        delta_e = 0.0
        eps_d = eps_e
        if ctx.delta > 0:
            p, q = np.exp(lp), np.exp(lq)
            delta_e = float(max(hockey_stick_both(p[i], q[i], ctx.epsilon)[0]
                                for i in range(p.shape[0])))
            eps_d = max(epsilon_at_delta(p[i], q[i], ctx.delta) for i in range(p.shape[0]))
        else:
            delta_e = float(np.max(np.maximum(np.exp(lp) - np.exp(ctx.epsilon + lq), 0.0)
                                   .sum(axis=1).clip(0)))
            delta_e = max(delta_e, float(np.max(np.maximum(
                np.exp(lq) - np.exp(ctx.epsilon + lp), 0.0).sum(axis=1))))
        per_epoch.append({"epoch": e, "R": r, "threshold": thr, "epsilon": eps_d,
                          "delta_at_epsilon": delta_e})
        lines.append(f"epoch {e}: R_e = {r}, threshold {thr:.4g}; largest exact loss over the "
                     f"{2 * r} attainable mean gaps: eps = {eps_d:.6g}, delta(eps) = "
                     f"{delta_e:.3g}")
        worst_eps, worst_delta = max(worst_eps, eps_d), max(worst_delta, delta_e)
    if not epochs:
        lines.append(f"no epoch completes within T = {horizon}: the actions do not depend on "
                     "the rewards")
    # log-space tails: a few units of roundoff times the largest |log| involved
    err = 64 * UNIT_ROUNDOFF * (1.0 + worst_eps)
    return ExactEvidence(worst_delta, err, epsilon_at_delta=worst_eps, details=(
        f"K = 2, T = {horizon} ({len(epochs)} complete epoch(s) with both arms alive: the "
        "releases that decide the trajectory)", *lines,
        "exhaustive over the attainable epoch means, hence over every [0, 1] reward table"),
        data={"observes": "actions", "horizon": horizon, "exhaustive": True,
              "exact_epsilon": worst_eps, "epochs": per_epoch})


DP_SE_TRAJECTORY = ClaimSpec(
    "trajectory-exact", Notion.GLOBAL,
    "the whole action sequence on two arms is eps-DP, decided exactly from the Laplace "
    "releases that drive the eliminations (observes: actions, as the sampled global-dp "
    "claim)",
    "Sajed & Sheffet 2019, privacy of DP-SE; Azize & Basu 2022, Definition 2", _evaluate)
