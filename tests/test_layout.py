"""The house rules of the layout (issue: one house per paper), checked by parsing imports.

* The engine (``dpaudit/``) names no algorithm: nothing under it imports ``dpaudit.algorithms``
  or ``dpaudit.audits``, except the registry, which discovers the packages.
* No paper package imports another (in ``algorithms/`` or ``audits/``): the paper-neutral
  modules (``algorithms/_*.py``, ``audits/recipes/``, ``mechanisms/``) are open to all; a figure
  that compares with another package's algorithm takes it from the registry by name.
* Every folder with an ``__init__.py`` is listed in ``pyproject.toml``'s ``packages`` (a
  non-editable install carries it).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the folders installed as dpaudit.algorithms, dpaudit.audits, dpaudit.mechanisms
HOUSES = {"algorithms": ROOT / "algorithms", "audits": ROOT / "audits"}
NEUTRAL = {"recipes"}  # audits/recipes: paper-neutral recipes, open to every package
ENGINE_MAY_DISCOVER = {"dpaudit/registry.py"}


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in ``path`` (``from X import a`` gives ``X`` and
    ``X.a``, so ``from dpaudit import algorithms`` is seen too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                parts = _module_of(path).split(".")[:-node.level]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return out


def _module_of(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] in HOUSES or parts[0] == "mechanisms":
        parts = ["dpaudit", *parts]
    return ".".join(parts)


def _sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _package_of(module: str) -> tuple[str, str] | None:
    """``(house, package)`` of a module under dpaudit.algorithms / dpaudit.audits, where the
    package is a paper package (or baselines, textbook); None for the neutral modules."""
    parts = module.split(".")
    if len(parts) < 3 or parts[0] != "dpaudit" or parts[1] not in HOUSES:
        return None
    name = parts[2]
    if name.startswith("_") or name in NEUTRAL:
        return None
    if not (HOUSES[parts[1]] / name).is_dir():
        return None
    return parts[1], name


def test_the_engine_imports_no_algorithm_and_no_audit():
    offenders = []
    for path in _sources(ROOT / "dpaudit"):
        if path.is_symlink() or any(p.is_symlink() for p in path.parents):
            continue
        rel = path.relative_to(ROOT).as_posix()
        if rel.split("/")[1] in {"algorithms", "audits", "mechanisms"}:
            continue  # the worktree's symlinks to the top-level folders
        if rel in ENGINE_MAY_DISCOVER:
            continue
        for line, module in _imports(path):
            if module.startswith(("dpaudit.algorithms", "dpaudit.audits")):
                offenders.append(f"{rel}:{line} imports {module}")
    assert not offenders, "the engine names no algorithm:\n" + "\n".join(offenders)


def test_no_paper_package_imports_another():
    offenders = []
    for folder in HOUSES.values():
        for path in _sources(folder):
            own = _package_of(_module_of(path))
            for line, module in _imports(path):
                other = _package_of(module)
                if other is not None and own is not None and other[1] != own[1]:
                    offenders.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
                elif other is not None and own is None:
                    offenders.append(f"{path.relative_to(ROOT)}:{line} (paper-neutral) "
                                     f"imports {module}")
    assert not offenders, ("a paper package imports only itself and the neutral modules "
                           "(algorithms/_*.py, audits/recipes, mechanisms):\n"
                           + "\n".join(offenders))


def test_every_package_folder_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    tool = config["tool"]["setuptools"]
    listed = set(tool["packages"])
    mapping = tool.get("package-dir", {})
    found = set()
    for top in ("dpaudit", "algorithms", "audits", "mechanisms"):
        for init in (ROOT / top).rglob("__init__.py"):
            folder = init.parent
            if any(p.is_symlink() for p in [folder, *folder.parents]):
                continue
            rel = folder.relative_to(ROOT).parts
            if rel[0] != "dpaudit":
                rel = ("dpaudit", *rel)
            found.add(".".join(rel))
    missing = sorted(found - listed)
    assert not missing, f"add to pyproject.toml [tool.setuptools] packages: {missing}"
    for name in ("dpaudit.algorithms", "dpaudit.audits", "dpaudit.mechanisms"):
        assert name in mapping, f"{name} must be mapped in [tool.setuptools.package-dir]"


@pytest.mark.parametrize("module, expected", [
    ("dpaudit.algorithms.wang_zhu_2023.ftpl", ("algorithms", "wang_zhu_2023")),
    ("dpaudit.algorithms._kl", None),
    ("dpaudit.audits.recipes.counters", None),
    ("dpaudit.algorithms.baselines", ("algorithms", "baselines")),
    ("dpaudit.sim.bandits", None),
])
def test_package_of_reads_the_layout(module, expected):
    assert _package_of(module) == expected
