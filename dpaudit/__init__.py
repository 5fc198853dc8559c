"""dpaudit: executable privacy and regret claims for differentially private bandit papers."""

from importlib import metadata as _metadata

from .results import CheckReport, ClaimResult, Finding, Method, Notion, RegretResult, Verdict
from .validation import InvalidParameterError

try:  # one source of truth: the version in pyproject.toml, read from the installed metadata
    __version__ = _metadata.version("dpaudit")
except _metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0.1.0"


__all__ = [
    "CheckReport",
    "ClaimResult",
    "Finding",
    "InvalidParameterError",
    "Method",
    "Notion",
    "RegretResult",
    "Verdict",
    "__version__",
]
