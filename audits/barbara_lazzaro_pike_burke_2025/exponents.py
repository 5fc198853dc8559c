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

The paper's reading is a limit (Sec. 3.2, after Theorem 3.2: "Algorithm 1 is near-optimal
when [eps -> 0], i.e. when maximal level of privacy is achieved. [...] Hence the upper and lower
bounds match up to constants and an additive term"; Sec. 4.2, after Theorem 4.2: "as [eps -> 0]
Algorithm 2 is instance-dependent optimal up to constants and additive terms"; the bracketed
formulas were lost in extraction). It is decided by exact cells: for the fixed budget, that the
simplified ``r_low / r_up`` keeps no symbol of the instance and has a finite ``eps -> 0`` limit
(sympy; the limit's value, ``4 c c'`` with the reconstructed constants, is reported, not compared:
comparing it with ``4 c c'`` compares the reconstruction with itself); and the
fixed-confidence limit of the leading-term ratio, ``8 c'' H / sum_i kl(mu_i, tau)^-1``, on each
instance against ``8 c'' / (tau (1 - tau))``, a bound free of the means (``kl(p, q) <= (p -
q)^2 / (q (1 - q))``, the chi-square bound), so the ratio is a constant for a fixed threshold.
Each ``eps`` of the grid also has its cell, not compared (the paper claims nothing there): the
ratio of the upper bound's exponent to the lower bound's, ``r_up / r_low = 1 / (c c' (e^eps +
1)^2)``, itself.

So "up to constants" holds as the paper states it (``eps -> 0``), and it does not hold
uniformly in ``eps``: at ``eps = 8`` the two rates differ by a factor ``(e^8 + 1)^2 / 4 =
2.2e6`` beyond the ``eps -> 0`` constant. Nothing is sampled (every cell has ``runs = 0``).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.bounds import (
    complexity,
    private_complexity,
)
from dpaudit.experiments import (
    Experiment,
    ExperimentOutput,
    ExperimentSettings,
    Table,
    new_figure,
)
from dpaudit.stats.evidence import ExperimentEvidence, Measurement

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


def exponent_ratio(epsilon: float, *, c: float = 16.0, c_prime: float = 16.0) -> float:
    """``r_up / r_low = 1 / (c c' (e^eps + 1)^2)``: the upper bound's exponent over the lower
    bound's (fixed budget); below 1, since the upper bound decays more slowly."""
    return 1.0 / rate_ratio(epsilon, c=c, c_prime=c_prime)


def rate_ratio_limit(*, c: float = 16.0, c_prime: float = 16.0) -> sp.Expr:
    """``lim_{eps -> 0} r_low / r_up`` of :func:`symbolic_rate_ratio` (sympy): ``4 c c'``."""
    eps, cs, cps = sp.symbols("epsilon c c_prime", positive=True)
    return sp.limit(symbolic_rate_ratio(), eps, 0, "+").subs(
        {cs: sp.nsimplify(c), cps: sp.nsimplify(c_prime)})


def confidence_limit(means: tuple[float, ...], tau: float, *, c_second: float = 2.0) -> float:
    """``lim_{eps -> 0}`` of :func:`confidence_ratio`: ``8 c'' H / sum_i kl(mu_i, tau)^-1``
    (``(e^eps - 1)^2 H^eps = (e^eps + 1)^2 H -> 4 H``)."""
    mu = np.asarray(means, dtype=float)
    h = complexity(mu, tau)
    return float(8.0 * c_second * h / np.sum(1.0 / _kl(mu, tau)))


