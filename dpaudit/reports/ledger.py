"""The reviewer's ledger: every declared statement of a paper with the check that tests it.

A paper's statements (privacy theorems, regret bounds, lower bounds, figure narrations) are
declared once, beside the paper's instances, as :class:`Statement` objects naming what tests
them: a claim of a registered audit (:func:`claim`), an audit's regret experiment
(:func:`regret`) or a registered figure reproduction (:func:`experiment`). The ledger is
computed, not written: :func:`build_ledger` looks every test up in the registry, runs it with
``--quick`` budgets (or reads a ``check --json`` report from a folder) and reports its status.
A test naming something not (yet) registered is reported as "not yet implemented", so a
statement gains a status as soon as another module registers the audit or experiment it names.

Statuses: ``PROVED``, ``EXACT``, ``CONSISTENT``, ``VIOLATED``, ``INCONCLUSIVE`` (a claim's
verdict; a regret experiment's verdict as :func:`dpaudit.stats.evidence.decide_regret` decided
it: ``VIOLATED`` only when the lower confidence limit of its mean is above the bound),
``reproduced`` / ``not reproduced`` / ``INCONCLUSIVE`` / ``vacuous`` (an experiment's evidence
decided by :func:`dpaudit.stats.evidence.decide_experiment`, never by the experiment), ``run``
(an experiment that makes no comparison), ``not yet implemented`` and, for a statement no
finite-T measurement decides (a liminf), ``undecidable at finite T``. Every test carries the
numbers its status rests on (``paper_value``, ``measured``, ``ci_low``, ``ci_high``, ``runs``;
``null`` where they do not apply).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpaudit.engine import run_check
from dpaudit.errors import UsageError
from dpaudit.registry import all_audits, all_experiments
from dpaudit.reports.outcomes import TestOutcome, experiment_outcome, load_stored, stored_outcome
from dpaudit.reports.text import to_json
from dpaudit.statements import KINDS, READINGS, Statement, TestRef, claim, experiment, regret
from dpaudit.stats.evidence import decide_regret, regret_evidence
from dpaudit.stats.results import RegretResult
from dpaudit.stats.rng import DEFAULT_SEED

__all__ = [
    "KINDS",
    "NOT_IMPLEMENTED",
    "STATUS_ORDER",
    "READINGS",
    "LedgerRow",
    "Runner",
    "Statement",
    "TestRef",
    "TestStatus",
    "UNDECIDABLE",
    "build_ledger",
    "claim",
    "experiment",
    "format_markdown",
    "format_text",
    "ledger_json",
    "regret",
    "statement_status",
]

NOT_IMPLEMENTED = "not yet implemented"
#: the status of a statement no finite-T measurement decides (:attr:`Statement.undecidable`,
#: e.g. a liminf as T -> inf), shown beside what its tests measured
UNDECIDABLE = "undecidable at finite T"
# worst first: a statement's status is the worst status among its tests
_ORDER = ("VIOLATED", "not reproduced", "INCONCLUSIVE", NOT_IMPLEMENTED, "vacuous",
          UNDECIDABLE, "run", "CONSISTENT", "reproduced", "EXACT", "PROVED")
#: statuses worst first (a statement's status is the worst of its tests')
STATUS_ORDER = _ORDER
#: the numbers a test's status rests on (``claims --json``)
NUMBERS = ("paper_value", "measured", "ci_low", "ci_high", "runs")
#: what the rule of :mod:`dpaudit.stats.rule` adds for an experiment (``claims --json``):
#: how the interval was made, whether the status held on the confirmation at 4x the runs,
#: the share of runs above 10x the median, the largest run, the runs that would settle an
#: undecided status and the confirmation's runs
RULE_FIELDS = ("interval_method", "stable", "tail_share", "largest", "runs_to_settle",
               "confirm_runs")


@dataclass(frozen=True)
class TestStatus:
    """A test's status, a one-line detail and ``numbers`` (keys of :data:`NUMBERS`)."""

    test: TestRef
    status: str
    detail: str = ""
    numbers: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"test": self.test.label, "command": self.test.command,
                               "status": self.status, "detail": self.detail}
        out.update({k: _finite(self.numbers.get(k)) for k in NUMBERS})
        for k in RULE_FIELDS:
            v = self.numbers.get(k)
            out[k] = v if isinstance(v, str | bool) or v is None else _finite(v)
        return out


