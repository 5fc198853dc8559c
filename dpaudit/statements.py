"""What a paper states and what tests it: the declarations of the reviewer's ledger.

A paper package declares its statements (privacy theorems, regret bounds, lower bounds, figure
narrations) once, in its ``statements.py``, as :class:`Statement` objects naming what tests
them: a claim of a registered audit (:func:`claim`), an audit's regret experiment
(:func:`regret`) or a registered figure reproduction (:func:`experiment`). The registry
collects them; :mod:`dpaudit.reports.ledger` runs their tests and reports each statement's
status (and re-exports these names, the path the paper packages import them from).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "READINGS", "Statement", "TestRef", "claim", "experiment", "regret"]

KINDS = ("privacy", "regret upper bound", "lower bound", "experiment")
READINGS = ("sufficient (theorem)", "necessary (theorem)", "figure narration")


@dataclass(frozen=True)
class TestRef:
    """What tests a statement: ``kind`` is ``"claim"``, ``"regret"`` or ``"experiment"``."""

    kind: str
    name: str
    claim_id: str = ""

    @property
    def label(self) -> str:
        if self.kind == "claim":
            return f"check {self.name}: {self.claim_id}"
        if self.kind == "regret":
            return f"check {self.name}: regret"
        return f"reproduce {self.name}"

    @property
    def command(self) -> str:
        if self.kind == "experiment":
            return f"python -m dpaudit reproduce {self.name} --quick"
        return f"python -m dpaudit check {self.name} --quick"


def claim(audit: str, claim_id: str) -> TestRef:
    """The claim ``claim_id`` of the audit registered as ``audit``."""
    return TestRef("claim", audit, claim_id)


def regret(audit: str) -> TestRef:
    """The regret experiment of the audit registered as ``audit`` (against its bound)."""
    return TestRef("regret", audit)


def experiment(name: str) -> TestRef:
    """The figure reproduction registered as ``name``."""
    return TestRef("experiment", name)


@dataclass(frozen=True)
class Statement:
    """One statement of a paper, where it is printed and what tests it.

    ``location``: theorem, equation or figure (``"Theorem 7"``); ``kind``: one of
    :data:`KINDS`; ``reading``: one of :data:`READINGS` (does the paper state it as a
    sufficient guarantee, a necessary condition, or as figure narration); ``tests``: what
    tests it (empty: nothing yet); ``note``: a finding or caveat (see ``docs/findings.md``).
    ``quote``: the paper's own words at ``location``, quoted from its text where readable
    (``text`` is dpaudit's summary of them); ``settle``: for a statement left INCONCLUSIVE,
    what would settle it. ``undecidable``: why no finite-``T`` measurement can decide the
    statement (a ``liminf`` as ``T -> inf``); the ledger then reports it as "undecidable at
    finite T" beside what its tests measured, unless a test contradicts it or is missing.
    """

    paper: str
    location: str
    kind: str
    reading: str
    text: str
    tests: tuple[TestRef, ...] = ()
    note: str = ""
    quote: str = ""
    settle: str = ""
    undecidable: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Statement kind {self.kind!r} is not one of {KINDS}")
        if self.reading not in READINGS:
            raise ValueError(f"Statement reading {self.reading!r} is not one of {READINGS}")
