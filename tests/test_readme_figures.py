"""The figures the README quotes are the tool's figures (issue 26, item 9).

A README passage that quotes numbers a command prints carries, just before it, an HTML
comment (invisible on the rendered page) naming the command and each figure::

    <!-- figures: python -m dpaudit audit-policy examples.privbandits.ucb:EpisodeLaplaceUCB ...
    exit_code = 0
    claims.0.verdict = CONSISTENT
    claims.0.epsilon_lower_bound = 0.8158
    seconds <= 120
    -->

This test runs the command (in this process, in a fresh folder holding a copy of ``examples/``, with
``--json`` added) and compares every figure with the JSON report: a string must be equal; a
number written ``x`` must lie in the interval its printed digits state (``0.790`` means
``[0.7895, 0.7905]``); ``x +- h`` widens that to ``[x - h, x + h]`` (for a figure that moves
with the machine); ``<= x`` is an upper bound (wall-clock times: the machine is shared).
Every figure must also appear, as written, in the README text between the comment and the
next heading (several comments may stand above one table), so the visible number is the one
checked. The same seed gives the
same report, so sampled figures are exact, not tolerances tuned until green.

To quote a new figure: add the comment above the passage; the test finds it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMENT = re.compile(r"<!-- figures: (?P<cmd>[^\n]+)\n(?P<body>.*?)-->", re.S)
LINE = re.compile(r"^(?P<path>[\w.#]+)\s*(?P<op><=|=)\s*(?P<value>.+?)\s*$")


def figure_blocks(text: str) -> list[tuple[str, list[tuple[str, str, str]], str]]:
    """``(command, [(path, op, value)], passage)`` for every figures comment of ``text``."""
    out = []
    for m in COMMENT.finditer(text):
        rest = text[m.end():]
        stop = re.search(r"^#{1,6} ", rest, flags=re.M)
        passage = rest[:stop.start()] if stop else rest
        figures = []
        for line in m.group("body").strip().splitlines():
            fm = LINE.match(line.strip())
            assert fm, f"malformed figure line {line!r} under {m.group('cmd')!r}"
            figures.append((fm.group("path"), fm.group("op"), fm.group("value")))
        out.append((m.group("cmd").strip(), figures, passage))
    return out


def lookup(doc: Any, path: str) -> Any:
    """The field at the dotted ``path``; a part ``#`` is the length of the list so far (a count
    the passage quotes, such as the reduced inequalities of a proof)."""
    for part in path.split("."):
        if part == "#":
            doc = len(doc)
        else:
            doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def stated_interval(text: str) -> tuple[float, float]:
    """``"0.790"`` -> ``(0.7895, 0.7905)``; ``"626 +- 20"`` -> ``(606, 646)``."""
    if "+-" in text:
        x, h = (float(t) for t in text.split("+-"))
        return x - h, x + h
    d = Decimal(text)
    half = Decimal(1).scaleb(d.as_tuple().exponent) / 2
    return float(d - half), float(d + half)


def check_figure(doc: dict, path: str, op: str, value: str) -> str | None:
    """``None`` when the report agrees with the figure, else what differs."""
    got = lookup(doc, path)
    if op == "<=":
        return None if got is not None and got <= float(value) else f"{path} = {got} > {value}"
    if isinstance(got, str) or re.fullmatch(r"[A-Za-z_-]+", value):
        return None if str(got) == value else f"{path} = {got!r}, the README says {value!r}"
    lo, hi = stated_interval(value)
    return None if got is not None and lo <= got <= hi else (
        f"{path} = {got}, outside [{lo:g}, {hi:g}] stated by the README's {value}")


#: the figures quoted by the README and by the pages of the docs site
README_BLOCKS = [b for path in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
                 for b in figure_blocks(path.read_text())]


def test_the_readme_quotes_figures_through_comments() -> None:
    assert README_BLOCKS, "the README quotes figures; each passage needs a figures comment"


def test_each_figure_appears_in_its_passage() -> None:
    for command, figures, passage in README_BLOCKS:
        for path, op, value in figures:
            shown = value.split("+-")[0].strip()
            if path in ("exit_code", "seconds") or op == "<=":
                continue  # an exit code or a time bound is prose, not a quoted number
            assert shown in passage, f"{command!r}: {path} = {shown} is not in its passage"


@pytest.mark.parametrize("command, figures, passage", README_BLOCKS,
                         ids=[c.split("python -m dpaudit ")[-1][:60] for c, _, _ in
                              README_BLOCKS])
def test_readme_figures_are_the_tools(command, figures, passage, tmp_path, monkeypatch,
                                      capsys) -> None:
    # The command runs in this process (``dpaudit.cli.main``, what ``python -m dpaudit``
    # calls): a fresh interpreter would add about 2 s of start-up to each of these commands
    # and nothing to what is compared (same seed, same report; ``python -m dpaudit`` itself
    # is run by tests/test_readme.py and tests/test_exit_codes.py). Its folder holds a copy
    # of ``examples/``, imported from there, and the environment is the user's: no DPAUDIT_
    # variable.
    from dpaudit.cli import main

    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    for key in [k for k in os.environ if k.startswith("DPAUDIT_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    _forget_examples()
    out = tmp_path / "figures.json"
    argv = shlex.split(command)
    assert argv[:3] == ["python", "-m", "dpaudit"], command
    try:
        code = main([*argv[3:], "--json", str(out)])
    finally:
        _forget_examples()
    doc = json.loads(out.read_text())
    doc["exit_code"] = code
    wrong = [w for w in (check_figure(doc, *f) for f in figures) if w]
    assert not wrong, f"{command!r}: " + "; ".join(wrong) + f"\n{capsys.readouterr().err[-2000:]}"


def _forget_examples() -> None:
    """Drop the imported ``examples`` package, so the next import reads the copy in the
    current folder."""
    for name in [n for n in sys.modules if n == "examples" or n.startswith("examples.")]:
        del sys.modules[name]


def test_a_figure_path_reads_a_length() -> None:
    assert lookup({"a": [{"b": [1, 2, 3]}]}, "a.0.b.#") == 3
    assert lookup({"a": [{"b": [1, 2, 3]}]}, "a.0.b.2") == 3


def test_the_interval_a_figure_states() -> None:
    assert stated_interval("0.790") == pytest.approx((0.7895, 0.7905))
    assert stated_interval("17290") == pytest.approx((17289.5, 17290.5))
    assert stated_interval("626 +- 20") == (606.0, 646.0)
    doc = {"claims": [{"epsilon_lower_bound": 0.8158, "verdict": "CONSISTENT"}],
           "seconds": 35.0}
    assert check_figure(doc, "claims.0.epsilon_lower_bound", "=", "0.790")  # the old README
    assert check_figure(doc, "claims.0.epsilon_lower_bound", "=", "0.8158") is None
    assert check_figure(doc, "claims.0.verdict", "=", "CONSISTENT") is None
    assert check_figure(doc, "seconds", "<=", "2")  # "2 s" for a 35 s command
    assert check_figure(doc, "seconds", "<=", "60") is None
