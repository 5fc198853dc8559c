"""Release-level power: the fixed likelihood-ratio event of DP-UCB-Int's interval release and
the step-capped run count (audits/recipes/release_level.py), validity first."""

import numpy as np
from scipy import stats

from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import DPUCBInt
from dpaudit.audits.recipes.release_level import first_release_above_view, release_claim
from dpaudit.audits.tossou_dimitrakakis_2016._release_claims import (
    _int_attacks,
    dp_ucb_int_release_claim,
)
from dpaudit.engine import Budget, CheckContext
from dpaudit.sim.releases import ReleaseRecorder, release_sampler


def test_first_release_above_view_is_the_indicator_of_the_first_active_release():
    rec = ReleaseRecorder()
    rec.record(np.array([5.0, 5.0, 5.0]), step=1, active=np.array([False, True, False]))
    rec.record(np.array([0.2, -1.0, 0.0]), step=2)
    out = first_release_above_view(0.1, "x")(rec)
    assert list(out) == ["x"] and out["x"].tolist() == [1, 1, 0]


def test_dp_ucb_int_attack_release_has_the_derived_law():
    """K = 1, T = f: the one release is s/f + Lap(f^(v/2 - 1)) at n = f (Lemma 3.1), so the
    fixed event {X >= 1/f} has probability 1/2 on the changed table and e^(-f^(-v/2))/2 on
    the base table: the exact loss the tightness table divides by. KS test and two binomial
    tests, each at false-failure probability 1e-6 (seeded)."""
    alg = DPUCBInt(0.1)  # f = 10
    (attack,) = _int_attacks(CheckContext(1.0, 1e-5), alg)
    f, b = alg.release_every, alg.release_every ** (alg.v / 2 - 1)
    assert attack.horizon == f and attack.exact_loss == f ** (-alg.v / 2)
    n = 200_000
    for src, centre in ((attack.source, 0.0), (attack.source_prime, 1.0 / f)):
        x = release_sampler(alg, src, f, width=1)(n, np.random.default_rng(3))[:, 0]
        assert stats.kstest(x, stats.laplace(loc=centre, scale=b).cdf).pvalue > 1e-6
    hits = [int(next(iter(release_sampler(alg, src, f, view=attack.view)(
        n, np.random.default_rng(4)).values())).sum())
        for src in (attack.source, attack.source_prime)]
    for k, p in zip(hits, (0.5 * np.exp(-attack.exact_loss), 0.5), strict=True):
        assert stats.binomtest(k, n, p).pvalue > 1e-6, (k, n, p)


def test_dp_ucb_int_release_bound_stays_below_the_exact_loss():
    """Validity: the correct algorithm (f = 10, exact release loss 10^(-0.55) = 0.282) audited
    by the claim at alpha = 1e-3: the bound exceeds the exact loss with probability <= 1e-3
    (the seed is fixed, so this is one draw of that event)."""
    claim = dp_ucb_int_release_claim(lambda ctx: DPUCBInt(0.1))
    ctx = CheckContext(1.0, 1e-5, seed=11, alpha=1e-3, quick=True)
    ev = claim.evaluate(ctx, claim)
    exact = ev.data["exact_release_loss"]
    assert abs(exact - 10 ** -0.55) < 1e-12
    eps, _, _ = _bound(ev, ctx)
    assert 0.0 <= eps <= exact, eps


def test_step_capped_claim_runs_fewer_runs_or_says_inconclusive():
    """With ``min_runs``, a claim over ``max_steps`` runs ``max_steps // horizon`` per side
    (fixed before any draw) when that is at least ``min_runs``, else is INCONCLUSIVE."""
    def make(ctx):
        return DPUCBInt(0.1)  # f = 10: the attack's horizon

    def claim(max_steps):
        return release_claim(make, _int_attacks, Budget(full=2000, quick=2000), id="x",
                             statement="s", reference="r", max_steps=max_steps,
                             max_select=100, min_runs=Budget(full=800, quick=800))
    ctx = CheckContext(1.0, 1e-5, seed=1)
    capped = claim(9_000)
    ev = capped.evaluate(ctx, capped)
    assert ev.n_p == 900 - 100  # 9000 // 10 runs per side, 100 of them choose the direction
    short = claim(5_000)
    assert type(short.evaluate(ctx, short)).__name__ == "InconclusiveEvidence"


def _bound(ev, ctx):
    from dpaudit.stats.evidence import epsilon_from_counts
    return epsilon_from_counts(ev.count_p, ev.n_p, ev.count_q, ev.n_q, delta=ctx.delta,
                               alpha=ctx.alpha)
