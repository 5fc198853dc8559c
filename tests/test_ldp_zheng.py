"""Zheng et al. 2020: calibration constants, worst-pair sensitivities, exact curves against
dp-accounting, report noise laws, fast vs per-step law, and the checks' verdicts.

Statistical tests are seeded; each names its false-failure probability.
"""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import pld_privacy_accountant
from scipy import stats
from scipy.optimize import minimize

from dpaudit.algorithms.zheng_et_al_2020.ldp_contextual import (
    LDPGLMBandit,
    LDPLinUCB,
    UnitBallContexts,
    linear_mu_sup,
    linear_witness,
)
from dpaudit.algorithms.zheng_et_al_2020.ldp_reductions import (
    OnePointFKM,
    OnePointUCB,
    QuadraticLosses,
    TwoPointBCO,
)
from dpaudit.audits.recipes.ldp import gaussian_delta
from dpaudit.audits.zheng_et_al_2020.ldp_glm_bandit import witness_search
from dpaudit.engine import CheckContext
from dpaudit.registry import get_audit
from dpaudit.sim.bandits import BernoulliRewards
from dpaudit.stats.evidence import decide
from dpaudit.stats.results import Verdict
from dpaudit.validation import InvalidParameterError

LAW_ALPHA = 1e-3  # false-failure probability of each distributional test below


def test_printed_calibrations():
    """Algorithm 1: 2B sqrt(2 ln(1.25/delta))/eps; Algorithm 2: 2G sqrt(...)/eps; Algorithm 3:
    6 sqrt(2 ln(3.75/delta))/eps, which is three (eps/3, delta/3) releases of sensitivity 2."""
    d, e = 1e-5, 0.7
    assert OnePointUCB(e, d).sigma == pytest.approx(2 * 0.5 * math.sqrt(2 * math.log(1.25 / d))
                                                    / e, rel=1e-14)
    assert TwoPointBCO(e, d, lipschitz=3.0).sigma == pytest.approx(
        2 * 3.0 * math.sqrt(2 * math.log(1.25 / d)) / e, rel=1e-14)
    glm = LDPGLMBandit(e, d).sigma
    assert glm == pytest.approx(6 * math.sqrt(2 * math.log(3.75 / d)) / e, rel=1e-14)
    assert glm == pytest.approx(2 * math.sqrt(2 * math.log(1.25 / (d / 3))) / (e / 3),
                                rel=1e-14)


def _ut(x: np.ndarray) -> np.ndarray:
    iu = np.triu_indices(x.size)
    return np.outer(x, x)[iu]


def _joint_sq(a, s, b, t) -> np.ndarray:
    """Squared joint distance of the releases (ut(x x^T), y x) for batches of pairs."""
    iu = np.triu_indices(a.shape[1])
    va = (a[:, :, None] * a[:, None, :])[:, iu[0], iu[1]]
    vb = (b[:, :, None] * b[:, None, :])[:, iu[0], iu[1]]
    return np.sum((va - vb) ** 2, axis=1) + np.sum((s[:, None] * a - t[:, None] * b) ** 2,
                                                   axis=1)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("y_max", [0.5, 1.0, 2.0])
