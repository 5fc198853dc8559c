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
