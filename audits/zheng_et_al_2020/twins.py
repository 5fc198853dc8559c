"""Planted twins of the Zheng et al. 2020 checks (``ldp-one-point``, ``-two-point-bco``,
``-linear-bandit``, ``-glm-bandit``).

Each is the correct check on a twin of :mod:`dpaudit.algorithms.zheng_et_al_2020._twins`, with
its true loss at the default ``(eps, delta) = (1, 1e-5)``: for a noise-scale twin the exact
``eps(delta)`` of a Gaussian shift by ``mu * sigma / sigma_twin`` (``mu``: the correct
report's worst-case Mahalanobis distance, :meth:`release`, attained by a pair of data; for
Algorithm 3, whose release only bounds it, the attained worst case
:func:`~dpaudit.algorithms.zheng_et_al_2020.ldp_contextual.glm_attained_sup`; Balle & Wang
2018), infinite for a report sent without noise or with shared noise. The probe of the
running report code (``report-ldp-code-exact``) computes the same numbers from the code.
``tests/test_twins_ldp.py`` recomputes every number independently and checks each twin's
actual noise scale. Twins whose loss is within the claim (the classical calibration is
loose) are registered as benign: their check must not be VIOLATED. The twins keep the
claims and drop the findings (which describe the correct calibration and its regret).
"""

from __future__ import annotations

import math

from dpaudit.algorithms.zheng_et_al_2020 import _twins as t
from dpaudit.algorithms.zheng_et_al_2020.ldp_contextual import glm_attained_sup
from dpaudit.audits.recipes.ldp import gaussian_epsilon
from dpaudit.audits.zheng_et_al_2020.ldp_glm_bandit import AUDITS as GLM
from dpaudit.audits.zheng_et_al_2020.ldp_linear_bandit import AUDITS as LINEAR
from dpaudit.audits.zheng_et_al_2020.ldp_one_point import ONE_POINT
from dpaudit.audits.zheng_et_al_2020.ldp_two_point_bco import AUDITS as TWO_POINT
from dpaudit.audits.zheng_et_al_2020.ldp_two_point_bco import RHO


def _scaled(cls, mu_of) -> float:
    """Exact loss at the defaults of the noise-scale twin ``cls`` (correct ``mu`` from
    ``mu_of(eps, delta)``)."""
    eps, delta = 1.0, 1e-5
    return gaussian_epsilon(delta, mu_of(eps, delta) / t.NOISE_RATIO[cls](eps, delta))


def _one_point_mu(eps, delta):
    return t.OnePointUCB(eps, delta).release().mu_upper


def _two_point_mu(eps, delta):
    return t.TwoPointBCO(eps, delta, lipschitz=1.0).release(RHO).mu_upper


def _linear_mu(eps, delta):
    return t.LDPLinUCB(eps, delta).release().mu_upper


def _glm_mu(eps, delta):
    """The attained worst case (``glm_attained_sup``), not the release's upper bound: the
    twins' true loss."""
    return glm_attained_sup() / t.LDPGLMBandit(eps, delta).sigma


def _twin(spec, cls, bug, true_epsilon):
    return spec.twin(cls, findings=[], bug=bug, true_epsilon=true_epsilon)


AUDITS = [
    _twin(ONE_POINT, t.OnePointSqrt2, "sqrt2", _scaled(t.OnePointSqrt2, _one_point_mu)),
    _twin(ONE_POINT, t.OnePointFirstPullRaw, "first-pull-raw", math.inf),
    _twin(ONE_POINT, t.OnePointSharedNoise, "shared-noise", math.inf),
    _twin(TWO_POINT[0], t.TwoPointSqrt2, "sqrt2", _scaled(t.TwoPointSqrt2, _two_point_mu)),
    _twin(TWO_POINT[0], t.TwoPointHalfRange, "half-range",
          _scaled(t.TwoPointHalfRange, _two_point_mu)),
    _twin(LINEAR[0], t.LinSplitInverted, "split-inverted",
          _scaled(t.LinSplitInverted, _linear_mu)),
    _twin(LINEAR[0], t.LinMissingSplit, "missing-split",
          _scaled(t.LinMissingSplit, _linear_mu)),
    _twin(LINEAR[0], t.LinSqrt2, "sqrt2", _scaled(t.LinSqrt2, _linear_mu)),
    _twin(GLM[0], t.GLMSplitInverted, "split-inverted", _scaled(t.GLMSplitInverted, _glm_mu)),
    _twin(GLM[0], t.GLMMissingSplit, "missing-split", _scaled(t.GLMMissingSplit, _glm_mu)),
    _twin(GLM[0], t.GLMSqrt2, "sqrt2", _scaled(t.GLMSqrt2, _glm_mu)),
]
