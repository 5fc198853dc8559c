"""The audit recipe shared by the Zheng et al. 2020 checks (``ldp-one-point``, ``-two-point-bco``,
``-linear-bandit``, ``-glm-bandit``); not a registered name.

A check declares a :class:`Report`: the release (blocks, witness and supremum Mahalanobis
sensitivity), the two samplers that run the algorithm's own ``report`` code on the witness
pair, the whitened direction of the likelihood ratio, the algorithm's report code on one
datum with a finite set of candidate data of the domain (read exactly by the probe of
:mod:`dpaudit.exact.probe` for ``report-ldp-code-exact``), the paper's ``sigma`` as a function
of ``eps`` (for the calibration finding) and its regret experiments.

**Scope.** Zheng et al. state Theorems 2, 5, 7 and 9 ("Algorithm N guarantees (eps,
delta)-LDP") for every ``eps`` and ``delta``, unqualified, with the classical Gaussian
calibration ``sigma = Delta sqrt(2 ln(1.25/delta))/eps`` (Sec. 2), which Dwork & Roth 2014,
Thm A.1 prove for ``eps < 1`` only. The claims are checked at the paper's scope: where the
calibration fails exactly (the exact ``delta`` at the attained worst pair exceeds the claim:
above ``eps`` about 8.4 at ``delta = 1e-5`` for a one-dimensional shift) the claim is
VIOLATED, with the exact numbers and the sentence that the cited theorem never covered those
``eps``. :func:`spec` declares that region as ``paper_claim_false`` for the domain battery.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from dpaudit.audits.recipes.ldp import (
    arm_reports,
    calibration_finding,
    claim,
    gaussian_epsilon,
    gaussian_exact_evidence,
    gaussian_sampled_evidence,
    regret_rows,
    simulated_reports_evidence,
)
from dpaudit.engine import AuditSpec, Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.exact.divergence import gaussian_hockey_stick
from dpaudit.exact.loss import OutOfRangeError
from dpaudit.exact.probe import (
    AffineReport,
    Unverified,
    gaussian_shift_delta,
    pair_loss,
    probe_report,
    worst_pair,
)
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.sim.regret import summarise_regret
from dpaudit.stats.evidence import Evidence, ExactEvidence, InconclusiveEvidence
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
    #: ``run(datum, rng)``: the algorithm's own report code on ONE user's datum (the probe
    #: serves ``rng``); ``data``: candidate data, the first two the witness pair;
    #: ``pairs``: the candidate pairs (indices into ``data``; default every pair)
    run: Callable[[Any, np.random.Generator], Any] | None = None
    data: tuple[Any, ...] = ()
    pairs: tuple[tuple[int, int], ...] | None = None
    describe: Callable[[Any], str] = repr


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
#: the same for the one-dimensional reports (Algorithms 1-2), whose twins sit just above the
#: claim: at ``delta = 1e-5`` a Gaussian's loss lives in the far tail. 3e8 draws per side
#: (4-5 min per check) were needed when this claim carried the power against the sqrt(2)
#: twins (``benchmarks/results/twins-ldp-ftpl.md``); ``report-ldp-code-exact`` now decides them
#: exactly, and this black-box cross-check (which does not trust the probe) runs 3e7: on a
#: loaded 2-core machine 15 s per side pair, bound 0.677 for ldp-one-point (0.90 of its exact
#: 0.751; 0.96 at 3e8); ldp-one-point-sqrt2 (true loss 1.098) VIOLATED at seeds 20221122,
#: 1, 2 (bounds 1.044, 1.017, 1.004), not at seed 3 (0.965): the sampled claim alone misses
#: it sometimes, as at 3e8 (3 of 5 seeds)
TAIL_SAMPLES = Budget(full=30_000_000, quick=200_000)
#: selection draws per side (the threshold is chosen in the tail, which 2 x 10^5 draws do not
#: reach)
TAIL_SELECT = 1_000_000
#: runs per source of ``reports-sampled`` (the reports recorded while the algorithm runs)
SIM_SAMPLES = Budget(full=400_000, quick=40_000)
#: its neighbouring sources: two Bernoulli(0) arms, the first user's reward 1 against 0
SIM_ARMS, SIM_HORIZON, SIM_WIDTH = 2, 8, 3


#: the command the scope wording names
def _command(name: str, eps: float, delta: float) -> str:
    return f"python -m dpaudit check {name} --epsilon {eps:g} --delta {delta:g}"


def scope_lines(theorem: str, ctx: CheckContext, delta_exact: float) -> tuple[str, ...]:
    """What the paper claims and why a failure above ``eps = 1`` is the paper's error."""
    if ctx.epsilon <= CLASSICAL_SCOPE_EPSILON or delta_exact <= ctx.delta:
        return ()
    return (f"Zheng et al. state {theorem} (a sufficient condition: the algorithm guarantees "
            "(eps, delta)-LDP) for every eps, unqualified; its calibration is Dwork & Roth's "
            "classical Gaussian mechanism (2014, Thm A.1), proved for eps < 1 only. At eps = "
            f"{ctx.epsilon:g} the calibration fails exactly: delta {delta_exact:.6g} > "
            f"{ctx.delta:g}, so the theorem as stated is false here",)


