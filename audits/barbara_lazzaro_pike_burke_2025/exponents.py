"""Barbara, Lazzaro & Pike-Burke 2025: "the upper bound matches the lower bound up to constants",
compared as functions of epsilon, the gaps and K (``python -m dpaudit reproduce
ldp-thresholding-exponents``).

What the paper says (narration after Theorems 3.2 and 4.2): its upper bounds (Theorems 3.1
and 4.1) match its lower bounds (Theorems 3.2 and 4.2) up to constants. Both sides as
reconstructed in :mod:`dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.bounds` (their
printed constants were lost in extraction: ``c`` = 16 or 64, ``c'`` = 16, ``c''`` = 2 are
parameters there):

* fixed budget: the loss decays as ``exp(-r T)`` with rate ``r_up = 1 / (c H^eps) =
  tanh(eps/2)^2 / (c H)`` in the upper bound and ``r_low = c' (e^eps - 1)^2 / H`` in the lower
  bound, so ``r_low / r_up = c c' (e^eps + 1)^2`` (checked symbolically here with sympy): a
  constant (``4 c c'``) as ``eps -> 0``, but growing like ``e^(2 eps)`` for large ``eps``. The
  gaps enter both sides only through ``H`` (they cancel); ``K`` only through the upper bound's
  additive ``2 log((log T + 1) K)`` term, a lower-order factor ``((log T + 1) K)^2``.
* fixed confidence: upper ``2 H^eps log(4 K T^3 / delta) + K`` against lower
  ``sum_i log(1/(2.4 delta)) / (c'' (e^eps - 1)^2 kl(mu_i, tau))``. Without the logarithmic
  factors the ratio of the leading terms is ``2 c'' (e^eps + 1)^2 H / sum_i kl(mu_i, tau)^-1``:
  the same ``(e^eps + 1)^2`` growth, times a gap-dependent factor (``kl(mu, tau)`` against
  ``Delta^2``) that is bounded when ``tau`` stays away from 0 and 1 and grows when the means
  approach 0 or 1. Computed on the thresholding experiment's instance and on means near 0.

So "up to constants" holds in the high-privacy regime (``eps`` of order 1 or below, which is
what local DP usually means) and fails as ``eps`` grows: at ``eps = 8`` the two rates differ by
a factor ``(e^8 + 1)^2 / 4 = 2.2e6`` beyond the ``eps -> 0`` constant. Nothing is sampled.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.bounds import (
    complexity,
    private_complexity,
)
from dpaudit.sim.experiments import (
    Experiment,
    ExperimentOutput,
    ExperimentSettings,
    Table,
    new_figure,
)

PAPER = "Barbara, Lazzaro & Pike-Burke 2025, Locally Differentially Private Thresholding Bandits"
NAME = "ldp-thresholding-exponents"
EPSILONS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: instances of the fixed-confidence comparison: the thresholding experiment's, and means near
#: 0 and 1, where kl(mu, tau) / (mu - tau)^2 is largest
INSTANCES = {"experiment (0.1, 0.35, 0.65, 0.9), tau 0.5": ((0.1, 0.35, 0.65, 0.9), 0.5),
             "means near 0, tau 0.1": ((0.001, 0.01, 0.3, 0.5), 0.1)}


def symbolic_rate_ratio() -> sp.Expr:
    """``r_low / r_up`` of the fixed-budget bounds, simplified by sympy (module docstring)."""
    eps, c, cp, h = sp.symbols("epsilon c c_prime H", positive=True)
    r_up = sp.tanh(eps / 2) ** 2 / (c * h)
    r_low = cp * (sp.exp(eps) - 1) ** 2 / h
    return sp.simplify((r_low / r_up).rewrite(sp.exp))


def rate_ratio(epsilon: float, *, c: float = 16.0, c_prime: float = 16.0) -> float:
    """``c c' (e^eps + 1)^2`` (the simplified :func:`symbolic_rate_ratio`)."""
    return c * c_prime * (math.exp(epsilon) + 1.0) ** 2


def _kl(p: np.ndarray, q: float) -> np.ndarray:
    return p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))


