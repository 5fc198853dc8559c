"""JUnit XML for CI systems: each claim of a report is one test case (``--junit PATH``).

``VIOLATED`` is a ``<failure>`` (message: the verdict, the epsilon lower bound and the claim),
``INCONCLUSIVE`` is ``<skipped>`` with the reason, every other verdict passes; the verdict,
method and bound are also written as ``<properties>`` of the test case. A regret experiment
with a bound is one more test case, ``regret``, with its decided verdict and interval.
Formatting only.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from dpaudit.reports.text import regret_verdict_text, witness_text
from dpaudit.stats.results import CheckReport, ClaimResult, RegretResult, Verdict

__all__ = ["to_junit"]


def _message(c: ClaimResult) -> str:
    parts = [f"{c.verdict.value}: {c.statement} (claimed eps={c.epsilon:g}, delta={c.delta:g})"]
    if c.epsilon_lower_bound is not None:
        conf = "" if c.alpha is None else f" at confidence {1 - c.alpha:.3g}"
        parts.append(f"epsilon lower bound {c.epsilon_lower_bound:.4g}{conf}")
    if c.proof is not None and c.proof.witness:
        parts.append("witness " + witness_text(c.proof.witness))
    return "; ".join(parts)


def to_junit(report: CheckReport, *, command: str = "check") -> str:
    """The report as one JUnit ``<testsuite>`` inside ``<testsuites>``."""
    regret = report.regret if report.regret is not None and report.regret.bound is not None \
        else None
    verdicts = [c.verdict for c in report.claims] + ([] if regret is None else [regret.verdict])
    failures = sum(v is Verdict.VIOLATED for v in verdicts)
    skipped = sum(v is Verdict.INCONCLUSIVE for v in verdicts)
    root = ET.Element("testsuites", name=f"dpaudit {command}")
    suite = ET.SubElement(root, "testsuite", name=f"dpaudit {command} {report.name}",
                          tests=str(len(verdicts)), failures=str(failures), errors="0",
                          skipped=str(skipped), time=f"{report.seconds:.3f}")
    for c in report.claims:
        case = ET.SubElement(suite, "testcase", classname=f"dpaudit.{report.name}", name=c.id,
                             time=f"{c.seconds:.3f}")
        props = ET.SubElement(case, "properties")
        for key, value in (("verdict", c.verdict.value), ("method", c.method.value),
                           ("reference", c.reference),
                           ("epsilon_lower_bound", c.epsilon_lower_bound)):
            if value is not None:
                ET.SubElement(props, "property", name=key, value=str(value))
        if c.verdict is Verdict.VIOLATED:
            fail = ET.SubElement(case, "failure", message=_message(c), type="VIOLATED")
            fail.text = "\n".join(c.details)
        elif c.verdict is Verdict.INCONCLUSIVE:
            reason = "; ".join(c.details) or "not enough evidence to decide"
            ET.SubElement(case, "skipped", message=f"INCONCLUSIVE: {reason}")
    if regret is not None:
        _regret_case(suite, report.name, regret)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _regret_case(suite: ET.Element, name: str, r: RegretResult) -> None:
    case = ET.SubElement(suite, "testcase", classname=f"dpaudit.{name}", name="regret",
                         time=f"{r.seconds:.3f}")
    props = ET.SubElement(case, "properties")
    for key, value in (("verdict", r.verdict.value), ("bound", r.bound),
                       ("mean", r.mean), ("runs", r.runs)):
        ET.SubElement(props, "property", name=key, value=str(value))
    message = f"{r.bound_name}: {regret_verdict_text(r)}"
    if r.verdict is Verdict.VIOLATED:
        ET.SubElement(case, "failure", message=message, type="VIOLATED")
    elif r.verdict is Verdict.INCONCLUSIVE:
        ET.SubElement(case, "skipped", message=message)
