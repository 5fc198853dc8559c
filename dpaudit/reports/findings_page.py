"""``docs/findings.md``: the referee's report (:mod:`dpaudit.reports.referee`) for the
statements that figure reproductions test, built from the reproductions stored under
``docs/``, never by hand.

Every statement of the ledger (:func:`dpaudit.registry.all_statements`) that a figure
reproduction tests becomes one entry: the paper's words and where they are printed, whether
they are a sufficient guarantee, a necessary condition or figure narration, and for each
reproduction its stored output at the paper's settings (``docs/<folder>/<stem>.md`` and
``<stem>.json``, written by ``python -m dpaudit reproduce NAME --out docs/<folder>``): the
status the rule decides today from the stored evidence, the measured lines, the reading, the
command that reproduces them, and the review comment. A reproduction with no stored output, or
one stored before its evidence was kept, is listed with the command that would make it.
Nothing here runs an experiment, so the page is cheap to rebuild, and
``tests/test_findings_page.py`` fails when the committed page differs from what this module
builds from the committed outputs, or when an output's code has changed since it was stored.

Regenerate with ``python -m dpaudit claims --findings-page docs/findings.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from dpaudit.experiments import Experiment
from dpaudit.reports.ledger import NOT_IMPLEMENTED, Statement, TestStatus, statement_status
from dpaudit.reports.referee import StoredOutput, load_stored, statement_entry, stored_outcome

__all__ = ["findings_page", "stored_outputs"]

HEADER = """# Findings: what the papers state, what dpaudit measured, how to reproduce it

This page is generated (`python -m dpaudit claims --findings-page docs/findings.md`) from the
reviewer's ledger and the reproductions stored under `docs/` at the papers' settings; a test
fails when it is out of date or when the code that produced a stored output has changed, and
no number on it is typed by hand. It is the referee's report (`python -m dpaudit claims PAPER
--referee`) for the statements that figure reproductions test: the paper's words, how the
paper states them (a sufficient guarantee, a necessary condition, or figure narration), the
status the rule decides from the stored evidence (`dpaudit.stats.rule`: intervals valid for
the data, alpha shared across the cells; a cell that keeps its runs is decided on their betting
confidence sequence, valid at any stopping time, and any other sampled cell only when a
confirmation at 4x the runs with a fresh seed agrees), the measured lines, the command that
reproduces them and a comment.
Privacy theorems checked by `check` are in the ledger itself: `python -m dpaudit claims`.
"""

#: lines of a stored page that the page replaces with today's decision
_STATUS_PREFIXES = ("Status (decided by", "Key cell ", "Reproduce: ")


def stored_outputs(root: Path) -> dict[str, Path]:
    """``stem -> path`` of every stored reproduction page under ``root``."""
    return {stem: so.md for stem, so in load_stored(root).items()}


def _body(text: str) -> list[str]:
    """The stored output without its title, settings line, table (linked instead) and the
    status lines written when it ran (the rule of today decides them again)."""
    lines = text.rstrip("\n").split("\n")
    start = 0
    for i, line in enumerate(lines):
        if line.startswith("|"):
            start = i + 1
    body = lines[start:] if start else lines[1:]
    body = [line for line in body if not line.startswith(_STATUS_PREFIXES)]
    while body and not body[0].strip():
        body = body[1:]
    while body and not body[-1].strip():
        body = body[:-1]
    return body


def _settings_line(text: str) -> str:
    return next((line for line in text.split("\n") if line.startswith("Settings:")), "")


def findings_page(statements: Iterable[Statement], experiments: Mapping[str, Experiment], *,
                  root: Path, docs: Path) -> str:
    """The page (Markdown) for ``statements``, reading stored outputs under ``docs``; links
    are relative to ``root`` (the folder the page lives in)."""
    stored = load_stored(docs)
    out = [HEADER]
    by_paper: dict[str, list[Statement]] = {}
    for st in statements:
        if any(t.kind == "experiment" for t in st.tests):
            by_paper.setdefault(st.paper, []).append(st)
    for paper, entries in by_paper.items():
        out += [f"## {paper}", ""]
        for st in entries:
            tests: list[TestStatus] = []
            extra: list[str] = []
            for test in (t for t in st.tests if t.kind == "experiment"):
                outcome, lines = _entry(test.name, experiments.get(test.name), stored, root)
                tests.append(TestStatus(test, outcome[0], outcome[1], outcome[2]))
                extra += lines
            others = [t for t in st.tests if t.kind != "experiment"]
            if others:
                extra += ["Also tested by "
                          + ", ".join(f"`{t.label}`" for t in others)
                          + ": their status is computed by running them "
                          "(`python -m dpaudit claims --referee`).", ""]
            status = statement_status(st, [t.status for t in tests])
            out += statement_entry(st, status, tests, extra)
    return "\n".join(out).rstrip("\n") + "\n"


def _entry(name: str, exp: Experiment | None, stored: Mapping[str, StoredOutput], root: Path
           ) -> tuple[tuple[str, str, dict], Sequence[str]]:
    if exp is None:
        return (NOT_IMPLEMENTED, f"no experiment {name!r} registered", {}), []
    so = stored.get(exp.stem)
    if so is None:
        return ((NOT_IMPLEMENTED, "no stored reproduction yet", {}),
                [f"- `{name}` ({exp.description}): no stored reproduction yet; "
                 f"`python -m dpaudit reproduce {name} --out docs/<folder>` makes one.", ""])
    got = stored_outcome(so)
    text = so.text
    rel = so.md.relative_to(root).as_posix() if so.md.is_relative_to(root) \
        else so.md.as_posix()
    csv = rel.removesuffix(".md") + ".csv"
    lines = [f"#### `{name}`: {exp.description}", "",
             f"{_settings_line(text)} Full table: [{csv}]({csv}); output: [{rel}]({rel}).", "",
             *_body(text), ""]
    if got is None:
        lines += ["This output was stored before its evidence was kept: re-run "
                  f"`{_command(text, name)}` to decide it under the rule.", ""]
        return ("INCONCLUSIVE", "stored before its evidence was kept", {}), lines
    lines += [f"Reproduce: `{so.command}`", ""]
    return got, lines


def _command(text: str, name: str) -> str:
    for line in text.split("\n"):
        if line.startswith("Reproduce: `"):
            return line.removeprefix("Reproduce: `").split("`")[0]
    return f"python -m dpaudit reproduce {name}"
