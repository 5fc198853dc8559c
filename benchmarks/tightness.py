"""The tightness table (issue 22, item 4): per algorithm and level, the sampled lower bound,
the exact figure where there is one, their ratio, and the smallest budget multiple whose
broken twin is VIOLATED.

Registry-driven, no typed numbers: the names, ``faulty`` and (when the registry gives it)
``true_epsilon`` come from ``python -m dpaudit list --json``; every number from the JSON
report of ``python -m dpaudit check NAME --quick --no-regret --json`` (stored, one file per
name, in ``benchmarks/results/tightness/``, so the table can be rebuilt from them).

* **level**: a claim's or finding's ``observes`` field when the report has one (``releases``,
  ``actions``, ``next action``, ``reports``, ``trajectory``), else ``data.observes``, else
  inferred from the notion (``per-step`` -> next action, ``ldp`` -> reports, ``global`` ->
  actions, or releases for a bare mechanism (``mechanism`` in ``list --json``), or trajectory
  when its id says so) and marked ``*``;
* **sampled**: the largest ``epsilon_lower_bound`` of the sampled claims (and sampled
  findings: those with an ``alpha``) at that level;
* **exact**: the largest exact figure at that level: the ``epsilon_lower_bound`` of exact
  claims (the engine reports their exact eps(delta) there), ``data.exact_epsilon`` of exact
  findings. Where it states a horizon (``data.horizon``), the sampled column leaves out the
  bounds that state another horizon, so the ratio compares like with like;
* **twin multiple**: over the twins of the algorithm (``NAME-...``, ``faulty``) whose check
  is VIOLATED, the smallest ``true_epsilon / eps``; twins without ``true_epsilon`` are
  counted as caught or missed only. A twin whose ``true_epsilon`` is within the claim and
  which is not VIOLATED is counted apart ("N within the claim, not VIOLATED"); were one
  VIOLATED, that false alarm would show among the caught, with a multiple below 1;
* **own exact**: a sampled claim that states the exact loss of the release it attacks
  (``data.exact_release_loss``) is compared with that figure, not with the level's largest.

Run: ``python benchmarks/tightness.py [--names a,b] [--from-reports] [--readme]``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REPORTS = HERE / "results" / "tightness"
LEVELS = ("releases", "actions", "next action", "reports", "trajectory")
_NOTION_LEVEL = {"per-step": "next action", "ldp": "reports", "global": "actions"}


@dataclass(frozen=True)
class TightRow:
    algorithm: str
    level: str
    inferred: bool
    sampled: float | None
    exact: float | None
    ratio: float | None
    twin_multiple: float | None
    twins: str
    epsilon: float | None
    horizon: int | None = None
    #: the largest exact loss read from the running code's own draws at that level (claims
    #: ``*-code-exact``: gray-box, so a bug in the code shows in it, unlike a figure computed
    #: from the declared parameters)
    code_exact: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def listing() -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "dpaudit", "list", "--json"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def run_report(name: str, directory: Path = REPORTS) -> dict:
    """``check NAME --quick --no-regret --json``; the report (also stored in ``directory``)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    proc = subprocess.run([sys.executable, "-m", "dpaudit", "check", name, "--quick",
                           "--no-regret", "--json", str(path)], cwd=ROOT, capture_output=True,
                          text=True)
    if proc.returncode not in (0, 1) or not path.exists():
        return {"name": name, "error": f"exit {proc.returncode}: "
                + (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(path.read_text())


def level_of(item: dict) -> tuple[str, bool]:
    """The level an item observes, and whether it was inferred (module docstring)."""
    if item.get("observes"):
        return str(item["observes"]), False
    data = item.get("data") or {}
    if isinstance(data, dict) and data.get("observes"):
        return str(data["observes"]), False
    if "trajectory" in str(item.get("id", "")):
        return "trajectory", True
    return _NOTION_LEVEL.get(str(item.get("notion")), "actions"), True


def _figures(report: dict) -> dict[str, dict]:
    """Per level: ``(figure, horizon)`` of the sampled bounds and exact figures of a report
    (``horizon`` is ``data.horizon`` when the item states one, else ``None``)."""
    levels: dict[str, dict] = {}
    items = [(c, "claim") for c in report.get("claims", [])] + \
        [(f, "finding") for f in report.get("findings", [])]
    for item, kind in items:
        level, inferred = level_of(item)
        slot = levels.setdefault(level, {"sampled": [], "exact": [], "inferred": inferred})
        slot["inferred"] = slot["inferred"] and inferred
        data = item.get("data") or {}
        horizon = data.get("horizon") if isinstance(data, dict) else None
        bound = item.get("epsilon_lower_bound")
        if kind == "claim" and item.get("method") == "sampled" or \
                kind == "finding" and item.get("alpha") is not None:
            if bound is not None:
                slot["sampled"].append((float(bound), horizon))
                own = data.get("exact_release_loss") if isinstance(data, dict) else None
                if own is not None:  # the exact loss of the very release this claim attacks
                    slot.setdefault("own", []).append((float(bound), float(own)))
        elif kind == "claim" and item.get("method") == "exact":
            if bound is not None:  # the engine reports an exact claim's eps(delta) here
                slot["exact"].append((float(bound), horizon))
                if str(item.get("id", "")).endswith("code-exact"):
                    slot.setdefault("code", []).append(float(bound))
        elif kind == "finding" and data.get("exact_epsilon") is not None:
            slot["exact"].append((float(data["exact_epsilon"]), horizon))
    return levels


def _pair_up(slot: dict) -> tuple[float | None, float | None, int | None]:
    """``(sampled, exact, horizon)`` of one level: the largest exact figure, and the largest
    sampled bound not stated to be at another horizon (when the exact figure states one, a
    bound that states a different ``data.horizon`` is left out: not comparable)."""
    own = max(slot.get("own", []), default=None, key=lambda v: v[0])
    best = max(slot["sampled"], default=None, key=lambda v: v[0])
    if own is not None and best is not None and own[0] >= best[0]:
        # the best sampled bound states the exact loss of the release it attacks: compare
        # like with like (a level's largest exact figure may be another release's, e.g.
        # DP-UCB-Int's whole release sequence against one attacked canary release)
        return own[0], own[1], None
    exact = max(slot["exact"], default=None, key=lambda v: v[0])
    if exact is None:
        sampled = max(slot["sampled"], default=None, key=lambda v: v[0])
        return (None if sampled is None else sampled[0]), None, None
    same = [v for v in slot["sampled"] if exact[1] is None or v[1] in (None, exact[1])]
    sampled = max(same, default=None, key=lambda v: v[0])
    return (None if sampled is None else sampled[0]), exact[0], exact[1]


def table_rows(reports: dict[str, dict], names: list[dict]) -> list[TightRow]:
    """The table from reports (by name) and the ``list --json`` entries."""
    faulty = {e["name"]: e for e in names if e.get("faulty")}
    sound = [e["name"] for e in names if not e.get("faulty")]
    rows = []
    for entry in names:
        name = entry["name"]
        if entry.get("faulty") or name not in reports or "error" in reports[name]:
            continue
        report = reports[name]
        eps = (report.get("parameters") or {}).get("epsilon")
        # NAME-... twins, except those of a longer sound name (laplace-sensitivity-faulty is
        # not a twin of laplace)
        twins = [t for t in faulty if t.startswith(name + "-")
                 and not any(len(o) > len(name) and t.startswith(o + "-") for o in sound)]
        caught, multiples, missed, benign = [], [], [], []
        for t in twins:
            rep = reports.get(t)
            if rep is None or "error" in rep:
                continue
            true_eps = faulty[t].get("true_epsilon")
            if true_eps is not None and eps and float(true_eps) <= float(eps) \
                    and rep.get("verdict") != "VIOLATED":
                benign.append(t)  # within the claim: must not be VIOLATED, and was not
                continue
            if rep.get("verdict") == "VIOLATED":
                caught.append(t)
                true_eps = faulty[t].get("true_epsilon")
                if true_eps is not None and eps:
                    multiples.append(float(true_eps) / float(eps))
            else:
                missed.append(t)
        twin_text = f"{len(caught)}/{len(caught) + len(missed)} caught" if caught or missed \
            else ("twin not run" if twins and not benign else
                  "no twin registered" if not twins else "")
        if benign:
            twin_text = "; ".join(x for x in (twin_text, f"{len(benign)} within the claim, "
                                              "not VIOLATED") if x)
        multiple = min(multiples) if multiples else None
        figures = _figures(report)
        if entry.get("mechanism") and "actions" in figures and figures["actions"]["inferred"]:
            # a bare mechanism (list --json: mechanism) releases its output: no actions
            figures.setdefault("releases", {"sampled": [], "exact": [], "inferred": True})
            moved = figures.pop("actions")
            figures["releases"]["sampled"] += moved["sampled"]
            figures["releases"]["exact"] += moved["exact"]
        for level in LEVELS:
            slot = figures.get(level)
            if slot is None:
                continue
            s, x, horizon = _pair_up(slot)
            ratio = s / x if s is not None and x else None
            rows.append(TightRow(name, level, bool(slot["inferred"]), s, x, ratio, multiple,
                                 twin_text, eps, horizon, max(slot.get("code", []),
                                                              default=None)))
    return rows


def _num(v: float | None, digits: int = 3) -> str:
    if v is None:
        return "-"
    return "inf" if math.isinf(v) else f"{v:.{digits}g}"


def markdown(rows: list[TightRow]) -> str:
    lines = ["| algorithm | level | sampled lower bound | exact figure (T) | sampled / exact | "
             "smallest twin multiple VIOLATED | twins | exact, read from the running code |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        t = "" if r.horizon is None else f" (T={r.horizon})"
        lines.append(f"| {r.algorithm} | {r.level}{'*' if r.inferred else ''} | "
                     f"{_num(r.sampled)} | {_num(r.exact)}{t} | {_num(r.ratio, 2)} | "
                     f"{_num(r.twin_multiple)} | {r.twins} | {_num(r.code_exact)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="the tightness table (issue 22, item 4)")
    ap.add_argument("--names", default=None,
                    help="comma-separated sound audits to (re)run with their twins (default "
                         "all); the table is built from every stored report")
    ap.add_argument("--from-reports", action="store_true",
                    help="rebuild from the stored reports instead of running the checks")
    ap.add_argument("--out", default=str(HERE / "results" / "tightness.md"))
    args = ap.parse_args(argv)
    names = listing()
    wanted = None if args.names is None else set(args.names.split(","))
    for entry in names:
        base = entry["name"]
        if args.from_reports or (wanted is not None and not any(
                base == w or base.startswith(w + "-") for w in wanted)):
            continue
        rep = run_report(base)
        print(f"{base}: {rep.get('verdict', rep.get('error'))}", flush=True)
    # the table: every stored report of a registered name (just run or kept from before)
    reports = {e["name"]: json.loads((REPORTS / f"{e['name']}.json").read_text())
               for e in names if (REPORTS / f"{e['name']}.json").exists()}
    rows = table_rows(reports, names)
    text = markdown(rows)
    Path(args.out).write_text(text)
    Path(args.out).with_suffix(".json").write_text(
        json.dumps([r.to_dict() for r in rows], indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