def test_linear_supremum_is_not_exceeded(dim, y_max):
    """No pair among 200000 seeded random candidates (norms and rewards pushed toward the
    boundary), refined by Nelder-Mead from the best five, beats linear_mu_sup; the witness
    attains it. (Deterministic given the seed.)"""
    sup = linear_mu_sup(y_max)
    x, y, xp, yp = linear_witness(y_max)
    got = math.sqrt(_joint_sq(x[None], np.array([y]), xp[None], np.array([yp]))[0])
    assert got == pytest.approx(sup, rel=1e-12)

    rng = np.random.default_rng(7)
    n = 200_000

    def points(m):
        v = rng.standard_normal((m, dim))
        r = 1.0 - rng.exponential(0.05, (m, 1)) * (rng.random((m, 1)) < 0.8)
        return v / np.linalg.norm(v, axis=1, keepdims=True) * np.clip(r, 0.0, 1.0)

    a, b = points(n), points(n)
    s = y_max * np.clip(rng.choice([-1.0, 1.0], n) * (1 - rng.exponential(0.05, n)), -1, 1)
    t = y_max * np.clip(rng.choice([-1.0, 1.0], n) * (1 - rng.exponential(0.05, n)), -1, 1)
    vals = _joint_sq(a, s, b, t)
    assert math.sqrt(vals.max()) <= sup * (1 + 1e-9)

    def ball(v):
        nv = np.linalg.norm(v)
        return v * min(1.0, 1.0 / max(nv, 1e-300))

    def neg(q):
        aa, bb = ball(q[:dim])[None], ball(q[dim:2 * dim])[None]
        ss = np.clip(q[-2:-1], -y_max, y_max)
        tt = np.clip(q[-1:], -y_max, y_max)
        return -_joint_sq(aa, ss, bb, tt)[0]

    best = 0.0
    for i in np.argsort(-vals)[:5]:
        q0 = np.concatenate([a[i], b[i], [s[i], t[i]]])
        res = minimize(neg, q0, method="Nelder-Mead",
                       options={"maxiter": 3000, "xatol": 1e-10, "fatol": 1e-13})
        best = max(best, -res.fun)
    assert math.sqrt(best) <= sup * (1 + 1e-9)
    assert math.sqrt(best) >= 0.99 * sup  # the search does reach the neighbourhood


def test_glm_search_within_the_bound():
    rel = LDPGLMBandit(1.0, 1e-5).release()
    found, _ = witness_search(1.0, np.random.default_rng(3), candidates=2000, refine=4)
    assert found / LDPGLMBandit(1.0, 1e-5).sigma <= rel.mu_upper


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_joint_gaussian_curve_equals_dp_accounting_composition(eps):
    """Three Gaussian releases of one user's data compose to the Gaussian curve at the root
    sum of squares of their distances (when their worst cases coincide): cross-checked
    against dp-accounting's PLD accountant (discretisation 1e-4)."""
    mus = [0.3, 0.4, 0.5]
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_accounting.ComposedDpEvent([dp_accounting.GaussianDpEvent(1 / m)
                                               for m in mus]))
    ours = gaussian_delta(eps, math.sqrt(sum(m * m for m in mus)))
    assert acc.get_delta(eps) == pytest.approx(ours, rel=1e-6)


@pytest.mark.statistical
def test_report_noise_laws():
    """Report minus its mean is N(0, s^2) with the declared s: Kolmogorov-Smirnov at
    LAW_ALPHA for the one-point (s = sigma) and two-point (s = 2 rho sigma) reports."""
    rng = np.random.default_rng(41)
    one = OnePointUCB(1.0, 1e-5)
    z = one.report(np.full(20_000, 0.3), rng) - 0.3
    assert stats.kstest(z / one.sigma, "norm").pvalue > LAW_ALPHA
    two, rho = TwoPointBCO(1.0, 1e-5, lipschitz=1.0), 0.01
    u = np.array([0.6, 0.8])
    x1, x2 = np.tile(rho * u, (20_000, 1)), np.tile(-rho * u, (20_000, 1))
    z = two.report(np.zeros(20_000), np.zeros(20_000), x1, x2, rng)
    assert stats.kstest(z / (2 * rho * two.sigma), "norm").pvalue > LAW_ALPHA


@pytest.mark.statistical
def test_one_point_ucb_fast_and_per_step_have_the_same_law():
    """Pulls of the worse arm after T = 60 (chi-square, LAW_ALPHA)."""
    alg, src = OnePointUCB(4.0, 0.01), BernoulliRewards([0.8, 0.3])
    fast = alg.simulate(src, 60, 3000, rng=np.random.default_rng(51)).counts[:, 1]
    slow = alg.simulate_per_step(src, 60, 600, rng=np.random.default_rng(52)).counts[:, 1]
    bins = np.array([0, 5, 10, 15, 20, 30, 61])
    table = np.array([np.histogram(fast, bins)[0], np.histogram(slow, bins)[0]])
    table = table[:, table.sum(axis=0) > 0]
    assert stats.chi2_contingency(table).pvalue > LAW_ALPHA


