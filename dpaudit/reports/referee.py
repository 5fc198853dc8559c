"""The referee's report: per statement, the paper's words, the verdict, its evidence, the
command that reproduces it and a comment in the register of a review.

``python -m dpaudit claims PAPER --referee`` writes it from the ledger
(:mod:`dpaudit.reports.ledger`); ``docs/findings.md`` is the same report restricted to the
statements that figure reproductions test, built from the reproductions stored under ``docs/``
without running anything (:mod:`dpaudit.reports.findings_page`).

A stored reproduction (``reproduce NAME --out DIR``) keeps its raw evidence in
``<stem>.json`` (both runs of the rule, the settings, the digest of the code that produced the
numbers): its status is decided here again by the rule of today
(:func:`~dpaudit.stats.evidence.decide_experiment`), and :class:`StoredOutput.fresh` says
whether the code that produced it is still the code now.

The comment is assembled from the statement's reading (a sufficient guarantee, a necessary
condition or figure narration), its status and the ledger's note, and never says more than
the status: a ``reproduced`` figure narration is "supported at the tested settings", not
proved; a lower bound that is ``vacuous`` "says nothing at this setting"; an INCONCLUSIVE
statement says what would settle it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dpaudit.registry import all_experiments
from dpaudit.reports.ledger import LedgerRow, Statement, TestStatus
from dpaudit.reports.outcomes import StoredOutput, TestOutcome, load_stored, stored_outcome

__all__ = ["StoredOutput", "load_stored", "referee_report", "review_comment",
           "stored_outcome"]


def _num(x: Any, digits: int = 4) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if math.isfinite(x) else ("inf" if x > 0 else "-inf")
    return str(x)


def evidence_line(t: TestStatus) -> str:
    """One test's evidence: status, interval and method, runs, confirmation, tail, settle."""
    n = t.numbers
    parts = [f"**{t.status}**"]
    if n.get("measured") is not None:
        parts.append(f"measured {_num(n.get('measured'))} against the paper's "
                     f"{_num(n.get('paper_value'))}")
    if n.get("ci_low") is not None or n.get("ci_high") is not None:
        method = n.get("interval_method") or "interval"
        parts.append(f"interval [{_num(n.get('ci_low'))}, {_num(n.get('ci_high'))}] ({method})")
    if n.get("runs") is not None:
        parts.append(f"{n['runs']} runs")
    if n.get("confirm_runs") is not None:
        parts.append(f"confirmation at {n['confirm_runs']} runs with a fresh seed: "
                     + ("same status" if n.get("stable") else "status changed"))
    if n.get("tails"):
        parts.append(str(n["tails"]))  # each side of a ratio with its own share and run
    elif n.get("tail_share") is not None:
        parts.append(f"{_num(n['tail_share'], 3)} of runs above 10x the median"
                     + (f", largest {_num(n.get('largest'))}" if n.get("largest") is not None
                        else ""))
    if n.get("runs_to_settle") is not None:
        parts.append(f"about {n['runs_to_settle']} runs would settle it")
    return "; ".join(parts)


_OPENING = {
    "PROVED": "The stated condition holds over the stated parameter domain: the sufficient "
              "condition reduces symbolically to inequalities that hold there.",
    "EXACT": "The privacy loss of the tested neighbouring inputs was computed numerically to a "
             "stated tolerance and is within the claim.",
    "CONSISTENT": "The audit found no violation; this is not a proof, and the report gives the "
                  "smallest violation the test could have caught.",
    "VIOLATED": "The check found a counterexample to the statement as written.",
    "reproduced": "The measurements support the statement at the tested settings, with "
                  "intervals valid for the data{how}.",
    "not reproduced": "The measurements contradict the statement at the tested settings: a "
                      "valid interval lies on the side the statement excludes{how}.",
    "INCONCLUSIVE": "The evidence does not decide the statement at the tested settings.",
    "vacuous": "At the tested settings the bound is too small to say anything (below one unit "
               "of regret, or a probability at or below zero), so it can be neither supported "
               "nor contradicted there.",
    "run": "The statement is measured but not compared with a number of the paper.",
    "not yet implemented": "No test of this statement exists yet.",
    "undecidable at finite T": "No measurement at a finite horizon can decide the statement "
                               "(a limit as T -> infinity): the measured trend is shown beside "
                               "it, and it neither supports nor contradicts the statement.",
}

_READING = {
    "sufficient (theorem)": "The paper states it as a sufficient guarantee (a theorem), so a "
                            "single valid counterexample refutes it, and agreement at tested "
                            "points does not prove it.",
    "necessary (theorem)": "The paper states it as a necessary condition (a lower bound on "
                           "every algorithm of a class), so a measured algorithm above it "
                           "witnesses it only for that algorithm and setting.",
    "figure narration": "The paper states it as narration of a figure, not as a theorem, so "
                        "it is judged at the figure's settings only.",
}


