"""The house rules of the layout (issue: one house per paper), checked by parsing imports.

* The engine (``dpaudit/``) names no algorithm: nothing under it imports ``dpaudit.algorithms``
  or ``dpaudit.audits``, except the registry, which discovers the packages (the policy table,
  ``dpaudit/sim/policies.py``, walks ``dpaudit.algorithms`` by name, with no import statement).
* No paper package imports another (in ``algorithms/`` or ``audits/``): the paper-neutral
  modules (``algorithms/_*.py``, ``audits/recipes/``, ``mechanisms/``) are open to all; a figure
  that compares with another package's algorithm takes it from the registry by name.
* Every folder with an ``__init__.py`` is listed in ``pyproject.toml``'s ``packages`` (a
  non-editable install carries it).
* The shared modules of ``algorithms/`` (``algorithms/_*.py``) name no paper's algorithm in
  their code: no identifier or string (docstrings aside) holds a registered policy's name or
  class name, and no policy carries a ``kind`` code for a shared module to switch on; an
  algorithm's index, choice and update rules (numpy reference and compiled kernel) live in
  its paper's package, and the shared drivers call them as hooks.
* The engine is built in layers (:data:`LAYERS`, also in ``docs/layout.md``): a module imports,
  at module level, only its own layer or lower ones; the paper packages stand above it in the
  order ``mechanisms/`` < ``algorithms/`` < ``audits/``. The module-level imports of all of
  them (``mechanisms/`` included) form no circle, and a function-local import of a dpaudit
  module says why it is local (``# lazy: <reason>``; a loop is no reason). The checkers run on
  the tree and on a planted synthetic one, so they are seen to refuse what they must.
"""

from __future__ import annotations

import ast
import re
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


# -- the shared modules of algorithms/ name no algorithm ---------------------------------------
#: words of registered names that are privacy notions or a divergence, not an algorithm
NOT_ALGORITHMS = {"dp", "ldp", "gdp", "kl"}


def _algorithm_names() -> tuple[set[str], set[tuple[str, ...]], set[str]]:
    """``(class names, name token sequences, display names)`` of every registered policy:
    its class and the public classes it derives from in a paper package; its registered name
    split at ``-`` (``("dp", "ucb")``), also joined (``("dpucb",)``), and each of its words
    that is an acronym in a class or display name (``FTPL`` of ``DPFTPLNew``, ``APT`` of
    ``PrivateAPT``; not :data:`NOT_ALGORITHMS`); and its ``name``."""
    from dpaudit.registry import all_policies
    classes: set[str] = set()
    tokens: set[tuple[str, ...]] = set()
    shown: set[str] = set()
    for key, entry in all_policies().items():
        policy = entry.factory(**entry.small_overrides)
        shown.add(str(getattr(policy, "name", key)))
        for cls in type(policy).__mro__:
            module = cls.__module__.split(".")
            if (module[:2] == ["dpaudit", "algorithms"] and len(module) > 2
                    and not module[2].startswith("_") and not cls.__name__.startswith("_")):
                classes.add(cls.__name__)
    for key in all_policies():
        parts = tuple(key.split("-"))
        tokens |= {parts, ("".join(parts),)}
        tokens |= {(w,) for w in parts if w not in NOT_ALGORITHMS and any(
            w.upper() in text for text in classes | shown)}
    return classes, tokens, shown


def _words(identifier: str) -> tuple[str, ...]:
    """``DPUCBBound`` -> ``("dpucb", "bound")``, ``kl_ucb_kernel`` -> ``("kl", "ucb",
    "kernel")``: the lower-case words of a snake_case or CamelCase identifier."""
    out: list[str] = []
    for part in identifier.split("_"):
        out += [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", part)]
    return tuple(out)


def _contains(seq: tuple[str, ...], sub: tuple[str, ...]) -> bool:
    return any(seq[i:i + len(sub)] == sub for i in range(len(seq) - len(sub) + 1))


def _code_names(tree: ast.AST) -> list[tuple[int, str, str]]:
    """``(line, what, text)`` of every identifier and every string that is not a docstring."""
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                and isinstance(first.value.value, str):
            docs.add(id(first.value))
    out = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name):
            out.append((line, "name", node.id))
        elif isinstance(node, ast.Attribute):
            out.append((line, "attribute", node.attr))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            out.append((line, "definition", node.name))
        elif isinstance(node, ast.arg):
            out.append((line, "argument", node.arg))
        elif isinstance(node, ast.alias):
            out += [(line, "import", part) for part in node.name.split(".")]
            if node.asname:
                out.append((line, "import", node.asname))
        elif isinstance(node, ast.keyword) and node.arg:
            out.append((line, "keyword", node.arg))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs:
            out.append((line, "string", node.value))
    return out


