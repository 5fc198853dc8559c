"""The documentation site builds with ``mkdocs build --strict`` (a broken link, a page missing
from the navigation or an API reference that no longer resolves fails it), and its pages cite
nothing outside the repository."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


#: a Sphinx role left as text in a built page (mkdocstrings renders none of them)
RAW_ROLE = re.compile(r":(?:py:)?(?:class|func|mod|data|attr|meth|exc|obj|const):"
                      r"(?:`|<code>)")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    folder = tmp_path_factory.mktemp("site")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                          "--site-dir", str(folder)], cwd=ROOT, capture_output=True,
                         text=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
                         timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    return folder


def test_the_site_builds_strictly(site: Path) -> None:
    for page in ("index.html", "findings/index.html", "reference/index.html"):
        assert (site / page).is_file(), page
    api = (site / "reference" / "index.html").read_text()
    assert "run_check" in api and "decide_experiment" in api


def test_no_page_shows_a_raw_sphinx_role(site: Path) -> None:
    """Docstrings use Sphinx roles (:class:`X`); the API reference turns them into links or
    code at build time (docs/_ext/sphinx_roles.py), so none is left as text."""
    hits = [f"{page.relative_to(site)}: {m.group(0)}" for page in sorted(site.rglob("*.html"))
            for m in RAW_ROLE.finditer(page.read_text())]
    assert not hits, hits[:20]
    api = (site / "reference" / "index.html").read_text()
    assert 'class="autorefs autorefs-internal"' in api  # a role that links, linked


def test_a_role_becomes_an_optional_cross_reference() -> None:
    import importlib.util

    griffe = pytest.importorskip("griffe")
    spec = importlib.util.spec_from_file_location("sphinx_roles",
                                                  ROOT / "docs" / "_ext" / "sphinx_roles.py")
    assert spec is not None and spec.loader is not None
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    module = griffe.load("dpaudit.engine", search_paths=[str(ROOT)])
    out = roles.render(module, "see :func:`run_check`, :class:`~dpaudit.stats.results.Verdict`"
                               " and :mod:`the rule <dpaudit.stats.rule>`")
    assert ':func:' not in out and ':class:' not in out and ':mod:' not in out
    assert '<autoref identifier="dpaudit.engine.run_check" optional><code>run_check()</code>' \
        in out
    assert 'identifier="dpaudit.stats.results.Verdict" optional><code>Verdict</code>' in out
    assert 'identifier="dpaudit.stats.rule" optional><code>the rule</code>' in out


def test_the_reference_documents_the_public_surface(site: Path) -> None:
    """Every name of ``dpaudit.__all__`` where it is defined, the entry points of
    ``dpaudit.usercode`` and the black-box module have their own entry in the reference."""
    import dpaudit

    api = (site / "reference" / "index.html").read_text()
    ids = set(re.findall(r'id="([\w.]+)"', api))
    wanted = {f"{getattr(dpaudit, name).__module__}.{name}" for name in dpaudit.__all__
              if name != "__version__"}
    wanted |= {"dpaudit.stats.blackbox", "dpaudit.usercode.adapters.adapt",
               "dpaudit.usercode.policy_audit.audit_policy", "dpaudit.usercode.graybox",
               "dpaudit.usercode.graybox.run_stage", "dpaudit.usercode.graybox_targets",
               "dpaudit.usercode.annotate.noise_primitive",
               "dpaudit.usercode.annotate.equal_on_neighbours"}
    assert not wanted - ids, sorted(wanted - ids)


def test_every_page_is_in_the_navigation_or_marked_outside_it() -> None:
    """A page reachable only by a link is declared so (mkdocs.yml ``not_in_nav``)."""
    import fnmatch

    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

    def pages(node) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, dict):
            return [p for v in node.values() for p in pages(v)]
        return [p for v in node for p in pages(v)]

    in_nav = set(pages(config["nav"]))
    outside = [line.strip() for line in config["not_in_nav"].splitlines() if line.strip()]
    lost = [p for p in (q.relative_to(ROOT / "docs").as_posix()
                        for q in sorted((ROOT / "docs").rglob("*.md")))
            if p not in in_nav and not any(fnmatch.fnmatch("/" + p, g) for g in outside)]
    assert not lost, lost


def test_no_page_or_module_cites_a_file_outside_the_repository() -> None:
    pattern = re.compile(r"\bshared/(DESIGN|REFERENCE|CONVENTIONS)|\.\./shared/")
    hits = []
    for path in [ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("dpaudit/**/*.py"),
                 *ROOT.glob("algorithms/**/*.py"), *ROOT.glob("audits/**/*.py"),
                 *ROOT.glob("mechanisms/**/*.py"), *ROOT.glob("tests/*.py")]:
        if path.name == Path(__file__).name:
            continue
        hits += [f"{path.relative_to(ROOT)}:{i}" for i, line in
                 enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert not hits, hits


def test_user_docs_carry_no_issue_numbers() -> None:
    """The README and the site's pages say what the tool does now, not the project's history:
    no "issue 22" or "(issue 24)" in them."""
    pattern = re.compile(r"\bissues? #?\d+", re.I)
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in [ROOT / "README.md",
                                                   *sorted(ROOT.glob("docs/*.md"))]
            for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert not hits, hits


def _sync_docs():
    import importlib.util

    spec = importlib.util.spec_from_file_location("sync_docs",
                                                  ROOT / "benchmarks" / "sync_docs.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_quoted_stored_results_are_the_stored_files() -> None:
    """A page that quotes a stored result (``<!-- generated: PATH -->``) holds exactly that
    file's text: `python benchmarks/sync_docs.py` refreshes them."""
    sync = _sync_docs()
    found = 0
    for page in sync.pages():
        for path, mode, body in sync.blocks(page):
            found += 1
            assert body == sync.source_text(path, mode), (
                f"{page.relative_to(ROOT)} quotes {path} out of date: run "
                "`python benchmarks/sync_docs.py`")
    assert found >= 3


def test_quoted_stored_values_are_the_stored_fields() -> None:
    """A number quoted from a stored JSON output (``<!-- value: PATH KEY FMT -->``) is that
    field, formatted: `python benchmarks/sync_docs.py` refreshes them."""
    sync = _sync_docs()
    wrong = [f"{page.relative_to(ROOT)}: {path} {key} is {sync.value_text(path, key, fmt)!r}, "
             f"the page shows {text!r}"
             for page in sync.pages() for path, key, fmt, text in sync.values(page)
             if sync.value_text(path, key, fmt) != text]
    assert not wrong, "run `python benchmarks/sync_docs.py`:\n" + "\n".join(wrong)


def test_a_quoted_value_reads_its_key() -> None:
    sync = _sync_docs()
    doc = {"rows": [{"name": "a", "x": 1.0, "s": 3}, {"name": "b", "x": 3.0, "s": 5}]}
    assert sync.lookup(doc, "rows.name=b.x") == 3.0
    assert sync.lookup(doc, "rows.name=b&s=5.x") == 3.0
    assert sync.lookup(doc, "rows.0.s") == 3
    assert sync.lookup(doc, "rows.*.x") == [1.0, 3.0]
    assert sync.lookup(doc, "rows.*.x|median") == 2.0
    assert sync.lookup(doc, "rows.*.s|len") == 2
    page = "x <!-- value: P rows.1.x .2f -->1.00<!-- /value --> y"
    m = sync.VALUE.search(page)
    assert m and (m.group("path"), m.group("key"), m.group("fmt"), m.group("text")) == (
        "P", "rows.1.x", ".2f", "1.00")
