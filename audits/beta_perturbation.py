"""``check beta-perturbation``: DP-FTPL-Beta's padded Beta perturbation, decided exactly.

Seed 003, Algorithm 2, Theorem 13 (privacy part) and Figure 2. ``theta ~ Beta(a + k, b + k)``
with ``a = R + 1``, ``b = N - R + 1``, ``k = floor(N/8) + 1`` after a start phase ``N_B``
(reconstruction in :mod:`dpaudit.mechanisms.beta_perturbation`). One flipped reward changes
``R`` by one and leaves ``N`` (hence ``k``) unchanged. Claims:

* ``start-phase-exact``: for every reachable ``(a, b)`` with ``N >= ceil(N_B)`` -- every
  ``R in 0..N-1`` for each ``N`` in ``ceil(N_B) .. ceil(N_B) + span`` and on a geometric grid
  of ``N`` up to ``n_max`` -- the exact divergence is at most ``delta``. (The range is finite;
  the report states it. Beyond it the law concentrates at rate ``1/sqrt(N)`` while the change
  is ``O(1/N)``; this is the paper's argument, not checked here.)
* ``lemma8-generic``: see below.

Finding ``padding-necessary`` (information: the paper's Fig. 2 d-f is drawn at eps = 1, so it
is not a claim at every (eps, delta)): without ``k`` the worst divergence at the requested
parameters for every ``N`` checked (all ``N <= 2000``, Fig. 2 d-f's ``N = 10, 10^4, 10^7``)
and in the limit ``N -> inf`` (``N Beta(1, N+1) -> Exp(1)``, ``N Beta(2, N) -> Gamma(2)``,
computed by sympy: ``sup_t (1 - e^-t) - e^eps (1 - e^-t - t e^-t)``).
* ``lemma8-generic``: Lemma 8 at ``N = ceil(N_B)``, ``R = 0`` (the paper's figures use
  ``a = 1``) through :func:`dpaudit.conditions.lemma8_check`.

The faulty variant drops the padding (plain Thompson sampling with a start phase).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.conditions import lemma8_check
from dpaudit.divergence import beta_hockey_stick
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.evidence import ExactEvidence, ProofEvidence
from dpaudit.mechanisms.beta_perturbation import (
    beta_cdf_pair,
    beta_parameters,
    beta_start_phase,
    beta_worst_delta,
)
from dpaudit.results import Finding, Notion

N_MAX = Budget(full=10**5, quick=10**4)  # largest count N checked (geometric grid)
PAIRS = Budget(full=10**6, quick=2 * 10**5)  # neighbouring pairs in the dense part
SPAN = Budget(full=1000, quick=100)  # longest dense run of N after the start phase
DENSE_UNPADDED = Budget(full=2000, quick=200)  # N = 1.. checked without padding
LEMMA8_GRID = Budget(full=8001, quick=2001)
SEARCH_LIMIT = 3000  # largest N searched for the smallest sufficient start phase
REF = "Wang & Zhu (seed 003), Alg. 2, Thm 13 (privacy part), Fig. 2"
CDF_PAIRS = {
    "beta-perturbation": lambda epsilon, delta, n=None, successes=0: beta_cdf_pair(
        n or math.ceil(beta_start_phase(epsilon, delta)), successes=successes),
    "beta-perturbation-unpadded": lambda epsilon, delta, n=None, successes=0: beta_cdf_pair(
        n or 10, successes=successes, padding=False),
}


def _scan(eps: float, counts: np.ndarray, padding: bool) -> tuple[float, int, int]:
    worst, wn, wr = 0.0, 0, 0
    for n in counts:
        d, r = beta_worst_delta(eps, int(n), padding=padding)
        if d > worst:
            worst, wn, wr = d, int(n), r
    return worst, wn, wr


def _counts(ctx: CheckContext) -> np.ndarray:
    start = math.ceil(beta_start_phase(ctx.epsilon, ctx.delta))
    n_max = ctx.size(N_MAX)
    span = max(10, min(ctx.size(SPAN), ctx.size(PAIRS) // start))
    dense = np.arange(start, start + span + 1)
    sparse = np.unique(np.geomspace(start + span, max(n_max, start + span), 8).astype(int))
    return np.unique(np.concatenate([dense, sparse]))


def _start_phase(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ExactEvidence:
        counts = _counts(ctx)
        worst, wn, wr = _scan(ctx.epsilon, counts, padding=not faulty)
        nb = beta_start_phase(ctx.epsilon, ctx.delta)
        # smallest N from which every checked N passes (with padding), for the margin
        top = min(math.ceil(nb), SEARCH_LIMIT)
        fails = [n for n in range(1, top + 1)
                 if beta_worst_delta(ctx.epsilon, n)[0] > ctx.delta]
        n_min = (max(fails) + 1) if fails else 1
        return ExactEvidence(worst, 0.0, details=(
            f"paper's N_B = {nb:.2f}; padding k = floor(N/8) + 1 "
            + ("DROPPED (faulty)" if faulty else "applied"),
            f"checked every R for {counts.size} values of N in {counts.min()}..{counts.max()}"
            f" ({sum(int(n) for n in counts)} neighbouring pairs)",
            f"worst exact delta {worst:.4g} at N = {wn}, R = {wr} (claim {ctx.delta:g})",
            (f"with padding, every N >= {n_min} up to {top} passes: the paper's start phase "
             f"is {math.ceil(nb) / n_min:.3g}x the smallest sufficient one"
             if n_min <= top else f"some N <= {top} fails; not searched beyond {top}")),
            data={"N_B": nb, "worst_delta": worst, "N_min": n_min})
    return evaluate


def unpadded_limit(epsilon: float) -> float:
    """``lim_{N->inf}`` of the unpadded divergence at ``R = 0`` (sympy, then maximised)."""
    t = sp.Symbol("t", positive=True)
    g = (1 - sp.exp(-t)) - sp.exp(sp.nsimplify(epsilon)) * (1 - sp.exp(-t) - t * sp.exp(-t))
    crit = sp.solve(sp.diff(g, t), t)
    vals = [float(g.subs(t, c)) for c in crit if c.is_real and c > 0] + [0.0]
    return max(vals)


def _padding(ctx: CheckContext) -> Finding:
    dense = np.arange(1, ctx.size(DENSE_UNPADDED) + 1)
    best = min(beta_worst_delta(ctx.epsilon, int(n), padding=False)[0] for n in dense)
    fig = {}
    for n in (10, 10**4, 10**7):
        a, b1 = beta_parameters(n, 0, padding=False)
        fig[n] = float(beta_hockey_stick(ctx.epsilon, a, b1 - 1.0))
    limit = unpadded_limit(ctx.epsilon)
    fails = best > ctx.delta and min(fig.values()) > ctx.delta and limit > ctx.delta
    return Finding("padding-necessary", (
        f"without the padding k the condition fails for every N checked at eps = "
        f"{ctx.epsilon:g}, delta = {ctx.delta:g}" if fails else
        f"without the padding k some N meets (eps = {ctx.epsilon:g}, delta = {ctx.delta:g}): "
        "Fig. 2 d-f (drawn at eps = 1) does not extend to these parameters")
        + " (Wang & Zhu 2023, Fig. 2 d-f)", Notion.PER_STEP, details=(
        f"without padding, min over N = 1..{dense.max()} of the worst delta: {best:.4g} "
        f"(> {ctx.delta:g} means not private for any of them)",
        "Fig. 2 d-f (R = 0): " + ", ".join(f"N={n:g}: {v:.4g}" for n, v in fig.items()),
        f"limit N -> inf (exact, sympy): {limit:.6g}"),
        data={"min_delta": best, "figure": fig, "limit": limit, "fails_everywhere": fails})


def _lemma8(faulty: bool):
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
        n = math.ceil(beta_start_phase(ctx.epsilon, ctx.delta))
        proof = lemma8_check(beta_cdf_pair(n, padding=not faulty), ctx.epsilon, ctx.delta,
                             grid=ctx.size(LEMMA8_GRID))
        return ProofEvidence(proof, data={"N": n})  # Lemma 8 is sufficient
    return evaluate


def _figure(ctx: CheckContext) -> Finding:
    rows = [f"N={n}: worst delta {beta_worst_delta(ctx.epsilon, n)[0]:.3g} (padded)"
            for n in (1, 5, 10, 20, 50, 100, 200)]
    return Finding("padded-delta-by-count", "exact worst-case delta of the padded Beta "
                   "perturbation for small counts (the start phase's job)", Notion.PER_STEP,
                   details=tuple(rows))


def _spec(faulty: bool) -> AuditSpec:
    claims = [
        ClaimSpec("start-phase-exact", Notion.PER_STEP,
                  "after the start phase N_B, one flipped reward moves theta's law by at most "
                  "(eps, delta) for every reachable (a, b)", REF, _start_phase(faulty)),
        ClaimSpec("lemma8-generic", Notion.PER_STEP,
                  "Lemma 8's CDF inequalities hold at N = ceil(N_B), a = 1",
                  "seed 003 Lemma 8, Fig. 2 b", _lemma8(faulty)),
    ]
    return AuditSpec(
        name="beta-perturbation-faulty" if faulty else "beta-perturbation",
        description="DP-FTPL-Beta perturbation Beta(a + k, b + k), k = floor(N/8) + 1"
                    + (" -- padding dropped (deliberately broken)" if faulty else ""),
        paper="Wang & Zhu, DP-FTPL (seed 003)", claims=claims,
        findings=[] if faulty else [FindingSpec("padded-delta-by-count", _figure),
                                    FindingSpec("padding-necessary", _padding)],
        default_epsilon=1.0, default_delta=0.01, allow_zero_epsilon=True, faulty=faulty,
    )


AUDITS = [_spec(False), _spec(True)]
