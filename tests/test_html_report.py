"""``check NAME --html PATH`` (issue 14): one self-contained HTML report, opened in Chromium.

Two real reports are generated once per module: ``dp-ftpl-new --quick`` (a PROVED symbolic
claim, an EXACT claim, a CONSISTENT sampled claim, a finding and a regret plot) and its VIOLATED
counterpart ``laplace-faulty --quick`` (a DISPROVED inequality with its witness, a VIOLATED exact
claim, two delta curves). The static tests parse the HTML; the browser test opens each page in
Debian's headless Chromium over the DevTools protocol (``--remote-debugging-pipe``: standard
library only, no driver package) and checks what a reader sees.
"""

from __future__ import annotations

import base64
import fcntl
import io
import json
import os
import re
import select
import shlex
import subprocess
import time
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from dpaudit.cli import main
from dpaudit.reports.html import reproduce_command, to_html
from dpaudit.stats.results import CheckReport, ClaimResult, Method, Notion, Verdict

CHROMIUM = Path("/usr/bin/chromium")
# as root on a machine without a display or network; without the background-networking flags
# Chromium tries the network at start-up
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync")
REPORTS = {"dp-ftpl-new": 0, "laplace-faulty": 1}  # name -> expected exit code


@pytest.fixture(scope="module")
def reports(quick_check) -> dict[str, tuple[Path, dict[str, Any]]]:
    """``name -> (HTML path, JSON document)`` of one ``check --quick`` run each (shared with
    the other tests of the process through ``quick_check``, tests/conftest.py)."""
    out = {}
    for name, code in REPORTS.items():
        got, page, doc, _ = quick_check(name)
        assert got == code
        out[name] = (page, doc)
    return out


