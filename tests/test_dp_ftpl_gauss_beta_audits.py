"""The registered checks dp-ftpl-gauss and dp-ftpl-beta and their broken twins."""

import pytest

from dpaudit.engine import run_check
from dpaudit.registry import get_audit
from dpaudit.stats.results import Verdict


@pytest.mark.parametrize("name", ["dp-ftpl-gauss-faulty", "dp-ftpl-beta-faulty",
                                  "dp-ftpl-beta-unpadded"])
def test_faulty_twins_are_violated_four_ways(name):
    # the fourth, releases-sampled, attacks the perturbed scores the running code releases
    # (seeded; at N_0 = 1 the release's loss is far above the claim: 1.31 and 3.16 measured)
    report = run_check(get_audit(name), quick=True, regret=False)
    verdicts = {c.id: c.verdict for c in report.claims}
    assert verdicts == {"lemma8-after-start-phase": Verdict.VIOLATED,
                        "next-action-exact": Verdict.VIOLATED,
                        "next-action-sampled": Verdict.VIOLATED,
                        "releases-sampled": Verdict.VIOLATED}


@pytest.mark.parametrize("name, paper, tight", [("dp-ftpl-gauss", 8, 2),
                                                ("dp-ftpl-beta", 827, 32)])
def test_correct_checks_hold_and_state_the_conservatism(name, paper, tight):
    report = run_check(get_audit(name), quick=True, regret=False)
    assert all(c.verdict is not Verdict.VIOLATED for c in report.claims)
    lemma8 = next(c for c in report.claims if c.id == "lemma8-after-start-phase")
    assert lemma8.verdict is Verdict.EXACT
    assert lemma8.data["N_0"] == paper and lemma8.data["N_min"] == tight
    assert any(f"conservative by {paper / tight:.3g}x" in d for d in lemma8.details)
    exact = next(c for c in report.claims if c.id == "next-action-exact")
    assert exact.data["delta_at_epsilon"] <= 0.01
