"""Evidence recipes shared by the local-DP audits (``ldp-*``); not a registered name.

Every report mechanism of Barbara, Lazzaro & Pike-Burke 2025 (one PrivBern bit) and of Zheng
et al. 2020 (a Gaussian vector) has a known output law, so its LDP claim is decided exactly;
each also gets a sampled bound, on the same code path the algorithm uses to build a user's
report, through the one sampled-bound engine (:func:`dpaudit.stats.sampled.sampled_audit`).
Functions here return *evidence* (:mod:`dpaudit.stats.evidence`); the engine decides.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dpaudit.engine import CheckContext, ClaimSpec
from dpaudit.exact.divergence import gaussian_hockey_stick
from dpaudit.mechanisms.gaussian import analytic_sigma
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.sim.releases import release_sampler
from dpaudit.stats.evidence import (
    Evidence,
    ExactEvidence,
    InconclusiveEvidence,
    SampledEvidence,
    float_error_floor,
)
from dpaudit.stats.results import Finding, Notion
from dpaudit.stats.sampled import TAIL_DRAWS, AuditBudget, SamplerPair, sampled_audit

__all__ = [
    "arm_reports",
    "claim",
    "gaussian_epsilon",
    "gaussian_exact_evidence",
    "gaussian_sampled_evidence",
    "privbern_exact_evidence",
    "privbern_sampled_evidence",
    "privbern_simulated_claim",
    "simulated_reports_evidence",
]


def claim(cid: str, statement: str, reference: str,
          evidence: Callable[[CheckContext], Evidence]) -> ClaimSpec:
    """A local-DP :class:`ClaimSpec` whose evidence is ``evidence(ctx)``."""
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> Evidence:
        return evidence(ctx)
    return ClaimSpec(cid, Notion.LDP, statement, reference, evaluate)


# -- PrivBern (one bit per user) -----------------------------------------------------------
def privbern_exact_evidence(policy, ctx: CheckContext
                            ) -> ExactEvidence | InconclusiveEvidence:
    """The report law ``P(Y = 1 | r) = p(r)`` is affine increasing in ``r`` (checked on the
    policy's own mechanism), so the worst pair over ``[0, 1]^2`` is ``(1, 0)``; the discrete
    hockey-stick divergence there is computed in both directions."""
    grid = np.linspace(0.0, 1.0, 1001)
    p = policy.mechanism.prob_one(grid)
    if not np.all(np.diff(p) > 0):
        return InconclusiveEvidence("PrivBern's P(Y=1|r) is not increasing on the grid: the "
                                    "extreme pair (1, 0) need not be the worst")
    hi, lo = policy.mechanism.output_probabilities(np.array([1.0, 0.0]))
    e = math.exp(ctx.epsilon)
    hs = max(float(np.maximum(hi - e * lo, 0).sum()), float(np.maximum(lo - e * hi, 0).sum()))
    eps_exact = float(np.max(np.abs(np.log(hi) - np.log(lo))))
    return ExactEvidence(
        hs, float_error_floor(e, *hi, *lo), epsilon_at_delta=eps_exact,
        details=(f"report law P(Y=1|r) = {p[0]:.6g} + {p[-1] - p[0]:.6g} r (increasing: worst "
                 f"pair (r, r') = (1, 0))",
                 f"exact loss log(p(1)/p(0)) = {eps_exact:.12g} (claim {ctx.epsilon:g}); "
                 f"hockey-stick at the claim {hs:.3g}"),
        data={"epsilon_exact": eps_exact})


def privbern_sampled_evidence(policy, ctx: CheckContext, n: int) -> SampledEvidence:
    """Reports of rewards 1 and 0 through ``policy.report`` (the algorithm's own data path),
    audited by the one sampled-bound engine (event chosen on one sample, measured on a fresh
    one)."""
    pair = SamplerPair("reward r = 1 (D) vs r = 0 (D'), the pair where PrivBern's ratio is "
                       "largest", lambda m, g: policy.report(np.ones(m), g),
                       lambda m, g: policy.report(np.zeros(m), g), 1.0, 0.0)
    return sampled_audit([pair], delta=ctx.delta, alpha=ctx.alpha,
                         budget=AuditBudget(samples=n), seed=ctx.seed,
                         key="claim:report-ldp-sampled", n_outcomes=2, who="report")


# -- Gaussian vectors ----------------------------------------------------------------------
def gaussian_exact_evidence(mu_low: float, mu_high: float, ctx: CheckContext,
                            lines: tuple[str, ...] = ()) -> ExactEvidence | InconclusiveEvidence:
    """The report is ``h(x) + N(0, diag(s^2))``: between two data the privacy loss is that of
    a unit Gaussian shift by the Mahalanobis distance ``mu`` (Balle & Wang 2018, Thm 8).

    ``mu_high`` bounds the worst ``mu`` over the data domain and ``mu_low`` is attained by a
    witness pair; when they coincide the decision is exact. If the witness already exceeds
    the claim it is a violation; if only the bound does, the evidence is inconclusive.
    """
    b_hi = gaussian_hockey_stick(ctx.epsilon, mu_high, 1.0)  # value and error bound
    b_lo = gaussian_hockey_stick(ctx.epsilon, mu_low, 1.0)
    d_hi, d_lo = b_hi.value, b_lo.value
    details = (*lines, f"Mahalanobis sensitivity: witness {mu_low:.6g}, supremum "
               f"{mu_high:.6g}; exact delta at eps = {ctx.epsilon:g}: {d_lo:.6g} .. {d_hi:.6g} "
               f"(claim {ctx.delta:g})")
    eps_at = _epsilon_at(ctx.delta, mu_high)
    # the reported loss is the witness pair's (attained, so a lower bound on the supremum);
    # the decision within the claim rests on the upper end, kept in ``data``
    eps_low = eps_at if mu_low == mu_high else _epsilon_at(ctx.delta, mu_low)
    data = {"mu_low": mu_low, "mu_high": mu_high, "delta_low": d_lo, "delta_high": d_hi,
            "epsilon_at_claimed_delta": eps_at, "epsilon_witness_at_claimed_delta": eps_low}
    if b_lo.lower <= ctx.delta < b_hi.lower:
        return InconclusiveEvidence(
            "the witness pair meets the claim but the supremum bound does not: a tighter "
            "bound on the worst pair would settle it", details=details, data=data)
    # within the claim: the supremum decides; beyond it: the witness pair alone does
    chosen = b_hi if b_hi.lower <= ctx.delta else b_lo
    return ExactEvidence(float(chosen.value), float(chosen.error), epsilon_at_delta=eps_low,
                         details=details, data=data)


def gaussian_delta(epsilon: float, mu: float) -> float:
    """``delta(eps)`` of a unit Gaussian shifted by ``mu`` (value of
    :func:`dpaudit.exact.divergence.gaussian_hockey_stick`; its error bound is used where
    decided)."""
    return float(gaussian_hockey_stick(epsilon, mu, 1.0).value)


def gaussian_epsilon(delta: float, mu: float) -> float:
    """The exact ``eps`` at ``delta`` of a unit Gaussian shifted by ``mu`` (Balle & Wang
    2018, Thm 8): the smallest ``eps`` with ``delta(eps; mu) <= delta``."""
    return _epsilon_at(delta, mu)


def _epsilon_at(delta: float, mu: float) -> float:
    """Smallest eps with ``delta(eps; mu) <= delta`` (the curve decreases in eps)."""
    from scipy.optimize import brentq

    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(hi, mu) > delta:
        hi *= 2.0
    return float(brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, hi, xtol=1e-12))


def gaussian_sampled_evidence(report_d: Callable[[int, np.random.Generator], np.ndarray],
                              report_dp: Callable[[int, np.random.Generator], np.ndarray],
                              direction: np.ndarray, ctx: CheckContext, n: int,
                              pair: str, max_select: int | None = 200_000,
                              analysis_mu: float | None = None) -> SampledEvidence:
    """Reports of two data (the algorithm's own report code) projected on ``direction`` (the
    whitened difference of their means: the likelihood-ratio statistic, a scalar), audited by
    the one sampled-bound engine. ``max_select`` caps the selection sample (a larger one lets
    the threshold reach the far tail, where a Gaussian's loss at small delta lives). The
    budget is sized by delta (:meth:`dpaudit.stats.sampled.AuditBudget.for_delta`: 300/delta
    draws per side, the selection streamed into a histogram of the statistic), except under
    ``--quick``. ``analysis_mu``: the Mahalanobis distance the paper's calibration implies at
    this pair (the Gaussian DP parameter of its analysis), for the calibration finding of the
    privacy profile (:mod:`dpaudit.stats.profile`)."""
    w = np.asarray(direction, float).ravel()
    tail_draws = None if ctx.quick else TAIL_DRAWS

    def projected(report):
        return lambda m, g: np.asarray(report(m, g), float).reshape(m, -1) @ w

    return sampled_audit([SamplerPair(pair, projected(report_d), projected(report_dp))],
                         delta=ctx.delta, alpha=ctx.alpha,
                         budget=AuditBudget(samples=n, max_select=max_select,
                                             tail_draws=tail_draws),
                         seed=ctx.seed, key="claim:report-ldp-sampled", who="report",
                         analysis_mu=analysis_mu,
                         details=("statistic: the report projected on the whitened difference "
                                  "of the two report means (the likelihood-ratio direction)",))


def calibration_finding(name: str, mu_of_eps: Callable[[float], float], delta: float,
                        paper_sigma: str) -> Finding:
    """How loose the paper's calibration is, and where it stops being sufficient.

    ``mu_of_eps(eps)`` is the worst Mahalanobis sensitivity of the paper's calibration at
    ``eps`` (fixed ``delta``); the exact delta and the eps actually paid are tabulated, and
    the largest eps at which the calibration still meets ``(eps, delta)`` is found by a
    bracketed root find (``scipy.optimize.brentq``) on the exact curve.
    """
    from scipy.optimize import brentq

    rows = []
    for eps in (0.1, 0.5, 1.0, 2.0, 5.0, 10.0):
        mu = mu_of_eps(eps)
        d = gaussian_delta(eps, mu)
        # noise relative to the smallest sigma meeting (eps, delta) at the same sensitivity
        ratio = 1.0 / (mu * analytic_sigma(eps, delta, 1.0))
        rows.append(f"eps={eps:<5g} mu={mu:.4g}  exact delta {d:.3g} "
                    f"({'meets' if d <= delta else 'EXCEEDS'} {delta:g}); eps actually paid "
                    f"at delta: {_epsilon_at(delta, mu):.4g}; noise = {ratio:.3g} x the exact "
                    "minimum")

    def gap(log_e: float) -> float:
        e = math.exp(log_e)
        return math.log(gaussian_delta(e, mu_of_eps(e)) + 1e-300) - math.log(delta)

    limit = math.inf
    if gap(math.log(200.0)) > 0:
        lo = math.log(1e-3)
        hi = math.log(200.0)
        if gap(lo) < 0:
            limit = math.exp(brentq(gap, lo, hi, xtol=1e-10))
        else:
            limit = 0.0
    summary = (f"{name}: {paper_sigma} meets (eps, delta = {delta:g}) exactly when eps <= "
               f"{limit:.4g} (the classical theorem assumes eps <= 1); the table gives the eps "
               "actually paid and the noise relative to the exact minimum (Balle & Wang 2018)")
    return Finding(f"{name}-calibration", summary, Notion.LDP, details=tuple(rows),
                   data={"epsilon_limit": limit, "delta": delta})


# -- regret growth -------------------------------------------------------------------------
def loglog_slope(horizons, regrets) -> tuple[float, float, float, list[float]]:
    """Least-squares slope of ``log(mean regret)`` on ``log T`` with a 95% interval.

    ``regrets[i]`` are the per-run regrets at ``horizons[i]`` (independent simulations). The
    interval propagates each mean's standard error (delta method, ``se(log m) = se(m)/m``)
    through the least-squares weights; it reflects run-to-run variation under a power law,
    not curvature, which the local slopes between consecutive horizons show.
    """
    from scipy import stats

    x = np.log(np.asarray(horizons, float))
    means = np.array([np.mean(r) for r in regrets])
    se = np.array([np.std(r, ddof=1) / math.sqrt(len(r)) if len(r) > 1 else 0.0
                   for r in regrets])
    y = np.log(means)
    w = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
    slope = float(np.sum(w * y))
    half = float(stats.norm.ppf(0.975) * math.sqrt(np.sum((w * se / means) ** 2)))
    local = [float(v) for v in np.diff(y) / np.diff(x)]
    return slope, slope - half, slope + half, local


def regret_rows(label: str, horizons, regrets, claimed: float) -> tuple[str, dict]:
    slope, lo, hi, local = loglog_slope(horizons, regrets)
    means = ", ".join(f"T={t}: {np.mean(r):.4g}" for t, r in zip(horizons, regrets,
                                                                   strict=True))
    verdict = ("at or below" if hi <= claimed + 1e-12 else
               "consistent with" if lo <= claimed else "above")
    line = (f"{label}: slope {slope:.3f} (95% CI {lo:.3f}..{hi:.3f}; local "
            + ", ".join(f"{v:.2f}" for v in local) + f") {verdict} the claimed order "
            f"T^{claimed:.3g}; mean regret {means}")
    return line, {"label": label, "slope": slope, "ci": [lo, hi], "local": local,
                  "claimed": claimed, "means": [float(np.mean(r)) for r in regrets],
                  "horizons": [int(t) for t in horizons]}


# -- reports as the running algorithm sends them (the recording hook) -----------------------
def arm_reports(recorder, *, arm: int, width: int, pad: float = -1.0,
                label: str = "report") -> np.ndarray:
    """Each run's first ``width`` reports about ``arm`` (the reports recorded with ``label``),
    in the order sent: ``(runs, width)``, padded with ``pad`` when the arm was pulled fewer
    times. Which users pull ``arm`` is decided by earlier reports, so this is a function of
    the report transcript (post-processing)."""
    rel = [r for r in recorder.releases if r.label == label]
    vals = np.concatenate([r.values[:, :1] for r in rel], axis=1)
    mask = np.stack([(r.arm == arm) & r.active for r in rel], axis=1)
    order = np.argsort(~mask, axis=1, kind="stable")[:, :width]
    out = np.where(np.take_along_axis(mask, order, axis=1),
                   np.take_along_axis(vals, order, axis=1), pad)
    if out.shape[1] < width:
        out = np.pad(out, ((0, 0), (0, width - out.shape[1])), constant_values=pad)
    return out


def simulated_reports_evidence(policy, source_d, source_dp, horizon: int, view,
                               ctx: CheckContext, n: int, pair: str,
                               details: tuple[str, ...] = ()) -> SampledEvidence:
    """The reports the running algorithm sends (its ``simulate`` with the recording hook of
    :mod:`dpaudit.sim.releases`) on two reward sources that differ in one user's reward,
    seen through ``view(recorder)`` and attacked by the one sampled-bound engine.

    Unlike :func:`privbern_sampled_evidence` / :func:`gaussian_sampled_evidence`, which call
    the report function directly, this sees every report as ``simulate`` builds it, so a bug
    in how the algorithm feeds its reports (an unnoised warm-up pull, one noise draw reused
    across users) is observed."""
    return sampled_audit(
        [SamplerPair(pair, release_sampler(policy, source_d, horizon, view=view),
                     release_sampler(policy, source_dp, horizon, view=view))],
        delta=ctx.delta, alpha=ctx.alpha, budget=AuditBudget(samples=n, tail_draws=None),
        seed=ctx.seed,
        key="claim:reports-sampled", who="reports",
        details=("observes: every report the running algorithm sends (recording hook)",
                 *details))


#: the neighbouring sources of :func:`privbern_simulated_claim`: two arms whose rewards are all
#: 0 except the first user's (step 1, arm 0), 1 against 0 (Wang & Zhu 2023's revision rule
#: on a Bernoulli(0) instance: the reward at step 1 is set to 1)
SIM_ARMS, SIM_HORIZON, SIM_WIDTH = 2, 8, 3


def privbern_simulated_claim(policy_of: Callable[[CheckContext], object], samples,
                             reference: str) -> ClaimSpec:
    """``reports-sampled``: the PrivBern reports the running algorithm sends (first
    ``SIM_WIDTH`` reports about arm 0 of ``SIM_HORIZON`` pulls on two arms), on the sources
    that differ in the first user's reward (1 against 0: PrivBern's worst pair). The other
    users' rewards are 0 and which users are pulled is decided by the reports, so for a
    correct algorithm the loss of this view is exactly PrivBern's, ``eps`` (Lemma 2.1)."""
    def evidence(ctx: CheckContext) -> Evidence:
        base = BernoulliRewards((0.0,) * SIM_ARMS)
        return simulated_reports_evidence(
            policy_of(ctx), base.changed(1, 1.0), base, SIM_HORIZON,
            lambda rec: arm_reports(rec, arm=0, width=SIM_WIDTH).astype(np.int64), ctx,
            ctx.size(samples), "the first user's reward 1 (D) vs 0 (D'), every other "
            f"reward 0 ({SIM_ARMS} arms, {SIM_HORIZON} pulls)",
            (f"view: the first {SIM_WIDTH} reports about arm 0 (-1 after the last); exact "
             f"loss of this view for a correct algorithm: eps = {ctx.epsilon:g}",))

    return claim("reports-sampled", "every report the running algorithm sends is eps-LDP: "
                 "its reports attacked through the recording hook, where the first user's "
                 "reward changes", reference, evidence)
