"""The three-valued prover and the Lemma-15 proof (Wang & Zhu 2023, Lemma 15 -> Lemma 8 and 9)."""

import math

import pytest
import sympy as sp

from dpaudit.exact.symbolic import Domain, Obligation, decide, prove
from dpaudit.mechanisms.lemma15 import lemma15_proof_obligations
from dpaudit.stats.results import ProofStatus


@pytest.mark.parametrize("regime", ["general", "laplace", "uniform"])
def test_lemma15_proved_in_every_regime(regime):
    obligations, domain, assumptions = lemma15_proof_obligations(regime=regime)
    proof = prove(obligations, domain, assumptions)
    assert proof.status is ProofStatus.PROVED, [
        (i.name, i.status, i.reason) for i in proof.inequalities]
    assert all(i.status is ProofStatus.PROVED for i in proof.inequalities)


@pytest.mark.parametrize("regime", ["general", "laplace", "uniform"])
def test_faulty_rate_disproved_with_witness(regime):
    obligations, domain, assumptions = lemma15_proof_obligations(rate_multiplier=2.0,
                                                                 regime=regime)
    proof = prove(obligations, domain, assumptions)
    assert proof.status is ProofStatus.DISPROVED
    assert proof.witness is not None and proof.witness["value"] > 0


def test_faulty_band_mass_is_delta_times_e_eps():
    obligations, domain, _ = lemma15_proof_obligations(rate_multiplier=2.0)
    band = next(o for o in obligations if o.name == "band_mass_left_piece")
    result = decide(band, domain)
    assert result.status is ProofStatus.DISPROVED
    w = result.witness
    assert w is not None
    # excess mass over delta is delta * e^eps (derived by hand: k (e^{2 eps} - 1) - delta)
    assert w["value"] == pytest.approx(w["delta"] * math.exp(w["epsilon"]), rel=1e-9)


def test_unknown_is_not_a_pass():
    e = sp.Symbol("e", positive=True)
    y = sp.Symbol("y", real=True)  # no declared domain: no witness search, no decision
    dom = {e: Domain(0.0, math.inf, (1.0,))}
    proof = prove([Obligation("fine", -e, "<="), Obligation("open", y - 1, "<=")], dom, ())
    assert [i.status for i in proof.inequalities] == [ProofStatus.PROVED, ProofStatus.UNKNOWN]
    assert proof.status is ProofStatus.UNKNOWN
    assert "not a pass" in proof.inequalities[1].reason


def test_disproved_everywhere_and_equalities():
    e = sp.Symbol("e", positive=True)
    dom = {e: Domain(0.0, math.inf, (1.0,))}
    assert decide(Obligation("pos", e + 1, "<="), dom).status is ProofStatus.DISPROVED
    assert decide(Obligation("eq", sp.exp(sp.log(e)) - e, "=="), dom).status is ProofStatus.PROVED
    assert decide(Obligation("neq", e, "=="), dom).status is ProofStatus.DISPROVED


def _slow_identity(n):
    import time
    time.sleep(n)
    return n


def test_budget_abandons_a_step_that_does_not_return():
    from dpaudit.exact.budget import run_with_budget
    run = run_with_budget(_slow_identity, (30.0,), seconds=0.5)
    assert not run.finished and run.seconds < 10.0
    done = run_with_budget(_slow_identity, (0.0,), seconds=5.0)
    assert done.finished and done.value == 0.0


def test_budget_reraises_the_steps_exception():
    from dpaudit.exact.budget import run_with_budget
    with pytest.raises(ZeroDivisionError):
        run_with_budget(lambda: 1 / 0, (), seconds=5.0)


def test_obligation_past_its_budget_is_unknown_with_the_reason():
    # a huge factoring problem: sympy cannot finish it in 0.2 s; no domain, so no witness
    x = sp.Symbol("x", real=True)
    hard = sp.expand((x + sp.exp(sp.Rational(3, 10)) * sp.erf(x) + 1) ** 40) - 1
    r = decide(Obligation("hard", hard, "<="), {}, budget=0.2)
    assert r.status is ProofStatus.UNKNOWN and r.tier == "undecided"
    assert "budget" in r.reason and r.seconds < 10.0


def test_proof_records_its_symbols_domains_and_meanings():
    m = sp.Symbol("m", positive=True, integer=True)
    r = sp.Symbol("r", nonnegative=True)
    x = sp.Symbol("x", real=True)
    proof = prove([Obligation("o", -m * (1 + r) - x ** 2, "<")],
                  {m: Domain(1.0, math.inf, (1.0,), "episode length"),
                   r: Domain(0.0, 1.0, (0.5,)), x: Domain(-math.inf, math.inf, (0.0,))},
                  ("m >= 1",), budget=None)
    assert proof.status is ProofStatus.PROVED
    assert [(s.name, s.domain, s.meaning) for s in proof.symbols] == [
        ("m", "positive integer in [1, inf)", "episode length"),  # m = 1 is a witness
        ("r", "nonnegative real in (0, 1)", ""),
        ("x", "real in (-inf, inf)", "")]
    assert proof.to_dict()["symbols"][0] == {"name": "m", "domain": "positive integer in "
                                             "[1, inf)", "meaning": "episode length"}


def test_witness_search_ignores_cancellation_noise() -> None:
    """PrivBern's true identity (1 - p(0)) / (1 - p(1)) = e^eps where sympy is given no time: at
    eps = 78, 1 - p(1) is 1e-34 and 40-digit evaluation leaves noise of 1e26 in the ratio. A
    witness must fail again at twice the precision; this was reported as DISPROVED (found by
    ``check privbern --symbolic-budget 0.001``)."""
    from dpaudit.exact.symbolic import Domain, Obligation, decide

    eps, r = sp.Symbol("epsilon", positive=True), sp.Symbol("r")
    p = (r * (sp.exp(eps) - 1) + 1) / (sp.exp(eps) + 1)
    ob = Obligation("ratio", (1 - p.subs(r, 0)) / (1 - p.subs(r, 1)) - sp.exp(eps), "==")
    r_ok = decide(ob, {eps: Domain(0.0, 100.0, preferred=(42.9, 78.11))}, budget=1e-3)
    assert r_ok.status.value != "DISPROVED", r_ok.reason
    broken = Obligation("ratio", (1 - p.subs(r, 0)) / (1 - p.subs(r, 1)) - sp.exp(2 * eps), "==")
    r_bad = decide(broken, {eps: Domain(0.0, 100.0, preferred=(42.9, 78.11))}, budget=1e-3)
    assert r_bad.status.value == "DISPROVED"


def test_witness_does_not_depend_on_the_hash_seed() -> None:
    """Same seed, same report in every process: the witness search assigns its draws to the
    symbols in name order, not in a set's order (which follows PYTHONHASHSEED)."""
    import os
    import subprocess
    import sys

    code = ("import sympy as sp\n"
            "from dpaudit.exact.symbolic import Domain, Obligation, decide\n"
            "a, b, c = sp.symbols('a b c', positive=True)\n"
            "ob = Obligation('x', a * b - c - 10, '<=')\n"
            "d = {s: Domain(0.0, 10.0) for s in (a, b, c)}\n"
            "print(decide(ob, d, budget=1e-3).witness)\n")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": str(h)}, check=True).stdout
            for h in (1, 2, 3)}
    assert len(outs) == 1 and "None" not in outs.pop()
