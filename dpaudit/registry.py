"""The registry: the single source of truth for checkable names, experiments and CDF pairs.

One scan imports every public module of :mod:`dpaudit.audits` (one package per paper) once and
collects what each declares: ``AUDITS`` (a list of :class:`~dpaudit.engine.AuditSpec`; or one
``AUDIT``), ``EXPERIMENTS`` (a list of :class:`~dpaudit.experiments.Experiment`, for
``reproduce``), ``CDF_PAIRS`` (name -> CDF-pair builder, for ``plot cdf``) and ``STATEMENTS``
(the paper's :class:`~dpaudit.statements.Statement` s, for ``claims``, beside ``PAPER`` and
its short ``PAPER_KEYS``). Deliberately broken twins are named ``NAME-<bug>`` (their older
``NAME-faulty`` names kept as aliases) and must come out VIOLATED unless their true loss is
within the claim. Policies come from one scan of :mod:`dpaudit.algorithms`
(:func:`all_policies`). Nothing is listed by hand: a new paper package is found by walking.

A user's own audit module is loaded the same way (:func:`get_audit`): ``my_audit`` (a
top-level module), ``my_pkg.my_audit`` (a dotted path) or ``MODULE:NAME`` (one audit of
several), defining ``AUDITS``, one ``AUDIT``, or audits bound to module-level names.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from types import ModuleType
from typing import Any

from dpaudit.engine import AuditSpec
from dpaudit.errors import UsageError, UserCodeError
from dpaudit.experiments import Experiment
from dpaudit.sim.policies import all_policies, walk_modules
from dpaudit.statements import Statement

__all__ = [
    "UnknownNameError",
    "all_aliases",
    "all_audits",
    "all_cdf_pairs",
    "all_experiments",
    "all_papers",
    "all_policies",
    "all_statements",
    "get_audit",
    "get_experiment",
    "import_user_module",
    "load_module_audits",
    "suggest",
]


class UnknownNameError(UsageError, LookupError):
    """A name that is neither registered nor an importable audit module (exit code 2)."""

    def __init__(self, name: str, suggestions: list[str], *, what: str = "check name",
                 listing: str = "python -m dpaudit list", note: str = "") -> None:
        self.name = name
        self.suggestions = suggestions
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown {what} {name!r}{hint} ({note}see `{listing}`)")


def suggest(name: str, names: list[str] | tuple[str, ...]) -> list[str]:
    """Up to three close matches of ``name`` among ``names``."""
    return difflib.get_close_matches(name, list(names), n=3, cutoff=0.5)


# -- the one scan of dpaudit.audits ---------------------------------------------------------
@dataclass(frozen=True)
class _Scan:
    audits: dict[str, AuditSpec]
    experiments: dict[str, Experiment]
    cdf_pairs: dict[str, Callable[..., Any]]
    statements: tuple[Statement, ...]
    papers: dict[str, tuple[str, ...]]


def _add(table: dict[str, Any], name: str, item: Any, kind: str, module: str) -> None:
    if name in table:
        raise RuntimeError(f"{kind} {name!r} is registered twice (again in {module})")
    table[name] = item


@cache
def _scan() -> _Scan:
    audits_pkg = importlib.import_module("dpaudit.audits")

    audits: dict[str, AuditSpec] = {}
    experiments: dict[str, Experiment] = {}
    pairs: dict[str, Callable[..., Any]] = {}
    statements: list[Statement] = []
    papers: dict[str, tuple[str, ...]] = {}
    for name in walk_modules(audits_pkg, public_only=True, skip=("recipes",)):
        module = importlib.import_module(name)
        for spec in _module_specs(module, name, required=False):
            _add(audits, spec.name, spec, "check name", name)
        for exp in getattr(module, "EXPERIMENTS", ()):
            if not isinstance(exp, Experiment):
                raise RuntimeError(f"{name}.EXPERIMENTS holds {exp!r}, not an Experiment")
            _add(experiments, exp.name, replace(exp, declared_in=exp.declared_in or name),
                 "experiment", name)
        for key, builder in getattr(module, "CDF_PAIRS", {}).items():
            _add(pairs, key, builder, "CDF pair", name)
        if hasattr(module, "STATEMENTS"):
            statements += _module_statements(module, name, papers)
    return _Scan(audits, experiments, pairs, tuple(statements), papers)


def _module_statements(module: ModuleType, name: str,
                       papers: dict[str, tuple[str, ...]]) -> list[Statement]:
    """A paper package's ``STATEMENTS``, checked: each is a Statement of the module's
    ``PAPER``, whose ``PAPER_KEYS`` no other paper uses."""
    paper, keys = getattr(module, "PAPER", None), getattr(module, "PAPER_KEYS", None)
    if not isinstance(paper, str) or not keys or not all(isinstance(k, str) for k in keys):
        raise RuntimeError(f"{name} declares STATEMENTS but no PAPER (a str) and PAPER_KEYS "
                           "(short keys for `claims PAPER`)")
    taken = {k: p for p, ks in papers.items() for k in ks}
    for key in keys:
        if key in taken and taken[key] != paper:
            raise RuntimeError(f"paper key {key!r} of {name} is taken by {taken[key]!r}")
    papers[paper] = tuple(dict.fromkeys((*papers.get(paper, ()), *keys)))
    out = list(module.STATEMENTS)
    for st in out:
        if not isinstance(st, Statement) or st.paper != paper:
            raise RuntimeError(f"{name}.STATEMENTS holds {st!r:.80}, not a Statement of "
                               f"{paper!r}")
    return out


def all_audits() -> dict[str, AuditSpec]:
    """Every registered audit by name."""
    return _scan().audits


def all_aliases() -> dict[str, str]:
    """Alias -> the name it stands for: a registered audit that is another one under a second
    name (the older ``NAME-faulty`` names of the twins, declared as
    ``replace(TWIN, name="NAME-faulty")``). Found, not listed by hand: every field but the name
    is the same object as an audit registered before it, so both run the same claims."""
    import dataclasses

    fields = [f.name for f in dataclasses.fields(AuditSpec) if f.name != "name"]
    first: dict[tuple[int, ...], AuditSpec] = {}
    table: dict[str, str] = {}
    for spec in all_audits().values():
        key = tuple(id(getattr(spec, f)) for f in fields)
        twin = first.get(key)
        if twin is not None and all(getattr(spec, f) is getattr(twin, f) for f in fields):
            table[spec.name] = twin.name
        else:
            first.setdefault(key, spec)
    return table


def all_experiments() -> dict[str, Experiment]:
    """Every registered figure reproduction by name (``python -m dpaudit reproduce``)."""
    return _scan().experiments


def all_cdf_pairs() -> dict[str, Callable[..., Any]]:
    """Every plottable perturbation: name -> ``(epsilon, delta, n=None, successes=0)`` builder."""
    return _scan().cdf_pairs


def all_statements() -> tuple[Statement, ...]:
    """Every paper's declared statements (the ``STATEMENTS`` of each paper package), in the
    order of the packages' names (``python -m dpaudit claims``)."""
    return _scan().statements


