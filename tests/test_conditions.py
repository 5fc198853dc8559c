"""Generic Lemma 8 / Lemma 9 checks (Wang & Zhu 2023) on families whose answer is known exactly.

For a Gaussian shift the likelihood ratio is monotone, so Lemma 8 at (eps, delta) holds iff
the exact hockey-stick divergence (Balle & Wang 2018, Thm 8) is at most delta: the generic
checker must agree with the closed form. The Lemma-15 law is tight by construction (its edge
band carries mass exactly delta; Wang & Zhu 2023 Lemma 15), and its faulty variant (rate 2 N eps) is
not private.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.audits.wang_zhu_2023.lemma15_perturbation import lemma15_cdf_pair
from dpaudit.exact.conditions import feasible_band, lemma8_check, lemma9_check
from dpaudit.mechanisms.gauss_perturbation import gauss_cdf_pair, gauss_exact_delta
from dpaudit.stats.results import ProofStatus
from dpaudit.validation import InvalidParameterError


@pytest.mark.parametrize("n", [1, 2, 3, 8])
def test_lemma8_agrees_with_exact_gaussian_divergence(n):
    eps, delta = 1.0, 0.01
    proof = lemma8_check(gauss_cdf_pair(n), eps, delta, grid=1001, symbolic=False)
    exact_ok = gauss_exact_delta(eps, n).value <= delta
    assert (proof.status is ProofStatus.PROVED) == exact_ok
    if not exact_ok:
        assert proof.witness is not None and proof.witness["value"] > 0


def test_lemma8_sup_is_the_exact_delta():
    # N = 2: the largest value found equals the closed-form delta (7 significant digits)
    proof = lemma8_check(gauss_cdf_pair(2), 1.0, 0.01, grid=2001, symbolic=False)
    text = " ".join(i.reason for i in proof.inequalities)
    assert f"{gauss_exact_delta(1.0, 2).value:.6g}" in text


def test_lemma15_is_tight_and_faulty_fails():
    # no time budget here: this asserts what sympy can prove, not how fast a loaded machine is
    good = lemma8_check(lemma15_cdf_pair(1.0, 0.01, 10), 1.0, 0.01, grid=1001,
                        symmetric=False, symbolic_budget=None)
    assert good.status is ProofStatus.PROVED
    # sympy proves most inequalities region by region (exact parameters), e.g. the tight one
    assert any(i.tier == "symbolic" for i in good.inequalities)
    numeric = lemma8_check(lemma15_cdf_pair(1.0, 0.01, 10), 1.0, 0.01, grid=1001,
                           symbolic=False)
    assert numeric.status is ProofStatus.PROVED
    assert any(i.tier == "critical-points" for i in numeric.inequalities)
    bad = lemma8_check(lemma15_cdf_pair(1.0, 0.01, 10, rate_multiplier=2.0), 1.0, 0.01,
                       grid=1001, symbolic=False)
    assert bad.status is ProofStatus.DISPROVED
    assert all(w["value"] > 0 for i in bad.inequalities if (w := i.witness) is not None)


@pytest.mark.slow
def test_lemma15_symbolic_both_orders():
    # the full symmetric check, symbolic tier on (about 10 s): PROVED, mostly by sympy
    proof = lemma8_check(lemma15_cdf_pair(1.0, 0.01, 10), 1.0, 0.01, grid=1001)
    assert proof.status is ProofStatus.PROVED
    assert sum(i.reason.startswith("symbolic") for i in proof.inequalities) >= 3


def test_lemma9_interval_form_with_half_delta():
    pair = lemma15_cdf_pair(0.5, 0.005, 7)
    assert lemma9_check(pair, 0.5, 0.01, delta_share=0.5, grid=1001).status is ProofStatus.PROVED
    # the same law against a budget below its delta must fail (the condition is tight)
    assert lemma9_check(pair, 0.5, 0.008, delta_share=0.5, grid=1001).status is \
        ProofStatus.DISPROVED


def test_lemma9_implies_lemma8_values():
    # Remark 10: Lemma 8 is Lemma 9 with x = -inf or y = +inf, so Lemma 9's sup >= Lemma 8's
    pair = gauss_cdf_pair(1)
    assert lemma9_check(pair, 1.0, 0.02, delta_share=1.0, grid=1001).status is \
        ProofStatus.DISPROVED


@given(st.lists(st.floats(0, 1), min_size=2, max_size=30), st.floats(0, 3), st.floats(0, 0.5))
def test_feasible_band_contains_f_itself(values, eps, delta):
    F = np.sort(np.array(values))
    lo, hi = feasible_band(F, eps, delta)
    assert np.all(lo <= F + 1e-12) and np.all(F <= hi + 1e-12)
    assert np.all((0 <= lo) & (hi <= 1))


def test_bad_parameters():
    pair = gauss_cdf_pair(2)
    with pytest.raises(InvalidParameterError):
        lemma8_check(pair, -1.0, 0.01)
    with pytest.raises(InvalidParameterError):
        lemma8_check(pair, 1.0, 1.5)
    with pytest.raises(InvalidParameterError):
        lemma9_check(pair, 1.0, 0.01, delta_share=0.0)
    with pytest.raises(InvalidParameterError):
        lemma8_check(pair, 1.0, 0.01, grid=3, symbolic=False)
    assert math.isfinite(pair.density_bound)


def _laplace_pair(scale):
    import sympy as sp

    from dpaudit.exact.conditions import CdfPair
    x = sp.Symbol("x", real=True)

    def cdf(m):
        return sp.Piecewise((sp.exp((x - m) / scale) / 2, x < m),
                            (1 - sp.exp(-(x - m) / scale) / 2, True))
    return CdfPair("laplace", x, cdf(0), cdf(1), float(1 / (2 * scale)), (-40.0, 41.0))


def test_laplace_pure_dp_symbolic_and_half_scale_witness():
    # Laplace shift 1 at scale 1 is exactly 1-DP (Dwork & Roth Thm 3.6): Lemma 8 with delta = 0
    import sympy as sp
    good = lemma8_check(_laplace_pair(sp.Integer(1)), 1.0, 0.0, grid=1001)
    assert good.status is ProofStatus.PROVED
    assert sum(i.reason.startswith("symbolic") for i in good.inequalities) >= 3
    bad = lemma8_check(_laplace_pair(sp.Rational(1, 2)), 1.0, 0.0, grid=1001)
    assert bad.status is ProofStatus.DISPROVED