class _Structure(HTMLParser):
    """Tags closed in order, every reference, every id, every ``<script>``."""

    VOID = {"meta", "img", "br", "hr", "link", "input"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.refs: list[str] = []
        self.ids: set[str] = set()
        self.tags: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        self.refs += [v for k, v in attrs.items() if k in ("src", "href") and v]
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(f"</{tag}> closes nothing open")


@pytest.mark.parametrize("name", REPORTS)
def test_report_is_valid_self_contained_html5(reports, name) -> None:
    page, doc = reports[name]
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
    assert f"<title>dpaudit check {name}: {doc['verdict']}</title>" in text
    parsed = _Structure()
    parsed.feed(text)
    assert parsed.errors == [] and parsed.stack == []  # every tag closed, in order
    assert "script" not in parsed.tags and "link" not in parsed.tags
    assert all(r.startswith(("#", "data:image/png;base64,")) for r in parsed.refs), parsed.refs
    assert {r[1:] for r in parsed.refs if r.startswith("#")} <= parsed.ids  # no dead anchors
    assert "url(" not in text and "@import" not in text  # nothing fetched by the style sheet


@pytest.mark.parametrize("name", REPORTS)
def test_report_holds_verdicts_version_exit_code_and_command(reports, name) -> None:
    page, doc = reports[name]
    text = page.read_text(encoding="utf-8")
    rows = re.findall(r'<tr class="\w+" data-claim="([^"]+)" data-verdict="(\w+)">', text)
    assert rows == [(c["id"], c["verdict"]) for c in doc["claims"]]
    assert f"Exit code <b>{doc['exit_code']}</b>" in text
    assert f"dpaudit {doc['dpaudit_version']};" in text
    p = doc["parameters"]
    command = (f"python -m dpaudit check {name} --epsilon {p['epsilon']!r} --delta "
               f"{p['delta']!r} --seed {p['seed']} --alpha {p['alpha']!r} --quick"
               f" --symbolic-budget {p['symbolic_budget']!r}")
    assert f'<pre id="command">{command}</pre>' in text
    if doc["regret"] is not None:  # the regret verdict, decided by the evidence module
        verdict = doc["regret"]["verdict"]
        assert (f'<p id="regret-verdict" class="{verdict}" data-verdict="{verdict}">Verdict: '
                f"{verdict} at alpha = ") in text
    split = doc["alpha_split"]
    if split["sampled_claims"]:
        assert (f"alpha = {split['alpha']:.4g} split over {split['sampled_claims']} sampled "
                f"claim(s) (Bonferroni): {split['per_claim_alpha']:.4g} each") in text


def test_proved_report_defines_every_symbol_and_shows_witness_and_plot(reports) -> None:
    page, doc = reports["dp-ftpl-new"]
    text = page.read_text(encoding="utf-8")
    proofs = [c["proof"] for c in doc["claims"] if c["proof"] is not None]
    assert proofs and all(p["status"] == "PROVED" for p in proofs)
    for proof in proofs:
        assert proof["symbols"], "the proof records its symbols"
        for s in proof["symbols"]:
            assert s["meaning"], s  # every symbol of the prover's domain has a meaning
            assert (f"<tr><td><code>{escape(s['name'])}</code></td><td>{escape(s['domain'])}"
                    f"</td><td>{escape(s['meaning'])}</td></tr>") in text
        for ineq in proof["inequalities"]:
            assert f"<td><code>{escape(ineq['statement'])}</code></td>" in text
    sampled = next(c for c in doc["claims"] if c["method"] == "sampled")
    assert f"<th>event</th><td><code>{escape(sampled['data']['event'])}</code>" in text
    assert text.count('<img alt="regret curve') == 1


def test_violated_report_shows_the_disproved_inequality_with_its_witness(reports) -> None:
    page, doc = reports["laplace-faulty"]
    text = page.read_text(encoding="utf-8")
    proof = doc["claims"][0]["proof"]
    disproved = [i for i in proof["inequalities"] if i["status"] == "DISPROVED"]
    assert disproved and disproved[0]["witness"]
    witness = ", ".join(f"{k} = {v!r}" for k, v in disproved[0]["witness"].items())
    assert '<td class="DISPROVED">DISPROVED</td>' in text and escape(witness) in text
    assert text.count("<img ") == 2  # delta per episode length m, and the privacy curve


def test_reproduce_command_reproduces_the_verdicts(reports, tmp_path) -> None:
    """Running the page's command line again gives the same claims (seeded, deterministic)."""
    page, doc = reports["laplace-faulty"]
    command = re.search(r'<pre id="command">(.*?)</pre>', page.read_text()).group(1)
    argv = shlex.split(command)
    assert argv[:3] == ["python", "-m", "dpaudit"]
    again = tmp_path / "again.json"
    assert main([*argv[3:], "--json", str(again)]) == doc["exit_code"]
    claims = json.loads(again.read_text())["claims"]
    wall = ("proof", "seconds")  # a proof's step times and a claim's seconds are wall clock
    strip = [{k: v for k, v in c.items() if k not in wall} for c in claims]
    assert strip == [{k: v for k, v in c.items() if k not in wall} for c in doc["claims"]]


def test_user_text_is_escaped_and_the_command_quoted() -> None:
    hostile = "<script>alert(1)</script> & \"quotes\""
    claim = ClaimResult(id="c<1>", notion=Notion.LDP, epsilon=1.0, delta=0.0,
                        verdict=Verdict.VIOLATED, method=Method.EXACT, statement=hostile,
                        reference=hostile, details=(hostile,), data={"event": hostile})
    report = CheckReport(name="my mod:Obj; rm -rf x", description=hostile, paper=hostile,
                         parameters={"epsilon": 1.0, "seed": 3, "quick": False}, claims=(claim,))
    text = to_html(report)
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert 'data-claim="c&lt;1&gt;"' in text
    assert reproduce_command(report) == ("python -m dpaudit check 'my mod:Obj; rm -rf x' "
                                         "--epsilon 1.0 --seed 3")


# -- headless Chromium over the DevTools protocol ------------------------------------------------
class _Chromium:
    """Debian's Chromium driven through ``--remote-debugging-pipe`` (fd 3 in, fd 4 out; each
    message JSON ended by a NUL byte). Every wait has a deadline: a hung browser fails the test
    with a message instead of hanging it."""

    def __init__(self, profile: Path, log: Path) -> None:
        to_browser_r, self._out = os.pipe()
        self._in, from_browser_w = os.pipe()

        def as_fds_3_and_4() -> None:  # in the child, before exec
            a = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._log = log.open("wb")
        self.proc = subprocess.Popen(
            [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
             "--remote-debugging-pipe", "about:blank"],
            pass_fds=(3, 4), preexec_fn=as_fds_3_and_4, stdin=subprocess.DEVNULL,
            stdout=self._log, stderr=self._log)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 30.0) -> dict[str, Any]:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline, method)
            if reply.get("id") == self._id:
                assert "error" not in reply, f"{method}: {reply['error']}"
                return reply["result"]
            self.events.append(reply)

    def wait_for(self, event: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == event for e in self.events):
            self.events.append(self._receive(deadline, event))

    def _receive(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise AssertionError(f"Chromium did not answer {waiting_for} in time")
            chunk = os.read(self._in, 1 << 20)
            assert chunk, f"Chromium exited ({self.proc.poll()}) while awaiting {waiting_for}"
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.send("Browser.close", timeout=10)
                self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            os.close(self._in)
            os.close(self._out)
            self._log.close()


_PAGE_STATE = """JSON.stringify({
  rows: [...document.querySelectorAll('#verdicts tbody tr')].map(
      r => [r.cells[0].textContent, r.cells[1].textContent]),
  images: [...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight]),
  title: document.title, lang: document.documentElement.lang,
  charset: document.characterSet, mode: document.compatMode,
  scripts: document.scripts.length,
  text: document.body.innerText.length})"""


def _open(browser: _Chromium, page: Path) -> tuple[dict[str, Any], bytes, list[dict]]:
    """Load ``page`` in a fresh tab: its DOM state, a viewport screenshot and the events."""
    browser.events.clear()
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"]
    for domain in ("Runtime", "Log", "Network", "Page"):
        browser.send(f"{domain}.enable", session=session)
    browser.send("Emulation.setDeviceMetricsOverride",
                 {"width": 1100, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                 session=session)
    browser.send("Page.navigate", {"url": page.as_uri()}, session=session)
    browser.wait_for("Page.loadEventFired")
    state = browser.send("Runtime.evaluate", {"expression": _PAGE_STATE,
                                              "returnByValue": True}, session=session)
    shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
    browser.send("Target.closeTarget", {"targetId": target})
    return (json.loads(state["result"]["value"]), base64.b64decode(shot["data"]),
            list(browser.events))


def test_reports_render_in_headless_chromium(reports, tmp_path) -> None:
    if not CHROMIUM.exists():
        pytest.skip(os.environ.get("DPAUDIT_CHROMIUM_MISSING")
                    or f"{CHROMIUM} is not installed (Debian package 'chromium'; .ci/run "
                       "installs it)")
    from PIL import Image

    browser = _Chromium(tmp_path / "profile", tmp_path / "chromium.log")
    try:
        for name, (page, doc) in reports.items():
            state, png, events = _open(browser, page)
            methods = [e.get("method") for e in events]
            params = [e.get("params", {}) for e in events]
            assert "Runtime.exceptionThrown" not in methods, name  # no page error
            console = [p for m, p in zip(methods, params, strict=True)
                       if m == "Runtime.consoleAPICalled"
                       and p.get("type") in ("error", "warning", "assert")]
            logged = [p["entry"] for m, p in zip(methods, params, strict=True)
                      if m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning")]
            assert console == [] and logged == [], (name, console, logged)
            assert "Network.loadingFailed" not in methods, name
            urls = [p["request"]["url"] for m, p in zip(methods, params, strict=True)
                    if m == "Network.requestWillBeSent"]
            assert urls[0] == page.as_uri(), urls[:1]  # the file itself, then only its images
            assert all(u.startswith("data:image/png;base64,") for u in urls[1:]), name
            assert len(urls) - 1 == len(state["images"]) >= 1, name

            assert state["rows"] == [[c["id"], c["verdict"]] for c in doc["claims"]], name
            assert all(done and w > 0 and h > 0 for done, w, h in state["images"]), state
            assert (state["lang"], state["charset"], state["mode"], state["scripts"]) == (
                "en", "UTF-8", "CSS1Compat", 0)  # CSS1Compat: standards mode (a doctype)
            assert state["title"] == f"dpaudit check {name}: {doc['verdict']}"

            shot = Image.open(io.BytesIO(png)).convert("L")
            assert shot.size == (1100, 900)
            histogram = shot.histogram()
            dark = sum(histogram[:128]) / (1100 * 900)  # text, borders, coloured cells
            tinted = 1 - histogram[255] / (1100 * 900)
            assert dark > 0.005 and tinted > 0.05, (name, dark, tinted)  # not a blank page
    finally:
        browser.close()
