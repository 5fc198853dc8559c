"""The reviewer's ledger (``python -m dpaudit claims``): declarations and computed statuses."""

from __future__ import annotations

import json

import pytest

from dpaudit.cli import main
from dpaudit.registry import all_audits, all_experiments, all_papers, all_statements
from dpaudit.reports.ledger import (
    NOT_IMPLEMENTED,
    Runner,
    Statement,
    build_ledger,
    claim,
    experiment,
    format_markdown,
    regret,
)

STATEMENTS = all_statements()
PAPERS = all_papers()


def test_every_paper_has_statements_of_each_reading() -> None:
    from pathlib import Path

    assert set(PAPERS) == {s.paper for s in STATEMENTS}
    # one paper per package that declares statements (a new paper adds one, no list changes)
    audits = Path(__file__).resolve().parents[1] / "audits"
    assert len(PAPERS) == len(list(audits.glob("*/statements.py"))) >= 5
    for paper in PAPERS:
        kinds = {s.kind for s in STATEMENTS if s.paper == paper}
        assert "privacy" in kinds and "regret upper bound" in kinds, paper


def test_declared_claims_of_registered_audits_exist() -> None:
    """A typo in a claim id would hide a check as 'not yet implemented': every claim named
    for an audit that *is* registered must be one of its claims."""
    audits = all_audits()
    for s in STATEMENTS:
        for ref in s.tests:
            if ref.kind == "claim" and ref.name in audits:
                ids = {c.id for c in audits[ref.name].claims}
                assert ref.claim_id in ids, (s.location, ref)
            if ref.kind == "regret" and ref.name in audits:
                assert audits[ref.name].regret is not None, (s.location, ref)


def test_statement_rejects_unknown_kind() -> None:
    with pytest.raises(ValueError, match="kind"):
        Statement("P", "Thm 1", "folklore", "sufficient (theorem)", "x")


class _CannedRunner(Runner):
    """Answers checks from canned reports (the statuses the ledger must copy)."""

    def __init__(self, reports: dict[str, dict]) -> None:
        super().__init__()
        self.reports = reports

    def check(self, name: str):
        return self.reports.get(name)

    def experiment(self, name: str):
        return (("not reproduced", "ratio 2, paper 10",
                 {"paper_value": 10.0, "measured": 2.0, "ci_low": 1.5, "ci_high": 2.5,
                  "runs": 20}) if name == "exp-a" else None)


def test_status_is_the_worst_of_the_tests_and_unknown_names_are_not_implemented() -> None:
    reports = {"a": {"claims": [{"id": "c1", "verdict": "PROVED", "epsilon": 1.0,
                                 "delta": 0.0, "epsilon_lower_bound": None},
                                {"id": "c2", "verdict": "VIOLATED", "epsilon": 1.0,
                                 "delta": 0.0, "epsilon_lower_bound": 1.7}],
                     "regret": {"within_bound": True, "bound": 10.0, "bound_name": "Thm",
                                "mean": 3.0, "horizon": 100, "runs": 5, "verdict": "CONSISTENT",
                                "verdict_lower_limit": 2.0, "verdict_ci_high": 4.0}}}
    rows = build_ledger([
        Statement("P", "Thm 1", "privacy", "sufficient (theorem)", "ok", (claim("a", "c1"),)),
        Statement("P", "Thm 2", "privacy", "sufficient (theorem)", "bad",
                  (claim("a", "c1"), claim("a", "c2"))),
        Statement("P", "Thm 3", "regret upper bound", "sufficient (theorem)", "r",
                  (regret("a"), regret("not-landed"))),
        Statement("P", "Fig. 1", "experiment", "figure narration", "10x",
                  (experiment("exp-a"),)),
        Statement("P", "Thm 4", "lower bound", "necessary (theorem)", "lb"),
    ], runner=_CannedRunner(reports))
    assert [r.status for r in rows] == ["PROVED", "VIOLATED", NOT_IMPLEMENTED,
                                        "not reproduced", NOT_IMPLEMENTED]
    assert "1.7" in rows[1].tests[1].detail
    assert rows[2].tests[0].status == "CONSISTENT"
    assert rows[2].tests[0].to_dict()["ci_high"] == 4.0
    straddling = {"a": {"claims": [], "regret": {
        "within_bound": False, "bound": 10.0, "bound_name": "Thm", "mean": 10.5, "horizon": 100,
        "runs": 5, "verdict": "INCONCLUSIVE", "verdict_lower_limit": 8.0,
        "verdict_ci_high": 13.0, "runs_to_settle": 40}}}
    row = build_ledger([Statement("P", "Thm 3", "regret upper bound", "sufficient (theorem)",
                                  "r", (regret("a"),))], runner=_CannedRunner(straddling))[0]
    # a mean above the bound inside a straddling interval is INCONCLUSIVE, never VIOLATED
    assert row.status == "INCONCLUSIVE" and "about 40 runs would settle it" in row.tests[0].detail
    assert rows[3].tests[0].to_dict()["paper_value"] == 10.0
    assert "no audit 'not-landed' registered" in rows[2].tests[1].detail
    table = format_markdown(rows)
    assert "| Thm 4 | lower bound | necessary (theorem) | lb | - | **not yet implemented** |" \
        in table