def all_papers() -> dict[str, tuple[str, ...]]:
    """Paper name -> its short keys (``PAPER_KEYS``), for ``python -m dpaudit claims PAPER``."""
    return _scan().papers


def get_experiment(name: str) -> Experiment:
    table = all_experiments()
    if name not in table:
        raise UnknownNameError(name, suggest(name, list(table)), what="experiment",
                               listing="python -m dpaudit reproduce --list")
    return table[name]


# -- audit modules (built-in and the user's) ------------------------------------------------
def _module_specs(module: ModuleType, name: str, *, required: bool = True) -> list[AuditSpec]:
    """The audits a module declares: ``AUDITS``, else ``AUDIT``, else its AuditSpec names."""
    if hasattr(module, "AUDITS"):
        specs, origin = module.AUDITS, f"{name}.AUDITS"
        if isinstance(specs, AuditSpec) or not hasattr(specs, "__iter__"):
            raise UsageError(f"{origin} must be a list of AuditSpec, got "
                             f"{type(specs).__name__}")
        specs = list(specs)
    elif hasattr(module, "AUDIT"):
        specs, origin = [module.AUDIT], f"{name}.AUDIT"
    else:
        specs = [v for k, v in vars(module).items()
                 if isinstance(v, AuditSpec) and not k.startswith("_")]
        origin = name
        if not specs and required:
            raise UsageError(f"module {name!r} defines no audit: give it AUDITS = "
                             "[AuditSpec(...)], AUDIT = AuditSpec(...), or module-level "
                             "AuditSpec objects")
    for spec in specs:
        if not isinstance(spec, AuditSpec):
            raise UsageError(f"{origin} holds {type(spec).__name__} {spec!r:.60}, not an "
                             "AuditSpec (see dpaudit.engine.AuditSpec)")
    return specs


def _error_line(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename}, line {exc.lineno}" if exc.filename else f"line {exc.lineno}"
        return f"{type(exc).__name__}: {exc.msg} ({where})"
    return f"{type(exc).__name__}: {exc}"


