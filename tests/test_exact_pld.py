"""The exact discrete computation against dp_accounting's privacy-loss distribution (PLD).

``dpaudit.exact.loss`` computes ``H_eps(P||Q) = sum_o max(0, P(o) - e^eps Q(o))`` directly. Google's
dp_accounting builds a PLD from the same two mass functions
(``from_two_probability_mass_functions``); with ``pessimistic_estimate=True`` it rounds every
privacy loss *up* to a multiple of the discretisation interval ``h``, so its delta is bracketed
by the exact one: ``H_eps <= PLD(eps) <= H_{eps - h}``. Both ends are asserted, each within the
error bound the exact function states. No tolerance is tuned: the bracket is the library's own
documented rounding.
"""

import math

import numpy as np
import pytest
from dp_accounting.pld.privacy_loss_distribution import from_two_probability_mass_functions
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.exact.loss import discrete_epsilon, discrete_hockey_stick
from dpaudit.mechanisms import PrivBern, RandomizedResponse

H = 1e-4  # the PLD's value discretisation interval


def _pld_delta(p, q, eps):
    """dp_accounting's pessimistic ``H_eps(P||Q) = sum [mu_upper - e^eps mu_lower]_+`` with
    ``P`` the upper law (``symmetric=True`` keeps this one direction; ``False`` would add the
    swapped pair and report the larger of the two)."""
    logs = [{i: math.log(v) for i, v in enumerate(law) if v > 0} for law in (q, p)]
    pld = from_two_probability_mass_functions(logs[0], logs[1], pessimistic_estimate=True,
                                              value_discretization_interval=H, symmetric=True)
    return float(pld.get_delta_for_epsilon(eps))


def _check_bracket(p, q, eps):
    exact = discrete_hockey_stick(p, q, eps)
    looser = discrete_hockey_stick(p, q, eps - H)
    pld = _pld_delta(p, q, eps)
    slack = 1e-12  # the PLD sums floats too (its own rounding, a few units of roundoff)
    assert exact.value - exact.error <= pld + slack
    assert pld <= looser.value + looser.error + slack


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_privbern_and_randomized_response(eps):
    for mech in (PrivBern(eps), RandomizedResponse(eps, k=4)):
        if isinstance(mech, PrivBern):
            p, q = mech.output_probabilities(np.array([1.0, 0.0]))
        else:
            p, q = (mech.output_probabilities(x) for x in (0, 1))
        for e in (0.0, 0.5 * eps, eps, 1.5 * eps):
            _check_bracket(np.asarray(p), np.asarray(q), e)
        # the claimed epsilon is exactly the loss, so delta at eps is 0 within the bound
        d = discrete_hockey_stick(np.asarray(p), np.asarray(q), eps)
        assert d.value - d.error <= 0.0


mass = st.lists(st.floats(1e-6, 1.0), min_size=2, max_size=8)


@given(mass, mass, st.floats(0.0, 4.0))
def test_random_mass_functions(a, b, eps):
    n = min(len(a), len(b))
    p = np.array(a[:n]) / sum(a[:n])
    q = np.array(b[:n]) / sum(b[:n])
    _check_bracket(p, q, eps)


@given(mass, mass)
def test_discrete_epsilon_is_where_the_pld_reaches_delta(a, b):
    n = min(len(a), len(b))
    p = np.array(a[:n]) / sum(a[:n])
    q = np.array(b[:n]) / sum(b[:n])
    delta = 0.01
    e = discrete_epsilon(p, q, delta)
    if e.value == 0.0:
        return
    # at the returned epsilon both directions meet delta (within their bounds); the PLD,
    # which over-estimates, meets delta one discretisation step later
    for x, y in ((p, q), (q, p)):
        assert discrete_hockey_stick(x, y, e.value).lower <= delta
        assert _pld_delta(x, y, e.value + H) <= delta + 1e-12
