"""docs/findings.md is generated from the ledger and the stored reproductions (issue 25 item 9):
this test fails when the committed page is stale. Regenerate it with
``python -m dpaudit claims --findings-page docs/findings.md``."""

from __future__ import annotations

import re
from pathlib import Path

from dpaudit.cli import main
from dpaudit.registry import all_experiments, all_statements
from dpaudit.reports.findings_page import findings_page, stored_outputs

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_committed_findings_page_is_what_the_ledger_and_outputs_give() -> None:
    built = findings_page(all_statements(), all_experiments(), root=DOCS, docs=DOCS)
    assert (DOCS / "findings.md").read_text() == built, (
        "docs/findings.md is stale: run `python -m dpaudit claims --findings-page "
        "docs/findings.md`")


def test_every_stored_output_names_the_command_that_made_it() -> None:
    experiments = {e.stem: e.name for e in all_experiments().values()}
    for stem, path in stored_outputs(DOCS).items():
        if stem not in experiments:
            continue
        text = path.read_text()
        found = re.findall(r"python -m dpaudit reproduce ([\w-]+)", text)
        assert experiments[stem] in found, f"{path} has no reproduce command for its experiment"


def test_cli_writes_the_page(tmp_path: Path, capsys) -> None:
    target = tmp_path / "findings.md"
    assert main(["claims", "--findings-page", str(target)]) == 0
    text = target.read_text()
    assert text.startswith("# Findings") and "no stored reproduction yet" in text
    assert main(["claims", "--findings-page", str(tmp_path / "missing" / "f.md")]) == 2
