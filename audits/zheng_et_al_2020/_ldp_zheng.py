"""The audit recipe shared by the Zheng et al. 2020 checks (``ldp-one-point``, ``-two-point-bco``,
``-linear-bandit``, ``-glm-bandit``); not a registered name.

A check declares a :class:`Report`: the release (blocks, witness and supremum Mahalanobis
sensitivity), the two samplers that run the algorithm's own ``report`` code on the witness
pair, the whitened direction of the likelihood ratio, the paper's ``sigma`` as a function of
``eps`` (for the calibration finding) and its regret experiments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.audits.recipes.ldp import (
    calibration_finding,
    claim,
    gaussian_exact_evidence,
    gaussian_sampled_evidence,
    regret_rows,
)
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.sim.regret import summarise_regret
from dpaudit.stats.evidence import InconclusiveEvidence
from dpaudit.stats.results import Finding, Notion, RegretResult

PAPER = "Zheng, Cai, Huang, Li & Wang 2020, Locally Differentially Private (Contextual) Bandits"


@dataclass(frozen=True)
class Report:
    """One user's report, as the audit attacks it."""

    mu_witness: float
    mu_upper: float
    sample_d: Callable[[int, np.random.Generator], np.ndarray]
    sample_dp: Callable[[int, np.random.Generator], np.ndarray]
    direction: np.ndarray
    pair: str
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class RegretCase:
    """A regret experiment: ``run(eps, private, horizon, runs, rng) -> per-run regrets``."""

    label: str
    claimed: float
    run: Callable[[float, bool, int, int, np.random.Generator], np.ndarray]
    baseline: float = 0.5  # the non-private black box's order


#: Dwork & Roth 2014, Thm A.1 (the classical calibration the reports use) assumes eps < 1
#: (it also holds at eps = 1)
CLASSICAL_SCOPE_EPSILON = 1.0

#: draws per report (selection + measurement) of ``report-ldp-sampled``
REPORT_SAMPLES = Budget(full=2_000_000, quick=200_000)


def gaussian_claims(report: Callable[[CheckContext], Report], what: str, reference: str,
                    samples: Budget = REPORT_SAMPLES) -> list[ClaimSpec]:
    def exact(ctx: CheckContext):
        r = report(ctx)
        ev = gaussian_exact_evidence(r.mu_witness, r.mu_upper, ctx, r.lines)
        if ctx.epsilon > CLASSICAL_SCOPE_EPSILON and ev.delta_at_epsilon - ev.error > ctx.delta:
            # the paper's calibration is the classical Gaussian mechanism (Dwork & Roth 2014,
            # Thm A.1), proved for eps < 1 only: a failure above it is outside the claim's
            # scope, reported with the exact numbers, not a violation (as `check gaussian`)
            return InconclusiveEvidence(
                f"eps = {ctx.epsilon:g} is outside the scope of the classical Gaussian "
                f"mechanism the calibration rests on (Dwork & Roth 2014, Thm A.1, eps < 1); "
                f"here it fails exactly (delta {ev.delta_at_epsilon:.4g} vs {ctx.delta:g}), "
                "so Zheng et al.'s unqualified statement does not hold at these parameters",
                details=ev.details, data=ev.data)
        return ev

    def sampled(ctx: CheckContext):
        r = report(ctx)
        return gaussian_sampled_evidence(r.sample_d, r.sample_dp, r.direction, ctx,
                                         ctx.size(samples), r.pair)

    return [
        claim("report-ldp-exact", f"{what} is (eps, delta)-LDP: a Gaussian vector, its exact "
              "privacy curve at the worst pair of user data", reference, exact,
              ),
        claim("report-ldp-sampled", "the same, attacked by sampling the algorithm's report "
              "code on the worst pair", reference, sampled),
    ]


def regret_finding(cases: Sequence[RegretCase], horizons: Budget, runs: Budget,
                   note: str) -> FindingSpec:
    """Log-log slope of mean regret over ``horizons`` (a :class:`Budget` of tuples), ``runs``
    runs each, at the claim's eps, at eps = 10 (low noise: the asymptotic order shows within
    reach; skipped with ``quick``) and for the non-private black box."""
    def evaluate(ctx: CheckContext) -> Finding:
        ts, n_runs = ctx.size(horizons), ctx.size(runs)
        rows, data = [], []
        for case in cases:
            variants = [(ctx.epsilon, True, f"eps={ctx.epsilon:g}"),
                        (10.0, True, "eps=10"), (ctx.epsilon, False, "non-private")]
            for eps, private, tag in variants[::2] if ctx.quick else variants:
                regrets = [case.run(eps, private, t, n_runs, ctx.rng("regret", case.label,
                                                                        tag, t))
                           for t in ts]
                claimed = case.claimed if private else case.baseline
                line, d = regret_rows(f"{case.label}, {tag}", ts, regrets, claimed)
                rows.append(line)
                data.append(d)
        return Finding("regret-growth", f"log-log regret slopes over T in {list(ts)}, "
                       f"{n_runs} runs each (claimed orders hide logs and constants). {note}",
                       Notion.LDP, details=tuple(rows), data={"fits": data})
    return FindingSpec("regret-growth", evaluate)


def regret_at(case: RegretCase, horizon: Budget, runs: Budget
              ) -> Callable[[CheckContext], RegretResult]:
    """The main regret experiment: ``case`` at the claim's eps, ``horizon`` and ``runs``."""
    def run(ctx: CheckContext) -> RegretResult:
        t = ctx.size(horizon)
        regrets = case.run(ctx.epsilon, True, t, ctx.size(runs),
                           ctx.rng("regret-main", case.label))
        return summarise_regret(regrets, instance=case.label, algorithm=case.label,
                                horizon=t, bound=None,
                                bound_name=f"O~(T^{case.claimed:.3g}) (no constant printed)")
    return run


def spec(name: str, description: str, paper: str, claims: list[ClaimSpec],
         mu_of_eps: Callable[[float, float], float], paper_sigma: str,
         findings: Sequence[FindingSpec] = (), regret=None, variant: Any = None
         ) -> AuditSpec:
    def calibration(ctx: CheckContext) -> Finding:
        return calibration_finding(name, lambda e: mu_of_eps(e, ctx.delta), ctx.delta,
                                   paper_sigma)
    return AuditSpec(name=name, description=description, paper=paper, claims=claims,
                     findings=[FindingSpec("calibration", calibration), *findings],
                     regret=regret, default_epsilon=1.0, default_delta=1e-5, variant=variant)
