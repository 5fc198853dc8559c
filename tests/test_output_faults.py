"""Small faults seen on the default commands, each fixed and kept fixed: a report says why it
has no regret section, ``reproduce --list`` says a budget note once, short runs are not timed
"0.0 s", an exact claim quotes one error bound, a twin's description defines its symbols, the
privacy-profile plot draws the claim, and CSVs carry no float noise."""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpaudit.cli import main
from dpaudit.engine import AuditSpec, ClaimSpec, run_check
from dpaudit.experiments import Table
from dpaudit.registry import all_audits
from dpaudit.reports.text import duration, format_text, to_json
from dpaudit.stats.evidence import ExactEvidence
from dpaudit.stats.results import Notion

ROOT = Path(__file__).resolve().parents[1]


def _exact(ctx, spec) -> ExactEvidence:
    return ExactEvidence(delta_at_epsilon=0.0, error=1e-12)


class _Broken:
    """A planted bug (for the twin's description)."""


def _spec() -> AuditSpec:
    return AuditSpec(name="toy", description="toy check", paper="none", default_epsilon=1.0,
                     default_delta=0.0,
                     claims=[ClaimSpec("exact", Notion.LDP, "toy", "none", _exact)],
                     regret=lambda ctx: None)


def test_a_report_without_regret_says_why() -> None:
    """A broken twin's check (--quick or not) used to drop the regret section silently."""
    from jsonschema import Draft202012Validator

    from dpaudit.schema import load_schema

    twin = _spec().twin(_Broken, bug="broken")
    report = run_check(twin, quick=True)
    assert report.regret is None
    text = format_text(report)
    assert "\nregret: none: a broken twin runs no regret experiment" in text
    assert "`check toy`" in text
    doc = json.loads(to_json(report))
    assert doc["regret_note"] == report.regret_note
    Draft202012Validator(load_schema()).validate(doc)
    skipped = run_check(_spec(), quick=True, regret=False)
    assert skipped.regret_note == "not run (--no-regret)"
    plain = AuditSpec(name="plain", description="d", paper="p", default_epsilon=1.0,
                      default_delta=0.0,
                      claims=[ClaimSpec("exact", Notion.LDP, "toy", "none", _exact)])
    assert run_check(plain).regret_note == "none: this check declares no regret experiment"


def test_reproduce_list_says_its_budget_note_once(capsys) -> None:
    assert main(["reproduce", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.count("(horizon and runs unused)") <= 1 for line in lines)
    assert sum("(horizon and runs unused)" in line for line in lines) >= 3


def test_a_short_run_is_timed_in_milliseconds_not_zero_seconds() -> None:
    assert duration(12.34) == "12.3 s" and duration(0.1) == "0.1 s"
    assert duration(0.0449) == "45 ms" and duration(0.0004) == "< 1 ms"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", str(ROOT / "examples" / "minimal_audit.py"), "--quick",
                     "--no-state"])
    assert code == 0
    last = out.getvalue().strip().splitlines()[-1]
    assert last.startswith("verdict: ") and not last.endswith(" 0.0 s"), last


def test_an_exact_claim_quotes_one_error_bound(quick_check) -> None:
    _, _, report, text = quick_check("dp-ftpl-new")
    block = text.split("] next-action-exact", 1)[1].split("\n  [", 1)[0]
    assert block.count("error bound") == 1, block
    exact = next(c for c in report["claims"] if c["id"] == "next-action-exact")
    assert f"(error bound {exact['data']['error_bound']:.2g})" in block


def test_the_twin_descriptions_define_their_symbols() -> None:
    text = all_audits()["laplace-terms-scale"].description
    assert "m = j - i" in text and text.index("m = j - i") < text.index("m + 1 terms")
    assert all_audits()["laplace-faulty"].description == text


def test_the_privacy_profile_plot_draws_the_claimed_epsilon(quick_check) -> None:
    from matplotlib.figure import Figure

    from dpaudit.reports.profile_plot import draw_profile

    _, _, report, _ = quick_check("dp-ftpl-new")
    claim = next(c for c in report["claims"] if c.get("privacy_profile"))
    fig = Figure()
    draw_profile(fig, claim["privacy_profile"], claim["id"], epsilon=claim["epsilon"],
                 delta=claim["delta"])
    panel = fig.axes[1]
    flat = [line for line in panel.get_lines() if "claimed epsilon" in str(line.get_label())]
    assert len(flat) == 1 and list(flat[0].get_ydata()) == [claim["epsilon"]] * 2
    assert any("claimed delta" in str(line.get_label()) for line in panel.get_lines())


def test_csv_cells_carry_no_float_noise() -> None:
    table = Table(("n", "mean", "np", "nan", "name"),
                  ((3, 853.5049999999286, np.float64(0.1 + 0.2), math.nan, "a"),))
    assert table.to_csv() == "n,mean,np,nan,name\n3,853.505,0.3,nan,a\n"
    precise = Table(("x",), ((0.996664791234,),)).to_csv()
    assert precise == "x\n0.996664791234\n"


@pytest.mark.parametrize("page", ["zheng_et_al/zheng_thm7_scope.md"])
def test_the_zheng_pages_are_marked_outside_the_nav(page: str) -> None:
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert "/zheng_et_al/*" in config["not_in_nav"].split()
    assert (ROOT / "docs" / page).is_file()
