"""The recording hook (dpaudit.sim.releases), the ``observes`` field and twins' ``true_epsilon``."""

import json

import numpy as np
import pytest
from scipy import stats

from dpaudit.algorithms.azize_basu_2022.adap import AdaPUCB
from dpaudit.engine import AuditSpec, ClaimSpec, FindingSpec, run_check
from dpaudit.sim.bandits import TableRewards
from dpaudit.sim.releases import ReleaseRecorder, records_releases, release_sampler
from dpaudit.stats.evidence import ProofEvidence
from dpaudit.stats.results import Notion
from dpaudit.validation import InvalidParameterError


def test_recorder_keeps_each_runs_releases_in_order():
    rec = ReleaseRecorder()
    rec.record([1.0, 2.0, 3.0], step=1, arm=0)
    rec.record([[4.0, 5.0], [6.0, 7.0], [8.0, 9.0]], step=2)  # every arm at once
    rec.record([10.0, 11.0, 12.0], step=[3, 4, 5], arm=[1, 0, 1],
               active=[True, False, True])
    rec.record([13.0, 14.0, 15.0], step=6, arm=0, label="late")
    assert len(rec) == 4 and rec.runs == 3
    assert rec.counts().tolist() == [5, 4, 5]
    first = rec.first(5)
    assert first.tolist() == [[1, 4, 5, 10, 13], [2, 6, 7, 14, 0], [3, 8, 9, 12, 15]]
    assert rec.first(7).shape == (3, 7)
    assert rec.labelled("late").ravel().tolist() == [13, 14, 15]
    assert rec.releases[2].arm.tolist() == [1, 0, 1]
    assert rec.releases[1].arm.tolist() == [-1, -1, -1]


def test_recorder_copies_and_rejects_bad_input():
    rec = ReleaseRecorder()
    x = np.zeros(2)
    rec.record(x, step=1)
    x[:] = 5.0  # a policy may keep updating its own arrays
    assert rec.first(1).ravel().tolist() == [0.0, 0.0]
    with pytest.raises(InvalidParameterError, match="runs"):
        rec.record(np.zeros(3), step=1)
    with pytest.raises(InvalidParameterError, match="shape"):
        rec.record(np.zeros((2, 2, 2)), step=1)
    with pytest.raises(InvalidParameterError, match="integers"):
        rec.record(np.zeros(2), step=1.5)
    with pytest.raises(InvalidParameterError, match="no release"):
        ReleaseRecorder().first(1)
    with pytest.raises(InvalidParameterError, match="label"):
        rec.labelled("nothing")


class _UserPolicy:
    """A user's own policy with the hook: releases each arm's noisy reward sum every step."""

    name = "user"

    def simulate(self, source, horizon, runs, *, rng, checkpoints=(), record=False,
                 releases=None):
        sums = np.zeros((runs, source.n_arms))
        for t in range(1, horizon + 1):
            arm = np.full(runs, (t - 1) % source.n_arms)
            sums[np.arange(runs), arm] += source.rewards(t, arm, rng)
            if releases is not None:
                releases.record(sums + rng.laplace(0.0, 1.0, sums.shape), step=t)


def test_a_user_policy_is_audited_through_the_same_sampler():
    source = TableRewards(np.zeros(4), n_arms=2)
    sample = release_sampler(_UserPolicy(), source, 4, width=8)
    out = sample(50, np.random.default_rng(0))
    assert out.shape == (50, 8)
    assert records_releases(_UserPolicy()) and records_releases(AdaPUCB(1.0))

    class NoHook:
        def simulate(self, source, horizon, runs, *, rng):
            return None

    assert not records_releases(NoHook())
    with pytest.raises(InvalidParameterError, match="releases"):
        release_sampler(NoHook(), source, 4)


def test_recording_does_not_change_adap_law():
    alg = AdaPUCB(1.0)
    source = TableRewards(np.r_[np.zeros(20), np.ones(20)], n_arms=2)
    rec = ReleaseRecorder()
    a = alg.simulate(source, 40, 200, rng=np.random.default_rng(3), releases=rec)
    b = alg.simulate(source, 40, 200, rng=np.random.default_rng(3))
    assert np.array_equal(a.decisions, b.decisions) and np.array_equal(a.regret, b.regret)
    # K initial releases, then one per episode of each run
    assert rec.counts().tolist() == (2 + a.extra["episodes"]).tolist()


def test_adap_first_episode_release_is_laplace_of_scale_one_over_eps():
    # On an all-zero table the first episode (length 1, N = 2) releases 0 + Lap(2/(eps*2)).
    # KS test at level 1e-4: false-failure probability 1e-4 (seeded, so deterministic).
    eps = 0.5
    rec = ReleaseRecorder()
    AdaPUCB(eps).simulate(TableRewards(np.zeros(6), n_arms=2), 6, 20_000,
                          rng=np.random.default_rng(11), releases=rec)
    values = rec.first(3)[:, 2]
    assert stats.kstest(values, stats.laplace(scale=1 / eps).cdf).pvalue > 1e-4


def _claim(observes=""):
    return ClaimSpec("c", Notion.GLOBAL, "s", "r",
                     lambda ctx, spec: ProofEvidence(_proved()), observes=observes)


def _proved():
    from dpaudit.stats.results import ProofResult, ProofStatus
    return ProofResult(ProofStatus.PROVED, (), ())


