"""Help that teaches: every subcommand's ``--help`` describes every option and states its
default, and ends with examples that parse and the documentation page that explains it."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from dpaudit.cli import build_parser, main
from dpaudit.commands.helptext import EXAMPLES, HelpFormatter
from dpaudit.stats.rng import DEFAULT_SEED

ROOT = Path(__file__).resolve().parents[1]


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


SUBCOMMANDS = _subparsers()


def test_every_subcommand_has_examples() -> None:
    assert set(EXAMPLES) == set(SUBCOMMANDS)


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_option_has_a_description_and_its_default(command: str) -> None:
    """A value option's help says its default (written, or added from argparse's value by
    the formatter) or that it is required; a flag is off unless given; no option is bare."""
    parser = SUBCOMMANDS[command]
    formatter = HelpFormatter(prog=parser.prog)
    bare, no_default = [], []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        name = "/".join(action.option_strings) or action.dest
        text = action.help
        if not text or text == argparse.SUPPRESS or len(text.split()) < 2:
            bare.append(name)
            continue
        shown = formatter._get_help_string(action)
        if (action.option_strings and action.nargs != 0 and not action.required
                and "default" not in shown and "required" not in shown):
            no_default.append(name)
    assert not bare, f"{command}: options without a description: {bare}"
    assert not no_default, f"{command}: options whose help states no default: {no_default}"


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_help_ends_with_examples_that_parse_and_its_docs_page(command: str, tmp_path,
                                                               monkeypatch) -> None:
    text = SUBCOMMANDS[command].format_help()
    tail = text[text.rindex("\nExamples:\n"):].strip().splitlines()
    examples = [line.strip() for line in tail[1:] if line.startswith("  ")]
    assert 2 <= len(examples) <= 3, tail
    assert all(f"{e} ".startswith(f"python -m dpaudit {command} ") for e in examples), examples
    more = re.fullmatch(r"More: (docs/[\w-]+\.md) \(.+\)\.", tail[-1])
    assert more, tail[-1]
    assert (ROOT / more.group(1)).is_file(), more.group(1)
    monkeypatch.chdir(tmp_path)  # output paths are probed where the example would run
    parser = build_parser()
    for example in examples:
        parser.parse_args(shlex.split(example)[3:])  # argparse exits 2 on a stale example


def test_seed_shows_its_default_everywhere() -> None:
    for command, parser in SUBCOMMANDS.items():
        if any("--seed" in a.option_strings for a in parser._actions):
            flat = " ".join(parser.format_help().split())
            assert f"(default {DEFAULT_SEED})" in flat, command


def test_plot_out_is_shown_as_required_and_the_top_level_names_both_plots(capsys) -> None:
    usage = SUBCOMMANDS["plot"].format_usage()
    forms = [f for f in re.split(r"\n\s*(?=python -m dpaudit plot)", usage) if "plot" in f]
    assert len(forms) == 3
    for form in forms:
        if "--list" in form:
            continue
        assert "--out FILE.png" in form and "[--out" not in form, form
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "privacy profile" in out and "feasible region" in out
    assert "Examples:" in out and "docs/index.md" in out
    # still refused without --out, and --list still needs none
    assert main(["plot", "cdf", "gauss-perturbation"]) == 2
    assert main(["plot", "cdf", "--list"]) == 0