def _finite(x: float | int | None) -> float | int | None:
    if x is None or isinstance(x, int):
        return x
    return float(x) if math.isfinite(float(x)) else None


@dataclass(frozen=True)
class LedgerRow:
    statement: Statement
    tests: tuple[TestStatus, ...] = field(default_factory=tuple)

    @property
    def status(self) -> str:
        return statement_status(self.statement, [t.status for t in self.tests])

    def to_dict(self) -> dict[str, Any]:
        s = self.statement
        return {"paper": s.paper, "location": s.location, "kind": s.kind,
                "reading": s.reading, "statement": s.text, "note": s.note,
                "quote": s.quote, "settle": s.settle, "undecidable": s.undecidable,
                "status": self.status,
                "tests": [t.to_dict() for t in self.tests]}


def statement_status(statement: Statement, statuses: Sequence[str]) -> str:
    """A statement's status from its tests' statuses: the worst of them (:data:`STATUS_ORDER`;
    none: "not yet implemented"). A statement no finite-T measurement decides
    (:attr:`Statement.undecidable`) is "undecidable at finite T" whatever its tests measured,
    unless a test contradicts it (VIOLATED, not reproduced) or is missing."""
    if not statuses:
        return NOT_IMPLEMENTED
    worst = min(statuses, key=_ORDER.index)
    if statement.undecidable and worst not in ("VIOLATED", "not reproduced", NOT_IMPLEMENTED):
        return UNDECIDABLE
    return worst


class Runner:
    """Runs (and caches) the checks and reproductions a ledger needs.

    ``source``: a folder of ``check --json`` reports named ``<audit>.json`` to read instead
    of running; an audit without a report there is run. ``save``: a folder where each check
    run here is written as ``<audit>.json`` as soon as it completes, so an interrupted ledger
    resumes with ``--from DIR --save DIR``. Experiments are run with ``--quick`` budgets.
    """

    def __init__(self, *, source: Path | None = None, seed: int | None = None,
                 save: Path | None = None, stored: Path | None = None) -> None:
        self.source = source
        self.save = save
        #: a folder of stored reproductions (``docs/``): an experiment with a stored output
        #: whose code is unchanged is decided from it (the paper's settings) instead of run
        self.stored = stored
        self._store: dict[str, Any] | None = None
        self.seed = DEFAULT_SEED if seed is None else seed
        self._checks: dict[str, dict[str, Any]] = {}
        self._experiments: dict[str, TestOutcome] = {}

    def to_run(self, ref: TestRef) -> bool:
        """Whether :meth:`check` / :meth:`experiment` would run ``ref``'s test (registered,
        not read from ``source`` or a fresh stored output, not done yet): what ``claims``
        schedules on its workers before the ledger reads the results."""
        if ref.kind == "experiment":
            exp = all_experiments().get(ref.name)
            if exp is None or ref.name in self._experiments:
                return False
            if self.stored is not None:
                if self._store is None:
                    self._store = load_stored(self.stored)
                so = self._store.get(exp.stem)
                if so is not None and so.fresh is True:
                    return False
            return True
        if ref.name in self._checks or ref.name not in all_audits():
            return False
        return self.source is None or not (self.source / f"{ref.name}.json").is_file()

    def keep_check(self, name: str, report: dict[str, Any], text: str) -> None:
        """The result of ``check NAME --quick`` computed elsewhere (``text``: its JSON)."""
        self._checks[name] = report
        if self.save is not None:
            self.save.mkdir(parents=True, exist_ok=True)
            (self.save / f"{name}.json").write_text(text + "\n")

    def keep_experiment(self, name: str, outcome: TestOutcome) -> None:
        """The outcome of ``reproduce NAME --quick`` computed elsewhere."""
        self._experiments[name] = outcome

    def check(self, name: str) -> dict[str, Any] | None:
        """The JSON form of ``check NAME --quick`` (``None``: not registered)."""
        if name not in self._checks:
            path = None if self.source is None else self.source / f"{name}.json"
            if path is not None and path.is_file():
                try:
                    self._checks[name] = json.loads(path.read_text())
                except (OSError, ValueError) as exc:
                    raise UsageError(f"cannot read {str(path)!r}: {exc}") from None
            else:
                if name not in all_audits():
                    return None
                self.keep_check(name, *quick_check(name, self.seed))
        return self._checks[name]

    def experiment(self, name: str) -> TestOutcome | None:
        """``(status, detail, numbers)`` of ``reproduce NAME --quick``, its evidence decided
        by :func:`~dpaudit.stats.evidence.decide_experiment` (``None``: not registered)."""
        if name not in self._experiments:
            exp = all_experiments().get(name)
            if exp is None:
                return None
            if self.stored is not None:
                if self._store is None:
                    self._store = load_stored(self.stored)
                so = self._store.get(exp.stem)
                got = None if so is None or so.fresh is not True else stored_outcome(so)
                if got is not None:
                    self._experiments[name] = got
                    return got
            self._experiments[name] = quick_experiment(name, self.seed)
        return self._experiments[name]


