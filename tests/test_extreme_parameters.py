"""Issue 26, item 4: every accepted parameter value gives a result or a clear exit 2 naming the
accepted range; no state is left behind, and no ``--resume`` suggested, where it cannot help.

The full sweep over the registry (every name at epsilon 700, 701, 1e308 and delta 1e-300,
1 - 1e-12) is ``python benchmarks/extreme_parameters.py``; its last run is kept in
``benchmarks/results/extreme_parameters.txt``. Here: the range itself over every registered
name (cheap: refused before any work), and the formulas that overflowed, against mpmath.
"""

from __future__ import annotations

import math
import textwrap

import mpmath
import pytest

from dpaudit.algorithms.wang_zhu_2023.ftpl import ftpl_new_log_term
from dpaudit.algorithms.wang_zhu_2023.gdp_elim import log_x
from dpaudit.cli import main
from dpaudit.mechanisms.beta_perturbation import beta_start_phase
from dpaudit.mechanisms.gauss_perturbation import gauss_start_phase
from dpaudit.mechanisms.lemma15 import Lemma15Perturbation
from dpaudit.registry import all_audits, all_policies
from dpaudit.validation import EPSILON_MAX

mpmath.mp.dps = 50


@pytest.mark.parametrize("name", sorted(all_audits()))
@pytest.mark.parametrize("eps", ["701", "1e308"])
def test_check_refuses_epsilon_past_the_range_naming_it(name, eps, tmp_path, capsys) -> None:
    state = tmp_path / "state"
    code = main(["check", name, "--quick", "--no-regret", "--epsilon", eps,
                 "--state-dir", str(state)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "accepted range" in err and "700" in err and "--resume" not in err
    assert not state.exists() or not any(state.iterdir())


@pytest.mark.parametrize("name", sorted(all_policies()))
def test_simulate_refuses_epsilon_past_the_range(name, capsys) -> None:
    code = main(["simulate", name, "--horizon", "50", "--runs", "2", "--epsilon", "1e308",
                 "--workers", "1"])
    assert code == 2 and "accepted range" in capsys.readouterr().err


def test_the_range_leaves_four_decades_below_float64_overflow() -> None:
    assert math.exp(EPSILON_MAX) * 1e4 < float("inf")
    with pytest.raises(OverflowError):
        math.exp(EPSILON_MAX + 10.0)


@pytest.mark.parametrize("eps", [0.5, 709.0])
@pytest.mark.parametrize("delta", [1e-300, 1e-5, 0.999999999999])
def test_start_phases_in_log_space_match_mpmath(eps, delta) -> None:
    """N_B and N_G (Wang & Zhu 2023, Theorems 9 and 8) at delta = 1e-300 overflowed (1/delta^2);
    the log-space forms agree with 50-digit mpmath to 1e-12 relative."""
    e, d = mpmath.mpf(eps), mpmath.mpf(delta)
    first_b = 40 * mpmath.e / (9 * mpmath.pi * d * d)
    second_b = 8000 / (81 * e * e) * mpmath.log(mpmath.e / (2 * mpmath.pi * d * d))
    want_b = max(min(first_b, second_b), mpmath.mpf(1000) * mpmath.e / (9 * mpmath.pi))
    assert beta_start_phase(eps, delta) == pytest.approx(float(want_b), rel=1e-12)
    first_g = 1 / (4 * mpmath.pi * d * d)
    second_g = 1 / (e * e) * mpmath.log(mpmath.e / (4 * mpmath.pi * d * d))
    want_g = min(first_g, second_g) if second_g > 0 else first_g
    assert gauss_start_phase(eps, delta) == pytest.approx(float(want_g), rel=1e-12)


@pytest.mark.parametrize("eps", [1e-3, 1.0, 30.0, 700.0, 709.0, EPSILON_MAX])
@pytest.mark.parametrize("delta", [0.0, 1e-300, 1e-5, 0.5])
def test_ftpl_and_elimination_log_terms_match_mpmath(eps, delta) -> None:
    """Wang & Zhu 2023, Theorem 16's log term and Alg. 4's ln X, which overflowed near 709."""
    a, d = mpmath.expm1(mpmath.mpf(eps)), mpmath.mpf(delta)
    for t in (10, 10_000):
        want = mpmath.log((t * a + 2 * t * d) / (2 * a + 2 * t * d)) / eps
        assert ftpl_new_log_term(eps, delta, t) == pytest.approx(float(want), rel=1e-12)
        t2 = mpmath.mpf(t) ** 2
        want_x = mpmath.log((t2 * a + t2 * d) / (2 * a + t2 * d))
        assert log_x(eps, delta, t) == pytest.approx(float(want_x), rel=1e-12)


@pytest.mark.parametrize("u", [1e-300, 1e-9, 0.3, 0.5, 0.7, 1 - 1e-9])
def test_lemma15_quantile_at_epsilon_709_matches_mpmath(u) -> None:
    """Lemma 15's inverse CDF overflowed (inf - inf) once (e^eps - 1) / delta passed float64."""
    eps, delta, n = 709.0, 1e-5, 3.0
    mech = Lemma15Perturbation(epsilon=eps, delta=delta)
    a = mpmath.expm1(mpmath.mpf(eps))
    s = min(mpmath.mpf(u), 1 - mpmath.mpf(u))
    dist = (mpmath.log1p(a / (2 * delta)) - mpmath.log1p(s * a / delta)) / (n * eps)
    want = -dist if u <= 0.5 else dist
    got = float(mech.ppf(u, 0.0, n))
    assert math.isfinite(got) and got == pytest.approx(float(want), rel=1e-9, abs=1e-15)


TOY = '''
from dpaudit.engine import AuditSpec, ClaimSpec
from dpaudit.stats.evidence import ExactEvidence
from dpaudit.stats.results import Notion, _json_number
from dpaudit.validation import InvalidParameterError

def fine(ctx, spec):
    return ExactEvidence(delta_at_epsilon=0.0, error=1e-12, epsilon_at_delta=0.0)

def usage(ctx, spec):
    raise InvalidParameterError("width=-1 must be positive")

def internal(ctx, spec):
    _json_number(float("nan"))  # raises inside dpaudit: an internal error

def interrupted(ctx, spec):
    raise KeyboardInterrupt

AUDITS = [AuditSpec(name=f"toy-{kind}", description="toy", paper="none", default_epsilon=1.0,
    default_delta=0.0, claims=[
    ClaimSpec("c1", Notion.LDP, "fine", "none", fine),
    ClaimSpec("c2", Notion.LDP, kind, "none", fn)])
    for kind, fn in (("usage", usage), ("internal", internal), ("interrupted", interrupted))]
'''


@pytest.mark.parametrize("kind, code, kept", [("usage", 2, False), ("internal", 3, False),
                                              ("interrupted", 130, True)])
def test_state_is_kept_only_where_resume_can_help(kind, code, kept, tmp_path, monkeypatch,
                                                  capsys) -> None:
    (tmp_path / "toy_extreme_audit.py").write_text(textwrap.dedent(TOY))
    monkeypatch.syspath_prepend(str(tmp_path))
    state = tmp_path / "state"
    assert main(["check", f"toy_extreme_audit:toy-{kind}", "--state-dir", str(state)]) == code
    err = capsys.readouterr().err
    assert ("--resume" in err) is kept, err
    assert (state.exists() and any(state.iterdir())) is kept


def test_lemma15_cdf_pair_keeps_an_extreme_delta_exact() -> None:
    """nsimplify turned delta = 1e-300 into 0 (then the CDF divided by zero) and
    0.999999999999 into 1; the pair now carries delta exactly, 0.01 still as 1/100."""
    import sympy as sp

    from dpaudit.audits.wang_zhu_2023.lemma15_perturbation import _as_rational, lemma15_cdf_pair

    assert _as_rational(0.01) == sp.Rational(1, 100)
    for delta in (1e-300, 0.999999999999):
        assert float(_as_rational(delta)) == delta
        pair = lemma15_cdf_pair(1.0, delta)
        assert math.isfinite(pair.density_bound)
