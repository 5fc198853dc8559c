"""The one versioned JSON format of ``--json`` (``check``, ``audit``, ``claims``).

Every document carries ``schema_version`` (an integer, bumped on any incompatible change),
``command``, ``dpaudit_version`` and ``exit_code`` (the process's exit code), beside the
command's payload. The JSON Schema is ``report-v1.json`` in this folder (draft 2020-12);
:func:`load_schema` reads it and a test validates real outputs against it. Infinite numbers are
written as ``null`` (JSON has no inf); NaN never reaches a report.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from dpaudit import __version__

__all__ = ["SCHEMA_VERSION", "envelope", "load_schema", "to_json_text"]

SCHEMA_VERSION = 1


def envelope(command: str, exit_code: int, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` with the version, command and exit-code fields every document carries."""
    return {"schema_version": SCHEMA_VERSION, "command": command,
            "dpaudit_version": __version__, "exit_code": int(exit_code), **payload}


def to_json_text(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, allow_nan=False)


def load_schema(version: int = SCHEMA_VERSION) -> dict[str, Any]:
    """The JSON Schema of ``--json`` output, version ``version``."""
    text = resources.files(__name__).joinpath(f"report-v{version}.json").read_text()
    return json.loads(text)