def gaussian_claims(report: Callable[[CheckContext], Report], what: str, reference: str,
                    samples: Budget = REPORT_SAMPLES, *, name: str = "") -> list[ClaimSpec]:
    """``report-ldp-exact`` (the declared release), ``report-ldp-sampled`` (the report code,
    sampled) and ``report-ldp-code-exact`` (the report code, read exactly by the probe),
    all at the paper's scope (module docstring)."""
    def exact(ctx: CheckContext) -> Evidence:
        r = report(ctx)
        ev = gaussian_exact_evidence(r.mu_witness, r.mu_upper, ctx, r.lines)
        if isinstance(ev, ExactEvidence):
            extra = scope_lines(reference, ctx, ev.delta_at_epsilon - ev.error)
            if extra:
                return ExactEvidence(ev.delta_at_epsilon, ev.error, ev.epsilon_at_delta,
                                     (*ev.details, *extra, "reproduce: " + _command(
                                         name, ctx.epsilon, ctx.delta)), ev.data)
        return ev

    def sampled(ctx: CheckContext):
        r = report(ctx)
        n = ctx.size(samples)
        return gaussian_sampled_evidence(r.sample_d, r.sample_dp, r.direction, ctx, n, r.pair,
                                         max_select=TAIL_SELECT if n > 10 ** 7 else 200_000,
                                         analysis_mu=r.mu_witness)

    def code(ctx: CheckContext) -> Evidence:
        return code_exact_evidence(report(ctx), ctx, reference, name)

    return [
        claim("report-ldp-exact", f"{what} is (eps, delta)-LDP: a Gaussian vector, its exact "
              "privacy curve at the worst pair of user data", reference, exact,
              ),
        claim("report-ldp-sampled", "the same, attacked by sampling the algorithm's report "
              "code on the worst pair", reference, sampled),
        ClaimSpec("report-ldp-code-exact", Notion.LDP, f"{what}, as the running report code "
                  "builds it, is (eps, delta)-LDP: its law read from the code (g + J z, "
                  "verified on draws of the true law) and its exact loss at the witness and "
                  "the candidate pairs of the data domain", reference,
                  lambda ctx, spec: code(ctx), observes="reports"),
    ]


#: relative agreement required between the code's Mahalanobis distance at the witness pair
#: and the declared one before the declared supremum is used as the code's upper end
AGREEMENT = 1e-9


def _probe_all(r: Report, ctx: CheckContext) -> list[AffineReport | Unverified]:
    assert r.run is not None
    return [probe_report(partial(r.run, d), rng=ctx.rng("probe", i))
            for i, d in enumerate(r.data)]


