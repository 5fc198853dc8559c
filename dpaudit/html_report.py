"""One self-contained HTML page for a check (``check NAME --html PATH``): formatting only.

The page holds the verdict table, each proof's reduced inequalities under its assumptions
(which define the symbols and their domains), the witness and every parameter needed to
reproduce a verdict (the command line with seed and alpha), findings, and the regret curve as
an embedded PNG (``data:`` URI). No script, no external file, no network access.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

from .results import CheckReport, ClaimResult, RegretResult

__all__ = ["to_html"]

_STYLE = """
body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.3em .6em;
text-align:left;vertical-align:top}.VIOLATED{background:#f8d0d0}.INCONCLUSIVE{background:#f6ecc8}
.PROVED,.EXACT,.CONSISTENT{background:#d8f0d8}code{background:#f3f3f3;padding:0 .2em}
"""


def _e(x: Any) -> str:
    return html.escape(str(x))


def _command(report: CheckReport, command: str) -> str:
    p = report.parameters
    parts = [f"python -m dpaudit {command} {report.name}"]
    for key in ("epsilon", "delta", "seed", "alpha"):
        if key in p:
            parts.append(f"--{key} {p[key]}")
    if p.get("quick"):
        parts.append("--quick")
    return " ".join(parts)


def _claim_section(c: ClaimResult) -> list[str]:
    out = [f'<h3 id="{_e(c.id)}">{_e(c.id)}: <span class="{c.verdict.value}">'
           f"{c.verdict.value}</span></h3>",
           f"<p>{_e(c.statement)}<br><small>{_e(c.reference)}</small></p>"]
    if c.proof is not None:
        out.append("<p>Symbols and their domains (the proof's assumptions):</p><ul>")
        out += [f"<li><code>{_e(a)}</code></li>" for a in c.proof.assumptions]
        out.append("</ul><table><tr><th>inequality</th><th>status</th><th>how</th>"
                   "<th>tier</th><th>witness</th></tr>")
        for i in c.proof.inequalities:
            witness = ", ".join(f"{k} = {v:.6g}" for k, v in (i.witness or {}).items())
            out.append(f"<tr><td><code>{_e(i.statement)}</code></td><td>{i.status.value}</td>"
                       f"<td>{_e(i.reason)}</td><td>{_e(i.tier)}</td><td>{_e(witness)}</td></tr>")
        out.append("</table>")
    if c.details:
        out.append("<ul>" + "".join(f"<li>{_e(d)}</li>" for d in c.details) + "</ul>")
    return out


def _regret_plot(r: RegretResult) -> str:
    if not r.checkpoints or not r.mean_curve:
        return ""
    from .experiments import new_figure

    fig, ax = new_figure(figsize=(6.0, 3.5))
    ax.plot(r.checkpoints, r.mean_curve, label=f"{r.algorithm}: mean regret over {r.runs} runs")
    if r.bound is not None:
        ax.axhline(r.bound, color="k", ls="--", label=f"{r.bound_name} at T")
    ax.set_xlabel("t")
    ax.set_ylabel("regret")
    ax.legend(fontsize=8)
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="regret curve" src="data:image/png;base64,{data}">'


def to_html(report: CheckReport, *, command: str = "check") -> str:
    rows = "".join(
        f'<tr class="{c.verdict.value}"><td><a href="#{_e(c.id)}">{_e(c.id)}</a></td>'
        f"<td>{c.verdict.value}</td><td>{c.notion.value}</td><td>{c.method.value}</td>"
        f"<td>{c.epsilon:g}</td><td>{c.delta:g}</td>"
        f"<td>{'-' if c.epsilon_lower_bound is None else f'{c.epsilon_lower_bound:.4g}'}</td>"
        "</tr>" for c in report.claims)
    params = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>"
                     for k, v in report.parameters.items())
    body = [f"<h1>dpaudit {command} {_e(report.name)}: {report.verdict.value}</h1>",
            f"<p>{_e(report.description)}<br>{_e(report.paper)}</p>",
            f"<p>Reproduce: <code>{_e(_command(report, command))}</code> (exit code "
            f"{report.exit_code})</p>",
            "<h2>Verdicts</h2><table><tr><th>claim</th><th>verdict</th><th>notion</th>"
            "<th>method</th><th>eps</th><th>delta</th><th>eps lower bound</th></tr>"
            f"{rows}</table>", "<h2>Parameters</h2><table>" + params + "</table>",
            "<h2>Claims</h2>"]
    for c in report.claims:
        body += _claim_section(c)
    if report.findings:
        body.append("<h2>Findings (information; they do not change the exit code)</h2><ul>")
        for f in report.findings:
            details = "".join(f"<br><small>{_e(d)}</small>" for d in f.details)
            body.append(f"<li><b>{_e(f.id)}</b>: {_e(f.summary)}{details}</li>")
        body.append("</ul>")
    if report.regret is not None:
        r = report.regret
        body += ["<h2>Regret</h2>",
                 f"<p>{_e(r.algorithm)} on {_e(r.instance)}: T = {r.horizon}, {r.runs} runs; "
                 f"mean {r.mean:.6g} ({r.confidence:.0%} interval {r.ci_low:.6g} .. "
                 f"{r.ci_high:.6g}); {_e(r.bound_name)}: "
                 f"{'-' if r.bound is None else f'{r.bound:.6g}'}</p>", _regret_plot(r)]
        body += [f"<p><small>{_e(d)}</small></p>" for d in r.details]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>dpaudit check {_e(report.name)}</title><style>{_STYLE}</style></head>"
            "<body>" + "\n".join(body) + "</body></html>\n")