def confidence_ratio(means: tuple[float, ...], tau: float, epsilon: float, *,
                     c_second: float = 2.0) -> float:
    """Leading-term ratio of Theorem 4.1's upper bound to Theorem 4.2's lower bound, without
    their logarithmic factors: ``2 H^eps`` over ``sum_i 1 / (c'' (e^eps - 1)^2 kl(mu_i, tau))``."""
    mu = np.asarray(means, dtype=float)
    upper = 2.0 * private_complexity(mu, tau, epsilon)
    lower = float(np.sum(1.0 / (c_second * math.expm1(epsilon) ** 2 * _kl(mu, tau))))
    return upper / lower


def exponents(settings: ExperimentSettings) -> ExperimentOutput:
    ratio = symbolic_rate_ratio()
    eps = sp.Symbol("epsilon", positive=True)
    c, cp = sp.symbols("c c_prime", positive=True)
    expected = c * cp * (sp.exp(eps) + 1) ** 2
    identity = sp.simplify(ratio - expected) == 0
    rows: list[tuple[object, ...]] = []
    for e in EPSILONS:
        fb = rate_ratio(e)
        rows.append(("fixed budget r_low/r_up (c = c' = 16)", e, fb, fb / rate_ratio(0.0)))
        fb64 = rate_ratio(e, c=64.0)
        rows.append(("fixed budget r_low/r_up (c = 64, c' = 16)", e, fb64,
                     fb64 / rate_ratio(0.0, c=64.0)))
        for label, (means, tau) in INSTANCES.items():
            cr = confidence_ratio(means, tau, e)
            rows.append((f"fixed confidence upper/lower, {label}", e, cr,
                         cr / confidence_ratio(means, tau, EPSILONS[0])))
    fig, ax = new_figure()
    grid = np.geomspace(EPSILONS[0], EPSILONS[-1], 60)
    ax.plot(grid, [rate_ratio(e) / rate_ratio(0.0) for e in grid],
            label="fixed budget: rate ratio / its eps -> 0 limit")
    for label, (means, tau) in INSTANCES.items():
        base = confidence_ratio(means, tau, EPSILONS[0])
        ax.plot(grid, [confidence_ratio(means, tau, e) / base for e in grid], "--",
                label=f"fixed confidence, {label}")
    ax.set(xscale="log", yscale="log", xlabel="epsilon",
           ylabel="upper/lower mismatch (relative to small eps)")
    ax.legend(fontsize=6)
    table = Table(("comparison", "epsilon", "ratio", "ratio / small-eps ratio"), tuple(rows))
    h = {label: complexity(m, t) for label, (m, t) in INSTANCES.items()}
    summary = "\n".join([
        "**Claim.** Narration: the upper bounds (Theorems 3.1, 4.1) match the lower bounds "
        "(Theorems 3.2, 4.2) up to constants.",
        f"**Derived.** Fixed budget: r_low / r_up = {sp.sstr(ratio)} (sympy; equals "
        f"c c' (e^eps + 1)^2: {identity}). The gaps cancel (both rates scale with 1/H); K "
        "enters only the upper bound's additive 2 log((log T + 1) K).",
        f"**Measured.** Relative to eps -> 0 the fixed-budget mismatch is "
        f"{rate_ratio(1.0) / rate_ratio(0.0):.3g}x at eps = 1, "
        f"{rate_ratio(4.0) / rate_ratio(0.0):.3g}x at eps = 4 and "
        f"{rate_ratio(8.0) / rate_ratio(0.0):.3g}x at eps = 8; the fixed-confidence leading "
        "terms move the same way, times kl(mu, tau)/Delta^2, which is largest for means near "
        "0 or 1 (H = " + ", ".join(f"{v:.3g}" for v in h.values()) + " on the two "
        "instances).",
        "**Reading.** 'Up to constants' holds for eps of order 1 or below (a constant factor "
        "4 c c' as eps -> 0, within 3.5x of it up to eps = 1) and does not hold uniformly in "
        "eps: the mismatch grows like e^(2 eps). The constants themselves are reconstructions "
        "(c = 16 or 64), which move the ratio by a fixed factor only.",
    ])
    return ExperimentOutput(fig, table, summary,
                            verdict="exponents compared symbolically; see the table")


EXPERIMENTS = [
    Experiment(name=NAME, paper=PAPER,
               description="upper against lower bounds as functions of eps, the gaps and K "
                           "(fixed budget and fixed confidence)",
               run=exponents, horizon=1, runs=1, quick_horizon=1, quick_runs=1),
]

__all__ = ["EXPERIMENTS", "confidence_ratio", "rate_ratio", "symbolic_rate_ratio"]
