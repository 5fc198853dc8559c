"""The README names what the code defines (issue 26, item 9): the verdicts and ledger statuses
it lists are exactly the ones the code produces, every ``dpaudit...``/``MODULE:OBJECT`` path
and every class it names in backticks exists, and every wall-clock time it shows is generated
from a stored measurement (``benchmarks/timings.py``, ``benchmarks/results/timings.json``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

from dpaudit.reports import ledger
from dpaudit.stats import evidence
from dpaudit.stats.results import Verdict

ROOT = Path(__file__).resolve().parents[1]
#: the README (the front page) and the reference pages of the docs site that were its
#: sections: every name, status and time they give is checked here
PAGES = ("verdicts", "ledger", "cli", "audit-policy", "papers", "simulate", "layout", "ci-gate",
         "reconstructions", "tightness", "benchmarks", "verification", "auditor")
README = "\n\n".join(p.read_text() for p in (ROOT / "README.md",
                                             *(ROOT / "docs" / f"{n}.md" for n in PAGES)))
# code blocks in bash or Python (a YAML block, a CI workflow to copy, names no Python object)
BLOCKS = [body for lang, body in re.findall(r"```([a-z]*)\n(.*?)```", README, re.S)
          if lang != "yaml"]
CODE = re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", README, flags=re.S)) + BLOCKS


def _table(after: str) -> list[str]:
    """The first column (backticked) of the first table after the line ``after``."""
    lines = README.split(after, 1)[1].splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    rows = []
    for ln in lines[first:]:
        if not ln.startswith("|"):
            break
        m = re.match(r"^\| `([^`]+)` \|", ln)
        if m:
            rows.append(m.group(1))
    return rows


def _produced_experiment_statuses() -> set[str]:
    """The status strings :func:`decide_experiment` can return, read from its source."""
    tree = ast.parse(inspect.getsource(evidence.decide_experiment))
    assigned: dict[str, ast.AST] = {}
    # the status it takes from the cells' outcomes (``status, ... = _status(cells)``) is the
    # one :func:`evidence._status` assigns
    for node in ast.walk(ast.parse(inspect.getsource(evidence._status))):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
    def values(node: ast.AST) -> set[str]:  # the strings an expression can evaluate to
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, ast.IfExp):
            return values(node.body) | values(node.orelse)
        if isinstance(node, ast.Name):
            return values(assigned[node.id])
        raise AssertionError(f"a status computed by {ast.dump(node)[:80]}: extend this test")

    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "ExperimentDecision":
            out |= values(node.args[0])
    return out


def test_the_verdict_table_lists_exactly_the_verdicts():
    assert _table("# Verdicts") == [v.value for v in Verdict]


def test_the_status_table_lists_exactly_the_ledger_statuses_in_their_order():
    assert _table("its tests, in this order):") == list(ledger._ORDER)


def test_every_status_the_code_produces_is_ranked_and_documented():
    produced = _produced_experiment_statuses() | {v.value for v in Verdict} | {
        ledger.NOT_IMPLEMENTED, ledger.UNDECIDABLE}
    assert {"run", "vacuous", "reproduced", "not reproduced"} <= produced
    assert produced == set(ledger._ORDER)
    # the ledger section's own list says the same
    listed = re.search(r"and its status \(([^)]*)\)", README)
    assert listed is not None
    words = {w.strip() for w in listed.group(1).replace("\n", " ").split(",")}
    assert words == set(ledger._ORDER)


def _resolves(path: str) -> bool:
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


PATHS = sorted({m.group(0) for c in CODE for m in re.finditer(
    r"\b(?:dpaudit|examples)(?:\.\w+)+(?::[\w.]+)?", c)})


@pytest.mark.parametrize("path", PATHS)
def test_every_module_path_the_readme_names_exists(path):
    assert _resolves(path.replace(":", ".")), f"the README names {path}, which does not exist"


def _defined_names() -> set[str]:
    names: set[str] = set()
    for folder in ("dpaudit", "examples", "algorithms", "audits", "mechanisms"):
        for file in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(file.read_text())):
                if isinstance(node, ast.ClassDef | ast.FunctionDef):
                    names.add(node.name)
                elif isinstance(node, ast.Assign):
                    names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


#: names the README writes in backticks that are not dpaudit's: numpy, dask, Python, notation
FOREIGN = {"Generator", "SeedSequence", "RandomState", "LocalCluster", "SyntaxError", "True",
           "False", "Lap", "Delta", "Delta_i", "Reg_I1"}


def test_every_class_the_readme_names_exists():
    named = {m.group(1) for c in CODE for m in re.finditer(
        r"(?<![\w.:'\"/-])([A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*)(?![\w])(?=\(|\.|\s|$)", c)}
    assert len(named) > 10
    missing = sorted(named - _defined_names() - FOREIGN)
    assert not missing, f"the README names {missing}, which nothing defines"


#: a wall-clock figure typed in prose ("22 s", "about 2 s each", "6 minutes")
TIMING = re.compile(r"\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)? ?(?:s|seconds|minutes?)\b(?! *(?:per|of))")


def test_no_typed_timing_outside_generated_or_checked_passages():
    """A wall-clock time in the README's prose is either generated (between ``<!-- timings:
    KEY -->`` markers, compared with the stored measurement below) or part of a benchmark's
    record (a paragraph that names its ``benchmarks/`` script); table cells and commands are
    not prose."""
    prose = re.sub(r"<!-- timings: [^>]*-->.*?<!-- /timings -->", "", README, flags=re.S)
    # stored results quoted verbatim (tests/test_docs_site.py compares them with their files)
    prose = re.sub(r"<!-- generated: [^>]*-->.*?<!-- /generated -->", "", prose, flags=re.S)
    prose = re.sub(r"```.*?```", "", prose, flags=re.S)
    paragraphs = [p for p in prose.split("\n\n") if "benchmarks/" not in p]
    lines = [ln for p in paragraphs for ln in re.sub(r"`[^`\n]*`", "", p).splitlines()
             if not ln.lstrip().startswith("|")]
    found = [ln.strip()[:100] for ln in lines if TIMING.search(ln)]
    assert not found, "typed timings:\n" + "\n".join(found)


MARKER = re.compile(r"<!-- timings: (?P<key>[\w-]+) -->(?P<text>[^<]*)<!-- /timings -->")


def test_generated_timings_are_the_stored_measurements():
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("timings", ROOT / "benchmarks" / "timings.py")
    assert spec is not None and spec.loader is not None
    timings = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timings)
    stored = json.loads(timings.STORE.read_text())
    markers = MARKER.findall(README)
    assert {"check-dp-ftpl-new", "reproduce-azize-basu-fig2"} <= {k for k, _ in markers}
    for key, text in markers:
        assert key in stored, f"{key}: no stored measurement (python benchmarks/timings.py {key})"
        if key in timings.SHELL_COMMANDS:
            assert stored[key]["command"] == timings.SHELL_COMMANDS[key]
            continue
        assert stored[key]["command"].split()[3:] == timings.COMMANDS[key]
        assert text == timings.shown(stored[key]["seconds"]), (
            f"{key}: the README shows {text!r}, the stored measurement is "
            f"{timings.shown(stored[key]['seconds'])!r}")