def test_every_claim_and_finding_says_what_it_observes():
    from dpaudit.stats.results import Finding
    spec = AuditSpec("x", "d", "p", (_claim(), _claim("actions")), 1.0, 0.0,
                     findings=(FindingSpec("f", lambda ctx: Finding("f", "s"),
                                           observes="trajectory"),))
    report = run_check(spec)
    data = json.loads(json.dumps(report.to_dict()))
    # a symbolic global-DP proof is about the releases; an explicit level wins
    assert [c["observes"] for c in data["claims"]] == ["releases", "actions"]
    assert data["findings"][0]["observes"] == "trajectory"
    with pytest.raises(InvalidParameterError, match="observes"):
        _claim("everything")


def test_named_twin_carries_its_true_epsilon():
    spec = AuditSpec("x", "d", "p", (_claim(),), 1.0, 0.0, variant=AdaPUCB)

    class Broken(AdaPUCB):
        """Noise scale halved."""

    twin = spec.twin(Broken, bug="half-scale", true_epsilon=2.0)
    assert (twin.name, twin.original, twin.true_epsilon) == ("x-half-scale", "x", 2.0)
    assert twin.faulty and twin.expect_violated
    benign = spec.twin(Broken, bug="benign", true_epsilon=0.5)
    assert benign.faulty and not benign.expect_violated
    assert spec.twin(Broken).name == "x-faulty" and spec.twin(Broken).true_epsilon is None
    with pytest.raises(InvalidParameterError, match="bug"):
        spec.twin(Broken, bug="Two Words")


@pytest.mark.parametrize("name", ["dp-ucb", "dp-ucb-bound", "private-ucb", "dp-ucb-int",
                                  "dp-se", "adap-klucb"])
def test_recording_does_not_change_the_law(name):
    # same seed, same numbers with and without the recorder (recording only copies values)
    from dpaudit.registry import all_policies
    entry = all_policies()[name]
    alg = entry.factory(**entry.small_overrides)
    source = TableRewards(np.tile([[0.0, 1.0], [1.0, 0.0]], (60, 1)))
    horizon = 120 if name != "dp-se" else 100
    kw = {"backend": "numpy"} if name not in ("dp-se", "adap-klucb") else {}
    a = alg.simulate(source, horizon, 50, rng=np.random.default_rng(5), record=True, **kw)
    rec = ReleaseRecorder()
    b = alg.simulate(source, horizon, 50, rng=np.random.default_rng(5), record=True,
                     releases=rec)
    assert np.array_equal(a.actions, b.actions) and np.array_equal(a.regret, b.regret)
    if name != "dp-se":  # DP-SE's first epoch (1000+ pulls per arm) ends after T = 100
        assert len(rec) > 0


def test_counter_releases_are_the_counters_outputs():
    # DP-UCB-Bound on one arm: y(n) - s(n) is the counter's noise; y(3) - y(2) = x3 + T3 with
    # T3 ~ Lap(1/eps_bin) (block k = 1). KS at level 1e-4 (false-failure probability 1e-4).
    from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCBBound
    alg = DPUCBBound(1.0)
    rec = ReleaseRecorder()
    alg.simulate(TableRewards(np.zeros((4, 1))), 4, 20_000, rng=np.random.default_rng(2),
                 releases=rec)
    y = rec.labelled("counter")
    assert y.shape == (20_000, 4)
    assert stats.kstest(y[:, 2] - y[:, 1], stats.laplace(scale=1 / alg.eps_bin).cdf
                        ).pvalue > 1e-4
    assert stats.kstest(y[:, 3] - y[:, 1], stats.laplace(scale=1 / alg.eps_log).cdf
                        ).pvalue > 1e-4


def test_recording_needs_the_numpy_path():
    from dpaudit.algorithms import _kernels as kern
    from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCB
    if not kern.HAVE_NUMBA:
        pytest.skip("numba not installed")
    with pytest.raises(InvalidParameterError, match="numpy"):
        DPUCB(1.0).simulate(TableRewards(np.zeros((4, 2))), 4, 2,
                            rng=np.random.default_rng(0), backend="numba",
                            releases=ReleaseRecorder())


def test_long_horizons_are_streamed_in_chunks_of_runs(monkeypatch):
    """A release sampler simulates at most CHUNK_CELLS runs x steps at once and concatenates
    the views: the same number of rows, each a release of the same law (memory flat in runs)."""
    import dpaudit.sim.releases as rel

    monkeypatch.setattr(rel, "CHUNK_CELLS", 40 * 10)  # 10 runs per call at T = 40
    alg = AdaPUCB(1.0)
    sample = rel.release_sampler(alg, TableRewards(np.zeros((40, 2))), 40, width=2)
    out = sample(35, np.random.default_rng(1))
    assert out.shape == (35, 2)
    # the first release is arm 0's initial one-sample mean 0 + Lap(2/eps): a KS test at
    # false-failure probability 1e-6 against that law on the 35 chunked rows
    assert stats.kstest(out[:, 0], stats.laplace(scale=2.0).cdf).pvalue > 1e-6


def test_a_release_out_of_reach_is_inconclusive_with_its_size():
    """DP-UCB-Int at eps = 0.05: its first release comes after ~1e5 pulls; the release-level
    claim says so instead of simulating runs x horizon beyond the step budget."""
    from dpaudit.registry import all_audits

    spec = all_audits()["dp-ucb-int"]
    (claim,) = [c for c in spec.claims if c.id == "interval-release-sampled"]
    report = run_check(AuditSpec(spec.name, spec.description, spec.paper, [claim], 1.0, 1e-5,
                                 variant=spec.variant), epsilon=0.05, delta=1e-5, quick=True,
                       regret=False)
    (result,) = report.claims
    assert result.verdict.value == "INCONCLUSIVE"
    assert "steps" in " ".join(result.details) + result.statement + str(result.data)
