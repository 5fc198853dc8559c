"""Copy stored results into the documentation pages that quote them.

A page quotes a stored result between two HTML comments (invisible on the rendered page)::

    <!-- generated: benchmarks/results/tightness.md -->
    ...the file's text...
    <!-- /generated -->

``<!-- generated: PATH table -->`` keeps only the file's table lines (those starting with
``|``). ``python benchmarks/sync_docs.py`` rewrites every such block from its file;
``tests/test_docs_site.py`` fails when a block differs from its file, so a number on these
pages is the stored one, never typed.

A single number in prose or in a table cell quotes one field of a stored JSON output::

    <!-- value: benchmarks/results/timings.json check-dp-ftpl-new.seconds .0f -->30<!-- /value -->

The key is dotted: a name picks a dict's field, an integer a list's item, ``field=text`` the
first dict of a list whose ``field`` reads ``text`` (``f=a&g=b``: both), and ``*`` every item
of a list; a key may end in ``|median``, ``|min``, ``|max``, ``|mean`` or ``|len`` to reduce
what ``*`` gathered. The last word is a Python format specification (``g`` when absent).
``sync`` rewrites the text between the two comments, and the same test compares it.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- generated: (?P<path>\S+)(?: (?P<mode>table))? -->\n)(?P<body>.*?)"
                   r"(<!-- /generated -->)", re.S)
VALUE = re.compile(r"(?P<open><!-- value: (?P<path>\S+) (?P<key>\S+)(?: (?P<fmt>\S+))? -->)"
                   r"(?P<text>[^<\n]*)(?P<close><!-- /value -->)")
REDUCE = {"median": statistics.median, "min": min, "max": max, "mean": statistics.fmean,
          "len": len}


def source_text(path: str, mode: str | None) -> str:
    """What a block quoting ``path`` (relative to the repository root) holds."""
    text = (ROOT / path).read_text().strip("\n")
    if mode == "table":
        text = "\n".join(line for line in text.split("\n") if line.startswith("|"))
    return text + "\n"


def lookup(doc: Any, key: str) -> Any:
    """The field ``key`` (dotted, see the module docstring) of the JSON document ``doc``."""
    key, _, reduce = key.partition("|")
    items, spread = [doc], False
    for part in key.split("."):
        if part == "*":
            items, spread = [x for item in items for x in item], True
        elif "=" in part:
            want = [cond.split("=", 1) for cond in part.split("&")]
            items = [next(x for x in item if all(str(x.get(f)) == t for f, t in want))
                     for item in items]
        elif part.lstrip("-").isdigit() and all(isinstance(i, list) for i in items):
            items = [item[int(part)] for item in items]
        else:
            items = [item[part] for item in items]
    if reduce:
        return REDUCE[reduce](items)
    return items if spread else items[0]


def value_text(path: str, key: str, fmt: str | None) -> str:
    """What a ``<!-- value: PATH KEY FMT -->`` quote holds: the field, formatted."""
    doc = json.loads((ROOT / path).read_text())
    return format(lookup(doc, key), fmt or "g")


def values(page: Path) -> list[tuple[str, str, str | None, str]]:
    """``(path, key, fmt, text)`` of every quoted value of ``page``."""
    return [(m.group("path"), m.group("key"), m.group("fmt"), m.group("text"))
            for m in VALUE.finditer(page.read_text())]


def blocks(page: Path) -> list[tuple[str, str | None, str]]:
    """``(path, mode, body)`` of every generated block of ``page``."""
    return [(m.group("path"), m.group("mode"), m.group("body"))
            for m in BLOCK.finditer(page.read_text())]


def sync(page: Path) -> bool:
    """Rewrite ``page``'s blocks from their files; ``True`` when something changed."""
    text = page.read_text()
    new = BLOCK.sub(lambda m: m.group(1) + source_text(m.group("path"), m.group("mode"))
                    + m.group(5), text)
    new = VALUE.sub(lambda m: m.group("open") + value_text(m.group("path"), m.group("key"),
                                                           m.group("fmt")) + m.group("close"),
                    new)
    if new != text:
        page.write_text(new)
    return new != text


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def main() -> int:
    for page in pages():
        if sync(page):
            print(f"updated {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
