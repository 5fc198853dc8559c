"""Copy stored results into the documentation pages that quote them.

A page quotes a stored result between two HTML comments (invisible on the rendered page)::

    <!-- generated: benchmarks/results/tightness.md -->
    ...the file's text...
    <!-- /generated -->

``<!-- generated: PATH table -->`` keeps only the file's table lines (those starting with
``|``). ``python benchmarks/sync_docs.py`` rewrites every such block from its file;
``tests/test_docs_site.py`` fails when a block differs from its file, so a number on these
pages is the stored one, never typed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- generated: (?P<path>\S+)(?: (?P<mode>table))? -->\n)(?P<body>.*?)"
                   r"(<!-- /generated -->)", re.S)


def source_text(path: str, mode: str | None) -> str:
    """What a block quoting ``path`` (relative to the repository root) holds."""
    text = (ROOT / path).read_text().strip("\n")
    if mode == "table":
        text = "\n".join(line for line in text.split("\n") if line.startswith("|"))
    return text + "\n"


def blocks(page: Path) -> list[tuple[str, str | None, str]]:
    """``(path, mode, body)`` of every generated block of ``page``."""
    return [(m.group("path"), m.group("mode"), m.group("body"))
            for m in BLOCK.finditer(page.read_text())]


def sync(page: Path) -> bool:
    """Rewrite ``page``'s blocks from their files; ``True`` when something changed."""
    text = page.read_text()
    new = BLOCK.sub(lambda m: m.group(1) + source_text(m.group("path"), m.group("mode"))
                    + m.group(5), text)
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
