"""The papers' instances (``dpaudit.algorithms.papers``): values as printed, cited by year."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from dpaudit.algorithms import papers
from dpaudit.sim.bandits import Instance

INSTANCES = {n: v for n, v in vars(papers).items() if isinstance(v, Instance)}


def test_instances_as_printed_in_the_papers() -> None:
    assert papers.AZIZE_BASU_FIG2.means == (0.75, 0.625, 0.5, 0.375, 0.25)
    assert papers.AZIZE_BASU_FIG3.means == (0.8, 0.1, 0.1, 0.1, 0.1)
    assert (papers.AZIZE_BASU_FIG2.horizon, papers.AZIZE_BASU_FIG2.runs) == (10**7, 20)
    one = np.array(papers.WANG_ZHU_INSTANCE_1.means)
    assert one.size == 9 and np.allclose(one, 0.30 + 0.05 * np.arange(9))
    two = np.array(papers.WANG_ZHU_INSTANCE_2.means)  # mu_i = 0.3 + 0.004 (i - 1), N = 101
    assert two.size == 101 and two[0] == 0.3 and two[-1] == pytest.approx(0.7)
    assert papers.TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS.means == (0.9, 0.6)
    assert papers.TOSSOU_DIMITRAKAKIS_FIG6_10_ARMS.means == (0.1,) * 8 + (0.55, 0.2)
    assert papers.TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS.horizon is None  # not stated in the text


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_cited_by_authors_and_year(name: str) -> None:
    inst = INSTANCES[name]
    assert re.search(r"[A-Z][a-z]+ (& [A-Z][a-z]+ )?(19|20)\d\d", inst.citation)
    assert "seed" not in inst.citation.lower()


def test_instances_are_defined_only_in_papers_py() -> None:
    """No other source file spells out a paper instance's means as a tuple or list literal
    (instances with at least five arms; two-arm pairs are too common to tell apart)."""
    root = Path(__file__).resolve().parents[1]
    wanted = {inst.means for inst in INSTANCES.values() if inst.n_arms >= 5}
    for folder in ("algorithms", "audits", "dpaudit", "benchmarks"):
        for path in (root / folder).rglob("*.py"):
            if path.name == "papers.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Tuple | ast.List) and all(
                        isinstance(e, ast.Constant) and isinstance(e.value, float)
                        for e in node.elts):
                    values = tuple(e.value for e in node.elts)
                    assert values not in wanted, (str(path), node.lineno)
