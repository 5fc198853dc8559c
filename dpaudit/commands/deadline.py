"""``--seconds``: the wall-clock deadline of ``check``, ``audit`` and ``simulate``.

A time limit is a deadline: the command stops drawing at it and reports what it has
(:mod:`dpaudit.runtime.limits` explains the cooperative cut and why it keeps bounds valid).
Here the command's pieces are wrapped so that

* a claim, finding or regret experiment not started by the deadline is not run: the claim is
  INCONCLUSIVE "not run: deadline", the finding says so, the regret experiment is left out;
* a piece stopped inside (:class:`~dpaudit.runtime.limits.DeadlineReached`, e.g. the deadline came
  while a sampled claim was still choosing its event) is INCONCLUSIVE with the stage it
  reached and what would settle it;
* the whole command runs under :func:`~dpaudit.runtime.limits.run_with_deadline` at the deadline
  plus :data:`~dpaudit.runtime.limits.HARD_KILL_GRACE`: code that never returns to a chunk
  boundary is killed there. Nothing the killed process was computing is used; ``check`` reads
  back the pieces it had completed (saved in the ``--resume`` state as they completed) and
  reports the rest INCONCLUSIVE "not finished" (with ``--no-state``: every claim).

Pieces touched by the deadline are never saved for ``--resume`` (a resumed run must compute
them in full). The report's ``deadline`` says whether the deadline was hit and what it cut.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from dpaudit.commands.common import float_arg
from dpaudit.reports.text import deadline_line
from dpaudit.runtime import limits
from dpaudit.runtime.state import adopt_chunk_scope
from dpaudit.stats.evidence import InconclusiveEvidence
from dpaudit.stats.results import (
    CheckReport,
    ClaimResult,
    Finding,
    Method,
    Verdict,
    default_observes,
)

__all__ = ["add_seconds", "bounded_spec", "deadline_claim", "deadline_line", "deadline_report",
           "killed_check_report", "run_bounded", "skipping_store"]

_SETTLE = "to settle it: a longer --seconds (or --quick, or fewer samples)"


def add_seconds(p: argparse.ArgumentParser, what: str) -> None:
    """The ``--seconds`` option, worded once for every command that has it."""
    p.add_argument("--seconds", metavar="S", type=float_arg, default=None,
                   help=f"deadline in wall-clock seconds: {what} stop drawing at it and are "
                        "decided on what they drew (INCONCLUSIVE where that is not enough, with "
                        "what would settle it); work not started by then is not run; code "
                        f"that does not return is killed {limits.HARD_KILL_GRACE:g} s later "
                        "(default: no deadline)")


def _stopped(where: str, exc: limits.DeadlineReached | None) -> dict[str, Any]:
    data: dict[str, Any] = {"deadline_hit": True, "deadline_stage": where}
    if exc is not None:
        data["deadline_seconds"] = exc.seconds
    return data


def _not_run(what: str, killed: limits.DeadlineReached | None = None) -> InconclusiveEvidence:
    if killed is not None:
        return InconclusiveEvidence(
            f"not finished: the run was killed {limits.HARD_KILL_GRACE:g} s after the --seconds "
            f"deadline ({killed.seconds:g} s) while this {what} or one before it was running, "
            f"so nothing of it is used; {_SETTLE}",
            data={**_stopped("hard kill", killed), "not_run": True, "hard_kill": True})
    return InconclusiveEvidence(
        f"not run: deadline (--seconds {limits.deadline_seconds():g} reached before this "
        f"{what} started); {_SETTLE}", data={**_stopped("not started", None), "not_run": True})


def _cut(exc: limits.DeadlineReached, method: Method) -> InconclusiveEvidence:
    return InconclusiveEvidence(
        f"stopped at the --seconds deadline ({exc.seconds:g} s) during the {exc.where or 'run'}"
        f": no bound is reported (a selection cut short is not the one planned); {_SETTLE}",
        method=method, data=_stopped(exc.where or "run", exc))


def bounded_spec(spec: Any, *, killed: limits.DeadlineReached | None = None) -> Any:
    """``spec`` whose claims, findings and regret honour the current deadline scope.

    ``killed``: the run was killed at the hard deadline; nothing is evaluated any more (the
    pieces it completed come from the saved state), the others say they were not finished."""
    def gone() -> bool:
        return killed is not None or limits.deadline_passed()

    def claim(evaluate: Callable) -> Callable:
        def run(ctx: Any, c: Any) -> Any:
            if gone():
                return _not_run("claim", killed)
            try:
                return evaluate(ctx, c)
            except limits.DeadlineReached as exc:
                return _cut(exc, Method.SAMPLED)
        return run

    def finding(f: Any) -> Any:
        def run(ctx: Any) -> Any:
            if gone():
                why = _not_run("finding", killed)
                return Finding(f.id, f"{f.summary or f.id}: not run: deadline", f.notion,
                               details=(why.reason,), data=why.data, observes=f.observes)
            try:
                return f.evaluate(ctx)
            except limits.DeadlineReached as exc:
                return Finding(f.id, f"{f.summary or f.id}: stopped at the deadline", f.notion,
                               details=(_cut(exc, Method.SAMPLED).reason,),
                               data=_stopped(exc.where or "run", exc), observes=f.observes)
        return replace(f, evaluate=run)

    regret = spec.regret

    def bounded_regret(ctx: Any) -> Any:
        if gone():
            return None  # the engine leaves it out; the report's deadline lists it
        return regret(ctx)

    return replace(spec,
                   claims=tuple(replace(c, evaluate=claim(c.evaluate)) for c in spec.claims),
                   findings=tuple(finding(f) for f in spec.findings),
                   regret=None if regret is None else bounded_regret)


def _touched(value: Any) -> bool:
    data = getattr(value, "data", None)
    return isinstance(data, dict) and bool(data.get("deadline_hit"))


class skipping_store:  # noqa: N801 - used like a function: skipping_store(state)
    """A piece store that does not keep pieces the deadline cut (or a regret experiment left
    out at the deadline): ``--resume`` then computes them in full."""

    def __init__(self, state: Any) -> None:
        self.state = state

    def load(self, piece: str) -> Any:
        return self.state.load(piece)

    def save(self, piece: str, value: Any, seconds: float) -> None:
        if value is None or _touched(value):
            return
        self.state.save(piece, value, seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.state, name)


def deadline_report(report: CheckReport, seconds: float | None, *,
                    regret_planned: bool = False) -> CheckReport:
    """``report`` with its ``deadline`` (``None`` without ``--seconds``)."""
    if seconds is None:
        return report
    cut = [c.id for c in report.claims if _touched(c)]
    not_run = [c.id for c in report.claims if c.data.get("not_run")]
    findings = [f.id for f in report.findings if _touched(f)]
    regret_left = regret_planned and report.regret is None
    hit = bool(cut or findings or regret_left)
    return replace(report, deadline={
        "seconds": seconds, "hit": hit, "hard_kill": False, "claims_cut": cut,
        "claims_not_run": not_run, "findings_cut": findings, "regret_not_run": regret_left})


def killed_check_report(spec: Any, *, epsilon: float, delta: float, alpha: float,
                        parameters: dict[str, Any], exc: limits.DeadlineReached) -> CheckReport:
    """Every claim of ``spec`` INCONCLUSIVE: the run was killed at the hard deadline."""
    why = (f"the run was killed {limits.HARD_KILL_GRACE:g} s after the --seconds deadline "
           f"({exc.seconds:g} s; {exc.elapsed:.1f} s in all) because code did not return to a "
           "chunk boundary: nothing it measured is used")
    claims = tuple(ClaimResult(
        id=c.id, notion=c.notion, epsilon=epsilon, delta=delta,
        verdict=Verdict.INCONCLUSIVE, method=Method.SAMPLED, statement=c.statement,
        reference=c.reference, details=(why, _SETTLE),
        data=_stopped("hard kill", exc),
        observes=c.observes or default_observes(c.notion, Method.SAMPLED)) for c in spec.claims)
    return CheckReport(
        name=spec.name, description=spec.description, paper=spec.paper,
        parameters=parameters, claims=claims, seconds=exc.elapsed,
        deadline={"seconds": exc.seconds, "hit": True, "hard_kill": True,
                  "claims_cut": [c.id for c in claims], "claims_not_run": [],
                  "findings_cut": [f.id for f in spec.findings],
                  "regret_not_run": spec.regret is not None})


def deadline_claim(exc: limits.DeadlineReached, *, notion: Any, epsilon: float, delta: float,
                   alpha: float, reference: str, statement: str) -> ClaimResult:
    """The INCONCLUSIVE claim of a sampled audit stopped by the deadline (``audit``)."""
    why = (_cut(exc, Method.SAMPLED).reason if exc.where != "hard kill" else
           f"the run was killed {limits.HARD_KILL_GRACE:g} s after the --seconds deadline "
           f"({exc.seconds:g} s) because code did not return to a chunk boundary: nothing it "
           f"measured is used; {_SETTLE}")
    return ClaimResult(id="dp-claim", notion=notion, epsilon=epsilon, delta=delta,
                       verdict=Verdict.INCONCLUSIVE, method=Method.SAMPLED, statement=statement,
                       reference=reference, alpha=alpha, details=(why,),
                       data=_stopped(exc.where or "run", exc))


def run_bounded(fn: Callable[[], Any], deadline: float | None) -> Any:
    """``fn()`` (already inside the deadline scope ending at ``deadline``), killed at the
    deadline plus :data:`~dpaudit.runtime.limits.HARD_KILL_GRACE` (``DeadlineReached``)."""
    if deadline is None:
        return fn()
    left = deadline - time.monotonic() + limits.HARD_KILL_GRACE
    seconds = limits.deadline_seconds() or 0.0

    def guarded() -> tuple[bool, Any]:  # a cooperative stop inside is a value, not the kill
        try:
            with adopt_chunk_scope():  # the forked child saves its finished chunks
                return True, fn()
        except limits.DeadlineReached as exc:
            return False, exc

    try:
        done, out = limits.run_with_deadline(guarded, left,
                                             total=seconds + limits.HARD_KILL_GRACE)
    except limits.DeadlineReached as exc:
        raise limits.DeadlineReached(seconds, exc.elapsed, "hard kill") from None
    if not done:
        raise out
    return out
