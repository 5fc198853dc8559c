"""Format a :class:`~dpaudit.stats.results.CheckReport` as text or JSON (formatting only)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from dpaudit.runtime.batches import describe
from dpaudit.runtime.limits import HARD_KILL_GRACE
from dpaudit.schema import envelope
from dpaudit.stats.results import CheckReport, ClaimResult, Finding, RegretResult

__all__ = ["duration", "format_text", "to_json", "witness_text", "write_json"]


def witness_text(witness: dict[str, float]) -> str:
    """``m=1.0000000001, eps=2.5``: each value in its shortest exact form (``repr``).

    Six significant digits would print a witness just inside an open domain such as
    ``m in (1, inf)`` as ``m=1``, i.e. outside it; the shortest round-trip form cannot.
    """
    def one(v: float) -> str:
        try:
            x = float(v)
        except (TypeError, ValueError):
            return str(v)
        return "inf" if math.isinf(x) else ("nan" if math.isnan(x) else repr(x))
    return ", ".join(f"{k}={one(v)}" for k, v in witness.items())


def _num(x: float | None, digits: int = 4) -> str:
    if x is None:
        return "-"
    if math.isinf(x):
        return "inf"
    return f"{x:.{digits}g}"


def _observes(item: ClaimResult | Finding) -> str:
    return item.to_dict()["observes"]


def _claim_lines(c: ClaimResult) -> list[str]:
    lines = [
        f"  [{c.verdict.value:<12}] {c.id}  ({c.notion.value}, {c.method.value}, observes "
        f"{_observes(c)}; "
        f"eps={_num(c.epsilon)}, delta={_num(c.delta)})",
        f"      claim: {c.statement}",
        f"      paper: {c.reference}",
    ]
    if c.epsilon_lower_bound is not None:
        conf = "" if c.alpha is None else f" at confidence {1 - c.alpha:.3g}"
        lines.append(f"      epsilon lower bound: {_num(c.epsilon_lower_bound)}{conf}")
    if c.detectable_epsilon is not None:
        lines.append(f"      smallest violation this test would catch: eps > "
                     f"{_num(c.detectable_epsilon)}")
    if c.proof is not None:
        lines.append("      assumptions: " + "; ".join(c.proof.assumptions))
        for ineq in c.proof.inequalities:
            lines.append(f"      {ineq.status.value:<9} {ineq.statement}   [{ineq.tier}, "
                         f"{ineq.seconds:.2f} s]")
            if ineq.reason:
                lines.append(f"                {ineq.reason}")
    lines += [f"      {d}" for d in c.details]
    return lines


def _finding_lines(f: Finding) -> list[str]:
    lines = [f"  - {f.id} (observes {_observes(f)}): {f.summary}"]
    if f.epsilon_lower_bound is not None:
        conf = "" if f.alpha is None else f" at confidence {1 - f.alpha:.3g}"
        lines.append(f"      epsilon lower bound: {_num(f.epsilon_lower_bound)}{conf}")
    lines += [f"      {d}" for d in f.details]
    return lines


def regret_verdict_text(r: RegretResult) -> str:
    """One line: the regret verdict, the interval it was decided on and why."""
    d = r.decision
    if d is None:
        return f"{r.verdict.value} (not decided)"
    text = (f"{d.verdict.value} at alpha = {d.alpha:.3g}: interval [{_num(d.lower_limit, 6)}"
            f" ({d.lower_method} lower limit), {_num(d.ci_high, 6)}] vs bound "
            f"{_num(r.bound, 6)}")
    if d.reason:
        text += f"; {d.reason}"
    return text


def _tail_text(r: RegretResult) -> str:
    """The tail beside the mean: the share of runs above 10x the median run and the largest."""
    if r.tail_share is None or r.largest is None:
        return ""
    return (f" over {r.runs} runs; {r.tail_share:.3g} of them above 10x the median run, "
            f"the largest {_num(r.largest, 6)}")


def _regret_lines(r: RegretResult) -> list[str]:
    lines = [
        f"  {r.algorithm} on {r.instance}: T={r.horizon}, {r.runs} runs",
        f"  mean regret {_num(r.mean, 6)}" + _tail_text(r),
        f"  Student-t {r.confidence:.0%} interval {_num(r.ci_low, 6)} .. {_num(r.ci_high, 6)} "
        "(for comparison only: not valid for heavy-tailed regret; the verdict's interval is "
        "distribution-free)",
        f"  {r.bound_name}: {_num(r.bound, 6)}",
        f"  verdict: {regret_verdict_text(r)}",
    ]
    if r.batching:
        lines.append(f"  {describe(r.batching)}")
    lines += [f"  {d}" for d in r.details]
    return lines


def format_text(report: CheckReport) -> str:
    out = [
        f"dpaudit check {report.name}: {report.verdict.value}",
        f"  {report.description}",
        f"  paper: {report.paper}",
        "  parameters: " + ", ".join(f"{k}={v}" for k, v in report.parameters.items()),
        "",
        "claims:",
    ]
    split = report.alpha_split or {}
    if split.get("sampled_claims") or split.get("regret_experiments"):
        regret = " and the regret experiment" if split.get("regret_experiments") else ""
        out.append(f"  alpha = {split['alpha']:g} split over {split['sampled_claims']} sampled "
                   f"claim(s){regret} ({split['method']}): {split['per_claim_alpha']:.3g} each, "
                   "so the exit code is wrong with probability <= alpha")
    for c in report.claims:
        out += _claim_lines(c)
    if report.findings:
        out += ["", "findings (information; they do not change the exit code):"]
        for f in report.findings:
            out += _finding_lines(f)
    if report.regret is not None:
        out += ["", "regret:"] + _regret_lines(report.regret)
    elif report.regret_note:
        out += ["", f"regret: {report.regret_note}"]
    out += ["", f"verdict: {report.verdict.value} (exit code {report.exit_code}); "
            f"{duration(report.seconds)}"]
    return "\n".join(out)


def duration(seconds: float) -> str:
    """A run's wall-clock time as a person reads it: ``12.3 s``, ``45 ms`` below a tenth of a
    second (``0.0 s`` read as no work done), ``< 1 ms``."""
    if seconds >= 0.095:
        return f"{seconds:.1f} s"
    if seconds >= 0.001:
        return f"{seconds * 1000:.0f} ms"
    return "< 1 ms"


def to_json(report: CheckReport, *, command: str = "check") -> str:
    """The report in the versioned ``--json`` format (``dpaudit/schema/report-v1.json``)."""
    doc = envelope(command, report.exit_code, report.to_dict())
    return json.dumps(doc, indent=2, allow_nan=False)


def write_json(report: CheckReport, path: str | Path, *, command: str = "check") -> None:
    Path(path).write_text(to_json(report, command=command) + "\n")


def deadline_line(report: CheckReport) -> str:
    """One line saying what a ``--seconds`` deadline cut (empty without a deadline): the text
    report's last line and the HTML report's deadline paragraph."""
    d = report.deadline
    if not d:
        return ""
    if not d["hit"]:
        return f"deadline: {d['seconds']:g} s, not reached"
    parts = []
    if d["hard_kill"]:
        parts.append(f"killed {HARD_KILL_GRACE:g} s after it (code did not return)")
    if d["claims_cut"]:
        parts.append(f"claims cut or not run: {', '.join(d['claims_cut'])}")
    if d["findings_cut"]:
        parts.append(f"findings cut or not run: {', '.join(d['findings_cut'])}")
    if d["regret_not_run"]:
        parts.append("regret experiment not run")
    return f"deadline: {d['seconds']:g} s reached; " + "; ".join(parts)
