"""The package ships: LICENSE, CITATION.cff and CHANGELOG.md are present and valid, and the wheel
built by ``python -m build`` installs in a fresh virtual environment and runs from a folder
outside the checkout.

The wheel test builds the wheel and the sdist once (``python -m build``, with build isolation,
as a user or a release job does), installs the wheel with ``--no-deps`` into a virtual
environment that sees the already-installed dependencies (``--system-site-packages``), and runs
three commands from an empty folder: ``check dp-ftpl-new --quick``, ``claims --list-papers`` and
``audit laplace --samples 1e5``. 48 s on the 2-core machine at load 7.5 (the build 12 s, then
the install and the three commands side by side 36 s), so it stays in the default suite.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]
#: the folders installed as packages (pyproject [tool.setuptools.package-dir])
PACKAGE_DIRS = PYPROJECT["tool"]["setuptools"]["package-dir"]


def test_license_is_the_declared_mit_licence_and_ships_in_the_wheel_metadata() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert PYPROJECT["project"]["license"] == "MIT"
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
    assert "LICENSE" in PYPROJECT["project"]["license-files"]


def test_citation_cff_is_valid_cff_1_2_0_and_cites_the_tool_and_its_papers() -> None:
    """Validated against the Citation File Format 1.2.0 schema (``tests/fixtures``: the
    format's own ``schema.json``, as shipped in cffconvert 2.0.0), with the package's version,
    and one reference per paper dpaudit checks."""
    yaml = pytest.importorskip("yaml")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "tests" / "fixtures" / "cff-1.2.0.schema.json").read_text())
    doc = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(doc)
    assert doc["cff-version"] == "1.2.0"
    assert str(doc["version"]) == VERSION
    assert doc["license"] == PYPROJECT["project"]["license"]
    cited = {(tuple(a.get("family-names") for a in ref["authors"]), ref["year"])
             for ref in doc["references"]}
    for authors, year in [(("Azize", "Basu"), 2022), (("Tossou", "Dimitrakakis"), 2016),
                          (("Wang", "Zhu"), 2024), (("Zheng",), 2020),
                          (("Barbara", "Lazzaro", "Pike-Burke"), 2025), (("Azize",), 2025)]:
        assert any(names[:len(authors)] == authors and y == year for names, y in cited), (
            authors, year)


def test_an_invalid_citation_file_is_refused_by_the_schema() -> None:
    """The schema check is not vacuous: a file without authors, or with a bad version field,
    fails it."""
    yaml = pytest.importorskip("yaml")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "tests" / "fixtures" / "cff-1.2.0.schema.json").read_text())
    doc = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    validator = jsonschema.Draft7Validator(schema)
    assert not validator.is_valid({k: v for k, v in doc.items() if k != "authors"})
    assert not validator.is_valid({**doc, "cff-version": "9.9"})
    assert not validator.is_valid({**doc, "references": [{"title": "no authors or type"}]})


def test_changelog_keeps_a_changelog_and_names_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog")
    heads = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, flags=re.M)
    assert heads and heads[0][0] == "Unreleased", heads
    assert (VERSION, heads[1][1]) == heads[1] and heads[1][1], heads
    sections = set(re.findall(r"^### (\w+)$", text, flags=re.M))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> dict[str, Path]:
    """The wheel and the sdist, built once per test session with ``python -m build``."""
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("dist")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DPAUDIT_", "PYTEST_"))}
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, list(out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


def test_the_wheel_holds_every_package_file_and_the_licence(built) -> None:
    """Every file of the four package folders other than Python sources (the report schema,
    ``py.typed``: what a command reads at run time) is in the wheel, and the licence is in its
    metadata."""
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    assert f"dpaudit-{VERSION}.dist-info/licenses/LICENSE" in names, sorted(
        n for n in names if "dist-info" in n)
    data = []
    for package, folder in PACKAGE_DIRS.items():
        for path in (ROOT / folder).rglob("*"):
            if (path.is_file() and path.suffix not in (".py", ".pyc")
                    and "__pycache__" not in path.parts):
                rel = path.relative_to(ROOT / folder).as_posix()
                data.append(f"{package.replace('.', '/')}/{rel}")
    assert "dpaudit/schema/report-v1.json" in data
    missing = [d for d in data if d not in names]
    assert not missing, f"not in the wheel (pyproject [tool.setuptools.package-data]): {missing}"


def test_the_wheel_runs_outside_the_checkout(built, tmp_path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=300)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DPAUDIT_", "PYTEST_", "PYTHON", "VIRTUAL_ENV"))}
    env["MPLBACKEND"] = "Agg"
    # the dependencies are those of the environment running the tests; only dpaudit is new
    proc = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                           "--ignore-installed", str(built["wheel"])],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run([str(python), "-c", "import dpaudit; print(dpaudit.__file__)"],
                           cwd=elsewhere, capture_output=True, text=True, env=env, timeout=120)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout
    commands = {"check": ["check", "dp-ftpl-new", "--quick", "--no-state"],
                "claims": ["claims", "--list-papers"],
                "audit": ["audit", "laplace", "--samples", "1e5", "--no-state"]}
    running = {key: subprocess.Popen([str(python), "-m", "dpaudit", *argv], cwd=elsewhere,
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
               for key, argv in commands.items()}
    outputs = {key: p.communicate(timeout=600) for key, p in running.items()}
    for key, p in running.items():
        out, err = outputs[key]
        assert p.returncode == 0, f"{commands[key]} exited {p.returncode}\n{out[-2000:]}{err}"
        assert "Traceback" not in err
    assert "dpaudit check dp-ftpl-new: CONSISTENT" in outputs["check"][0]
    assert "wang-zhu-2023" in outputs["claims"][0]
    assert "dpaudit audit laplace: CONSISTENT" in outputs["audit"][0]
    assert not list(elsewhere.iterdir()), "the commands left files in the folder they ran in"


def test_the_sdist_builds_the_same_package(built) -> None:
    import tarfile

    with tarfile.open(built["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("pyproject.toml", "README.md", "LICENSE", "dpaudit/__init__.py",
                   "dpaudit/schema/report-v1.json", "mechanisms/__init__.py",
                   "algorithms/__init__.py", "audits/__init__.py"):
        assert needed in names, needed