def test_simulators_run_and_regret_is_nonnegative():
    rng = np.random.default_rng(0)
    src = QuadraticLosses([0.3, -0.2], a=0.25, b=0.1)
    for alg in (OnePointFKM(2.0, 1e-3, loss_bound=src.loss_bound),
                OnePointFKM(2.0, 1e-3, loss_bound=src.loss_bound, schedule="smooth"),
                TwoPointBCO(2.0, 1e-3, lipschitz=src.lipschitz)):
        assert np.all(alg.simulate(src, 50, 4, rng=rng).regret >= 0)
    assert np.all(LDPLinUCB(2.0, 1e-3).simulate(UnitBallContexts([0.3, 0.1]), 30, 3,
                                                 rng=rng).regret >= -1e-12)
    assert np.all(LDPGLMBandit(2.0, 1e-3).simulate(
        UnitBallContexts([0.3, 0.1], link="logistic"), 30, 3, rng=rng).regret >= -1e-12)


@pytest.mark.parametrize("bad", [
    lambda: OnePointUCB(0.0, 1e-5), lambda: OnePointUCB(1.0, 1.0),
    lambda: OnePointUCB(1.0, 1e-5, private=1), lambda: TwoPointBCO(1.0, 1e-5, lipschitz=-1),
    lambda: OnePointFKM(1.0, 1e-5, loss_bound=1.0, schedule="fast"),
    lambda: QuadraticLosses([1.0, 0.0]), lambda: UnitBallContexts([2.0, 0.0]),
    lambda: LDPLinUCB(1.0, 1e-5).simulate(UnitBallContexts([0.1], link="logistic"), 5, 2,
                                          rng=np.random.default_rng(0)),
])
def test_bad_parameters_raise(bad):
    with pytest.raises(InvalidParameterError):
        bad()


@pytest.mark.parametrize("name", ["ldp-one-point", "ldp-two-point-bco", "ldp-linear-bandit",
                                  "ldp-glm-bandit"])
def test_correct_reports_are_never_violated(name):
    """At eps = 0.5 and 1 (inside the classical theorem's hypothesis) the exact claim holds
    and the sampled one is not VIOLATED (each at alpha = 1e-3: false failure <= 2e-3;
    seeded)."""
    spec = get_audit(name)
    for eps in (0.5, 1.0):
        ctx = CheckContext(eps, 1e-5, alpha=1e-3, quick=True, variant=spec.variant)
        results = [decide(c, ctx, c.evaluate(ctx, c)) for c in spec.claims]
        assert results[0].verdict is Verdict.EXACT
        assert all(r.verdict is not Verdict.VIOLATED for r in results)


def test_faulty_one_point_is_violated_both_ways():
    spec = get_audit("ldp-one-point-faulty")
    # the exact and report-function claims (the third, reports-sampled, attacks the
    # simulation on 4e4 runs: too few for a loss of 1.61 at delta = 1e-5). The sampled
    # report claim runs at its full budget (3 s): at --quick its bound sits at 0.92-1.09 over
    # seeds 0-7, a coin flip around the claim; at full it was 1.40-1.53 over seeds 0-9, about
    # ten of its standard deviations above 1.
    exact, sampled = spec.claims[:2]
    quick = CheckContext(1.0, 1e-5, quick=True, variant=spec.variant)
    full = CheckContext(1.0, 1e-5, quick=False, variant=spec.variant)
    results = [decide(exact, quick, exact.evaluate(quick, exact)),
               decide(sampled, full, sampled.evaluate(full, sampled))]
    assert [r.verdict for r in results] == [Verdict.VIOLATED, Verdict.VIOLATED]