_FORMS = ("MODULE as a dotted path importable from the current folder (my_pkg.my_audit) or "
          "as a file (path/to/my_audit.py)")


def user_module_name(text: str) -> str:
    """``text`` as a module name: a file path (``examples/minimal_audit.py``, what people
    type) becomes its stem, with the file's folder put first on ``sys.path`` (so the file's
    own sibling imports work, as under ``python path/to/file.py``); a dotted name is kept."""
    import os
    import sys
    from pathlib import Path

    if not (text.endswith(".py") or "/" in text or os.sep in text):
        return text
    path = Path(text).expanduser()
    if path.suffix != ".py":
        raise UsageError(f"{text!r} looks like a path but is not a .py file; give "
                         f"{_FORMS}")
    if not path.is_file():
        raise UsageError(f"cannot import {text!r}: no such file")
    if not path.stem.isidentifier():
        raise UsageError(f"cannot import {text!r}: {path.stem!r} is not a valid module name "
                         "(letters, digits and underscores, not starting with a digit)")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return path.stem


def import_user_module(module_name: str) -> ModuleType:
    """Import a user's module; a failure says why, in the module's own words.

    ``module_name`` is a dotted module name or a ``.py`` file path (:func:`user_module_name`).
    A missing module, a syntax error or a failed import inside it is a usage error (exit 2);
    any other exception raised while the module's top level runs is an error in user code
    (exit 3). Never "unknown name" for a module that exists.
    """
    module_name = user_module_name(module_name)
    try:
        found = importlib.util.find_spec(module_name)
    except (SyntaxError, ImportError, ValueError) as exc:  # a parent package missing or broken
        raise UsageError(f"cannot import module {module_name!r}: {_error_line(exc)}") from None
    except Exception as exc:  # a parent package's top level raised
        raise UserCodeError(f"importing the packages of {module_name!r} raised") from exc
    if found is None:
        raise UsageError(f"cannot import module {module_name!r}: no module named "
                         f"{module_name!r} (the current folder and sys.path were searched); "
                         f"give {_FORMS}")
    try:
        return importlib.import_module(module_name)
    except (SyntaxError, ImportError) as exc:
        raise UsageError(f"cannot import module {module_name!r}: {_error_line(exc)}") from None
    except Exception as exc:
        raise UserCodeError(f"importing module {module_name!r} raised") from exc


def load_module_audits(module_name: str) -> list[AuditSpec]:
    """The audits of an importable module (see :func:`import_user_module`)."""
    return _module_specs(import_user_module(module_name), module_name)


def _looks_like_module(name: str) -> bool:
    return all(part.isidentifier() for part in name.split("."))


def get_audit(name: str) -> AuditSpec:
    """The audit registered as ``name``, or the audit of a user module.

    ``name`` is a registered name, ``MODULE`` (its single audit) or ``MODULE:NAME`` (the audit
    called ``NAME``, or the AuditSpec bound to the module attribute ``NAME``).
    """
    registry = all_audits()
    if name in registry:
        return registry[name]
    module_name, colon, attr = name.partition(":")
    module_name = user_module_name(module_name)  # examples/minimal_audit.py works too
    name = module_name + colon + attr
    if not colon and not _looks_like_module(name):
        raise UnknownNameError(name, suggest(name, list(registry)))
    if not _looks_like_module(module_name):
        raise UsageError(f"{name!r}: {module_name!r} is not a module path (MODULE[:NAME])")
    if not colon and "." not in name and importlib.util.find_spec(name) is None:
        # a bare word that is neither registered nor a module: most likely a typo
        raise UnknownNameError(name, suggest(name, list(registry)),
                               note=f"not registered, and no module {name!r} on the path; ")
    module = import_user_module(module_name)
    if colon:
        value = getattr(module, attr, None) if attr.isidentifier() else None
        if isinstance(value, AuditSpec):
            return value
        specs = _module_specs(module, module_name)
        chosen = [s for s in specs if s.name == attr]
        if len(chosen) == 1:
            return chosen[0]
        raise UnknownNameError(f"{module_name}:{attr}", suggest(attr, [s.name for s in specs])
                               or [s.name for s in specs][:3],
                               what="audit", listing=f"its module {module_name!r}")
    specs = _module_specs(module, module_name)
    if len(specs) == 1:
        return specs[0]
    names = ", ".join(f"{module_name}:{s.name}" for s in specs)
    raise UsageError(f"module {module_name!r} declares {len(specs)} audits; name one: {names}")
