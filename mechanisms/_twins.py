"""Deliberately broken mechanisms, kept beside the correct ones so audits can be shown to fail.

Never use these for anything but testing the auditor. Each docstring says what is wrong. They
are the mechanism-level twins, audited as ``NAME-<bug>`` (the older ``NAME-faulty`` names kept
as aliases).
"""

from __future__ import annotations

from dpaudit.mechanisms.lemma15 import Lemma15Perturbation

__all__ = ["FaultyLemma15Perturbation"]


class FaultyLemma15Perturbation(Lemma15Perturbation):
    """Lemma-15 perturbation whose density decays at rate ``2 N eps`` instead of ``N eps``.

    What is wrong: the support and decay are those of a count ``2N``, but neighbouring
    histories still shift the centre by up to ``1/N``. A shift of ``1/N`` therefore moves the
    density ratio to ``e^(2 eps)`` and the edge band where the shifted density vanishes holds
    mass ``delta (e^eps + 1) > delta``: the claimed ``(eps, delta)`` fails.
    """

    def __init__(self, epsilon: float, delta: float) -> None:
        super().__init__(epsilon, delta, rate_multiplier=2.0)


# --- reference mechanisms of the empirical auditor (issue 3): one broken variant per fault ---
# (imports kept local to this block so the file stays append-only)
import math as _math  # noqa: E402

from dpaudit.mechanisms.gaussian import Gaussian as _Gaussian  # noqa: E402
from dpaudit.mechanisms.laplace import Laplace as _Laplace  # noqa: E402
from dpaudit.mechanisms.privbern import PrivBern as _PrivBern  # noqa: E402
from dpaudit.mechanisms.randomized_response import RandomizedResponse as _RandomizedResponse  # noqa: E402
from dpaudit.validation import check_int as _check_int  # noqa: E402

__all__ += [
    "FaultyGaussianHalfSigma",
    "FaultyGaussianNoSensitivity",
    "FaultyLaplaceHalfScale",
    "FaultyLaplaceNoSensitivity",
    "FaultyPrivBernMislabelled",
    "FaultyRandomizedResponseMislabelled",
]


class FaultyLaplaceHalfScale(_Laplace):
    """Laplace mechanism whose noise scale is halved: ``b = sensitivity / (2 epsilon)``.

    What is wrong: the true privacy loss between the neighbours ``(0, sensitivity)`` is
    ``2 epsilon``, twice the claim.
    """

    def _calibrated_scale(self) -> float:
        return self.sensitivity / (2.0 * self.epsilon)


class FaultyLaplaceNoSensitivity(_Laplace):
    """Laplace mechanism that forgets the sensitivity: ``b = 1 / epsilon`` for any query.

    What is wrong: for a query of sensitivity ``Delta`` (default 3 here, e.g. a sum of three
    rewards) the true loss is ``Delta * epsilon``.

    True loss at the defaults (``eps = 1``, ``Delta = 3``): neighbours ``Delta`` apart under
    ``Lap(1/eps)`` have density ratio at most ``e^(Delta eps)``, reached on every output
    beyond both of them: ``3 eps`` = 3 (``laplace-sensitivity-unit-scale``).
    """

    def __init__(self, epsilon: float, *, sensitivity: float = 3.0) -> None:
        super().__init__(epsilon, sensitivity=sensitivity)

    def _calibrated_scale(self) -> float:
        return 1.0 / self.epsilon


class FaultyGaussianHalfSigma(_Gaussian):
    """Gaussian mechanism whose noise standard deviation is halved.

    What is wrong: with ``sigma / 2`` the tight delta at the claimed epsilon is far above the
    claimed delta (eps = 1, delta = 1e-5, analytic: about 0.0104 instead of 1e-5).

    True loss at the defaults (``eps = 1``, ``delta = 1e-5``, sensitivity 1): the analytic
    sigma 3.7306 halved is 1.8653, a Gaussian shift ``mu = 1/1.8653 = 0.5361``, whose exact
    ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)`` (Balle & Wang 2018) is
    1e-5 at ``eps = 2.15468`` (``gaussian-analytic-half-sigma``).
    """

    def _calibrated_sigma(self) -> float:
        return 0.5 * super()._calibrated_sigma()


class FaultyGaussianNoSensitivity(_Gaussian):
    """Gaussian mechanism that forgets the sensitivity: sigma calibrated for ``Delta = 1``.

    What is wrong: for a query of L2 sensitivity ``Delta`` (default 3 here) the neighbours
    are ``Delta`` apart, i.e. the noise is ``Delta`` times too small.

    True loss at the defaults (``eps = 1``, ``delta = 1e-5``, ``Delta = 3``): the analytic
    sigma for sensitivity 1 is 3.7306, so the neighbours are a Gaussian shift ``mu = 3/3.7306
    = 0.8042``, whose exact ``delta(eps)`` (as above) is 1e-5 at ``eps = 3.40702``
    (``gaussian-sensitivity-unit-sigma``).
    """

    def __init__(self, epsilon: float, delta: float, *, sensitivity: float = 3.0,
                 calibration: str = "analytic") -> None:
        super().__init__(epsilon, delta, sensitivity=sensitivity, calibration=calibration)

    def _calibrated_sigma(self) -> float:
        return super()._calibrated_sigma() / self.sensitivity


class FaultyPrivBernMislabelled(_PrivBern):
    """PrivBern that labels its budget ``epsilon`` but spends ``2 epsilon``.

    What is wrong: ``p(r)`` uses ``e^(2 eps)`` (the budget of two releases spent on one), so
    the likelihood ratio at ``(r, r') = (1, 0)`` is ``e^(2 eps)``.
    """

    def _calibrated_log_ratio(self) -> float:
        return 2.0 * self.epsilon


class FaultyRandomizedResponseMislabelled(_RandomizedResponse):
    """k-ary randomized response using the *binary* keep probability ``e^eps / (1 + e^eps)``.

    What is wrong: the remaining mass is spread over ``k - 1`` values, so an output's
    probability ratio is ``e^eps (k - 1)``: the mechanism is ``(eps + log(k - 1))``-LDP, not
    eps-LDP (default ``k = 4``: ``eps + log 3``). For ``k = 2`` this happens to be correct,
    so ``k >= 3`` is required.

    True loss at the defaults (``eps = 1``, ``k = 4``): an output kept with probability
    ``e^eps/(1 + e^eps)`` on one input has ``1/(3 (1 + e^eps))`` on another: ratio ``3 e^eps``,
    the largest over outputs and inputs: ``eps + log 3`` = 2.0986
    (``randomized-response-binary-keep``).
    """

    def __init__(self, epsilon: float, *, k: int = 4) -> None:
        _check_int("k", k, low=3)
        super().__init__(epsilon, k=k)

    def _calibrated_probabilities(self) -> tuple[float, float]:
        keep = 1.0 / (1.0 + _math.exp(-self.epsilon))
        return keep, (1.0 - keep) / (self.k - 1)