def confidence_constant(tau: float, *, c_second: float = 2.0) -> float:
    """``8 c'' / (tau (1 - tau))``: :func:`confidence_limit` is at most this on every
    instance with threshold ``tau`` (``kl(mu, tau) <= (mu - tau)^2 / (tau (1 - tau))``)."""
    return 8.0 * c_second / (tau * (1.0 - tau))


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
    fig, _ = new_figure(figsize=(11, 4.2))
    fig.clear()
    ax0, ax = fig.subplots(1, 2)
    grid = np.geomspace(EPSILONS[0], EPSILONS[-1], 60)
    for c_up, style in ((16.0, "-"), (64.0, "--")):
        ax0.plot(grid, [exponent_ratio(e, c=c_up) for e in grid], style,
                 label=f"r_up / r_low, c = {c_up:g}, c' = 16")
        ax0.axhline(exponent_ratio(0.0, c=c_up), color="0.5", lw=0.8, ls=style)
    ax0.plot(EPSILONS, [exponent_ratio(e) for e in EPSILONS], "o", ms=4,
             label="table cells (c = c' = 16); grey: eps -> 0 limits 1/(4 c c')")
    ax0.set(xscale="log", yscale="log", xlabel="epsilon",
            ylabel="upper bound's exponent / lower bound's exponent",
            title="fixed budget: the ratio of exponents itself")
    ax0.legend(fontsize=6)
    ax.plot(grid, [rate_ratio(e) / rate_ratio(0.0) for e in grid],
            label="fixed budget: rate ratio / its eps -> 0 limit")
    for label, (means, tau) in INSTANCES.items():
        base = confidence_ratio(means, tau, EPSILONS[0])
        ax.plot(grid, [confidence_ratio(means, tau, e) / base for e in grid], "--",
                label=f"fixed confidence, {label}")
    ax.set(xscale="log", yscale="log", xlabel="epsilon",
           ylabel="upper/lower mismatch (relative to small eps)")
    ax.legend(fontsize=6)
    cells = [Measurement(f"fixed budget: upper exponent / lower exponent at eps={e:g}", None,
                         exponent_ratio(e), 0, note="1 / (c c' (e^eps + 1)^2), c = c' = 16; "
                         "not compared (the paper claims the match as eps -> 0)")
             for e in EPSILONS]
    for e in EPSILONS:
        rows.append(("fixed budget r_up/r_low = upper exponent / lower exponent (c = c' = 16)",
                     e, exponent_ratio(e), exponent_ratio(e) / exponent_ratio(0.0)))
    limit = rate_ratio_limit()
    # what "match up to constants as eps -> 0" asks of the fixed-budget rates: that the limit
    # of their ratio is a finite number free of the instance. Measured (sympy): the symbols
    # of the instance left in the simplified ratio (H, the complexity that carries the gaps;
    # K enters neither rate), and whether the limit is finite. Its value, 4 c c', is the
    # reconstruction's constant: comparing it with 4 c c' would compare it with itself.
    eps_s, c_s, cp_s = sp.symbols("epsilon c c_prime", positive=True)
    instance_symbols = sorted(str(x) for x in ratio.free_symbols - {eps_s, c_s, cp_s})
    finite = bool(sp.limit(ratio, eps_s, 0, "+").is_finite)
    cells.append(Measurement(
        "fixed budget: instance symbols (H, K) left in the simplified r_low / r_up", 0.0,
        float(len(instance_symbols)), 0, "at most",
        note="sympy: " + (", ".join(instance_symbols) or "none") + "; its eps -> 0 limit is "
        + ("finite" if finite else "not finite") + f", {sp.sstr(limit)} at the reconstructed "
        "c = c' = 16 (the constant itself is a reconstruction, not compared)"))
    if not finite:
        cells.append(Measurement("fixed budget: lim eps -> 0 of r_low / r_up is finite", 1.0,
                                 0.0, 0, "at least", note="sympy limit not finite"))
    rows.append(("fixed budget lim eps->0 r_low/r_up (sympy)", 0.0, float(limit), 1.0))
    for label, (means, tau) in INSTANCES.items():
        lim = confidence_limit(means, tau)
        cells.append(Measurement(
            f"fixed confidence: lim eps -> 0 of upper / lower leading terms, {label}",
            confidence_constant(tau), lim, 0, "at most",
            note="8 c'' H / sum_i kl(mu_i, tau)^-1 (c'' = 2) against 8 c'' / (tau (1 - tau)), "
                 "its bound over every instance with this threshold"))
        rows.append((f"fixed confidence lim eps->0 upper/lower, {label}", 0.0, lim,
                     lim / confidence_constant(tau)))
    table = Table(("comparison", "epsilon", "ratio", "ratio / small-eps ratio"), tuple(rows))
    h = {label: complexity(m, t) for label, (m, t) in INSTANCES.items()}
    summary = "\n".join([
        "**Claim.** Narration after Theorems 3.2 and 4.2: as eps -> 0 the upper bounds "
        "(Theorems 3.1, 4.1) match the lower bounds (Theorems 3.2, 4.2) up to constants and "
        "additive terms.",
        f"**Derived.** Fixed budget: r_low / r_up = {sp.sstr(ratio)} (sympy; equals "
        f"c c' (e^eps + 1)^2: {identity}). The gaps cancel (both rates scale with 1/H); K "
        "enters only the upper bound's additive 2 log((log T + 1) K).",
        "**Measured.** The fixed-budget upper bound's exponent over the lower bound's, "
        "r_up / r_low = 1 / (c c' (e^eps + 1)^2) with c = c' = 16: " + ", ".join(
            f"{exponent_ratio(e):.3g} at eps = {e:g}" for e in EPSILONS)
        + f" (limit {1.0 / float(limit):.6g} = 1/(4 c c') as eps -> 0, sympy). "
        f"Relative to eps -> 0 the fixed-budget mismatch is "
        f"{rate_ratio(1.0) / rate_ratio(0.0):.3g}x at eps = 1, "
        f"{rate_ratio(4.0) / rate_ratio(0.0):.3g}x at eps = 4 and "
        f"{rate_ratio(8.0) / rate_ratio(0.0):.3g}x at eps = 8; the fixed-confidence leading "
        "terms move the same way, times kl(mu, tau)/Delta^2, which is largest for means near "
        "0 or 1 (H = " + ", ".join(f"{v:.3g}" for v in h.values()) + " on the two "
        "instances).",
        "**The paper's reading.** Sec. 3.2: \"Algorithm 1 is near-optimal when [eps -> 0], "
        "i.e. when maximal level of privacy is achieved. [...] Hence the upper and lower bounds "
        "match up to constants and an additive term\"; Sec. 4.2: \"as [eps -> 0] Algorithm 2 "
        "is instance-dependent optimal up to constants and additive terms\" (bracketed "
        "formulas lost in extraction).",
        f"**Decided.** As the paper states it, a limit, and 'up to constants' read as: the "
        f"limit of the ratio is finite and free of the instance. Measured for the fixed "
        f"budget (sympy): the simplified r_low / r_up keeps "
        f"{len(instance_symbols)} symbol(s) of the instance (H and the gaps cancel, K enters "
        f"neither rate) and its eps -> 0 limit is {'finite' if finite else 'not finite'} "
        f"({float(limit):g} = 4 c c' at the reconstructed c = c' = 16: that value is the "
        f"reconstruction's own constant, so it is reported, not compared with itself); the "
        f"fixed-confidence limits "
        + ", ".join(f"{confidence_limit(m, t):.4g} ({lab}; bound {confidence_constant(t):.4g})"
                    for lab, (m, t) in INSTANCES.items())
        + " are at most 8 c'' / (tau (1 - tau)), a constant for a fixed threshold. Not "
        "uniformly in eps: the mismatch is within 3.5x of its limit up to eps = 1 and grows "
        "like e^(2 eps) beyond (the paper leaves low privacy regimes to future work). The "
        "constants are reconstructions (c = 16 or 64), which move the ratio by a fixed factor "
        "only.",
    ])
    evidence = ExperimentEvidence(
        "Sec. 3.2 and 4.2: as eps -> 0 the upper bounds (Theorems 3.1, 4.1) match the lower "
        "bounds (Theorems 3.2, 4.2) up to constants and additive terms", tuple(cells))
    return ExperimentOutput(fig, table, summary, evidence=evidence,
                            verdict="exponents compared symbolically; see the table")


EXPERIMENTS = [
    Experiment(name=NAME, paper=PAPER,
               description="upper against lower bounds as functions of eps, the gaps and K "
                           "(fixed budget and fixed confidence)",
               run=exponents, horizon=1, runs=1, quick_horizon=1, quick_runs=1),
]

__all__ = ["EXPERIMENTS", "confidence_constant", "confidence_limit", "confidence_ratio",
           "exponent_ratio", "rate_ratio", "rate_ratio_limit", "symbolic_rate_ratio"]
