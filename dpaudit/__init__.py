"""dpaudit: executable privacy and regret claims for differentially private bandit papers."""

from importlib import metadata as _metadata

# set before any submodule is imported, so every module may import it at module level
try:  # one source of truth: the version in pyproject.toml, read from the installed metadata
    __version__ = _metadata.version("dpaudit")
except _metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0.1.0"

from dpaudit.stats.results import (  # noqa: E402 - after __version__, which they may import
    CheckReport,
    ClaimResult,
    Finding,
    Method,
    Notion,
    RegretResult,
    Verdict,
)
from dpaudit.validation import InvalidParameterError  # noqa: E402

# What a user's audit file needs, importable from the top (``from dpaudit import AuditSpec``),
# resolved on first use so that ``import dpaudit`` stays light (the engine is not loaded).
_LAZY = {
    "AuditSpec": "dpaudit.engine", "ClaimSpec": "dpaudit.engine",
    "ExactEvidence": "dpaudit.stats.evidence", "blackbox_evaluator": "dpaudit.stats.blackbox",
    "assert_private": "dpaudit.testing",
    "noise_primitive": "dpaudit.usercode.annotate",
    "equal_on_neighbours": "dpaudit.usercode.annotate",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'dpaudit' has no attribute {name!r}")


__all__ = [
    "AuditSpec",
    "CheckReport",
    "ClaimSpec",
    "ExactEvidence",
    "ClaimResult",
    "Finding",
    "InvalidParameterError",
    "Method",
    "Notion",
    "RegretResult",
    "Verdict",
    "__version__",
    "assert_private",
    "blackbox_evaluator",
    "equal_on_neighbours",
    "noise_primitive",
]
