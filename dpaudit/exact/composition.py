"""Composition of shifted Laplace and Gaussian releases: ``delta`` at ``epsilon``, bracketed.

A run whose releases are ``m`` Laplace values moved by ``s_i`` against scales ``b_i`` and
Gaussian values whose joint shift has Mahalanobis norm ``mu`` (after whitening, one Gaussian
shift of norm ``mu``) has the privacy curve of the composition of the mechanisms
``Lap(1)`` shifted by ``c_i = |s_i| / b_i`` and ``N(0, 1)`` shifted by ``mu``. Its pure-DP
loss (Laplace only) is ``sum c_i``; its ``delta(epsilon)`` is bracketed by dp_accounting's
privacy loss distributions: the pessimistic PLD (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi
2022, "Connect the dots") gives an upper bound and the optimistic one (Meiser & Mohammadi 2018,
privacy buckets) a lower bound, both rigorous for the discretisation used. For Laplace alone
the lower bound is also at least ``2^-m (1 - e^(eps - sum c_i))``
(:func:`dpaudit.exact.loss.laplace_composition_delta`), and a single Gaussian shift is exact
(Balle & Wang 2018).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from dpaudit.exact.divergence import gaussian_hockey_stick, laplace_hockey_stick
from dpaudit.exact.loss import laplace_composition_delta

__all__ = ["composed_delta"]

#: the PLD's value discretisation (dp_accounting's loss grid): the bracket's width reflects it
DISCRETISATION = 1e-3


def composed_delta(laplace_costs: Sequence[float], gaussian_mu: float, epsilon: float
                   ) -> tuple[float, float]:
    """``(lower, upper)`` of ``delta(epsilon)`` for Laplace releases of costs ``c_i =
    shift / scale`` composed with one Gaussian shift of norm ``gaussian_mu`` (module
    docstring). Zero costs are dropped; with nothing moved both are 0. One release alone is
    in closed form; the composition of several goes through the PLD (cached: the gray-box
    stage asks the same question of many paths)."""
    costs = tuple(sorted(round(abs(float(c)), 12) for c in laplace_costs if abs(float(c)) > 0))
    return _composed(costs, round(abs(float(gaussian_mu)), 12), float(epsilon))


@functools.lru_cache(maxsize=512)
def _composed(costs: tuple[float, ...], mu: float, epsilon: float) -> tuple[float, float]:
    if not costs and mu == 0.0:
        return 0.0, 0.0
    if not costs or (len(costs) == 1 and mu == 0.0):
        b = gaussian_hockey_stick(epsilon, mu, 1.0) if not costs else \
            laplace_hockey_stick(epsilon, costs[0], 1.0)
        return max(float(b.value) - float(b.error), 0.0), float(b.value) + float(b.error)
    pure = math.fsum(costs)
    if mu == 0.0 and pure <= epsilon:
        return 0.0, 0.0
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    def total(pessimistic: bool) -> float:
        pld = None
        for c in costs:
            one = pldlib.from_laplace_mechanism(1.0, sensitivity=c,
                                                pessimistic_estimate=pessimistic,
                                                value_discretization_interval=DISCRETISATION,
                                                use_connect_dots=pessimistic)
            pld = one if pld is None else pld.compose(one)
        if mu > 0.0:
            g = pldlib.from_gaussian_mechanism(1.0, sensitivity=mu,
                                               pessimistic_estimate=pessimistic,
                                               value_discretization_interval=DISCRETISATION,
                                               use_connect_dots=pessimistic)
            pld = g if pld is None else pld.compose(g)
        assert pld is not None
        return float(pld.get_delta_for_epsilon(epsilon))

    lower, upper = total(False), total(True)
    if mu == 0.0:
        lower = max(lower, float(laplace_composition_delta(pure, len(costs), epsilon).value))
    return max(0.0, min(lower, upper)), upper
