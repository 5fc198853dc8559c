"""``check --symbolic-budget SECONDS``: validated, handed to every budgeted symbolic step (the
provers' default reads the budget in force), recorded in the report, restored afterwards."""

from __future__ import annotations

import json
import math

import pytest

import dpaudit.exact.conditions as conditions
import dpaudit.exact.symbolic as symbolic
from dpaudit.cli import EXIT_USAGE, main
from dpaudit.exact.budget import (
    CURRENT,
    DEFAULT_SYMBOLIC_BUDGET,
    current_symbolic_budget,
    resolve_budget,
    symbolic_budget_scope,
)
from dpaudit.validation import InvalidParameterError


@pytest.fixture
def budgets(monkeypatch):
    """The ``seconds`` of every budgeted symbolic step (the real step still runs)."""
    seen: list[float | None] = []
    for module in (symbolic, conditions):
        real = module.run_with_budget

        def spy(fn, args=(), *, seconds, _real=real):
            seen.append(seconds)
            return _real(fn, args, seconds=seconds)

        monkeypatch.setattr(module, "run_with_budget", spy)
    return seen


# privbern's symbolic claim goes through symbolic.prove, beta-perturbation's lemma-8 claim through
# conditions.lemma8_check (its symbolic tier runs under --quick too)
@pytest.mark.parametrize("name", ["privbern", "beta-perturbation"])
@pytest.mark.parametrize("flag, expected", [([], DEFAULT_SYMBOLIC_BUDGET),
                                            (["--symbolic-budget", "7.5"], 7.5)])
def test_every_symbolic_step_gets_the_budget_and_the_report_records_it(
        name, flag, expected, budgets, tmp_path, capsys):
    out = tmp_path / "r.json"
    main(["check", name, "--quick", "--no-regret", *flag, "--json", str(out)])
    capsys.readouterr()
    assert budgets and set(budgets) == {expected}
    assert json.loads(out.read_text())["parameters"]["symbolic_budget"] == expected
    assert current_symbolic_budget() == DEFAULT_SYMBOLIC_BUDGET  # restored after the command


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "-inf", "0.0"])
def test_bad_budget_exits_2_with_the_domain_message(text, budgets, capsys):
    assert main(["check", "privbern", "--quick", f"--symbolic-budget={text}"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "symbolic_budget=" in err and "must be a finite number in (0, inf)" in err
    assert "Traceback" not in err and budgets == []  # refused before any work


def test_scope_sets_validates_and_restores():
    assert resolve_budget(CURRENT) == DEFAULT_SYMBOLIC_BUDGET
    assert resolve_budget(None) is None and resolve_budget(2.0) == 2.0  # explicit wins
    with symbolic_budget_scope(0.25) as value:
        assert value == 0.25 == resolve_budget(CURRENT) == current_symbolic_budget()
        with pytest.raises(RuntimeError), symbolic_budget_scope(3):
            assert current_symbolic_budget() == 3.0
            raise RuntimeError
        assert current_symbolic_budget() == 0.25  # restored after an exception too
    assert current_symbolic_budget() == DEFAULT_SYMBOLIC_BUDGET
    for bad in (0, -1.0, math.nan, math.inf, True, "5"):
        with pytest.raises(InvalidParameterError, match="symbolic_budget="):
            with symbolic_budget_scope(bad):
                pass
