"""docs/adding-an-algorithm.md, followed literally.

Every file the page shows (``File `PATH`:`` followed by a code block) is written into a
temporary folder laid out like the repository; the folder is added to the search paths of
``dpaudit.algorithms`` and ``dpaudit.audits``, and nothing else is touched. Then the registry
must list the new policy, check and statements; ``simulate`` must compare with the bound the
entry declares; ``check`` and ``claims`` must run them; the paper's own tests (the page's
``tests/test_example_2024.py``) must pass; and the new files must keep the layout's import
rules.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

import dpaudit.algorithms
import dpaudit.audits
from dpaudit import registry
from dpaudit.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "adding-an-algorithm.md"
_FILE = re.compile(r"^File `([^`]+)`:\n\n```python\n(.*?)^```", re.M | re.S)


def page_files() -> dict[str, str]:
    """``path -> text`` of every file the page shows."""
    return {m.group(1): m.group(2) for m in _FILE.finditer(PAGE.read_text(encoding="utf-8"))}


def _clear_caches() -> None:
    registry._scan.cache_clear()
    registry.all_policies.cache_clear()
    for name in [n for n in sys.modules if ".example_2024" in n or n == "test_example_2024"]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The page's files in a temporary tree, on the packages' search paths."""
    root = tmp_path_factory.mktemp("new_paper")
    for rel, text in page_files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    paths = [(dpaudit.algorithms.__path__, str(root / "algorithms")),
             (dpaudit.audits.__path__, str(root / "audits"))]
    for search, folder in paths:
        search.append(folder)
    _clear_caches()
    try:
        yield root
    finally:
        for search, folder in paths:
            search.remove(folder)
        _clear_caches()


def test_the_page_shows_the_files_its_table_lists():
    text = PAGE.read_text(encoding="utf-8")
    table = set(re.findall(r"^\| `([^`]+)` \|", text, re.M))
    shown = set(page_files())
    assert shown == table - {"pyproject.toml"}
    assert all(p.startswith(("algorithms/example_2024/", "audits/example_2024/", "tests/"))
               for p in shown)


def test_the_registry_finds_the_new_paper(example):
    policies, audits = registry.all_policies(), registry.all_audits()
    assert "laplace-etc" in policies and "laplace-etc" in audits
    assert registry.all_papers()["Example Paper 2024"] == ("example-2024", "example")
    mine = [s for s in registry.all_statements() if s.paper == "Example Paper 2024"]
    assert [s.location for s in mine] == ["Theorem 1", "Theorem 2"]
    assert policies["laplace-etc"].bound is not None


def test_simulate_uses_the_entrys_bound(example, tmp_path):
    out = tmp_path / "sim.json"
    assert main(["simulate", "laplace-etc", "--horizon", "2000", "--runs", "8", "--seed", "3",
                 "--workers", "1", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    from dpaudit.algorithms.example_2024.bounds import thm2_laplace_etc_upper

    assert report["bound_name"] == "Example Paper 2024, Theorem 2 (upper bound)"
    assert report["bound"] == pytest.approx(thm2_laplace_etc_upper(report["means"], 2000, 1.0))
    assert report["no_bound_reason"] is None


def test_the_fast_path_and_the_reference_agree_on_a_fixed_table(example):
    """A fixed table and no noise randomness left to chance but the Laplace draws: both paths
    must pull each arm ``m`` times first and then commit, with decisions in the arms."""
    import numpy as np

    from dpaudit.sim.bandits import TableRewards

    policy = registry.all_policies()["laplace-etc"].factory(explore=3)
    table = TableRewards(np.tile([1.0, 0.0], (12, 1)))
    for method in ("simulate", "simulate_per_step"):
        res = getattr(policy, method)(table, 12, 50, rng=np.random.default_rng(1),
                                      record=True)
        assert (res.actions[:, :6] == [0, 0, 0, 1, 1, 1]).all()
        assert (res.actions[:, 6:] == res.decisions[:, None]).all()


def test_the_pages_own_tests_pass(example, capsys):
    spec = importlib.util.spec_from_file_location(
        "test_example_2024", example / "tests" / "test_example_2024.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.test_theorem_2_at_a_point_by_hand()
    module.test_the_check_accepts_the_algorithm(capsys)


def test_claims_runs_the_new_papers_statements(example, capsys):
    assert main(["claims", "example", "--json", "-"]) == 0
    rows = json.loads(capsys.readouterr().out)["statements"]
    assert {r["location"] for r in rows} == {"Theorem 1", "Theorem 2"}
    assert all(r["status"] != "not yet implemented" for r in rows), rows


def test_the_new_files_keep_the_layout_rules(example):
    """The new packages import only themselves and the paper-neutral modules."""
    spec = importlib.util.spec_from_file_location("layout_rules", ROOT / "tests" / "test_layout.py")
    layout = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layout)
    for rel in page_files():
        if rel.startswith("tests/"):
            continue
        for _, module in layout._imports(example / rel):
            if module.startswith(("dpaudit.algorithms.", "dpaudit.audits.")):
                package = module.split(".")[2]
                assert package == "example_2024" or package.startswith("_") \
                    or package == "recipes", (rel, module)
