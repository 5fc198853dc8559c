"""The registered bandit policies by name: the ``POLICIES`` table of every module of
:mod:`dpaudit.algorithms`, found by walking the package (nothing here names an algorithm).

It sits in the simulation layer, below the registry (:mod:`dpaudit.registry` re-exports
:func:`all_policies`), because simulating a registered policy by name (``simulate``, regret
experiments, figures) needs the table and nothing else of the registry. A lookup through the
table is noted for the running experiment (:func:`dpaudit.experiments.note_policy_module`), so
a stored output's code digest covers the algorithms it used by name.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from functools import cache
from types import ModuleType
from typing import Any

from dpaudit.experiments import note_policy_module
from dpaudit.sim.bandits import PolicyEntry
from dpaudit.validation import InvalidParameterError

__all__ = ["all_policies", "get_policy", "walk_modules"]


def walk_modules(package: ModuleType, *, public_only: bool,
                 skip: tuple[str, ...] = ()) -> list[str]:
    """Every module under ``package`` (its paper packages included), sorted by name.

    ``public_only`` leaves out modules whose own name starts with ``_`` (shared helpers of a
    paper package); ``skip`` names subpackages that declare nothing (the audit recipes).
    """
    names = []
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
        parts = info.name[len(package.__name__) + 1:].split(".")
        if parts[0] in skip or info.ispkg:
            continue
        if public_only and parts[-1].startswith("_"):
            continue
        names.append(info.name)
    return sorted(names)


@cache
def all_policies() -> dict[str, PolicyEntry]:
    """Every registered bandit policy by name: the ``POLICIES`` of each algorithm module.

    Scans every module of :mod:`dpaudit.algorithms` (``_twins`` included: broken twins are
    registered with ``faulty=True``); see :mod:`dpaudit.sim.bandits` for how to declare one.
    """
    algorithms_pkg = importlib.import_module("dpaudit.algorithms")

    registry = _PolicyTable()
    for module_name in walk_modules(algorithms_pkg, public_only=False):
        module = importlib.import_module(module_name)
        for name, entry in getattr(module, "POLICIES", {}).items():
            if name in registry:
                raise RuntimeError(f"policy name {name!r} is registered twice")
            if not isinstance(entry, PolicyEntry):
                raise TypeError(f"POLICIES[{name!r}] in {module_name} must be a PolicyEntry")
            dict.__setitem__(registry, name, entry)
            registry.modules[name] = module_name
    return registry


class _PolicyTable(dict[str, PolicyEntry]):
    """The policy registry, noting for a running experiment the modules of the policies it
    looks up (:func:`dpaudit.experiments.note_policy_module`), so a stored output's code
    digest covers the algorithms it used by name and no others."""

    def __init__(self) -> None:
        super().__init__()
        self.modules: dict[str, str] = {}

    def _note(self, name: object) -> None:
        module = self.modules.get(name) if isinstance(name, str) else None
        if module is not None:
            note_policy_module(module)

    def __getitem__(self, name: str) -> PolicyEntry:
        self._note(name)
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:
        self._note(name)
        return super().get(name, default)

    def values(self) -> Any:
        for name in self:
            self._note(name)
        return super().values()

    def items(self) -> Any:
        for name in self:
            self._note(name)
        return super().items()


def get_policy(name: str) -> PolicyEntry:
    """The registered policy ``name`` (close matches suggested otherwise)."""
    registry = all_policies()
    if name not in registry:
        close = difflib.get_close_matches(name, list(registry), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise InvalidParameterError(f"unknown policy name {name!r}{hint} (policies: "
                                    f"{', '.join(sorted(registry))})")
    return registry[name]