def test_classical_calibration_fails_beyond_its_hypothesis():
    """The one-point calibration is exactly the classical Gaussian one, which fails for
    large eps (the finding locates the limit near 8.4 at delta = 1e-5)."""
    finding = get_audit("ldp-one-point").findings[0].evaluate(CheckContext(1.0, 1e-5))
    limit = finding.data["epsilon_limit"]
    assert 1.0 < limit < 20.0
    mu = OnePointUCB(limit * 1.01, 1e-5).release().mu_upper
    assert gaussian_delta(limit * 1.01, mu) > 1e-5


def test_reports_clip_data_to_the_declared_domain():
    """Out-of-domain data are clipped by the user before noise, so the declared sensitivity
    (and the exact claim) holds for every input: same seed, same report as the clipped datum."""
    one = OnePointUCB(1.0, 1e-5)
    a = one.report(np.array([7.0, -3.0]), np.random.default_rng(1))
    b = one.report(np.array([0.5, -0.5]), np.random.default_rng(1))
    assert np.array_equal(a, b)
    lin = LDPLinUCB(1.0, 1e-5)
    x = np.array([[3.0, 4.0]])
    va, ua = lin.report(x, np.array([5.0]), np.random.default_rng(2))
    vb, ub = lin.report(x / 5.0, np.array([1.0]), np.random.default_rng(2))
    assert np.allclose(va, vb) and np.allclose(ua, ub)
    two = TwoPointBCO(1.0, 1e-5, lipschitz=1.0)
    x1, x2 = np.array([[0.01, 0.0]]), np.array([[-0.01, 0.0]])
    r1 = two.report(np.array([9.0]), np.array([0.0]), x1, x2, np.random.default_rng(3))
    r2 = two.report(np.array([0.02]), np.array([0.0]), x1, x2, np.random.default_rng(3))
    assert np.allclose(r1, r2)


@pytest.mark.parametrize("name", ["ldp-one-point", "ldp-two-point-bco", "ldp-linear-bandit",
                                  "ldp-glm-bandit"])
@pytest.mark.parametrize("eps", [5.0, 10.0, 50.0])
def test_theorems_checked_at_the_papers_scope(name, eps):
    """Zheng et al. state Theorems 2, 5, 7 and 9 for every eps; above eps = 1 (outside Dwork &
    Roth's Thm A.1, which the calibration rests on) the check is VIOLATED exactly where the
    declared ``paper_claim_false`` says the calibration fails at the attained worst pair, and
    not VIOLATED elsewhere; the wording names the theorem, its scope and the command. The
    sampled part runs at alpha = 1e-3 (a false VIOLATED has probability at most 1e-3 per case;
    fixed seed)."""
    from dpaudit.engine import run_check
    from dpaudit.registry import all_audits

    spec = all_audits()[name]
    report = run_check(spec, epsilon=eps, quick=True, regret=False, alpha=1e-3, seed=7)
    verdicts = {c.id: c.verdict.value for c in report.claims}
    false_here = spec.paper_claim_false(eps, 1e-5)
    assert (report.verdict is Verdict.VIOLATED) == false_here
    if false_here:
        for cid in ("report-ldp-exact", "report-ldp-code-exact"):
            assert verdicts[cid] == "VIOLATED"
            text = " ".join(next(c for c in report.claims if c.id == cid).details)
            assert "Dwork & Roth" in text and "eps < 1" in text
            assert f"python -m dpaudit check {name} --epsilon {eps:g}" in text
    else:
        assert "VIOLATED" not in verdicts.values()


@pytest.mark.parametrize("name", ["ldp-one-point", "ldp-two-point-bco", "ldp-linear-bandit",
                                  "ldp-glm-bandit"])
def test_calibration_limit_is_the_paper_claim_false_boundary(name):
    """The calibration finding's limit (brentq on the exact curve at the attained worst pair)
    is where ``paper_claim_false`` switches on."""
    spec = get_audit(name)
    finding = spec.findings[0].evaluate(CheckContext(1.0, 1e-5))
    limit = finding.data["epsilon_limit"]
    assert limit > 1.0
    if math.isinf(limit):  # the split calibration of Algorithm 3 holds up to eps = 200
        assert not spec.paper_claim_false(199.0, 1e-5)
        return
    assert not spec.paper_claim_false(limit * 0.999, 1e-5)
    assert spec.paper_claim_false(limit * 1.001, 1e-5)


