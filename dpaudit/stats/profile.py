"""The empirical privacy profile of a sampled claim: epsilon at a ladder of deltas, trade-off
points, and a Gaussian-DP lower bound, all simultaneously valid.

The sampled engine (:mod:`dpaudit.stats.sampled`) measures, beside the verdict's event, a few
more events fixed on the selection sample (for a threshold statistic: the best threshold at
each delta of :data:`PROFILE_DELTAS` and the best one for Gaussian DP), on the same fresh
measurement draws. With ``K`` events and level ``alpha``, each event's two Clopper-Pearson
limits are taken at ``alpha / (2K)`` (Bonferroni), so with probability ``>= 1 - alpha`` all
``2K`` limits hold at once. On that event every statement below holds simultaneously:

* **epsilon at every delta** (Dong, Roth & Su 2022's privacy profile in its
  ``(eps, delta)`` form): for each event ``E`` with likely-side probability ``p >= p_lo`` and
  other-side ``q <= q_hi``, ``p <= e^eps q + delta`` forces
  ``eps >= log((p_lo - delta) / q_hi)``; the profile's bound at ``delta`` is the largest over
  the events. Each term is non-increasing in ``delta``, so the bound is too.
* **trade-off points** (f-DP, Dong, Roth & Su 2022, Def. 2.1): the test "reject the unlikely
  side when the output is in ``E``" has type I error ``q <= q_hi`` and type II error
  ``1 - p <= 1 - p_lo``. The mechanism's trade-off function ``f`` is non-increasing and
  ``f(q) <= 1 - p``, so ``f(q_hi) <= 1 - p_lo``: the point ``(q_hi, 1 - p_lo)`` lies on or
  above the true curve. A point below the claimed curve is a violation of the claim.
* **Gaussian DP** (Dong, Roth & Su 2022, Def. 2.6): a ``mu``-GDP mechanism has
  ``f >= G_mu``, ``G_mu(x) = Phi(Phi^-1(1 - x) - mu)``; ``G_mu(q_hi) <= f(q_hi) <= 1 - p_lo``
  gives ``mu >= Phi^-1(p_lo) - Phi^-1(q_hi)`` for *any* mechanism (the bound is valid
  whatever the output law), the largest over the events being reported.

The claimed curve beside them is the trade-off function of the claimed ``(eps, delta)``
point, ``f(x) = max(0, 1 - delta - e^eps x, e^-eps (1 - delta - x))`` (Kairouz, Oh &
Viswanath 2015; Dong, Roth & Su 2022, Prop. 2.5), and, where a check states the Gaussian DP
parameter its analysis implies (``sensitivity / sigma``), the exact curve ``G_mu`` of that
analysis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from dpaudit.stats.events import cp_lower, cp_upper
from dpaudit.validation import check_alpha, check_delta

__all__ = ["PROFILE_DELTAS", "ProfileEvent", "calibration_finding", "claimed_tradeoff",
           "gaussian_tradeoff", "mu_lower_bound", "privacy_profile", "summary_line"]

#: the deltas at which every sampled claim reports a valid epsilon lower bound
PROFILE_DELTAS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7)

#: type I errors at which the claimed and exact trade-off curves are tabulated (the claimed
#: curve's kink is added per claim)
CURVE_GRID = tuple(float(x) for x in np.concatenate([
    [0.0], np.logspace(-8, -2, 25), np.linspace(0.02, 1.0, 50)]))


@dataclass(frozen=True)
class ProfileEvent:
    """One measured event: hits ``count_p`` of ``n_p`` draws on the side where it is likely,
    ``count_q`` of ``n_q`` on the other; ``role`` says why it was chosen (``verdict``,
    ``delta=1e-05``, ``gdp``)."""

    role: str
    event: str
    direction: str
    count_p: int
    n_p: int
    count_q: int
    n_q: int

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "event": self.event, "direction": self.direction,
                "count_p": self.count_p, "n_p": self.n_p, "count_q": self.count_q,
                "n_q": self.n_q}


def claimed_tradeoff(x: np.ndarray, epsilon: float, delta: float) -> np.ndarray:
    """Trade-off function of an ``(eps, delta)``-DP claim at type I errors ``x``."""
    x = np.asarray(x, float)
    e = math.exp(min(epsilon, 700.0))
    out: np.ndarray = np.maximum(np.maximum(np.zeros_like(x), 1.0 - delta - e * x),
                                 (1.0 - delta - x) / e)
    return out


def gaussian_tradeoff(x: np.ndarray, mu: float) -> np.ndarray:
    """``G_mu(x) = Phi(Phi^-1(1 - x) - mu)`` (Dong, Roth & Su 2022, Def. 2.6)."""
    x = np.clip(np.asarray(x, float), 0.0, 1.0)
    return np.asarray(ndtr(ndtri(1.0 - x) - mu), dtype=float)


def mu_lower_bound(p_lo: np.ndarray, q_hi: np.ndarray) -> float:
    """``max(0, max_k Phi^-1(p_lo_k) - Phi^-1(q_hi_k))`` (module docstring)."""
    with np.errstate(invalid="ignore"):
        mu = ndtri(np.asarray(p_lo, float)) - ndtri(np.asarray(q_hi, float))
    mu = mu[np.isfinite(mu)]
    return float(max(0.0, mu.max())) if mu.size else 0.0


def privacy_profile(events: Sequence[ProfileEvent], *, alpha: float, epsilon: float,
                    delta: float, deltas: Sequence[float] = PROFILE_DELTAS,
                    analysis_mu: float | None = None) -> dict[str, Any]:
    """The empirical privacy profile of measured ``events`` at level ``alpha`` (module
    docstring): ``epsilon_lower_bounds`` at ``deltas`` (and the claim's ``delta``),
    ``tradeoff_points``, ``mu_lower_bound``, and the claimed (and analysis) curves, as a
    JSON-ready ``dict``. Every number holds simultaneously with probability ``>= 1 - alpha``.
    """
    check_alpha(alpha)
    check_delta(delta)
    if not events:
        raise ValueError("events=() must hold at least one measured event")
    k = len(events)
    a_each = alpha / (2 * k)
    p_lo = np.array([float(cp_lower(e.count_p, e.n_p, a_each)) for e in events])
    q_hi = np.array([float(cp_upper(e.count_q, e.n_q, a_each)) for e in events])
    ladder = sorted({float(d) for d in deltas} | {float(delta)}, reverse=True)
    bounds = []
    for d in ladder:
        num = p_lo - d
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(num > 0, np.log(np.maximum(num, 1e-300) / q_hi), 0.0)
        best = int(np.argmax(terms))
        bounds.append({"delta": d, "epsilon_lower_bound": float(max(0.0, terms[best])),
                       "event": events[best].role})
    points = [{"type_i": float(q), "type_ii": float(1.0 - p), "role": e.role,
               "claimed_type_ii": float(claimed_tradeoff(np.array([q]), epsilon, delta)[0])}
              for e, p, q in zip(events, p_lo, q_hi, strict=True)]
    mu = mu_lower_bound(p_lo, q_hi)
    kink = (1.0 - delta) / (1.0 + math.exp(min(epsilon, 700.0)))
    grid = np.unique(np.append(np.asarray(CURVE_GRID), kink))
    out: dict[str, Any] = {
        "confidence": 1.0 - alpha,
        "alpha_per_limit": a_each,
        "correction": f"Bonferroni over the {k} measured event(s), two limits each",
        "epsilon_at_delta": bounds,
        "tradeoff_points": points,
        "mu_lower_bound": mu,
        "events": [e.to_dict() for e in events],
        "claimed_curve": {"kind": f"trade-off of the ({epsilon:g}, {delta:g}) claim",
                          "type_i": [float(x) for x in grid],
                          "type_ii": [float(y) for y in claimed_tradeoff(grid, epsilon,
                                                                         delta)]},
    }
    if analysis_mu is not None:
        out["analysis_mu"] = float(analysis_mu)
        out["exact_curve"] = {"kind": f"Gaussian DP, mu = {analysis_mu:.6g} (the analysis)",
                              "type_i": [float(x) for x in grid],
                              "type_ii": [float(y) for y in gaussian_tradeoff(
                                  grid, float(analysis_mu))]}
    return out


def summary_line(profile: dict[str, Any]) -> str:
    """One line of the text report: epsilon at three deltas of the ladder and the GDP bound."""
    shown = [b for b in profile["epsilon_at_delta"] if b["delta"] in (1e-1, 1e-3, 1e-5, 1e-7)]
    eps = ", ".join(f"{b['epsilon_lower_bound']:.3g} at {b['delta']:g}" for b in shown)
    line = (f"privacy profile ({profile['confidence']:.3g}, simultaneous): eps >= {eps}; "
            f"Gaussian DP mu >= {profile['mu_lower_bound']:.4g}")
    if "analysis_mu" in profile:
        line += f" (analysis: {profile['analysis_mu']:.4g})"
    return line


def calibration_finding(profile: dict[str, Any], *, violated: bool) -> dict[str, Any] | None:
    """The calibration finding of a Gaussian-shaped release (``None`` when there is none):
    the code's Gaussian DP parameter is above the one its analysis implies (``sensitivity /
    sigma``), at the profile's confidence. While the ``(eps, delta)`` claim holds this is a
    finding, not a violation: the code adds less noise than its analysis says, and the claim
    holds only by the slack of the calibration."""
    mu_a = profile.get("analysis_mu")
    if mu_a is None or not profile["mu_lower_bound"] > mu_a:
        return None
    mu = profile["mu_lower_bound"]
    tail = ("the (eps, delta) claim is violated as well" if violated else
            "the claim holds by the calibration's slack")
    return {"mu_lower_bound": mu, "analysis_mu": mu_a, "confidence": profile["confidence"],
            "summary": f"the code adds less noise than its analysis (mu >= {mu:.4g} against "
                       f"{mu_a:.4g}); {tail}"}
