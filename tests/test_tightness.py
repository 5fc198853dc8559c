"""The tightness table generator (benchmarks/tightness.py): every number it prints is a field
of a check's JSON report or of ``list --json`` (no typed numbers)."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

from dpaudit.engine import run_check
from dpaudit.registry import all_audits

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("tightness", ROOT / "benchmarks" / "tightness.py")
tightness = importlib.util.module_from_spec(_spec)
sys.modules["tightness"] = tightness  # dataclasses look their module up there
_spec.loader.exec_module(tightness)


def _report(name: str) -> dict:
    rep = run_check(all_audits()[name], quick=True, regret=False)
    return json.loads(json.dumps(rep.to_dict(), default=str))


@pytest.fixture(scope="module")
def real():
    names = ["ldp-tbp-fixed-budget", "privbern", "privbern-faulty"]
    listing = [e for e in tightness.listing() if e["name"] in names]
    return {n: _report(n) for n in names}, listing


def test_numbers_are_report_fields(real):
    reports, listing = real
    rows = tightness.table_rows(reports, listing)
    assert rows
    for row in rows:
        rep = reports[row.algorithm]
        sampled = {c["epsilon_lower_bound"] for c in rep["claims"] if c["method"] == "sampled"}
        sampled |= {f["epsilon_lower_bound"] for f in rep["findings"] if f["alpha"] is not None}
        exact = {c["epsilon_lower_bound"] for c in rep["claims"] if c["method"] == "exact"}
        exact |= {f["data"].get("exact_epsilon") for f in rep["findings"]}
        # a sampled claim may state the exact loss of the very release it attacks
        exact |= {c["data"].get("exact_release_loss") for c in rep["claims"]
                  if c["method"] == "sampled"}
        assert row.sampled is None or row.sampled in sampled
        assert row.exact is None or row.exact in exact
        if row.sampled is not None and row.exact:
            assert row.ratio == row.sampled / row.exact
        assert row.epsilon == rep["parameters"]["epsilon"]
    levels = {(r.algorithm, r.level) for r in rows}
    # the exact trajectory claim of private APT, and the report-level claims
    assert ("ldp-tbp-fixed-budget", "trajectory") in levels
    assert ("ldp-tbp-fixed-budget", "reports") in levels
    privbern = [r for r in rows if r.algorithm == "privbern"]
    assert privbern and all(r.twins.endswith("caught") for r in privbern)


def test_levels_twins_and_multiples_from_synthetic_reports():
    """``observes`` wins over data.observes and over the notion; a twin's multiple is its
    ``true_epsilon`` over the claim's eps, only when its check is VIOLATED."""
    listing = [{"name": "algo", "faulty": False}, {"name": "algo-sqrt2", "faulty": True,
                                                   "true_epsilon": 1.41},
               {"name": "algo-double", "faulty": True, "true_epsilon": 2.0},
               {"name": "algo-shared", "faulty": True}]
    rep = {"parameters": {"epsilon": 0.5}, "verdict": "CONSISTENT", "claims": [
        {"id": "a", "notion": "global", "method": "sampled", "epsilon_lower_bound": 0.25,
         "observes": "releases", "data": {"observes": "actions"}},
        {"id": "b", "notion": "global", "method": "exact", "epsilon_lower_bound": 0.5,
         "observes": "releases", "data": {"epsilon_at_delta": 0.5}},
        {"id": "s", "notion": "global", "method": "sampled", "epsilon_lower_bound": 4.0,
         "data": {"observes": "trajectory", "horizon": 20}},
        {"id": "s8", "notion": "global", "method": "sampled", "epsilon_lower_bound": 2.5,
         "data": {"observes": "trajectory", "horizon": 8}},
        {"id": "c", "notion": "per-step", "method": "sampled", "epsilon_lower_bound": 0.1,
         "data": {}}],
        "findings": [{"id": "t", "notion": "global", "alpha": None,
                      "epsilon_lower_bound": 3.0, "data": {"observes": "trajectory",
                                                          "exact_epsilon": 3.25,
                                                          "horizon": 8}}]}
    reports = {"algo": rep, "algo-sqrt2": {"verdict": "VIOLATED"},
               "algo-double": {"verdict": "VIOLATED"},
               "algo-shared": {"verdict": "CONSISTENT"}}
    rows = {r.level: r for r in tightness.table_rows(reports, listing)}
    assert set(rows) == {"releases", "next action", "trajectory"}
    assert rows["releases"].sampled == 0.25 and rows["releases"].exact == 0.5
    assert rows["releases"].ratio == 0.5 and not rows["releases"].inferred
    assert rows["next action"].inferred and rows["next action"].exact is None
    # the sampled bound stated at T = 20 is not compared with the exact figure at T = 8
    assert rows["trajectory"].exact == 3.25 and rows["trajectory"].sampled == 2.5
    assert rows["trajectory"].horizon == 8 and rows["trajectory"].ratio == 2.5 / 3.25
    assert math.isclose(rows["releases"].twin_multiple, 1.41 / 0.5)
    assert rows["releases"].twins == "2/3 caught"
    lone = tightness.table_rows({"solo": rep}, [{"name": "solo", "faulty": False}])
    assert {r.twins for r in lone} == {"no twin registered"}
    text = tightness.markdown(list(rows.values()))
    assert "| algo | next action* |" in text