#: mathematical functions shared by several papers' algorithms, named after the bound they
#: compute rather than after one algorithm (with the reason)
SHARED_MATH = {
    "kl_ucb_index": "the KL upper confidence bound max{q : kl(p, q) <= c} (Garivier & Cappe "
                    "2011), computed for KL-UCB and for AdaP-KLUCB (Azize & Basu 2022)",
    "ucb1_upper": "UCB1's regret bound (Auer, Cesa-Bianchi & Fischer 2002, Theorem 1), the "
                  "floor every UCB-type private bound is compared with (several papers' "
                  "audits)",
}


def _shared_algorithm_modules() -> list[Path]:
    return sorted(p for p in (ROOT / "algorithms").glob("_*.py") if p.name != "__init__.py")


def test_shared_algorithm_modules_name_no_algorithm():
    classes, tokens, shown = _algorithm_names()
    assert {"UCB", "DPUCB", "KLUCB", "Thompson"} <= classes  # the registry was read
    offenders = []
    for path in _shared_algorithm_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, what, text in _code_names(tree):
            if text in SHARED_MATH:
                continue
            if what == "string":
                hits = [n for n in shown if n in text] + [
                    "-".join(t) for t in tokens if re.search(
                        rf"(?<![\w-]){re.escape('-'.join(t))}(?![\w-])", text)]
            else:
                words = _words(text)
                hits = [c for c in classes if c == text] + [
                    "-".join(t) for t in tokens if _contains(words, t)]
            if hits:
                offenders.append(f"algorithms/{path.name}:{line} {what} {text!r} names "
                                 f"{sorted(set(hits))}")
    assert not offenders, ("the shared modules of algorithms/ name no algorithm (put the "
                           "algorithm's math in its package, called as a hook):\n"
                           + "\n".join(offenders))


def test_no_policy_carries_a_kind_code():
    """A shared driver dispatches on no per-algorithm code: a policy brings its hooks."""
    from dpaudit.registry import all_policies
    coded = sorted(key for key, entry in all_policies().items()
                   if hasattr(entry.factory(**entry.small_overrides), "kind"))
    assert not coded, f"policies with a kind code: {coded}"


def test_the_name_check_sees_what_it_must_refuse(tmp_path):
    """The checker flags the forms an algorithm's name takes in code: a kind code, a kernel
    named after the policy, a class name, a registered name in a string."""
    classes, tokens, shown = _algorithm_names()
    src = ("UCB, BOUND, DPUCB = 0, 1, 2\n"
           "def kl_ucb_plain_kernel(x):\n    return x\n"
           "class DPUCBBound:\n    pass\n"
           "LABEL = 'dp-ucb'\n")
    found = {text for _, what, text in _code_names(ast.parse(src))
             if (what == "string" and "dp-ucb" in text)
             or any(_contains(_words(text), t) for t in tokens) or text in classes}
    assert {"UCB", "DPUCB", "kl_ucb_plain_kernel", "DPUCBBound", "dp-ucb"} <= found
    assert "BOUND" not in found and "x" not in found


# -- the engine in layers, with no circle ------------------------------------------------------
#: the engine's layers, lowest first. A module of ``dpaudit/`` imports, at module level, only
#: modules of its own layer or of a lower one (its layer: the longest prefix listed that names
#: it); the package ``dpaudit`` itself (its ``__init__``: ``__version__`` and the names a user's
#: audit file imports, resolved on first use) is imported first by every module and is no
#: layer. The paper packages (``mechanisms/`` < ``algorithms/`` < ``audits/``) stand on top of
#: the engine, which imports none of them (the registry discovers them by name).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundations: errors, validation, interfaces, the JSON schema, seeds",
     ("dpaudit.errors", "dpaudit.validation", "dpaudit.interfaces", "dpaudit.schema",
      "dpaudit.stats.rng")),
    ("runtime: parallel chunks, deadlines and guards, saved state",
     ("dpaudit.runtime",)),
    ("statistics and exact decisions", ("dpaudit.stats", "dpaudit.exact")),
    ("simulation and the experiment harness",
     ("dpaudit.sim", "dpaudit.experiments")),
    ("auditing user code", ("dpaudit.usercode",)),
    ("engine: checks and the statements they test", ("dpaudit.engine", "dpaudit.statements")),
    ("registry", ("dpaudit.registry",)),
    ("reports", ("dpaudit.reports",)),
    ("commands and the testing helpers",
     ("dpaudit.commands", "dpaudit.testing", "dpaudit.pytest_plugin")),
    ("command line", ("dpaudit.cli", "dpaudit.__main__", "dpaudit.precommit")),
)
#: the paper packages, lowest first: a lower one imports no higher one
HOUSE_ORDER = ("dpaudit.mechanisms", "dpaudit.algorithms", "dpaudit.audits")
#: a function-local import of a dpaudit module says why it is local, on its line or the
#: comment line(s) just above: ``# lazy: <reason>`` (a heavy optional dependency, the command
#: line's start-up time, a user-facing helper's import cost); a loop is no reason: it is broken
#: by moving code to the layer it belongs to
LAZY_TAG = re.compile(r"#\s*lazy:\s*(?P<why>\S.{9,})")
NO_REASON = re.compile(r"\b(cycle|circular|loop)", re.IGNORECASE)