def test_glm_link_sweep_reads_the_eps_the_code_pays():
    """Theorem 9 beyond the logistic link: the probe's distance at the searched worst pair is
    the search's own (the code builds the report the audit's mean model describes), the
    logistic one is the attained worst case, scaling g and the noise by C leaves it unchanged,
    and the identity link with rewards in [-C, C] (|g - y| up to 2C) pays more."""
    from dpaudit.algorithms.zheng_et_al_2020.ldp_contextual import glm_attained_sup
    from dpaudit.audits.recipes.ldp import gaussian_epsilon
    from dpaudit.audits.zheng_et_al_2020.ldp_glm_bandit import link_pair_loss

    rows = {(link, c): link_pair_loss(link, c, 1.0, 1e-5, 3, (500, 1))
            for link in ("logistic", "identity") for c in (1.0, 4.0)}
    for r in rows.values():
        assert r["whitened_distance"] == pytest.approx(r["search_found"], rel=1e-9)
        assert r["epsilon_paid"] == pytest.approx(gaussian_epsilon(1e-5, r["mu"]), rel=1e-12)
    log1 = rows["logistic", 1.0]
    assert log1["whitened_distance"] == pytest.approx(glm_attained_sup(), rel=1e-9)
    for link in ("logistic", "identity"):
        assert rows[link, 4.0]["epsilon_paid"] == pytest.approx(rows[link, 1.0]["epsilon_paid"],
                                                                rel=1e-9)
    assert rows["identity", 1.0]["epsilon_paid"] > 1.3 * log1["epsilon_paid"]
    assert rows["identity", 1.0]["epsilon_limit"] < log1["epsilon_limit"]


def test_glm_links_clip_rewards_and_keep_the_default_report():
    rng = np.random.default_rng
    x, th = np.array([[0.6, 0.8]]), np.array([[0.3, -0.2]])
    base = LDPGLMBandit(1.0, 1e-5).report(x, np.array([1.0]), th, rng(4))
    same = LDPGLMBandit(1.0, 1e-5, link="logistic", link_bound=1.0).report(
        x, np.array([1.0]), th, rng(4))
    assert all(np.array_equal(a, b) for a, b in zip(base, same, strict=True))
    ident = LDPGLMBandit(1.0, 1e-5, link="identity", link_bound=2.0)
    a = ident.report(x, np.array([9.0]), th, rng(5))
    b = ident.report(x, np.array([2.0]), th, rng(5))
    assert np.array_equal(a[2], b[2])  # rewards clipped to [-C, C]
    with pytest.raises(InvalidParameterError):
        LDPGLMBandit(1.0, 1e-5, link="cauchit")
    with pytest.raises(InvalidParameterError):
        ident.simulate(UnitBallContexts([0.1, 0.1], link="logistic"), 5, 2, rng=rng(0))


@pytest.mark.parametrize("name", ["ldp-one-point", "ldp-two-point-bco", "ldp-linear-bandit",
                                  "ldp-glm-bandit"])
