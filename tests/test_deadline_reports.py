"""Small things a user notices in reports: the regret test case's JUnit time (it was ``0``), a
symbol's domain printed closed where its witness sits (``m = 1`` beside ``(1, inf)``), and a
regret function that returns no experiment."""

from __future__ import annotations

import math
import time
import xml.etree.ElementTree as ET

import sympy as sp

from dpaudit.engine import AuditSpec, ClaimSpec, run_check
from dpaudit.exact.symbolic import Domain
from dpaudit.reports.junit import to_junit
from dpaudit.stats.evidence import ExactEvidence
from dpaudit.stats.results import Notion, RegretResult


def _exact(ctx, spec):
    return ExactEvidence(0.0, 1e-12)


def _regret(ctx):
    time.sleep(0.05)
    return RegretResult("toy", "toy", 100, 10, 5.0, 4.0, 6.0, 0.95, 50.0, "toy bound", True,
                        std=1.0, max_per_run=100.0)


def _spec(regret):
    return AuditSpec("toy-times", "toy", "Toy 2024",
                     [ClaimSpec("c1", Notion.LDP, "claim", "Toy 2024", _exact)], 1.0, 0.0,
                     regret=regret)


def test_the_regret_test_case_carries_its_time():
    report = run_check(_spec(_regret))
    assert report.regret is not None and report.regret.seconds >= 0.05
    assert report.to_dict()["regret"]["seconds"] >= 0.05
    cases = {c.get("name"): float(c.get("time", "nan"))
             for c in ET.fromstring(to_junit(report).split("\n", 1)[1]).iter("testcase")}
    assert cases["regret"] >= 0.05  # was always "0"


def test_a_regret_function_may_return_no_experiment():
    # the AuditSpec contract ("its result or None"); the deadline uses it for work not run
    report = run_check(_spec(lambda ctx: None))
    assert report.regret is None and report.claims[0].verdict.value == "EXACT"


def test_a_domain_endpoint_that_is_a_witness_is_printed_closed():
    m = sp.Symbol("m", positive=True, integer=True)
    x = sp.Symbol("x", real=True)
    assert Domain(1.0, math.inf, (1.0, 2.0)).describe(m) == "positive integer in [1, inf)"
    assert Domain(1.0, math.inf, (2.0,)).describe(m) == "positive integer in (1, inf)"
    assert Domain(0.0, 1.0, (0.5, 1.0)).describe(x) == "real in (0, 1]"
    assert Domain(-math.inf, math.inf, (0.0,)).describe(x) == "real in (-inf, inf)"


def test_a_regret_that_is_the_same_in_every_run_has_no_spread():
    """GDP-Elim-New's regret is the same in every run at T = 1e5 (README); numpy's std of 43
    copies of 30052.863... is 7.4e-12, which the report printed as a spread."""
    import numpy as np

    from dpaudit.sim.regret import summarise_regret

    r = summarise_regret(np.full(43, 30052.863043613354), instance="i", algorithm="a",
                         horizon=10, bound=None, bound_name="none")
    assert r.std == 0.0 and r.ci_low == r.ci_high == r.mean
    spread = summarise_regret(np.array([1.0, 2.0, 3.0]), instance="i", algorithm="a",
                              horizon=10, bound=None, bound_name="none")
    assert spread.std == 1.0


def test_the_html_report_says_what_a_deadline_cut():
    """The HTML report shows the deadline: what it cut, or that it was not reached."""
    from dataclasses import replace

    from dpaudit.reports.html import to_html

    report = run_check(_spec(None))
    assert 'id="deadline"' not in to_html(report)
    cut = replace(report, deadline={"seconds": 4.0, "hit": True, "hard_kill": False,
                                    "claims_cut": ["c1"], "claims_not_run": [],
                                    "findings_cut": [], "regret_not_run": True})
    page = to_html(cut)
    assert 'id="deadline"' in page and "claims cut or not run: c1" in page
    assert "regret experiment not run" in page
    calm = replace(report, deadline={"seconds": 4.0, "hit": False, "hard_kill": False,
                                     "claims_cut": [], "claims_not_run": [],
                                     "findings_cut": [], "regret_not_run": False})
    assert "not reached" in to_html(calm)
