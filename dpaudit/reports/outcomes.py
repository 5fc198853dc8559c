"""Outcomes of experiments: an experiment's output decided under the rule, and the stored
reproductions under ``docs/`` decided from their stored evidence (when the code that made them
is the code now). Used by the ledger (:mod:`dpaudit.reports.ledger`) and the referee's report
(:mod:`dpaudit.reports.referee`), which re-export these names.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpaudit import experiments
from dpaudit.registry import all_experiments
from dpaudit.stats.evidence import ExperimentEvidence, decide_experiment

__all__ = ["StoredOutput", "TestOutcome", "experiment_outcome", "load_stored",
           "stored_outcome"]

TestOutcome = tuple[str, str, dict[str, Any]]


def experiment_outcome(out: Any, confirm: Any = None) -> TestOutcome:
    """Status, detail and numbers of an experiment's output: its evidence decided by
    :func:`~dpaudit.stats.evidence.decide_experiment` under the rule, with ``confirm`` (the
    same experiment at 4x the runs with a fresh seed) as the confirmation of its cells on
    fixed-run intervals (without one they decide nothing; cells on anytime-valid intervals
    need none). No evidence: ``run``."""
    narration = getattr(out, "verdict", "") or ""
    ev = getattr(out, "evidence", None)
    if not isinstance(ev, ExperimentEvidence):
        return "run", narration, {}
    cev = getattr(confirm, "evidence", None)
    d = decide_experiment(ev, confirm=cev if isinstance(cev, ExperimentEvidence) else None,
                          confirm_required=True)
    numbers: dict[str, Any] = {"interval_method": d.interval_method or None,
                               "stable": d.stable, "tail_share": d.tail_share,
                               "runs_to_settle": d.runs_to_settle,
                               "confirm_runs": d.confirm_runs, "largest": None}
    tails = ""
    if d.key is not None:
        m = d.key.measurement
        # the key cell's own tail (for a ratio, the side with the larger share, its share and
        # its largest run together), not the largest share of any cell beside this one's run
        numbers.update({"paper_value": m.paper_value, "measured": m.measured,
                        "ci_low": d.key.ci_low, "ci_high": d.key.ci_high, "runs": m.runs,
                        "largest": m.largest, "tail_share": m.tail_share})
        tails = m.tail_text()
        numbers["tails"] = tails or None
    where = "" if d.key is None else (
        f"; key cell {d.key.measurement.label}: measured {d.key.measurement.measured:.4g} "
        f"[{d.key.ci_low:.4g}, {d.key.ci_high:.4g}] vs paper {d.key.measurement.direction} "
        f"{d.key.measurement.paper_value:.4g}" + (f" (tails: {tails})" if tails else ""))
    detail = f"{narration}; {d.reason}{where}" if narration else f"{d.reason}{where}"
    return d.status, detail, numbers


@dataclass(frozen=True)
class StoredOutput:
    """One stored reproduction: ``md`` (its page), ``doc`` (``<stem>.json``, ``None`` for an
    output written before the rule stored its evidence)."""

    stem: str
    md: Path
    doc: dict[str, Any] | None

    @property
    def text(self) -> str:
        return self.md.read_text()

    @property
    def fresh(self) -> bool | None:
        """The code that produced the numbers is the code now (``None``: no digest stored):
        the modules it recorded have the same source, and the experiment's module imports no
        module it did not record."""
        if self.doc is None or "code_digest" not in self.doc:
            return None
        exp = all_experiments().get(str(self.doc.get("experiment", "")))
        if exp is None:
            return None
        recorded = [str(m) for m in self.doc.get("modules", ())]
        if not set(experiments.code_digest_of(*exp.modules)[1]) <= set(recorded):
            return False
        return experiments.digest_of_modules(recorded) == self.doc["code_digest"]

    @property
    def command(self) -> str:
        """The command that made these numbers: the options the page's own "Reproduce" line
        gives (a run continued to a decision past the default cap names its ``--max-runs``;
        without it the same command stops at the cap, with other numbers)."""
        d = self.doc or {}
        batching = d.get("batching") or {}
        max_runs, max_seconds = batching.get("max_runs"), batching.get("max_seconds")
        runs = d.get("runs")
        return (f"python -m dpaudit reproduce {d.get('experiment', self.stem)}"
                + (" --quick" if d.get("quick") else "")
                + f" --horizon {d.get('horizon')} --runs {runs} --seed {d.get('seed')}"
                + ("" if max_runs is None or not isinstance(runs, int)
                   or max_runs == experiments.RUN_CAP_FACTOR * runs
                   else f" --max-runs {max_runs}")
                + ("" if max_seconds is None else f" --max-seconds {max_seconds:g}"))


def load_stored(root: Path) -> dict[str, StoredOutput]:
    """Every stored reproduction under ``root`` by stem: ``<stem>.md`` files whose first line
    is a Markdown title, with ``<stem>.json`` beside them when it exists."""
    found: dict[str, StoredOutput] = {}
    for path in sorted(root.rglob("*.md")):
        if path.stem in found:
            continue
        if not path.read_text().split("\n", 1)[0].startswith("# "):
            continue
        js = path.with_suffix(".json")
        doc = None
        if js.is_file():
            try:
                doc = json.loads(js.read_text())
            except ValueError:
                doc = None
        found[path.stem] = StoredOutput(path.stem, path, doc if isinstance(doc, dict) else None)
    return found


def stored_outcome(out: StoredOutput) -> TestOutcome | None:
    """Status, detail and numbers of a stored reproduction, decided from its stored evidence
    by the rule of today (``None``: no evidence stored; ``("run", ...)``: evidence that
    compares nothing)."""
    if out.doc is None:
        return None
    ev_doc, conf_doc = out.doc.get("evidence"), out.doc.get("confirm_evidence")
    if ev_doc is None:
        return ("run", "", {})

    class _Out:  # what experiment_outcome reads of an output
        def __init__(self, doc: dict[str, Any] | None) -> None:
            self.verdict = ""
            self.evidence = None if doc is None else ExperimentEvidence.from_dict(doc)

    status, detail, numbers = experiment_outcome(_Out(ev_doc), _Out(conf_doc)
                                                 if conf_doc is not None else None)
    where = (f"stored at T = {out.doc.get('horizon')}, {out.doc.get('runs')} runs, seed "
             f"{out.doc.get('seed')}")
    return status, f"{where}; {detail}", numbers