def _layer_of(module: str) -> int | None:
    best, found = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, found = len(p), i
    return found


def _house_of(module: str) -> int | None:
    for i, p in enumerate(HOUSE_ORDER):
        if module == p or module.startswith(p + "."):
            return i
    return None


def _all_modules() -> dict[str, str]:
    """``module name -> source`` of the engine (``dpaudit/``) and the paper packages."""
    out = {}
    for top in ("dpaudit", "algorithms", "audits", "mechanisms"):
        for path in _sources(ROOT / top):
            if any(p.is_symlink() for p in [path, *path.parents]):
                continue
            rel = path.relative_to(ROOT)
            if rel.parts[0] == "dpaudit" and rel.parts[1] in HOUSES | {"mechanisms": 0}:
                continue  # the worktree's links to the top-level folders
            name = _module_of(path)
            if name.endswith(".__init__"):
                name = name[: -len(".__init__")]
            out[name] = path.read_text(encoding="utf-8")
    return out


def _import_sites(module: str, source: str, known: set[str] | dict[str, str]
                  ) -> list[tuple[int, int, str, bool, bool]]:
    """``(line, end line, imported module, local, typing only)`` of every import of a dpaudit
    module in ``source`` (the module ``module``; ``from X import a`` is ``X.a`` when that is a
    module of ``known``, else ``X``); ``local``: inside a function, ``typing only``: under
    ``if TYPE_CHECKING``."""
    tree = ast.parse(source)
    package = module if f"{module}.__init__" in known or any(
        k.startswith(module + ".") for k in known) else module.rpartition(".")[0]
    out: list[tuple[int, int, str, bool, bool]] = []

    def resolve(name: str) -> str | None:
        if not (name == "dpaudit" or name.startswith("dpaudit.")):
            return None
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            if ".".join(parts[:i]) in known:
                return ".".join(parts[:i])
        return name

    def walk(node: ast.AST, local: bool, typing: bool) -> None:
        for child in ast.iter_child_nodes(node):
            is_local = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                   ast.Lambda))
            is_typing = typing or (isinstance(child, ast.If) and "TYPE_CHECKING"
                                   in ast.unparse(child.test))
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - child.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                         for a in child.names]
            for name in dict.fromkeys(names):
                target = resolve(name)
                if target is not None and target != module:
                    out.append((child.lineno, child.end_lineno or child.lineno, target,
                                local, typing))
            walk(child, is_local, is_typing)

    walk(tree, False, False)
    return out


def layer_offenders(modules: dict[str, str]) -> list[str]:
    """Module-level imports against :data:`LAYERS` and :data:`HOUSE_ORDER`."""
    offenders = []
    for module, source in sorted(modules.items()):
        own, own_house = _layer_of(module), _house_of(module)
        if module == "dpaudit":
            continue
        for line, _, target, local, typing in _import_sites(module, source, modules):
            if local or typing or target == "dpaudit":
                continue
            if own_house is None and own is None:
                offenders.append(f"{module}:{line} is in no layer (add it to LAYERS)")
                break
            theirs, their_house = _layer_of(target), _house_of(target)
            if own_house is None and their_house is not None:
                offenders.append(f"{module}:{line} (engine) imports {target}")
            elif own_house is None and theirs is not None and theirs > own:
                offenders.append(f"{module}:{line} ({LAYERS[own][0].split(':')[0]}) imports "
                                 f"{target} ({LAYERS[theirs][0].split(':')[0]}), a higher "
                                 "layer")
            elif own_house is not None and their_house is not None and their_house > own_house:
                offenders.append(f"{module}:{line} imports {target}, a higher package")
    return offenders