def test_exact_claims_follow_paper_claim_false_over_the_domain(name):
    """The two exact claims (declared release, code read by the probe) of a correct algorithm
    are VIOLATED exactly where ``paper_claim_false`` says the paper's theorem is false, over
    (eps, delta) drawn log-uniformly from the domain the battery uses (eps in [1e-3, 50],
    delta in [1e-12, 0.5]); deterministic (exact claims, fixed draws)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    spec = get_audit(name)
    claims = [c for c in spec.claims if c.id in ("report-ldp-exact", "report-ldp-code-exact")]

    @settings(max_examples=6, deadline=None, derandomize=True)
    @given(le=st.floats(-3.0, math.log10(50.0)), ld=st.floats(-12.0, math.log10(0.5)))
    def check(le, ld):
        eps, delta = 10.0 ** le, 10.0 ** ld
        ctx = CheckContext(eps, delta, quick=True, variant=spec.variant)
        verdicts = [decide(c, ctx, c.evaluate(ctx, c)).verdict for c in claims]
        if spec.paper_claim_false(eps, delta):
            assert verdicts == [Verdict.VIOLATED, Verdict.VIOLATED], (eps, delta)
        else:
            assert Verdict.VIOLATED not in verdicts, (eps, delta, verdicts)

    check()


def test_glm_block_sensitivities_derived_by_hand():
    """Algorithm 3's blocks (module docstring of ldp_contextual): over 20000 seeded random
    pairs in the unit ball (and at the named maximisers), |ut(x x^T - x' x'^T)| <= sqrt(2) and
    |z x - z' x'| <= 1 with equality where the derivation says; deterministic bounds, so a
    correct derivation never fails (the draws only search for a counterexample)."""
    rng = np.random.default_rng(np.random.SeedSequence(2020))
    iu = np.triu_indices(3)
    n = 20000

    def ball(k):
        v = rng.standard_normal((k, 3))
        return v / np.linalg.norm(v, axis=1, keepdims=True) * rng.random((k, 1)) ** (1 / 3)

    x, xp, th = ball(n), ball(n), ball(n)
    d = np.einsum("ni,nj->nij", x, x) - np.einsum("ni,nj->nij", xp, xp)
    assert np.linalg.norm(d[:, iu[0], iu[1]], axis=1).max() <= math.sqrt(2.0) + 1e-12
    zx = np.sum(x * th, 1)[:, None] * x - np.sum(xp * th, 1)[:, None] * xp
    assert np.linalg.norm(zx, axis=1).max() <= 1.0 + 1e-12
    e1, e2 = np.eye(3)[0], np.eye(3)[1]
    dm = np.outer(e1, e1) - np.outer(e2, e2)
    assert np.linalg.norm(dm[iu]) == pytest.approx(math.sqrt(2.0), rel=1e-15)
    assert np.linalg.norm((e1 @ e1) * e1 - (e2 @ e1) * e2) == 1.0
    rel = LDPGLMBandit(1.0, 1e-5).release()
    assert [b[1] for b in rel.blocks[:2]] == [math.sqrt(2.0), 1.0]
    g1 = float(1.0 / (1.0 + math.exp(-1.0)))
    assert rel.mu_upper * LDPGLMBandit(1.0, 1e-5).sigma == pytest.approx(
        math.sqrt(3.0 + 4.0 * g1 * g1), rel=1e-12)


def test_probe_reads_the_upper_triangle_norm_of_algorithm_3():
    """The exact probe, reading the report code, finds the Mahalanobis distance the hand
    derivation gives: the upper-triangle norm of the matrix block (each mirrored entry
    counted once), the z x block and the gradient over C sigma, summed in quadrature."""
    from dpaudit.exact.probe import pair_loss, probe_report

    alg = LDPGLMBandit(1.0, 1e-5, link_bound=0.5, link="probit")
    th = np.array([0.3, -0.5])
    data = [(np.array([0.6, 0.7]), 0.5), (np.array([-0.2, 0.9]), 0.0)]
    reports = [probe_report(lambda rng, x=x, y=y: alg.report(x[None], np.array([y]),
                                                             th[None], rng)) for x, y in data]
    loss = pair_loss(reports[0], reports[1], 1.0, 1e-5)
    iu = np.triu_indices(2)
    (x, y), (xp, yp) = data
    dm = (np.outer(x, x) - np.outer(xp, xp))[iu]
    a, ap = x @ th, xp @ th
    from scipy.special import ndtr

    grad = (0.5 * ndtr(a) - y) * x - (0.5 * ndtr(ap) - yp) * xp
    hand = math.sqrt(dm @ dm + np.sum((a * x - ap * xp) ** 2) + np.sum(grad ** 2) / 0.25)
    assert loss.mu * alg.sigma == pytest.approx(hand, rel=1e-9)


def test_scope_experiments_carry_the_exact_limit():
    """The Gaussian sentence's scope experiment: the limit is the exact threshold of the
    check's region finding (8.42 at delta = 1e-5), the cells above it are on the wrong side
    and the experiment is 'not reproduced'; Theorem 9 (C = 1) holds to eps = 200."""
    from dpaudit.audits.zheng_et_al_2020.gaussian import _eps_threshold
    from dpaudit.audits.zheng_et_al_2020.scope import SCOPES, epsilon_limit
    from dpaudit.registry import get_experiment
    from dpaudit.stats.evidence import decide_experiment

    limit = epsilon_limit(SCOPES["zheng-gaussian-scope"][2], 1e-5)
    assert limit == pytest.approx(_eps_threshold(1e-5), rel=1e-8)
    assert 8.4 < limit < 8.45
    exp = get_experiment("zheng-gaussian-scope")
    out = exp.run(exp.settings(quick=True))
    d = decide_experiment(out.evidence)
    assert d.status == "not reproduced" and d.stable is None
    sides = {c.measurement.label: c.outcome for c in d.cells}
    assert sides["eps = 8"] == "right side" and sides["eps = 10"] == "wrong side"
    assert math.isinf(epsilon_limit(SCOPES["zheng-thm9-scope"][2], 1e-5))


def test_link_bound_below_one_breaks_theorem_9_with_bernoulli_rewards():
    """Algorithm 3 at C = 0.1 with the paper's worked example (Bernoulli rewards): the exact
    loss of a pair the domain attains, read from the code, exceeds the claimed eps = 1 (2.56;
    the declared bound 2.65 brackets it); with rewards in [0, C] the loss does not depend on
    C. Deterministic (exact loss at a seeded search's pair)."""
    from dpaudit.audits.zheng_et_al_2020.ldp_glm_bandit import link_pair_loss

    low = link_pair_loss("logistic", 0.1, 1.0, 1e-5, 3, (500, 1), "bernoulli")
    assert 2.4 < low["epsilon_paid"] <= low["epsilon_upper"] < 2.7
    assert low["epsilon_limit"] == 0.0
    same = [link_pair_loss("logistic", c, 1.0, 1e-5, 3, (500, 1))["epsilon_paid"]
            for c in (0.1, 1.0)]
    assert same[0] == pytest.approx(same[1], rel=1e-9) and same[0] < 1.0
    with pytest.raises(InvalidParameterError):
        LDPGLMBandit(1.0, 1e-5, link="identity", rewards="bernoulli")


@pytest.mark.parametrize("link", ["logistic", "probit", "identity"])
@pytest.mark.parametrize("c", [0.1, 1.0, 4.0])
def test_the_witness_searchs_one_point_distance_is_the_batch_one_bit_for_bit(link, c):
    """Nelder-Mead's objective is computed on Python floats for speed; a last-bit difference
    from the batch distance would move the search to another of the symmetric worst pairs
    (and every number the sampled claims print), so the two must agree exactly."""
    import dpaudit.audits.zheng_et_al_2020.ldp_glm_bandit as glm
    from dpaudit.algorithms.zheng_et_al_2020.ldp_contextual import glm_rewards

    d = glm.D
    lo, hi = glm_rewards(link, c, "link-range")
    q = np.random.default_rng(11).standard_normal((500, 3 * d)) * 2.0
    x, xp, th = glm._ball(q[:, :d] * 3), glm._ball(q[:, d:2 * d] * 3), glm._ball(q[:, 2 * d:] * 3)
    batch = np.linalg.norm(glm._means(x, np.full(len(q), lo), th, c, link)
                           - glm._means(xp, np.full(len(q), hi), th, c, link), axis=1)
    one = np.array([-glm._negative_distance(row, lo, hi, c, link) for row in q])
    assert np.array_equal(one, batch)
