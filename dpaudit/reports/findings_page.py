"""``docs/findings.md``, generated from the ledger and the stored reproductions, never by hand.

Every statement of the ledger (:func:`dpaudit.registry.all_statements`) that a figure
reproduction tests becomes one entry: where the paper prints it, whether it is a sufficient
guarantee, a necessary condition or figure narration, and for each reproduction its stored
output at the paper's settings (``docs/<folder>/<stem>.md``, written by
``python -m dpaudit reproduce NAME --out docs/<folder>``): the status the evidence rule
decided, the measured lines with their intervals, the reading, and the command that
reproduces them. A reproduction with no stored output is listed with the command that would
make it. Nothing here runs an experiment, so the page is cheap to rebuild, and
``tests/test_findings_page.py`` fails when the committed page differs from what this module
builds from the committed outputs: the page cannot drift from the numbers.

Regenerate with ``python -m dpaudit claims --findings-page docs/findings.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from dpaudit.reports.ledger import Statement
from dpaudit.sim.experiments import Experiment

__all__ = ["findings_page", "stored_outputs"]

HEADER = """# Findings: what the papers state, what dpaudit measured, how to reproduce it

This page is generated (`python -m dpaudit claims --findings-page docs/findings.md`) from the
reviewer's ledger and the reproductions stored under `docs/` at the papers' settings; a test
fails when it is out of date, and no number on it is typed by hand. Each entry says what the
paper states and how (a sufficient guarantee, a necessary condition, or figure narration),
then, for each reproduction that tests it, the status decided by the evidence rule
(`dpaudit.stats.evidence.decide_experiment`: the paper's value against each measured value's
interval, alpha shared across the cells), the measured lines with their intervals, the
reading, and the command that reproduces them. Privacy theorems checked by `check` are in
the ledger itself: `python -m dpaudit claims`.
"""


def stored_outputs(root: Path) -> dict[str, Path]:
    """``stem -> path`` of every stored reproduction under ``root``: ``<stem>.md`` files whose
    first line is a Markdown title, as :func:`~dpaudit.sim.experiments.run_experiment` writes
    them (the page looks them up by experiment stem)."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.md")):
        if path.stem in found:
            continue
        first = path.read_text().split("\n", 1)[0]
        if first.startswith("# "):
            found[path.stem] = path
    return found


def _body(text: str) -> list[str]:
    """The stored output without its title, settings line and table (linked instead)."""
    lines = text.rstrip("\n").split("\n")
    start = 0
    for i, line in enumerate(lines):
        if line.startswith("|"):
            start = i + 1
    body = lines[start:] if start else lines[1:]
    while body and not body[0].strip():
        body = body[1:]
    return body


def _settings_line(text: str) -> str:
    return next((line for line in text.split("\n") if line.startswith("Settings:")), "")


def findings_page(statements: Iterable[Statement], experiments: Mapping[str, Experiment], *,
                  root: Path, docs: Path) -> str:
    """The page (Markdown) for ``statements``, reading stored outputs under ``docs``; links
    are relative to ``root`` (the folder the page lives in)."""
    stored = stored_outputs(docs)
    out = [HEADER]
    by_paper: dict[str, list[Statement]] = {}
    for st in statements:
        if any(t.kind == "experiment" for t in st.tests):
            by_paper.setdefault(st.paper, []).append(st)
    for paper, entries in by_paper.items():
        out += [f"## {paper}", ""]
        for st in entries:
            out += [f"### {st.location}: {st.text}", "",
                    f"*{st.reading}; {st.kind}.*", ""]
            for test in (t for t in st.tests if t.kind == "experiment"):
                out += _entry(test.name, experiments.get(test.name), stored, root)
    return "\n".join(out).rstrip("\n") + "\n"


def _entry(name: str, exp: Experiment | None, stored: Mapping[str, Path], root: Path
           ) -> Sequence[str]:
    if exp is None:
        return [f"- `{name}`: not yet implemented.", ""]
    path = stored.get(exp.stem)
    if path is None:
        return [f"- `{name}` ({exp.description}): no stored reproduction yet; "
                f"`python -m dpaudit reproduce {name} --out docs/<folder>` makes one.", ""]
    text = path.read_text()
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
    csv = rel.removesuffix(".md") + ".csv"
    lines = [f"#### `{name}`: {exp.description}", "",
             f"{_settings_line(text)} Full table: [{csv}]({csv}); output: [{rel}]({rel}).", ""]
    return [*lines, *_body(text), ""]