def quick_check(name: str, seed: int) -> tuple[dict[str, Any], str]:
    """``check NAME --quick`` at ``seed``: its JSON form and JSON text."""
    report = run_check(all_audits()[name], seed=seed, quick=True)
    return report.to_dict(), to_json(report)


def quick_experiment(name: str, seed: int) -> TestOutcome:
    """``reproduce NAME --quick`` at ``seed``, decided (with its confirmation when its
    evidence needs one)."""
    exp = all_experiments()[name]
    settings = exp.settings(seed=seed, quick=True)
    out = exp.run(settings)
    ev = getattr(out, "evidence", None)
    confirm = None
    if ev is not None and getattr(ev, "needs_confirmation", False):
        confirm = exp.run(settings.confirmation())
    return experiment_outcome(out, confirm)


def _test_status(ref: TestRef, runner: Runner) -> TestStatus:
    if ref.kind == "experiment":
        got = runner.experiment(ref.name)
        if got is None:
            return TestStatus(ref, NOT_IMPLEMENTED, f"no experiment {ref.name!r} registered")
        return TestStatus(ref, got[0], got[1], got[2])
    report = runner.check(ref.name)
    if report is None:
        return TestStatus(ref, NOT_IMPLEMENTED, f"no audit {ref.name!r} registered")
    if ref.kind == "claim":
        for c in report.get("claims", ()):
            if c.get("id") == ref.claim_id:
                lb = c.get("epsilon_lower_bound")
                extra = "" if lb is None else f"; epsilon lower bound {lb:.4g}"
                return TestStatus(ref, c["verdict"], f"eps={c['epsilon']:g}, "
                                  f"delta={c['delta']:g}{extra}")
        return TestStatus(ref, NOT_IMPLEMENTED, f"audit {ref.name!r} has no claim "
                          f"{ref.claim_id!r}")
    r = report.get("regret")
    if r is None:
        return TestStatus(ref, NOT_IMPLEMENTED, f"audit {ref.name!r} has no regret experiment")
    status, low, high = _regret_verdict(r)
    bound = "no bound" if r["bound"] is None else f"{r['bound_name']} {r['bound']:.4g}"
    interval = "" if low is None or high is None else f", interval [{low:.4g}, {high:.4g}]"
    settle = ("" if r.get("runs_to_settle") is None
              else f"; about {r['runs_to_settle']} runs would settle it")
    tail = "" if r.get("tail_share") is None else (
        f"; {r['tail_share']:.3g} of runs above 10x the median, largest {r['largest']:.4g}")
    return TestStatus(ref, status, f"mean regret {r['mean']:.4g} at T={r['horizon']} "
                      f"({r['runs']} runs{interval}) vs {bound}{settle}{tail}",
                      {"paper_value": r["bound"], "measured": r["mean"], "ci_low": low,
                       "ci_high": high, "runs": r["runs"],
                       "interval_method": r.get("verdict_lower_method"),
                       "stable": None, "tail_share": r.get("tail_share"),
                       "largest": r.get("largest"),
                       "runs_to_settle": r.get("runs_to_settle"), "confirm_runs": None})


