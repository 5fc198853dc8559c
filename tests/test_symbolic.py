"""The three-valued prover and the Lemma-15 proof (seed 003, Lemma 15 -> Lemma 8 and 9)."""

import math

import pytest
import sympy as sp

from dpaudit.mechanisms.lemma15 import lemma15_proof_obligations
from dpaudit.results import ProofStatus
from dpaudit.symbolic import Domain, Obligation, decide, prove


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