def test_claims_cli_json_from_folder_validates(tmp_path, capsys) -> None:
    """``claims zheng --from DIR --json -`` reads the canned report of ``gaussian`` instead of
    running it and follows the versioned schema."""
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.schema import load_schema

    canned = {"claims": [{"id": "classical-calibration-exact", "verdict": "EXACT",
                          "epsilon": 0.5, "delta": 1e-5, "epsilon_lower_bound": None}],
              "regret": None}
    (tmp_path / "gaussian.json").write_text(json.dumps(canned))
    ldp = {"claims": [{"id": f"report-ldp-{m}", "verdict": v, "epsilon": 1.0, "delta": 1e-5,
                       "epsilon_lower_bound": None}
                      for m, v in (("exact", "EXACT"), ("sampled", "CONSISTENT"),
                                   ("code-exact", "EXACT"))],
           "regret": {"within_bound": None, "bound": None, "bound_name": "no bound",
                      "mean": 500.0, "horizon": 4000, "runs": 30}}
    for name in ("ldp-one-point", "ldp-two-point-bco", "ldp-linear-bandit", "ldp-glm-bandit"):
        (tmp_path / f"{name}.json").write_text(json.dumps(ldp))
    assert main(["claims", "zheng", "--from", str(tmp_path), "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema())
    assert doc["exit_code"] == 0 and doc["command"] == "claims"
    first = doc["statements"][0]
    # the canned check is EXACT at eps = 0.5; the exact scope experiment (every eps the paper
    # allows) fails above eps = 8.42, and the statement's status carries it
    assert first["tests"][0]["status"] == "EXACT" and "eps=0.5" in first["tests"][0]["detail"]
    assert first["status"] == "not reproduced" and first["quote"].startswith("Gaussian Mech")
    statuses = [s["status"] for s in doc["statements"][1:]]
    # privacy (canned checks CONSISTENT; scope experiments: Theorems 2 and 5 fail above eps
    # 8.42, Theorem 7 holds to eps 98, Theorem 9 fails at link bound C = 0.1), then regret as
    # growth rates at --quick budgets (two decades, 100 runs: only the GLM's cell decides)
    assert statuses == ["not reproduced", "INCONCLUSIVE", "not reproduced", "INCONCLUSIVE",
                        "CONSISTENT", "INCONCLUSIVE", "not reproduced", "reproduced"]


def test_claims_cli_unknown_paper_is_a_usage_error(capsys) -> None:
    assert main(["claims", "azize-basu-2021"]) == 2
    assert "did you mean azize-basu-2022" in capsys.readouterr().err


def test_every_declared_experiment_name_is_registered_or_reported_missing() -> None:
    names = {r.name for s in STATEMENTS for r in s.tests if r.kind == "experiment"}
    registered = set(all_experiments())
    for name in ("azize-basu-fig2", "azize-basu-fig3", "adap-ucb-index-thm7",
                 "azize-basu-fig2-ratio", "azize-basu-fig3-variants", "azize-basu-thm2",
                 "azize-basu-thm3", "wang-zhu-thm4", "ldp-thresholding-thm32",
                 "ldp-thresholding-thm41", "ldp-thresholding-thm42",
                 "wang-zhu-start-phases"):
        assert name in names and name in registered


def test_lower_bounds_have_a_computed_status() -> None:
    """Every lower-bound statement is tested (none 'not yet implemented'), and the quick runs
    give the status each reading allows: a minimax bound witnessed (Azize & Basu Thm 2), an
    asymptotic one undecidable at finite T (Thm 3: its experiment only runs), finite-T bounds
    with constants compared (Barbara et al. Thm 3.2, every cell of the quick grid above its
    bound; Thm 4.2 witnessed by Algorithm 2's stopping time where the bound exceeds one pull).
    Wang & Zhu's
    Theorem 4 is below one unit of regret at every cell of the quick grid (its largest bound
    there is about 0.4): vacuous, not reproduced."""
    lower = [s for s in STATEMENTS if s.kind == "lower bound"]
    assert all(s.tests for s in lower)
    want = {"Theorem 2": "reproduced", "Theorem 3": "undecidable at finite T",
            "Theorem 4": "vacuous",
            "Theorem 3.2": "reproduced", "Theorem 4.2": "reproduced"}
    # the statuses pinned here are those of the papers that declared them (a paper added
    # later brings its own lower bounds, tested above and in its own test file)
    pinned = {"Azize & Basu 2022", "Wang & Zhu 2023", "Barbara, Lazzaro & Pike-Burke 2025"}
    rows = build_ledger([s for s in lower if s.paper in pinned])
    assert {r.statement.location: r.status for r in rows} == want
    details = {r.statement.location: r.tests[0].detail for r in rows}
    assert "cannot contradict" in details["Theorem 3"]
    assert rows[[r.statement.location for r in rows].index("Theorem 3")].tests[0].status == "run"
    assert details["Theorem 4"].startswith(("consistent", "not compared"))
    numbers = {r.statement.location: r.tests[0].to_dict() for r in rows}
    assert 0 <= numbers["Theorem 4"]["paper_value"] < 1.0
    for location in ("Theorem 2", "Theorem 3.2"):
        n = numbers[location]
        assert None not in (n["paper_value"], n["measured"], n["ci_low"], n["ci_high"])
        assert n["ci_low"] <= n["measured"] <= n["ci_high"] and n["runs"] > 0


def test_start_phase_narration_row_is_not_reproduced() -> None:
    rows = build_ledger([s for s in STATEMENTS if s.location.startswith("Sec. 6.1-6.2")])
    assert [r.status for r in rows] == ["not reproduced"]
    assert "25.8x (Beta)" in rows[0].tests[0].detail


def _readme_ledger_commands() -> list[str]:
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "ledger.md").read_text()
    section = page.split("# The reviewer's ledger", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_ledger_commands_run_verbatim(capsys) -> None:
    """The first README command runs here as written; the second (which runs the quick checks
    and reproductions of a paper, about a minute) in the slow test below."""
    commands = _readme_ledger_commands()
    assert commands[0] == "python -m dpaudit claims --list-papers"
    assert main(commands[0].split()[3:]) == 0
    assert "azize-basu-2022" in capsys.readouterr().out


@pytest.mark.slow
def test_readme_ledger_markdown_for_azize_basu(capsys) -> None:
    command = _readme_ledger_commands()[1]
    assert main(command.split()[3:]) == 0
    out = capsys.readouterr().out
    assert "| Theorem 7, Eq. (7) |" in out and "**not reproduced**" in out


def test_saved_checks_resume_without_rerunning(tmp_path, monkeypatch) -> None:
    """``--save DIR`` writes each completed check; ``--from DIR`` reads it back (resume)."""
    first = Runner(save=tmp_path)
    report = first.check("laplace")
    assert json.loads((tmp_path / "laplace.json").read_text())["claims"] == report["claims"]

    def boom(*args, **kwargs):
        raise AssertionError("a saved check was run again")

    monkeypatch.setattr("dpaudit.reports.ledger.run_check", boom)  # what the runner calls
    assert Runner(source=tmp_path).check("laplace")["claims"] == report["claims"]
