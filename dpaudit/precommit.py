"""``python -m dpaudit.precommit FILE ...``: the pre-commit hook (``.pre-commit-hooks.yaml``).

Given the Python files a commit changes, it runs ``python -m dpaudit check MODULE --quick`` on
every audit file those changes touch: a changed file that declares audits itself (a
module-level ``AUDIT`` or ``AUDITS``), and every audit file under the current folder (the
repository's root, where pre-commit runs hooks) that imports a changed module, so editing a
mechanism re-audits it. Each check runs in its own process from the audit file's folder with
the repository's root importable, as ``python -m dpaudit check`` would from there.

Exit code: 0 when every check exits 0 (or no audit file is touched), else the first non-zero
exit code of a check (1 VIOLATED, 2 usage error, 3 an exception in the code, 4 INCONCLUSIVE
under ``--fail-on-inconclusive``). ``--audit MODULE`` (repeatable) names audit files to run
whatever changed; ``--full`` drops ``--quick``.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["audit_files_touched", "main"]

#: folders never searched for audit files
SKIP = {".git", ".venv", "venv", "env", "build", "dist", "node_modules", "__pycache__",
        ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".dpaudit-state", "site-packages"}


def _tree(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None


def declares_audits(tree: ast.Module) -> bool:
    """Whether a module assigns ``AUDIT`` or ``AUDITS`` at its top level."""
    for node in tree.body:
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        if any(isinstance(t, ast.Name) and t.id in ("AUDIT", "AUDITS") for t in targets):
            return True
    return False


def imported(tree: ast.Module) -> set[str]:
    """Every module name an ``import`` statement of the file names (with its parents)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def module_names(path: Path, root: Path) -> set[str]:
    """The names a file may be imported by: its dotted path from the root and from each folder
    below it (``src/pkg/mech.py``: ``src.pkg.mech``, ``pkg.mech``, ``mech``)."""
    parts = list(path.resolve().relative_to(root.resolve()).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return {".".join(parts[i:]) for i in range(len(parts)) if parts[i:]}


def _python_files(root: Path) -> Iterable[Path]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(folder) / name


def audit_files_touched(changed: Sequence[Path], root: Path) -> list[Path]:
    """The audit files under ``root`` that ``changed`` touches, in path order."""
    changed = [p for p in changed if p.suffix == ".py" and p.is_file()]
    names: set[str] = set()
    for path in changed:
        try:
            names |= module_names(path, root)
        except ValueError:  # a file outside the root: only its own name
            names.add(path.stem)
    touched = []
    for path in _python_files(root):
        tree = _tree(path)
        if tree is None or not declares_audits(tree):
            continue
        if any(path.resolve() == c.resolve() for c in changed) or imported(tree) & names:
            touched.append(path)
    return touched


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dpaudit.precommit",
        description="Quick dpaudit check of the audit files that the changed files touch.")
    parser.add_argument("files", nargs="*", help="the changed files (pre-commit passes them)")
    parser.add_argument("--audit", action="append", default=[], metavar="MODULE",
                        help="an audit module to check whatever changed (repeatable; default: "
                             "none)")
    parser.add_argument("--full", action="store_true",
                        help="the audit files' full budgets instead of --quick")
    parser.add_argument("--fail-on-inconclusive", action="store_true",
                        help="fail (exit 4) when a claim is INCONCLUSIVE and none VIOLATED")
    args = parser.parse_args(argv)
    root = Path.cwd()
    runs: list[tuple[str, Path]] = [(m, root) for m in args.audit]
    runs += [(p.stem, p.parent) for p in audit_files_touched([Path(f) for f in args.files],
                                                               root)]
    if not runs:
        return 0
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(root), *filter(None, [os.environ.get(
               "PYTHONPATH")])])}
    first_failure = 0
    for module, folder in runs:
        command = [sys.executable, "-m", "dpaudit", "check", module, "--no-state",
                   *([] if args.full else ["--quick"]),
                   *(["--fail-on-inconclusive"] if args.fail_on_inconclusive else [])]
        where = os.path.relpath(folder, root)
        print(f"dpaudit pre-commit: python {' '.join(command[1:])} (in {where})", flush=True)
        code = subprocess.run(command, cwd=folder, env=env).returncode
        if code and not first_failure:
            first_failure = code
    return first_failure


if __name__ == "__main__":
    raise SystemExit(main())
