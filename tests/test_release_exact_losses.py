"""The exact loss a release-level claim reports its reach against is the audited code's own
loss on the canary pair, read from the code (its release statistic, its noise scale, whether
its draws are independent), never the claimed epsilon: a twin with half the noise is reported
against twice the claim, so a reach above 1 can only be a confidence failure (probability at
most alpha), not a wrong reference."""

from __future__ import annotations

import math

import pytest

from dpaudit.algorithms.azize_basu_2022 import _twins as adap_twins
from dpaudit.algorithms.azize_basu_2022.adap import AdaPKLUCB, AdaPUCB
from dpaudit.algorithms.baselines import _twins as base_twins
from dpaudit.algorithms.baselines.dp_se import DPSE
from dpaudit.audits.azize_basu_2022._adap_common import episode_exact_loss
from dpaudit.audits.azize_basu_2022.dp_se import epoch_exact_loss


@pytest.mark.parametrize("eps", [0.25, 1.0, 3.0])
@pytest.mark.parametrize(("cls", "factor"), [
    (AdaPUCB, 1.0), (AdaPKLUCB, 1.0),
    (adap_twins.AdaPUCBHalfScale, 2.0), (adap_twins.AdaPKLUCBHalfScale, 2.0),
    (adap_twins.AdaPUCBSqrt2Scale, math.sqrt(2.0)), (adap_twins.AdaPKLUCBSqrt2Scale,
                                                      math.sqrt(2.0)),
    # the step-3 release averages both of the arm's rewards: half the sensitivity
    (adap_twins.AdaPUCBAllRewards, 0.5),
    # the initial release is unnoised, the episode release on this pair is the paper's
    (adap_twins.AdaPUCBUnnoisedFirst, 1.0),
])
def test_adap_episode_pair_loss_is_the_codes(cls, factor, eps):
    assert episode_exact_loss(cls(eps)) == pytest.approx(factor * eps, rel=1e-12)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
@pytest.mark.parametrize(("cls", "factor"), [
    (DPSE, 1.0), (base_twins.DPSESqrt2Scale, math.sqrt(2.0)),
    (base_twins.DPSEArmsScale, 2.0), (base_twins.DPSESharedDraw, math.inf),
])
def test_dp_se_epoch_pair_loss_is_the_codes(cls, factor, eps):
    got = epoch_exact_loss(cls(eps), 1418)
    assert got == math.inf if math.isinf(factor) else got == pytest.approx(factor * eps,
                                                                          rel=1e-12)


def test_tossou_release_pair_losses_are_the_codes():
    """DP-UCB-Int's first release (``f^(-v/2)``, times sqrt 2 for the twin that shrinks the
    scale); DP-UCB's counter pairs (``eps_log + eps_bin`` from the code's counter, infinite on
    the differenced pair when one draw is shared by the counters)."""
    from dpaudit.algorithms.tossou_dimitrakakis_2016 import _twins as tossou_twins
    from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb import DPUCB
    from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import DPUCBInt
    from dpaudit.audits.tossou_dimitrakakis_2016 import _release_claims as rc

    for cls, factor in ((DPUCBInt, 1.0), (tossou_twins.DPUCBIntSqrt2Scale, math.sqrt(2.0))):
        alg = cls(0.01)
        f = int(alg.release_every)
        assert rc._interval_exact(alg, f) == pytest.approx(factor * f ** (-alg.v / 2),
                                                           rel=1e-12)
    for cls, pair, differenced in ((DPUCB, 1.0, 1.0),
                                   (tossou_twins.DPUCBSqrt2Scale, math.sqrt(2.0),
                                    math.sqrt(2.0)),
                                   (tossou_twins.DPUCBNoSplit, 2.0, 2.0),
                                   (tossou_twins.DPUCBSharedDraw, 1.0, math.inf)):
        first, second = rc._dp_ucb_attacks(None, cls(1.0))
        assert first.exact_loss == pytest.approx(pair, rel=1e-12)
        assert second.exact_loss == pytest.approx(differenced, rel=1e-12)


def test_ftpl_next_action_exact_only_where_the_law_is_the_codes():
    """The next-action claims report an exact figure from the laws only for code whose draw
    path the laws describe: the paper's algorithms and the twins that change a parameter
    (start phase, perturbation rate, padding), not those that change how noise is drawn."""
    from dpaudit.algorithms.wang_zhu_2023 import _twins as wz
    from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew
    from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta, DPFTPLGauss
    from dpaudit.audits.wang_zhu_2023._ftpl_common import sampler_follows_law

    follows = [DPFTPLGauss, DPFTPLBeta, DPFTPLNew, wz.DPFTPLGaussNoStartPhase,
               wz.DPFTPLNewFaultyPerturbation, wz.DPFTPLBetaUnpadded]
    redrawn = [wz.GaussSharedNoise, wz.GaussFirstReleaseRaw, wz.BetaSharedUniform,
               wz.BetaFirstReleaseRaw, wz.NewSharedNoise, wz.NewFirstReleaseRaw]
    for cls in follows + redrawn:
        alg = cls.__new__(cls)  # the check reads the class's methods only
        assert sampler_follows_law(alg) is (cls in follows), cls.__name__
