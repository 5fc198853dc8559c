"""One self-contained HTML page for a report (``check NAME --html PATH``): formatting only.

The page holds, for one :class:`~dpaudit.stats.results.CheckReport`:

* the verdict table: every claim with its notion, method, verdict, claimed ``(eps, delta)``,
  epsilon lower bound (with its confidence), smallest detectable epsilon and ``alpha``, and how
  ``alpha`` was split over the sampled claims;
* the command line that reproduces the report (seed, alpha, epsilon, delta, quick), the dpaudit
  version and the exit code;
* per claim: the statement and its source; for a proof, the symbols it uses (name, domain,
  meaning), its assumptions and its reduced inequalities (status, how decided, witness); the
  witness of a computed or sampled verdict (neighbouring pair, event, counts) and every other
  datum the claim carries; its details;
* findings, with their data;
* the regret curve and every ``delta`` curve a claim or finding carries (a privacy curve
  ``delta(epsilon)``, or ``delta`` per episode length), as PNG images in ``data:`` URIs.

Nothing is computed here beyond drawing numbers the report already holds. The page has no
script, loads no external file and needs no network; user text is escaped.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import shlex
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dpaudit import __version__
from dpaudit.experiments import new_figure
from dpaudit.reports.profile_plot import draw_profile
from dpaudit.reports.text import deadline_line, duration, regret_verdict_text
from dpaudit.stats.results import CheckReport, ClaimResult, Finding, ProofResult, RegretResult

__all__ = ["reproduce_command", "to_html"]

_STYLE = """
body{font-family:sans-serif;max-width:72em;margin:1.5em auto;padding:0 1em;color:#222;
line-height:1.35}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}
h3{font-size:1.05em;margin-top:1.4em}
table{border-collapse:collapse;margin:.6em 0}
td,th{border:1px solid #bbb;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums}
.VIOLATED{background:#f8d0d0}.INCONCLUSIVE{background:#f6ecc8}
.PROVED,.EXACT,.CONSISTENT{background:#d8f0d8}
.DISPROVED{background:#f8d0d0}.UNKNOWN{background:#f6ecc8}
code,pre{background:#f3f3f3;padding:0 .2em;overflow-wrap:anywhere}
pre{padding:.5em;white-space:pre-wrap}
.verdict{padding:0 .3em}.small{font-size:.9em;color:#444}
img{max-width:100%;height:auto;border:1px solid #ddd}
details{margin:.4em 0}caption{text-align:left;font-weight:bold;padding:.2em 0}
"""

_EXIT_MEANING = {0: "no claim VIOLATED", 1: "a claim VIOLATED"}
# report parameters that are not command-line options of the command, or do not change results
_NOT_OPTIONS = frozenset({"workers", "samples_used"})
# commands whose report parameters hold every option that changes the result
_COMPLETE_PARAMETERS = frozenset({"check", "audit"})
# claim and finding data that identify a witness (shown first, in this order)
_WITNESS_KEYS = ("pair_description", "worst_pair", "witness", "event", "direction",
                 "count_p", "n_p", "count_q", "n_q", "p_lo", "q_hi", "n_select", "n_measure")
_MAX_VALUE_CHARS = 3000


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _num(x: float | None, digits: int = 4) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}g}"


def _option_value(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def reproduce_command(report: CheckReport, command: str = "check") -> str:
    """The command line that reproduces ``report``: its name and every recorded option.

    Floats are written with ``repr`` (shortest round-trip form), booleans as flags; the worker
    count is left out (results do not depend on it).
    """
    parts = ["python", "-m", "dpaudit", command, report.name]
    for key, value in report.parameters.items():
        if key in _NOT_OPTIONS or value is None or value is False:
            continue
        option = "--" + key.replace("_", "-")
        parts += [option] if value is True else [option, _option_value(value)]
    return " ".join(shlex.quote(p) for p in parts)


def _json_value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if len(text) > _MAX_VALUE_CHARS:
        n = f" of {len(value)} items" if isinstance(value, list | dict) else ""
        text = (text[:_MAX_VALUE_CHARS]
                + f" ... (cut at {_MAX_VALUE_CHARS} characters{n}; the --json report holds all)")
    return text


def _data_rows(data: Mapping[str, Any], keys: Iterable[str]) -> str:
    return "".join(f"<tr><th>{_e(k)}</th><td><code>{_e(_json_value(data[k]))}</code></td></tr>"
                   for k in keys)


def _data_block(data: Mapping[str, Any], what: str) -> list[str]:
    """The witness fields of ``data`` in a table, the rest under a collapsed ``<details>``."""
    if not data:
        return []
    witness = [k for k in _WITNESS_KEYS if k in data]
    rest = [k for k in data if k not in witness]
    out = []
    if witness:
        out.append(f'<table class="witness"><caption>witness ({_e(what)})</caption>'
                   f"{_data_rows(data, witness)}</table>")
    if rest:
        out.append(f"<details><summary>all data of this {_e(what)} ({len(rest)} more "
                   f"field(s))</summary><table>{_data_rows(data, rest)}</table></details>")
    return out


def _proof_block(proof: ProofResult) -> list[str]:
    out = [f'<p>Proof: <span class="verdict {proof.status.value}">{proof.status.value}'
           "</span></p>"]
    if proof.symbols:
        out.append("<table><caption>symbols</caption><tr><th>symbol</th><th>domain</th>"
                   "<th>meaning</th></tr>")
        out += [f"<tr><td><code>{_e(s.name)}</code></td><td>{_e(s.domain)}</td>"
                f"<td>{_e(s.meaning) if s.meaning else '(not stated by the proof)'}</td></tr>"
                for s in proof.symbols]
        out.append("</table>")
    else:
        out.append("<p>This proof records no symbol table; its assumptions below define its "
                   "symbols.</p>")
    out.append("<p>Assumptions (preconditions and definitions):</p><ul>")
    out += [f"<li><code>{_e(a)}</code></li>" for a in proof.assumptions]
    out.append("</ul><table><caption>reduced inequalities</caption><tr><th>inequality</th>"
               "<th>status</th><th>how decided</th><th>tier</th><th>seconds</th>"
               "<th>witness</th></tr>")
    for i in proof.inequalities:
        witness = ", ".join(f"{k} = {v!r}" for k, v in (i.witness or {}).items())
        out.append(f'<tr><td><code>{_e(i.statement)}</code></td>'
                   f'<td class="{i.status.value}">{i.status.value}</td><td>{_e(i.reason)}</td>'
                   f'<td>{_e(i.tier)}</td><td class="num">{i.seconds:.2f}</td>'
                   f"<td><code>{_e(witness) or '-'}</code></td></tr>")
    out.append("</table>")
    return out


def _bounds(c: ClaimResult | Finding) -> list[str]:
    out = []
    if c.epsilon_lower_bound is not None:
        conf = "" if c.alpha is None else f" at confidence 1 - alpha = {1 - c.alpha:.4g}"
        out.append(f"epsilon lower bound {_num(c.epsilon_lower_bound)}{conf}")
    detectable = getattr(c, "detectable_epsilon", None)
    if detectable is not None:
        out.append(f"smallest violation this test would catch: eps &gt; {_num(detectable)}")
    return out


def _claim_section(c: ClaimResult) -> list[str]:
    out = [f'<section id="claim-{_e(c.id)}"><h3>{_e(c.id)}: <span class="verdict '
           f'{c.verdict.value}">{c.verdict.value}</span></h3>',
           f"<p>{_e(c.statement)}<br><span class=\"small\">{_e(c.reference)}; notion "
           f"{c.notion.value}, method {c.method.value}, observes "
           f"{_e(c.to_dict()['observes'])}, claimed eps = {_num(c.epsilon)}, "
           f"delta = {_num(c.delta)}</span></p>"]
    bounds = _bounds(c)
    if bounds:
        out.append("<p>" + "; ".join(bounds) + "</p>")
    if c.proof is not None:
        out += _proof_block(c.proof)
    out += _data_block(c.data, "claim")
    if c.details:
        out.append("<ul>" + "".join(f"<li>{_e(d)}</li>" for d in c.details) + "</ul>")
    out += [_delta_curve(c.data, c.id),
            _profile_plot(c.profile, c.id, epsilon=c.epsilon, delta=c.delta)]
    out.append("</section>")
    return out


def _profile_plot(profile: Mapping[str, Any] | None, what: str, *, epsilon: float | None = None,
                  delta: float | None = None) -> str:
    """The privacy profile of a sampled claim (:mod:`dpaudit.reports.profile_plot`)."""
    if not profile:
        return ""
    fig, ax = new_figure(figsize=(8.0, 3.2))
    fig.delaxes(ax)
    draw_profile(fig, profile, what, epsilon=epsilon, delta=delta)
    return _png(fig, f"{what}: privacy profile")


def _finding_section(f: Finding) -> list[str]:
    head = f"<b>{_e(f.id)}</b>" + ("" if f.notion is None else f" ({f.notion.value})") + (
        f" [observes {_e(f.to_dict()['observes'])}]")
    out = [f"<li>{head}: {_e(f.summary)}"]
    bounds = _bounds(f)
    if bounds:
        out.append("<br>" + "; ".join(bounds))
    out += [f'<br><span class="small">{_e(d)}</span>' for d in f.details]
    out += _data_block(f.data, "finding")
    out += [_delta_curve(f.data, f.id), "</li>"]
    return out


def _png(fig: Any, alt: str) -> str:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<p><img alt="{_e(alt)}" src="data:image/png;base64,{data}"></p>'


def _numbers(values: Any) -> list[float] | None:
    if not isinstance(values, Sequence) or isinstance(values, str) or len(values) < 2:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return None
    return [float(v) for v in values]


def _delta_curve(data: Mapping[str, Any], what: str) -> str:
    """``data["delta"]`` drawn against ``data["epsilon"]`` (a privacy curve) or, without it,
    against the first other number list of the same length (e.g. the episode length ``m``):
    the report's own points, nothing computed."""
    delta = _numbers(data.get("delta"))
    if delta is None:
        return ""
    keys = ["epsilon", *(k for k in data if k not in ("epsilon", "delta"))]
    x_key = next((k for k in keys if len(_numbers(data.get(k)) or ()) == len(delta)), None)
    if x_key is None:
        return ""
    fig, ax = new_figure(figsize=(5.0, 3.0))
    ax.plot(_numbers(data[x_key]), delta, marker="o")
    ax.set_xlabel(x_key)
    ax.set_ylabel("delta")
    title = f"{what}: delta against {x_key}"
    ax.set_title(title, fontsize=9)
    return _png(fig, title)


def _regret_plot(r: RegretResult) -> str:
    if len(r.checkpoints) < 2 or len(r.mean_curve) != len(r.checkpoints):
        return ""
    fig, ax = new_figure(figsize=(6.4, 3.6))
    ax.plot(r.checkpoints, r.mean_curve, marker="o",
            label=f"{r.algorithm}: mean regret over {r.runs} runs")
    if r.bound is not None and math.isfinite(r.bound):
        ax.axhline(r.bound, color="k", ls="--", label=f"{r.bound_name} at T = {r.horizon}")
    if r.checkpoints[0] > 0 and r.checkpoints[-1] >= 100 * r.checkpoints[0]:
        ax.set_xscale("log")
    top = max(r.mean_curve)
    if (min(r.mean_curve) > 0 and r.bound is not None and math.isfinite(r.bound)
            and r.bound > 10 * top):  # a bound far above the curve would flatten it
        ax.set_yscale("log")
    ax.set_xlabel("t")
    ax.set_ylabel("pseudo-regret")
    ax.set_title(f"{r.algorithm} on {r.instance}", fontsize=9)
    ax.legend(fontsize=8)
    return _png(fig, f"regret curve of {r.algorithm}")


def _regret_section(r: RegretResult) -> list[str]:
    out = ["<h2>Regret</h2>",
           f"<p>{_e(r.algorithm)} on {_e(r.instance)}: T = {r.horizon}, {r.runs} runs; mean "
           f"pseudo-regret {_num(r.mean, 6)} ({r.confidence:.0%} interval {_num(r.ci_low, 6)} "
           f".. {_num(r.ci_high, 6)}); {_e(r.bound_name)}: {_num(r.bound, 6)}</p>",
           f'<p id="regret-verdict" class="{r.verdict.value}" data-verdict='
           f'"{r.verdict.value}">Verdict: {_e(regret_verdict_text(r))}</p>',
           _regret_plot(r)]
    out += [f'<p class="small">{_e(d)}</p>' for d in r.details]
    return out


def _verdict_table(report: CheckReport) -> str:
    head = ("<tr><th>claim</th><th>verdict</th><th>notion</th><th>observes</th>"
            "<th>method</th><th>eps</th>"
            "<th>delta</th><th>eps lower bound</th><th>confidence</th>"
            "<th>detectable eps</th><th>alpha</th></tr>")
    rows = []
    for c in report.claims:
        conf = "-" if c.alpha is None or c.epsilon_lower_bound is None else _num(1 - c.alpha)
        rows.append(
            f'<tr class="{c.verdict.value}" data-claim="{_e(c.id)}" '
            f'data-verdict="{c.verdict.value}"><td><a href="#claim-{_e(c.id)}">{_e(c.id)}</a>'
            f"</td><td>{c.verdict.value}</td><td>{c.notion.value}</td>"
            f"<td>{_e(c.to_dict()['observes'])}</td><td>{c.method.value}"
            f'</td><td class="num">{_num(c.epsilon)}</td><td class="num">{_num(c.delta)}</td>'
            f'<td class="num">{_num(c.epsilon_lower_bound)}</td><td class="num">{conf}</td>'
            f'<td class="num">{_num(c.detectable_epsilon)}</td>'
            f'<td class="num">{_num(c.alpha)}</td></tr>')
    return (f'<table id="verdicts"><thead>{head}</thead><tbody>{"".join(rows)}</tbody>'
            "</table>")


def _alpha_split(report: CheckReport) -> str:
    split = report.alpha_split or {}
    if not split:
        return ""
    if not split.get("sampled_claims") and not split.get("regret_experiments"):
        return (f"<p>alpha = {_num(split.get('alpha'))}: no sampled claim, so no verdict here "
                "rests on sampling.</p>")
    regret = ("; the regret experiment takes one more share"
              if split.get("regret_experiments") else "")
    return (f"<p>alpha = {_num(split['alpha'])} split over {split['sampled_claims']} sampled "
            f"claim(s) ({_e(split['method'])}): {_num(split['per_claim_alpha'])} each{regret}, "
            "so the exit code is wrong with probability at most alpha.</p>")


def _deadline(report: CheckReport) -> str:
    """What a ``--seconds`` deadline cut, as the text report says it (nothing without one)."""
    line = deadline_line(report)
    if not line:
        return ""
    more = ("" if not report.deadline or not report.deadline.get("hit") else
            " A cut claim is decided on what it measured or is INCONCLUSIVE; unless run with "
            "<code>--no-state</code>, the same command with <code>--resume</code> continues.")
    return f'<p id="deadline">{_e(line)}.{more}</p>'


def to_html(report: CheckReport, *, command: str = "check") -> str:
    """``report`` as one HTML5 page (see the module docstring for its content)."""
    code = report.exit_code
    params = "".join(f"<tr><th>{_e(k)}</th><td><code>{_e(_option_value(v))}</code></td></tr>"
                     for k, v in report.parameters.items())
    body = [f"<h1>dpaudit {_e(command)} {_e(report.name)}: "
            f'<span class="verdict {report.verdict.value}">{report.verdict.value}</span></h1>',
            f"<p>{_e(report.description)}<br>{_e(report.paper)}</p>",
            f"<p>Exit code <b>{code}</b> ({_EXIT_MEANING.get(code, 'see the CLI help')}); "
            f"dpaudit {_e(__version__)}; {duration(report.seconds)}.</p>",
            "<p>Reproduce with:</p>",
            f'<pre id="command">{_e(reproduce_command(report, command))}</pre>',
            "" if command in _COMPLETE_PARAMETERS else
            "<p class=\"small\">This command's report does not record every option: add "
            "those you gave that are missing above.</p>",
            "<h2>Verdicts</h2>", _verdict_table(report), _alpha_split(report),
            _deadline(report),
            f"<h2>Parameters</h2><table>{params}</table>",
            "<h2>Claims</h2>"]
    for c in report.claims:
        body += _claim_section(c)
    if report.findings:
        body.append("<h2>Findings (information; they do not change the exit code)</h2><ul>")
        for f in report.findings:
            body += _finding_section(f)
        body.append("</ul>")
    if report.regret is not None:
        body += _regret_section(report.regret)
    title = f"dpaudit {command} {report.name}: {report.verdict.value}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
            + "\n".join(part for part in body if part) + "\n</body></html>\n")