def import_cycles(modules: dict[str, str]) -> list[list[str]]:
    """The circles of the graph of module-level imports (Tarjan's strongly connected
    components of more than one module, or a module importing itself)."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, source in modules.items():
        for _, _, target, local, typing in _import_sites(module, source, modules):
            if not local and not typing and target in graph and target != "dpaudit":
                graph[module].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def unexplained_local_imports(modules: dict[str, str]) -> list[str]:
    """Function-local imports of dpaudit modules without a ``# lazy: <reason>`` comment on
    their lines or the comment lines just above (or whose reason is a loop)."""
    offenders = []
    for module, source in sorted(modules.items()):
        lines = source.splitlines()
        for line, end, target, local, _ in _import_sites(module, source, modules):
            if not local:
                continue
            texts = lines[line - 1:end]
            above = line - 2
            while above >= 0 and lines[above].strip().startswith("#"):
                texts.append(lines[above])
                above -= 1
            reasons = [m.group("why") for t in texts if (m := LAZY_TAG.search(t))]
            if not reasons or any(NO_REASON.search(r) for r in reasons):
                offenders.append(f"{module}:{line} imports {target} in a function without "
                                 "a '# lazy: <reason>' comment")
    return sorted(set(offenders))


def test_module_level_imports_follow_the_layers():
    offenders = layer_offenders(_all_modules())
    assert not offenders, ("a module imports only its own layer or lower ones (LAYERS in "
                           "tests/test_layout.py, docs/layout.md):\n" + "\n".join(offenders))


def test_the_import_graph_has_no_circle():
    modules = _all_modules()
    assert "dpaudit.runtime.parallel" in modules and "dpaudit.audits.recipes.ldp" in modules
    circles = import_cycles(modules)
    assert not circles, "module-level imports in a circle:\n" + "\n".join(
        " <-> ".join(c) for c in circles)


def test_function_local_imports_of_dpaudit_say_why():
    offenders = unexplained_local_imports(_all_modules())
    assert not offenders, "\n".join(offenders)


def test_every_engine_module_has_a_layer():
    unplaced = sorted(m for m in _all_modules() if m != "dpaudit" and _house_of(m) is None
                      and _layer_of(m) is None)
    assert not unplaced, f"add to LAYERS in tests/test_layout.py: {unplaced}"


def test_the_layer_checks_see_planted_violations():
    """The checkers on a synthetic tree: an upward import, a circle, a local import without
    its reason (and one whose reason is a loop), a house importing a higher house."""
    tree = {
        "dpaudit": "",
        "dpaudit.validation": "import numpy\n",
        "dpaudit.runtime.limits": "from dpaudit.registry import x\n",  # upward
        "dpaudit.registry": "from dpaudit.runtime import limits\n",
        "dpaudit.sim.a": "from dpaudit.sim import b\n",
        "dpaudit.sim.b": "import dpaudit.sim.a\nfrom dpaudit import __version__\n",
        "dpaudit.stats.c": ("from typing import TYPE_CHECKING\n"
                            "if TYPE_CHECKING:\n    from dpaudit.engine import Spec\n"
                            "def f():\n    from dpaudit.reports import text\n"
                            "def g():\n    # lazy: only to avoid a circular import\n"
                            "    from dpaudit.reports import html\n"
                            "def h():\n"
                            "    from dpaudit.reports import junit  # lazy: JUnit XML only "
                            "when asked\n"),
        "dpaudit.engine": "", "dpaudit.reports.text": "", "dpaudit.reports.html": "",
        "dpaudit.reports.junit": "",
        "dpaudit.mechanisms.m": "from dpaudit.algorithms.p import q\n",
        "dpaudit.algorithms.p": "from dpaudit.mechanisms import m\n",
    }
    layers = layer_offenders(tree)
    assert any(o.startswith("dpaudit.runtime.limits:1") and "higher layer" in o
               for o in layers)
    assert any(o.startswith("dpaudit.mechanisms.m:1") and "higher package" in o
               for o in layers)
    assert not any(o.startswith(("dpaudit.registry", "dpaudit.stats.c", "dpaudit.sim.b",
                                 "dpaudit.algorithms.p")) for o in layers)
    circles = import_cycles(tree)
    assert ["dpaudit.sim.a", "dpaudit.sim.b"] in circles
    assert ["dpaudit.registry", "dpaudit.runtime.limits"] in circles
    assert ["dpaudit.algorithms.p", "dpaudit.mechanisms.m"] in circles
    assert not any("dpaudit.engine" in c for c in circles)  # TYPE_CHECKING only
    local = unexplained_local_imports(tree)
    assert [o.split(" ")[0] for o in local] == ["dpaudit.stats.c:5", "dpaudit.stats.c:8"]
