"""Sphinx roles in docstrings, rendered by the API reference (a Griffe extension of mkdocs.yml).

dpaudit's docstrings refer to other objects the Sphinx way (:class:`~dpaudit.engine.AuditSpec`,
:func:`run_check`, :mod:`dpaudit.stats.rule`, :data:`...`, :attr:`...`, :meth:`...`), which
mkdocstrings would print as raw text. Once Griffe has loaded a package, this extension rewrites
every role in every docstring into an autorefs cross-reference: the name is resolved in the
scope of the object whose docstring it is (a relative ``run_check``, an imported name, a
method of the class), and the reference is *optional*, so it links where the target is on the
site and is plain code where it is not (a private helper, an object left out of the
reference), never a warning. ``~`` shows the last component only, as in Sphinx; an explicit
title (:func:`the rule <dpaudit.stats.rule.decide>`) is kept. One place, at build time: the
docstrings keep the form the code uses everywhere.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?P<role>class|func|mod|data|attr|meth|exc|obj|const):"
                  r"`(?P<tilde>~?)(?P<body>[^`]+?)`")
TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


def _resolve(obj: griffe.Object, name: str) -> str:
    """The full path of ``name`` as seen from ``obj``'s docstring; ``name`` itself when
    Griffe cannot resolve it (an absolute dotted path is already what autorefs wants)."""
    name = name.strip().lstrip(".")
    head, _, rest = name.partition(".")
    scope: Any = obj
    while scope is not None:
        try:
            full = scope.resolve(head)
        except (griffe.NameResolutionError, AttributeError, KeyError):
            scope = scope.parent
            continue
        return f"{full}.{rest}" if rest else full
    return name


def render(obj: griffe.Object, text: str) -> str:
    """``text`` with every Sphinx role replaced by an optional autorefs cross-reference."""

    def one(match: re.Match[str]) -> str:
        body = match["body"].strip()
        titled = TITLED.match(body)
        if titled:
            title, target = titled["title"], titled["target"]
        else:
            target = body.rstrip("()")
            title = target.rsplit(".", 1)[-1] if match["tilde"] else target
            if match["role"] in ("func", "meth"):
                title += "()"
        identifier = _resolve(obj, target.rstrip("()"))
        return (f'<autoref identifier="{html.escape(identifier, quote=True)}" optional>'
                f"<code>{html.escape(title)}</code></autoref>")

    return ROLE.sub(one, text)


def _walk(obj: griffe.Object, seen: set[int]) -> None:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if obj.docstring is not None and ROLE.search(obj.docstring.value):
        obj.docstring.value = render(obj, obj.docstring.value)
    for member in obj.members.values():
        if not member.is_alias:
            _walk(member, seen)  # type: ignore[arg-type]


class SphinxRoles(griffe.Extension):
    """Rewrite the roles once the whole package is loaded (every name then resolves)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _walk(pkg, set())