def _regret_verdict(r: dict[str, Any]) -> tuple[str, float | None, float | None]:
    """The regret section's decided verdict and the interval it rests on. A report written
    before the verdict existed is decided here by the same rule, from its numbers (never
    from ``within_bound``, a point comparison)."""
    if "verdict" in r:
        low = r.get("verdict_lower_limit", r.get("ci_low"))
        return str(r["verdict"]), low, r.get("verdict_ci_high", r.get("ci_high"))
    if r.get("bound") is None or r.get("ci_low") is None or r.get("ci_high") is None:
        return "INCONCLUSIVE", r.get("ci_low"), r.get("ci_high")
    res = RegretResult(str(r.get("instance", "")), str(r.get("algorithm", "")),
                       int(r["horizon"]), int(r["runs"]), float(r["mean"]), float(r["ci_low"]),
                       float(r["ci_high"]), float(r.get("confidence", 0.95)), r["bound"],
                       str(r.get("bound_name", "")), r.get("within_bound"))
    d = decide_regret(regret_evidence(res), alpha=1.0 - res.confidence)
    return d.verdict.value, d.lower_limit, d.ci_high


def build_ledger(statements: Iterable[Statement], *, runner: Runner | None = None,
                 progress: Callable[[str], None] | None = None) -> tuple[LedgerRow, ...]:
    """One :class:`LedgerRow` per statement, each test's status computed by ``runner``."""
    runner = Runner() if runner is None else runner
    rows = []
    for st in statements:
        tests = []
        for ref in st.tests:
            if progress is not None:
                progress(ref.label)
            tests.append(_test_status(ref, runner))
        rows.append(LedgerRow(st, tuple(tests)))
    return tuple(rows)


def format_text(rows: Sequence[LedgerRow]) -> str:
    out: list[str] = []
    paper: str | None = None
    for row in rows:
        s = row.statement
        if s.paper != paper:
            paper = s.paper
            out += ["" if out else "", f"{paper}"] if out else [f"{paper}"]
        out.append(f"  [{row.status}] {s.location} ({s.kind}; {s.reading}): {s.text}")
        for t in row.tests:
            out.append(f"      {t.status:<14} {t.test.label}" + (f"  ({t.detail})"
                                                                 if t.detail else ""))
        if s.note:
            out.append(f"      note: {s.note}")
    return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def format_markdown(rows: Sequence[LedgerRow]) -> str:
    out, paper = [], None
    for row in rows:
        s = row.statement
        if s.paper != paper:
            paper = s.paper
            out += ["", f"## {paper}", "",
                    "| location | kind | stated as | statement | tested by | status |",
                    "|---|---|---|---|---|---|"]
        tests = "<br>".join(f"`{t.test.label}` ({t.status})" for t in row.tests) or "-"
        text = _md(s.text) + (f" *Note: {_md(s.note)}*" if s.note else "")
        out.append(f"| {s.location} | {s.kind} | {s.reading} | {text} | {tests} | "
                   f"**{row.status}** |")
    return "\n".join(out).lstrip("\n")


def ledger_json(rows: Sequence[LedgerRow]) -> list[dict[str, Any]]:
    return [r.to_dict() for r in rows]
