"""The papers' instances (each paper package's ``instances.py``): values as printed, cited by
year, defined once (the baselines restate the instances they are checked on, pinned equal)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from dpaudit.algorithms.azize_basu_2022 import instances as azize_basu
from dpaudit.algorithms.baselines import instances as baselines
from dpaudit.algorithms.tossou_dimitrakakis_2016 import instances as tossou
from dpaudit.algorithms.wang_zhu_2023 import instances as wang_zhu
from dpaudit.sim.bandits import Instance

PAPER_MODULES = (azize_basu, tossou, wang_zhu)
INSTANCES = {n: v for m in PAPER_MODULES for n, v in vars(m).items() if isinstance(v, Instance)}


def test_instances_as_printed_in_the_papers() -> None:
    assert azize_basu.AZIZE_BASU_FIG2.means == (0.75, 0.625, 0.5, 0.375, 0.25)
    assert azize_basu.AZIZE_BASU_FIG3.means == (0.8, 0.1, 0.1, 0.1, 0.1)
    assert (azize_basu.AZIZE_BASU_FIG2.horizon, azize_basu.AZIZE_BASU_FIG2.runs) == (10**7, 20)
    one = np.array(wang_zhu.WANG_ZHU_INSTANCE_1.means)
    assert one.size == 9 and np.allclose(one, 0.30 + 0.05 * np.arange(9))
    two = np.array(wang_zhu.WANG_ZHU_INSTANCE_2.means)  # mu_i = 0.3 + 0.004 (i - 1), N = 101
    assert two.size == 101 and two[0] == 0.3 and two[-1] == pytest.approx(0.7)
    assert tossou.TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS.means == (0.9, 0.6)
    assert tossou.TOSSOU_DIMITRAKAKIS_FIG6_10_ARMS.means == (0.1,) * 8 + (0.55, 0.2)
    assert tossou.TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS.horizon is None  # not stated in the text


@pytest.mark.parametrize("name", ["AZIZE_BASU_FIG2", "TOSSOU_DIMITRAKAKIS_FIG6_2_ARMS"])
def test_the_baselines_restate_the_papers_instances_exactly(name: str) -> None:
    """A baseline belongs to no paper and imports none: it restates the instance of the paper
    that compares with it. The restatement must stay equal to the paper's, field by field."""
    mine, theirs = getattr(baselines, name), INSTANCES[name]
    assert (mine.name, mine.means, mine.citation, mine.horizon, mine.runs) == (
        theirs.name, theirs.means, theirs.citation, theirs.horizon, theirs.runs)
    assert dict(mine.settings) == dict(theirs.settings)


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_cited_by_authors_and_year(name: str) -> None:
    inst = INSTANCES[name]
    assert re.search(r"[A-Z][a-z]+ (& [A-Z][a-z]+ )?(19|20)\d\d", inst.citation)
    assert "seed" not in inst.citation.lower()


def test_instances_are_defined_only_in_instances_py() -> None:
    """No other source file spells out a paper instance's means as a tuple or list literal
    (instances with at least five arms; two-arm pairs are too common to tell apart); the
    baselines' restatement is pinned equal above."""
    root = Path(__file__).resolve().parents[1]
    wanted = {inst.means for inst in INSTANCES.values() if inst.n_arms >= 5}
    for folder in ("algorithms", "audits", "dpaudit", "benchmarks"):
        for path in (root / folder).rglob("*.py"):
            if path.name == "instances.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Tuple | ast.List) and all(
                        isinstance(e, ast.Constant) and isinstance(e.value, float)
                        for e in node.elts):
                    values = tuple(e.value for e in node.elts)
                    assert values not in wanted, (str(path), node.lineno)
