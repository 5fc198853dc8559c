"""dpaudit: executable privacy and regret claims for differentially private bandit papers."""

from .results import CheckReport, ClaimResult, Finding, Method, Notion, RegretResult, Verdict
from .validation import InvalidParameterError

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
