"""The registry: the single source of truth for checkable names.

Every module in :mod:`dpaudit.audits` defines ``AUDITS``, a list of
:class:`~dpaudit.engine.AuditSpec`. A user's own audit is a dotted module path
(``my_pkg.my_audit``) whose ``AUDITS`` (or ``AUDIT``) is loaded the same way. Names ending in
``-faulty`` are deliberately broken variants and must come out VIOLATED.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from functools import cache

from .bandits import PolicyEntry
from .engine import AuditSpec

__all__ = ["UnknownNameError", "all_audits", "all_policies", "get_audit", "load_module_audits"]


class UnknownNameError(LookupError):
    """A check name that is neither registered nor an importable audit module."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        self.name = name
        self.suggestions = suggestions
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown check name {name!r}{hint} (see `python -m dpaudit list`)")


def load_module_audits(module_name: str) -> list[AuditSpec]:
    module = importlib.import_module(module_name)
    specs = getattr(module, "AUDITS", None)
    if specs is None and hasattr(module, "AUDIT"):
        specs = [module.AUDIT]
    if specs is None:
        raise UnknownNameError(module_name, [])
    return list(specs)


@cache
def all_audits() -> dict[str, AuditSpec]:
    """Every registered audit by name (imports each module of :mod:`dpaudit.audits`)."""
    from . import audits as audits_pkg

    registry: dict[str, AuditSpec] = {}
    for info in sorted(pkgutil.iter_modules(audits_pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        for spec in load_module_audits(f"{audits_pkg.__name__}.{info.name}"):
            if spec.name in registry:
                raise RuntimeError(f"check name {spec.name!r} is registered twice")
            registry[spec.name] = spec
    return registry


def get_audit(name: str) -> AuditSpec:
    """The audit registered as ``name``, or the single audit of a dotted module path."""
    registry = all_audits()
    if name in registry:
        return registry[name]
    if "." in name or ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            specs = load_module_audits(module_name)
        except ModuleNotFoundError:
            raise UnknownNameError(name, []) from None
        if attr:
            specs = [s for s in specs if s.name == attr]
        if len(specs) == 1:
            return specs[0]
        raise UnknownNameError(name, [s.name for s in specs])
    raise UnknownNameError(name, difflib.get_close_matches(name, list(registry), n=3, cutoff=0.5))


# -- bandit policies -----------------------------------------------------------------------
@cache
def all_policies() -> dict[str, PolicyEntry]:
    """Every registered bandit policy by name: the ``POLICIES`` of each algorithm module.

    Scans every module of :mod:`dpaudit.algorithms` (``_faulty`` included: broken twins are
    registered with ``faulty=True``); see :mod:`dpaudit.bandits` for how to declare one.
    """
    from . import algorithms as algorithms_pkg

    registry: dict[str, PolicyEntry] = {}
    for info in sorted(pkgutil.iter_modules(algorithms_pkg.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{algorithms_pkg.__name__}.{info.name}")
        for name, entry in getattr(module, "POLICIES", {}).items():
            if name in registry:
                raise RuntimeError(f"policy name {name!r} is registered twice")
            if not isinstance(entry, PolicyEntry):
                raise TypeError(f"POLICIES[{name!r}] in {info.name} must be a PolicyEntry")
            registry[name] = entry
    return registry