def code_exact_evidence(r: Report, ctx: CheckContext, theorem: str, name: str = ""
                        ) -> Evidence:
    """The exact loss of the algorithm's own report code (the probe of
    :mod:`dpaudit.exact.probe`) at the witness pair and every candidate pair.

    The worst loss over a finite set of pairs is a lower bound on the supremum over the
    domain, so a loss above the claim (beyond its error bound) is a violation. Within the
    claim, the upper end is the declared release's supremum, used only where it is known to
    describe the code: the code's distance at the witness pair equals the declared one
    (relative :data:`AGREEMENT`, plus the probe's error) and no candidate pair exceeds the
    declared supremum; otherwise the claim is INCONCLUSIVE with the tested numbers.
    """
    if r.run is None or len(r.data) < 2:
        return InconclusiveEvidence("this check declares no report code to probe")
    probes = _probe_all(r, ctx)
    pairs = r.pairs if r.pairs is not None else tuple(itertools.combinations(
        range(len(r.data)), 2))
    for i in (0, 1):
        p = probes[i]
        if isinstance(p, Unverified):
            return InconclusiveEvidence(f"the report code at the witness datum "
                                        f"{r.describe(r.data[i])} could not be read exactly: "
                                        f"{p.reason}")
    a, b = probes[0], probes[1]
    assert isinstance(a, AffineReport) and isinstance(b, AffineReport)
    wl = pair_loss(a, b, ctx.epsilon, ctx.delta)
    if isinstance(wl, Unverified):
        return InconclusiveEvidence(f"at the witness pair: {wl.reason}")
    good: list[AffineReport] = []
    index: dict[int, int] = {}
    for i, p in enumerate(probes):
        if isinstance(p, AffineReport):
            index[i] = len(good)
            good.append(p)
    unread = [f"datum {r.describe(r.data[i])}: {p.reason}" for i, p in enumerate(probes)
              if isinstance(p, Unverified)]
    ok_pairs = [(index[i], index[j]) for i, j in pairs if i in index and j in index]
    back = {v: k for k, v in index.items()}
    best, worst, skipped = worst_pair(good, ok_pairs, ctx.epsilon, ctx.delta)
    assert worst is not None and best is not None  # the witness pair is among them
    wi, wj = back[best[0]], back[best[1]]
    if math.isnan(float(worst.delta.value)):
        return InconclusiveEvidence(f"the exact loss is outside double precision: {worst.note}")
    law = f"{len(a.kinds)} standard draws ({', '.join(sorted(set(a.kinds)))}) into " \
        f"{a.g.size} report coordinates, J of rank {np.linalg.matrix_rank(a.jac)}"
    mu_code = wl.mu if wl.mu is not None else math.nan
    ratio = mu_code / r.mu_witness if r.mu_witness > 0 else math.nan
    eps_w = wl.epsilon_at_delta
    try:
        eps_decl = gaussian_epsilon(ctx.delta, r.mu_witness) if ctx.delta > 0 else math.inf
    except (OutOfRangeError, ValueError):
        eps_decl = math.nan
    lines = [
        f"law read from the code at the witness pair: {law}; verified on {a.verified} draws "
        f"of the true law (largest residual {max(a.residual, b.residual):.2g} of its "
        "float allowance)",
        f"witness pair {r.describe(r.data[0])} vs {r.describe(r.data[1])}: Mahalanobis "
        f"distance {mu_code:.10g} (declared {r.mu_witness:.10g}; ratio {ratio:.10g}); eps at "
        f"delta = {ctx.delta:g}: {_fmt(eps_w)} (declared {_fmt(eps_decl)})",
        f"{len(ok_pairs)} candidate pairs read; worst {r.describe(r.data[wi])} vs "
        f"{r.describe(r.data[wj])}: delta at eps = {ctx.epsilon:g} {worst.delta.value:.6g} "
        f"(error {worst.delta.error:.2g}), mu {_fmt(worst.mu)}, eps at delta "
        f"{_fmt(worst.epsilon_at_delta)}",
        *r.lines,
        *(["not read: " + u for u in unread[:3]] + (["..."] if len(unread) > 3 else [])),
        *(["pairs not compared: " + u for u in skipped[:3]]),
    ]
    data: dict[str, Any] = {
        "mu_code_witness": _num(mu_code), "mu_declared_witness": r.mu_witness,
        "mu_declared_upper": r.mu_upper, "ratio_to_declared": _num(ratio),
        "epsilon_code_witness": _num(eps_w), "epsilon_declared_witness": _num(eps_decl),
        "epsilon_ratio": _num(eps_w / eps_decl) if eps_w is not None and eps_decl and
        math.isfinite(eps_decl) and eps_decl > 0 else None,
        "mu_code_worst": _num(worst.mu), "epsilon_code_worst": _num(worst.epsilon_at_delta),
        "pairs_read": len(ok_pairs), "data_unread": len(unread),
        "pairs_not_compared": len(skipped)}
    low = worst.delta
    agrees = (wl.mu is not None and r.mu_witness > 0 and abs(ratio - 1.0) <= AGREEMENT
              + wl.mu_error / r.mu_witness)
    if float(low.value) - float(low.error) > ctx.delta:
        # the paper's own calibration failing (the code agrees with the declared release)
        # is the scope finding; a twin's code disagreeing is the code's bug
        extra = scope_lines(theorem, ctx, float(low.value) - float(low.error)) \
            if agrees else ()
        if extra and name:
            extra = (*extra, "reproduce: " + _command(name, ctx.epsilon, ctx.delta))
        e_low = worst.epsilon_at_delta
        return ExactEvidence(float(low.value), float(low.error),
                             e_low if e_low is not None and math.isfinite(e_low) else None,
                             (*lines, *extra, "the worst tested pair bounds the supremum "
                              "over the domain from below: beyond the claim, it is a "
                              "violation"), data)
    within = worst.mu is not None and worst.mu <= r.mu_upper * (1.0 + AGREEMENT)
    if not (agrees and within):
        why = ("the code's distance at the witness pair differs from the declared one "
               f"(ratio {ratio:.6g})" if not agrees else
               f"a tested pair ({_fmt(worst.mu)}) exceeds the declared supremum "
               f"{r.mu_upper:.6g}")
        return InconclusiveEvidence(
            f"at the {len(ok_pairs)} tested pairs the code's loss is within the claim, but "
            f"{why}: the declared supremum does not bound the code, so the supremum over the "
            "domain is not decided", details=tuple(lines), data=data)
    top = max(r.mu_upper, worst.mu or 0.0)
    hi = gaussian_shift_delta(ctx.epsilon, top, top * 4.0 * 2.0 ** -53)
    lines.append(f"upper end: the declared supremum {r.mu_upper:.10g} (the code's law agrees "
                 f"with the declared one at the witness pair): delta {hi.value:.6g}")
    if float(hi.value) - float(hi.error) > ctx.delta:
        return InconclusiveEvidence(
            "the tested pairs meet the claim but the declared supremum does not: a tighter "
            "bound on the worst pair would settle it", details=tuple(lines), data=data)
    eps_hi = gaussian_epsilon(ctx.delta, top) if ctx.delta > 0 else None
    # reported: the worst loss read from the code at a tested pair (attained: a lower bound
    # on the supremum); the decision rests on the declared supremum's delta, whose epsilon is
    # kept in ``data``
    e_low = worst.epsilon_at_delta
    return ExactEvidence(float(hi.value), float(hi.error),
                         e_low if e_low is not None and math.isfinite(e_low) else eps_hi,
                         tuple(lines), {**data, "epsilon_upper_at_claimed_delta": eps_hi})


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.6g}"


