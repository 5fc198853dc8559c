"""The referee's report (``claims PAPER --referee``): per statement the paper's words, the
verdict, the evidence with its interval method, stability and tail, the reproduce command, and
a comment never stronger than the status."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dpaudit.cli import main
from dpaudit.experiments import ExperimentOutput, Table
from dpaudit.reports import ledger
from dpaudit.reports.ledger import LedgerRow, Statement, experiment_outcome
from dpaudit.reports.referee import referee_report, review_comment
from dpaudit.stats.evidence import ExperimentEvidence, Measurement
from dpaudit.stats.rng import generator


def _row(status: str, reading: str = "figure narration", **kw) -> LedgerRow:
    st = Statement("Someone 2024", "Fig. 3", "experiment", reading, "A beats B",
                   (ledger.TestRef("experiment", "someone-fig3"),), quote=kw.pop("quote", ""),
                   note=kw.pop("note", ""), settle=kw.pop("settle", ""))
    numbers = {"paper_value": 1.0, "measured": 1.8, "ci_low": 1.2, "ci_high": 2.5, "runs": 100,
               "interval_method": "ratio of hoeffding-bernstein", "stable": True,
               "tail_share": 0.01, "largest": 5000.0, "confirm_runs": 400,
               "runs_to_settle": kw.pop("runs_to_settle", None)}
    return LedgerRow(st, (ledger.TestStatus(st.tests[0], status, "per panel", numbers),))


def test_the_report_quotes_the_paper_and_states_its_evidence() -> None:
    text = referee_report([_row("reproduced", quote="A clearly outperforms B.")])
    assert "> A clearly outperforms B." in text and "> (Fig. 3)" in text
    assert "Verdict: **reproduced**" in text
    assert "interval [1.2, 2.5] (ratio of hoeffding-bernstein)" in text
    assert "confirmation at 400 runs with a fresh seed: same status" in text
    assert "0.01 of runs above 10x the median, largest 5000" in text
    assert "Reproduce: `python -m dpaudit reproduce someone-fig3 --quick`" in text
    assert "support the statement at the tested settings" in text


def test_a_comment_never_says_more_than_its_status() -> None:
    st = _row("INCONCLUSIVE").statement
    c = review_comment(st, "INCONCLUSIVE", _row("INCONCLUSIVE", runs_to_settle=900).tests)
    assert "does not decide" in c and "About 900 runs would settle it" in c
    assert "support" not in c and "contradict" not in c
    c = review_comment(st, "not reproduced")
    assert "contradict" in c and "ask the authors" in c
    nec = _row("vacuous", reading="necessary (theorem)").statement
    assert "too small to say anything" in review_comment(nec, "vacuous")
    settled = _row("INCONCLUSIVE", settle="runs at T = 1e8").statement
    assert "What would settle it: runs at T = 1e8." in review_comment(settled, "INCONCLUSIVE")


def test_a_stored_output_is_decided_from_its_evidence_by_todays_rule(tmp_path: Path) -> None:
    from dpaudit.reports.referee import StoredOutput, stored_outcome

    rng = generator(41, "stored")

    def fixed_run(values):  # a cell stored without its runs: a fixed-run interval
        m = Measurement.of_runs("c", 5.0, values, low=0.0, high=10.0)
        return replace(m, summary=replace(m.summary, values=None, looks=()))

    ev = ExperimentEvidence("p", (fixed_run(rng.uniform(0, 1, 200)),))
    conf = ExperimentEvidence("p", (fixed_run(rng.uniform(0, 1, 800)),))
    md = tmp_path / "x.md"
    md.write_text("# x\n")
    doc = {"experiment": "x", "horizon": 10, "runs": 200, "seed": 1,
           "evidence": ev.to_dict(), "confirm_evidence": conf.to_dict()}
    status, detail, numbers = stored_outcome(StoredOutput("x", md, doc))
    assert status == "reproduced" and numbers["stable"] is True
    assert detail.startswith("stored at T = 10, 200 runs, seed 1")
    alone = {**doc, "confirm_evidence": None}
    assert stored_outcome(StoredOutput("x", md, alone))[0] == "INCONCLUSIVE"
    out = ExperimentOutput(None, Table(("x",), ()), "", evidence=ev)
    assert experiment_outcome(out, ExperimentOutput(None, Table(("x",), ()), "",
                                                    evidence=conf))[0] == "reproduced"
    # a cell that keeps its runs is decided on the betting confidence sequence: no
    # confirmation needed, and none is named
    kept = ExperimentEvidence("p", (Measurement.of_runs("c", 5.0, rng.uniform(0, 1, 200),
                                                        low=0.0, high=10.0),))
    status, _, numbers = stored_outcome(StoredOutput(
        "x", md, {**doc, "evidence": kept.to_dict(), "confirm_evidence": None}))
    assert status == "reproduced" and numbers["stable"] is None
    assert numbers["confirm_runs"] is None and numbers["interval_method"] == "betting-cs"


def test_the_cli_refuses_an_unwritable_report_path_before_any_work(capsys) -> None:
    with pytest.raises(SystemExit) as info:  # argparse's usage error: exit 2 at parse time
        main(["claims", "zheng", "--referee", "/proc/no-such-dir/r.md"])
    assert info.value.code == 2
    assert "cannot create folder" in capsys.readouterr().err