def _opening(status: str, tests: Sequence[TestStatus]) -> str:
    """The comment's first sentence; a confirmation at 4x the runs is named only where one
    ran (cells on anytime-valid intervals need none)."""
    text = _OPENING.get(status, f"Status: {status}.")
    if "{how}" not in text:
        return text
    # each test by how its status was reached: a confirmation is named only for the tests that
    # had one, an anytime-valid interval only for those decided on one; exact computations
    # (no runs) and claims need neither
    confirmed = [t for t in tests if t.numbers.get("confirm_runs") is not None]
    anytime = [t for t in tests if t.numbers.get("confirm_runs") is None
               and "betting-cs" in str(t.numbers.get("interval_method") or "")]

    def which(group: list[TestStatus]) -> str:
        return "" if len(group) == len(tests) else (
            " (for " + ", ".join(f"`{t.test.label}`" for t in group) + ")")

    parts = []
    if confirmed:
        parts.append("a confirmation at 4x the runs with a fresh seed"
                     + ("" if status == "reproduced" else " agrees") + which(confirmed))
    if anytime:
        parts.append(("" if status == "reproduced" else "the intervals are ")
                     + "anytime-valid confidence sequences, valid wherever the runs stopped and "
                     "needing no confirmation" + which(anytime))
    how = "" if not parts else (" and " if status == "reproduced" else ", and ") + \
        "; ".join(parts)
    return text.format(how=how)


def review_comment(st: Statement, status: str, tests: Sequence[TestStatus] = ()) -> str:
    """A one-paragraph comment on ``st`` in the register of a review, never stronger than
    ``status``."""
    parts = [_opening(status, tests), _READING.get(st.reading, "")]
    if st.note:
        parts.append(f"Finding: {st.note.rstrip('.')}.")
    if status == "INCONCLUSIVE":
        need = [int(n) for t in tests
                if (n := t.numbers.get("runs_to_settle")) is not None]
        if st.settle:
            parts.append(f"What would settle it: {st.settle.rstrip('.')}.")
        elif need:
            parts.append(f"About {max(need)} runs would settle it at the observed spread.")
    if status in ("not reproduced", "VIOLATED"):
        parts.append("We would ask the authors to state the conditions under which the "
                     "statement holds, or to correct it.")
    return " ".join(p for p in parts if p)


def _quote(st: Statement) -> list[str]:
    if st.quote:
        return [f"> {st.quote}", f"> ({st.location})", ""]
    return [f"Statement ({st.location}), in dpaudit's words (the paper's are not quoted here): "
            f"{st.text}", ""]


def statement_entry(st: Statement, status: str, tests: Sequence[TestStatus],
                    extra: Iterable[str] = ()) -> list[str]:
    """The report's entry for one statement (Markdown lines)."""
    out = [f"### {st.location}: {st.text}", "", f"*{st.reading}; {st.kind}.*", "",
           *_quote(st), f"Verdict: **{status}**.", ""]
    if tests:
        out.append("Evidence:")
        for t in tests:
            detail = f" ({t.detail})" if t.detail else ""
            out.append(f"- `{t.test.label}`: {evidence_line(t)}{detail}. "
                       f"Reproduce: `{t.test.command}`")
        out.append("")
    out += list(extra)
    out += [f"Comment: {review_comment(st, status, tests)}", ""]
    return out


def referee_report(rows: Sequence[LedgerRow], *, title: str = "Referee's report") -> str:
    """The report for the ledger ``rows`` (Markdown)."""
    out = [f"# {title}", "",
           "Generated by `python -m dpaudit claims PAPER --referee` from the reviewer's "
           "ledger: per statement, the paper's words, the verdict, the evidence it rests on, "
           "the command that reproduces it and a comment. Experiments are decided by one rule "
           "(`dpaudit.stats.rule`): intervals valid for the data; a decision on an "
           "anytime-valid interval (a betting confidence sequence, runs added until it "
           "decides) stands as it is, one on an interval valid at a fixed run count only when "
           "a confirmation at 4x the runs with a fresh seed agrees.", ""]
    paper = None
    for row in rows:
        if row.statement.paper != paper:
            paper = row.statement.paper
            out += [f"## {paper}", ""]
        out += statement_entry(row.statement, row.status, row.tests)
    return "\n".join(out).rstrip("\n") + "\n"


def outcomes_from_store(names: Iterable[str], stored: Mapping[str, StoredOutput]
                        ) -> dict[str, TestOutcome]:
    """``name -> outcome`` for the experiments ``names`` with a stored output holding evidence
    (looked up by the experiment's stem)."""
    exps = all_experiments()
    found: dict[str, TestOutcome] = {}
    for name in names:
        exp = exps.get(name)
        so = None if exp is None else stored.get(exp.stem)
        got = None if so is None else stored_outcome(so)
        if got is not None:
            found[name] = got
    return found