def _num(x: float | None) -> float | None:
    """JSON-safe number (``None`` for NaN or infinity: the report is strict JSON)."""
    return None if x is None or not math.isfinite(x) else float(x)


def simulated_claim(algorithm: Callable[[CheckContext], Any], reference: str,
                    samples: Budget = SIM_SAMPLES) -> ClaimSpec:
    """``reports-sampled``: the reports a bandit algorithm sends while it runs (recording
    hook), on two Bernoulli(0) arms where the first user's reward is 1 (D) or 0 (D').

    Seen through two summaries of arm 0's first reports (a function of the transcript): the
    first report, and the first minus the second. For a correct algorithm the other users'
    losses do not depend on the first user's reward and which users are pulled is decided
    by the reports, so the exact loss of this view is the report's own (a shift by
    ``mu``); an unnoised warm-up report (an atom) or one noise value shared by users (a
    noise-free difference) makes it infinite."""
    def evidence(ctx: CheckContext):
        base = BernoulliRewards((0.0,) * SIM_ARMS)

        def view(rec):
            r = arm_reports(rec, arm=0, width=SIM_WIDTH, pad=0.0)
            return {"first": r[:, 0], "first-minus-second": r[:, 0] - r[:, 1]}

        return simulated_reports_evidence(
            algorithm(ctx), base.changed(1, 1.0), base, SIM_HORIZON, view, ctx,
            ctx.size(samples), f"the first user's reward 1 (D) vs 0 (D'), every other reward "
            f"0 ({SIM_ARMS} arms, {SIM_HORIZON} pulls)",
            (f"view: arm 0's first report and its first minus its second (of the first "
             f"{SIM_WIDTH})",))

    return claim("reports-sampled", "every report the running algorithm sends is (eps, "
                 "delta)-LDP: its reports attacked through the recording hook, where the first "
                 "user's reward changes", reference, evidence)


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
    return FindingSpec("regret-growth", evaluate, observes="actions")


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
         findings: Sequence[FindingSpec] = (), regret=None, variant: Any = None,
         mu_attained: Callable[[float, float], float] | None = None) -> AuditSpec:
    """The check of one Zheng et al. algorithm. ``mu_of_eps(eps, delta)`` is the declared
    release's supremum distance, ``mu_attained`` the distance a pair of data attains (the
    true worst case; default ``mu_of_eps``, where the supremum is attained): where its exact
    ``delta`` exceeds the claim, the paper's theorem is false (``paper_claim_false``)."""
    attained = mu_attained or mu_of_eps

    def calibration(ctx: CheckContext) -> Finding:
        return calibration_finding(name, lambda e: attained(e, ctx.delta), ctx.delta,
                                   paper_sigma)

    def paper_claim_false(epsilon: float, delta: float) -> bool:
        if not (0.0 < delta < 1.0) or epsilon <= 0.0:
            return False
        try:
            return bool(gaussian_hockey_stick(epsilon, attained(epsilon, delta), 1.0).lower
                        > delta)
        except (OutOfRangeError, ValueError, ArithmeticError):
            return False

    return AuditSpec(name=name, description=description, paper=paper, claims=claims,
                     findings=[FindingSpec("calibration", calibration), *findings],
                     regret=regret, default_epsilon=1.0, default_delta=1e-5, variant=variant,
                     paper_claim_false=paper_claim_false)
