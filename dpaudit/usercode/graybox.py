"""The gray-box stage: what the user's code does with its noise, on neighbouring inputs.

Before any sampling, ``audit`` (mechanisms) and ``audit-policy`` (policies, every notion) run
the user's code on the two inputs of a few neighbouring pairs with the same randomness
(:mod:`dpaudit.usercode.recorder`: every draw intercepted on numpy's and Python's routes, no
annotation) and replay the second input with its Laplace and Gaussian noise shifted to match
the first (:mod:`dpaudit.usercode.replay`). Each finding names the line, the pair, the seed
of the recorded run and the numbers:

========================  ========================================================  =========
kind                      what was seen on the recorded path                        level
========================  ========================================================  =========
``noise-scale``           a draw's scale differs between ``D`` and ``D'``            pointer
``draw-count``            a line draws more often (or more values) on one input      pointer
``control-flow``          the noisy values are matched, the paths still differ        pointer
``noise-cancels``         a comparison of two values carrying the same noise          pointer
``uncovered-shift``       a consumed value moves where no noise covers it (a shared   pointer
                          draw, an unnoised release)
``release-loss``          every noisy value matched: the shift of each against its    info /
                          scale, and the coupling's cost composed over the run       pointer
``declared-sensitivity``  a declared primitive's input moved more than declared      proof
``not-equal``             a value declared equal on neighbours differs               proof
``non-finite``            the output is NaN or infinite on one input only            pointer
``output-shape``          the output's length depends on the input                   pointer
``exact-loss``            the output's law read exactly (the probe): loss vs claim   proof
========================  ========================================================  =========

**What is a proof, and what is a pointer.** A *proof* settles the claim by itself: for a
mechanism or a local report whose output *is* the noisy release (``output = g(D) + J z``,
read by :func:`dpaudit.exact.probe.probe_report` and verified on draws of the true law), the
exact loss between ``D`` and ``D'`` is the output's loss, so a loss above the claim is
``VIOLATED`` with the exact figure; a declared primitive's sensitivity or equality is the
user's own statement, falsified on the recorded run. A *pointer* does not: a policy's output
(its actions) is a post-processing of its releases, which can only lower the loss (Dwork &
Roth 2014, Proposition 2.1), so a release-level loss above the claim, a path that reads the
rewards, or a shared draw says where the proof of the code fails but not by how much its
actions leak. Those steer the sampled audit to the pair and the output position where the
runs first differed (:class:`Steer`), and the sampled audit's Clopper-Pearson bound decides.
Nothing is guessed: code the stage cannot run under the recorder, or whose randomness it does
not serve (numba-compiled draws, C extensions, torch), is reported as such and left to
sampling.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit.exact.composition import composed_delta
from dpaudit.stats.results import Finding, Notion
from dpaudit.usercode.recorder import (
    Draw,
    Event,
    LineTrace,
    Recorder,
    _short_path,
    is_user_file,
    plain,
)
from dpaudit.usercode.replay import Replay, RunFn, pure_noise, replay_pair, trace_split

__all__ = ["KINDS", "GrayBoxResult", "GrayFinding", "Steer", "analyse", "run_stage",
           "user_modules"]

KINDS = ("noise-scale", "draw-count", "control-flow", "noise-cancels", "uncovered-shift",
         "release-loss", "declared-sensitivity", "not-equal", "non-finite", "output-shape",
         "exact-loss")
#: how findings rank when several pairs show something (the steer follows the first)
_SEVERITY = {"exact-loss": 0, "declared-sensitivity": 1, "not-equal": 2, "uncovered-shift": 3,
             "noise-cancels": 4, "control-flow": 5, "noise-scale": 6, "draw-count": 7,
             "non-finite": 8, "output-shape": 9, "release-loss": 10}
LEVEL_TEXT = {"proof": "proof on the recorded path",
              "pointer": "pointer for the sampled audit",
              "information": "information"}


@dataclass(frozen=True)
class GrayFinding:
    """One thing the stage saw: ``kind`` (:data:`KINDS`), ``level`` (``proof``, ``pointer``
    or ``information``), one-sentence ``summary``, the ``site`` (file:line in function), the
    ``pair`` and ``seed`` of the recorded runs, ``numbers`` and further ``details``."""

    kind: str
    level: str
    summary: str
    site: str | None
    pair: str
    seed: int
    numbers: dict[str, Any] = field(default_factory=dict)
    details: tuple[str, ...] = ()
    step: int | None = None

    def line(self) -> str:
        where = f" [{self.site}]" if self.site else ""
        return f"{LEVEL_TEXT[self.level]}: {self.summary}{where}"

    def as_finding(self, notion: Notion | None = None) -> Finding:
        return Finding(
            id=f"graybox-{self.kind}", summary=f"{LEVEL_TEXT[self.level]}: {self.summary}",
            notion=notion,
            details=(*((f"at {self.site}",) if self.site else ()),
                     f"pair: {self.pair}; recorded with seed {self.seed}", *self.details),
            data={"kind": self.kind, "level": self.level, "site": self.site,
                  "pair": self.pair, "seed": self.seed, **_jsonable(self.numbers)},
            observes="releases" if self.kind in ("release-loss", "uncovered-shift",
                                                 "noise-cancels", "noise-scale",
                                                 "declared-sensitivity") else "code path")


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, np.generic):
            v = v.item()
        if isinstance(v, float) and not math.isfinite(v):
            v = None
        if isinstance(v, np.ndarray):
            v = [float(x) for x in v.ravel()]
        out[k] = v
    return out


@dataclass(frozen=True)
class Steer:
    """Where the sampled audit should look: the pairs whose outputs differed on the recorded
    runs (the strongest first), and the output positions (0-based; for a policy, the steps
    whose action) where they first differed. ``pair`` is the first."""

    pairs: tuple[tuple[Any, Any], ...]
    positions: tuple[int, ...]
    kind: str

    @property
    def pair(self) -> tuple[Any, Any]:
        return self.pairs[0]


@dataclass(frozen=True)
class GrayBoxResult:
    """What the stage found, and what it cost."""

    findings: tuple[GrayFinding, ...]
    steer: Steer | None
    pairs: int
    runs: int
    seconds: float
    unread: tuple[str, ...] = ()
    aligned: int = 0
    exact: Any = None
    #: the stage stopped at its time limit (not its run budget): what it saw then depends on
    #: the machine's speed, and the report says so
    cut_by_time: bool = False
    #: draws of laws the stage does not shift (``uniform at file:line``), seen on the recorded
    #: runs: an exact reading of the output that ignores them is not taken
    other_draws: tuple[str, ...] = ()
    #: how the stage read the code (e.g. a numba function read through its ``.py_func``)
    notes: tuple[str, ...] = ()

    @property
    def worst(self) -> GrayFinding | None:
        return min(self.findings, key=lambda f: _SEVERITY[f.kind], default=None)

    def summary(self, *, steered: bool = False) -> dict[str, Any]:
        """The stage in a claim's JSON ``data`` (key ``graybox``)."""
        worst = self.worst
        return {"pairs": self.pairs, "runs": self.runs, "cut_by_time": self.cut_by_time,
                "findings": len(self.findings), "steered": steered,
                "exact": self.exact is not None,
                "worst": None if worst is None else {
                    "kind": worst.kind, "level": worst.level, "site": worst.site},
                "not_read": list(self.unread), "notes": list(self.notes)}

    def details(self) -> tuple[str, ...]:
        head = (f"gray-box stage: {self.pairs} neighbouring pair(s) recorded and replayed with "
                f"the same randomness ({self.runs} runs of the code); "
                f"{len(self.findings)} finding(s)"
                + (f"; the sampled audit is steered to the pair of the "
                   f"{self.steer.kind} finding" if self.steer is not None else ""))
        lines = [head]
        for f in self.findings[:8]:
            lines.append(f.line())
            lines += [f"  {d}" for d in f.details[:2]]
        if len(self.findings) > 8:
            lines.append(f"... and {len(self.findings) - 8} more gray-box finding(s) "
                         "(--json lists them)")
        if self.cut_by_time:
            lines.append("gray-box: the stage stopped at its time limit before its run budget "
                         "was spent: what it found depends on this machine's speed (a longer "
                         "--seconds, or a shorter --horizon, lets it finish)")
        lines += [f"gray-box: {n}" for n in self.notes]
        lines += [f"gray-box: not read: {u}" for u in self.unread]
        return tuple(lines)


# -- one pair ---------------------------------------------------------------------------------
def _first_difference(a: Any, b: Any) -> int | None:
    try:
        x = np.asarray(a).ravel()
        y = np.asarray(b).ravel()
    except (TypeError, ValueError):
        return None
    n = min(x.size, y.size)
    if n and (x.dtype.kind in "fc" or y.dtype.kind in "fc"):
        close = np.isclose(x[:n].astype(float), y[:n].astype(float), rtol=1e-9, atol=1e-12,
                           equal_nan=True)
        diff = np.flatnonzero(~close)
    else:
        diff = np.flatnonzero(x[:n] != y[:n]) if n else np.zeros(0, dtype=int)
    if diff.size:
        return int(diff[0])
    return n if x.size != y.size else None


def _trace_divergence(a: LineTrace | None, b: LineTrace | None
                      ) -> tuple[tuple[str, int] | None, tuple[str, int] | None,
                                 tuple[str, int] | None]:
    """``(last common line, D's next line, D''s next line)`` of two line traces (all
    ``None`` when they do not part)."""
    i = trace_split(a, b)
    if i is None or a is None or b is None:
        return None, None, None
    last = a.lines[i - 1] if i > 0 else None
    nxt_a = a.lines[i] if i < len(a.lines) else None
    nxt_b = b.lines[i] if i < len(b.lines) else None
    return last, nxt_a, nxt_b


def _where(fl: tuple[str, int] | None) -> str:
    return "the end of the run" if fl is None else f"{_short_path(fl[0])}:{fl[1]}"


def _draw_sites(rec: Recorder, cols: Sequence[int]) -> str:
    sites = []
    for c in cols:
        s = str(rec.columns.site[c])
        if s not in sites:
            sites.append(s)
    return ", ".join(sites[:3]) + (" ..." if len(sites) > 3 else "")


def _scale_of(coefs: tuple[tuple[int, float], ...]) -> float:
    return math.sqrt(math.fsum(c * c for _, c in coefs))


def analyse(rp: Replay, pair: tuple[Any, Any], pair_text: str, seed: int, *,
            epsilon: float, delta: float, output_is_release: bool = False
            ) -> list[GrayFinding]:
    """The findings of one replayed pair (module docstring's table)."""
    if rp.status == "unread" or rp.rec_d is None or rp.rec_p is None:
        return []
    rd, rq = rp.rec_d, rp.rec_p
    out: list[GrayFinding] = []

    def add(kind: str, level: str, summary: str, site: str | None, numbers: dict[str, Any],
            details: tuple[str, ...] = (), step: int | None = None) -> None:
        out.append(GrayFinding(kind, level, summary, site, pair_text, seed, numbers, details,
                               step))

    first_out = _first_difference(rp.out_d, rp.out_p)
    # declared primitives and equalities: the user's own statements
    prims_p = {p.key(): p for p in rq.primitives}
    for p in rd.primitives:
        pq = prims_p.get(p.key())
        if pq is None or p.value.shape != pq.value.shape:
            continue
        diff = p.value - pq.value
        dist = float({"l1": np.sum(np.abs(diff)), "l2": np.linalg.norm(diff),
                      "linf": np.max(np.abs(diff), initial=0.0)}[p.norm])
        if dist > p.sensitivity * (1 + 1e-9) + 1e-12:
            loss = None if p.scale is None or p.law is None else dist / p.scale
            is_output = output_is_release and _same_values(p.output, rp.out_d)
            add("declared-sensitivity", "proof",
                f"the input of {p.name} moved by {dist:.6g} ({p.norm}) between D and D', "
                f"above its declared sensitivity {p.sensitivity:g}"
                + (f": with its declared {p.law} scale {p.scale:g} this release costs "
                   + (f"{loss:.6g}" if p.law == "laplace" else f"Gaussian mu {loss:.6g}")
                   + f" against the claimed epsilon {epsilon:g}" if loss is not None else ""),
                str(p.site),
                {"measured": dist, "declared": p.sensitivity, "norm": p.norm, "law": p.law,
                 "scale": p.scale, "release_loss": loss, "output_is_release": is_output})
    eq_p = {e.key(): e for e in rq.equalities}
    for e in rd.equalities:
        eq = eq_p.get(e.key())
        if eq is not None and (e.value.shape != eq.value.shape or not np.allclose(
                e.value, eq.value, rtol=1e-12, atol=1e-12, equal_nan=True)):
            add("not-equal", "proof", f"{e.name}, declared equal on neighbouring inputs, "
                f"differs between D and D'", str(e.site),
                {"on_d": e.value[:8].tolist(), "on_d_prime": eq.value[:8].tolist()})
    # draws met before the paths parted: scale and count
    split = trace_split(rp.trace_d, rp.trace_p)
    horizon = 1 << 62 if split is None else split
    draws_p = {d.key(): d for d in rq.draws}
    for d in rd.draws:
        if d.at_line > horizon:
            break
        q = draws_p.get(d.key())
        if q is None or q.at_line > horizon:
            continue
        if d.law is not None and q.law == d.law and d.scale is not None and q.scale is not None:
            if d.scale.shape != q.scale.shape or not np.allclose(d.scale, q.scale,
                                                                 rtol=1e-9, atol=0.0):
                add("noise-scale", "pointer",
                    f"the {d.law} draw at this line has scale {_nums(d.scale)} on D and "
                    f"{_nums(q.scale)} on D' under the same randomness: the noise depends "
                    "on the data", str(d.site),
                    {"scale_d": d.scale, "scale_d_prime": q.scale, "method": d.method},
                    step=first_out)
                break
        if d.shape != q.shape:
            add("draw-count", "pointer",
                f"the {d.method} draw at this line returns shape {d.shape} on D and "
                f"{q.shape} on D': the number of noisy values depends on the data",
                str(d.site), {"shape_d": list(d.shape), "shape_d_prime": list(q.shape)},
                step=first_out)
            break
    calls_d = _calls(rd.draws, horizon)
    calls_p = _calls(rq.draws, horizon)
    if rp.status == "aligned":
        for site, n in calls_d.items():
            m = calls_p.get(site, 0)
            if m != n:
                add("draw-count", "pointer", f"D draws {n} time(s) at this line, D' {m}: the "
                    "number of draws depends on the data", site,
                    {"draws_d": n, "draws_d_prime": m}, step=first_out)
                break
    # a comparison whose two sides carry the same noise
    for j, (a, b) in enumerate(zip(rd.events[:rp.matched], rq.events[:rp.matched],
                                   strict=True)):
        if not a.kind.startswith("compare") or len(a.forms) != 2:
            continue
        fa, fb = a.forms
        if fa.coefs and fa.coefs == fb.coefs:
            moved = (fa.base - fb.base) - (b.forms[0].base - b.forms[1].base)
            if abs(moved) > 1e-12 * (1 + abs(fa.base - fb.base)):
                add("noise-cancels", "pointer",
                    f"this comparison ({a.kind[8:]}) reads two values carrying the same "
                    f"noise (the draw at {_draw_sites(rd, fa.support)}, scale "
                    f"{_scale_of(fa.coefs):.6g}): the noise cancels, and the data move the "
                    f"difference by {moved:.6g}, so its outcome is a function of the data "
                    "alone", str(a.site),
                    {"moved": moved, "event": j}, step=_step_after(a, first_out))
                break
    if rp.status == "uncovered" and rp.bad_row is not None and rp.rows:
        coefs, rhs, j, k = rp.rows[rp.bad_row]
        ev = rd.events[j]
        if not coefs:
            text = (f"the value consumed here ({ev.kind}) carries no noise (its noise "
                    f"cancelled) and moves by {rhs:.6g} between D and D'")
        else:
            twins = [r for r in rp.rows[:rp.bad_row] if set(dict(r[0])) & set(dict(coefs))]
            drawn = _draw_sites(rd, [c for c, _ in coefs])
            scale = _scale_of(coefs)
            if twins:
                other = twins[-1]
                text = (f"the draw at {drawn} (scale {scale:.6g} here) feeds two values the "
                        f"data move apart: the one consumed here ({ev.kind}) moves by "
                        f"{rhs:.6g} between D and D', the one consumed at "
                        f"{rd.events[other[2]].site} by {other[1]:.6g}, a difference of "
                        f"{abs(rhs - other[1]) / scale:.6g} scales: no shift of the noise makes "
                        "the two runs release the same values (the noise is shared), the "
                        "release-level loss is infinite")
            else:
                text = (f"the value consumed here ({ev.kind}) moves by {rhs:.6g} between D and "
                        f"D' in a direction its noise (the draw at {drawn}, scale {scale:.6g}) "
                        "cannot cover: no shift of the noise makes the two runs release the "
                        "same values, the release-level loss is infinite")
        add("uncovered-shift", "pointer", text, str(ev.site),
            {"moved": rhs, "residual": rp.residual, "event": j},
            step=_step_after(ev, first_out))
    if rp.status == "diverged":
        last, na, nb = _trace_divergence(rp.trace_d, rp.trace_p)
        split = trace_split(rp.trace_d, rp.trace_p)
        limit = split if split is not None else 1 << 62
        before = [d for d in rd.untracked if d.at_line <= limit]
        caveat = (f"; the run also draws from {before[0].method} at {before[0].site}, noise "
                  "the replay serves alike but does not shift, which may cause it"
                  if before else "")
        where = f"after {_where(last)} D runs {_where(na)} and D' runs {_where(nb)}" \
            if last is not None or na is not None else "the outputs differ"
        branches_p = {b.key(): b for b in rq.branches}
        cause = next((b for b in rd.branches if b.at_line <= limit and b.key() in branches_p
                      and branches_p[b.key()].outcome != b.outcome), None)
        lost = _lost_noise(rd, limit)
        if lost is not None:  # the noise went on as plain numbers: the parting may be its own
            add("control-flow", "information",
                f"the runs part ({where}), but the noise drawn at {lost.site} became a plain "
                f"number ({lost.kind}) before a statistic was added to it, out of the stage's "
                "sight: it cannot tell whether the noise or the data made them part",
                _where(last) if last is not None else None,
                {"first_output_difference": first_out, "noise_left_at": str(lost.site)})
        elif cause is not None and cause.randomised:
            add("control-flow", "information",
                f"the runs part at this comparison ({cause.kind}) of a value read from the "
                f"rewards with a draw the stage serves alike but does not shift (as in "
                f"randomized response): it decides {cause.outcome} on D and "
                f"{branches_p[cause.key()].outcome} on D'; the law of that choice is left to "
                "the sampled audit", str(cause.site), {"first_output_difference": first_out})
        elif cause is not None:
            add("control-flow", "pointer",
                f"with every noisy value matched, this comparison ({cause.kind}) of a value "
                f"read from the rewards with no noise added (last computed at {cause.origin}) "
                f"decides {cause.outcome} on D and {branches_p[cause.key()].outcome} on D': "
                f"the control flow reads the data other than through its noise ({where})",
                str(cause.site), {"first_output_difference": first_out,
                                  "origin": str(cause.origin)}, step=first_out)
        else:  # after a draw it does not shift, the stage cannot say the data did it
            add("control-flow", "information" if before else "pointer",
                f"with every noisy value matched, the runs part: {where}{caveat}"
                + ("" if before else ": the control flow reads the data other than through "
                   "its noise"), _where(last) if last is not None else None,
                {"first_output_difference": first_out, "untracked_before": len(before)},
                step=None if before else first_out)
    if rp.status == "aligned":
        out += _release_loss(rp, pair_text, seed, epsilon, delta, output_is_release)
    out += _output_findings(rp, pair_text, seed)
    return out


def _same_values(a: Any, b: Any) -> bool:
    """Whether two outputs hold the same numbers (the mechanism returned what a declared
    primitive returned)."""
    try:
        x = np.asarray(plain(a), dtype=float).ravel()
        y = np.asarray(plain(b), dtype=float).ravel()
    except (TypeError, ValueError):
        return False
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-12, atol=0.0))


def _lost_noise(rec: Recorder, limit: int) -> Event | None:
    """The first conversion, before line position ``limit``, of a value that was still pure
    noise to a plain number (:func:`~dpaudit.usercode.replay.pure_noise`) that the recorder
    did not follow again (no later consumed value carries that draw with a statistic added,
    as when a marked reward is added to the number): the code then computed with noise out
    of the stage's sight."""
    for j in sorted(pure_noise(rec)):
        e = rec.events[j]
        if e.at_line > limit:
            break
        col, base = e.forms[0].coefs[0][0], e.forms[0].base
        again = any(col in f.support and not math.isclose(f.base, base, abs_tol=1e-12)
                    for later in rec.events[j + 1:] for f in later.forms)
        if not again:
            return e
    return None


def _calls(draws: Sequence[Draw], horizon: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for d in draws:
        if d.at_line <= horizon:
            out[str(d.site)] = out.get(str(d.site), 0) + 1
    return out


def _step_after(ev: Event, first_out: int | None) -> int | None:
    """Where the sampled audit should look: the first output position where the replayed
    runs differ (``None`` when they do not: this pair shows the defect in the code, not in
    its output, and steers nothing)."""
    return first_out


def _nums(a: np.ndarray) -> str:
    flat = np.unique(np.asarray(a, dtype=float).ravel())
    shown = ", ".join(f"{v:.6g}" for v in flat[:3])
    return shown + (" ..." if flat.size > 3 else "")


def _release_loss(rp: Replay, pair_text: str, seed: int, epsilon: float, delta: float,
                  output_is_release: bool) -> list[GrayFinding]:
    assert rp.rec_d is not None
    rd = rp.rec_d
    laws = rd.columns.law
    lap = [abs(v) for c, v in rp.shift.items() if laws[c] == "laplace"]
    mu = math.sqrt(math.fsum(v * v for c, v in rp.shift.items() if laws[c] == "normal"))
    pure = math.fsum(lap)
    moved = [(coefs, rhs, j) for coefs, rhs, j, _ in rp.rows if rhs != 0.0]
    if not moved:
        return []
    parts = []
    worst_step = None
    worst = -1.0
    for coefs, rhs, j in sorted(moved, key=lambda r: -abs(r[1]) / max(_scale_of(r[0]),
                                                                       1e-300))[:4]:
        scale = _scale_of(coefs)
        ev = rd.events[j]
        cost = abs(rhs) / scale if scale > 0 else math.inf
        if cost > worst:
            worst, worst_step = cost, ev.step
        law = laws[coefs[0][0]] if coefs else "?"
        parts.append(f"the value consumed at {ev.site} ({ev.kind}) moves by {rhs:.6g} against "
                     f"its {law} scale {scale:.6g} (drawn at "
                     f"{_draw_sites(rd, [c for c, _ in coefs])}): {cost:.6g}")
    if mu == 0.0 and delta == 0.0:  # a pure claim: the pure loss decides, no PLD needed
        over = pure > epsilon * (1 + 1e-9)
        lo = hi = 0.0 if not over else math.nan
    else:
        lo, hi = composed_delta(lap, mu, epsilon)
        over = lo > delta
    what = (f"pure epsilon {pure:.6g}" if mu == 0.0 else
            f"Laplace {pure:.6g} and Gaussian mu {mu:.6g}, delta({epsilon:g}) in "
            f"[{lo:.3g}, {hi:.3g}]")
    if mu == 0.0 and delta > 0.0:
        what += f", delta({epsilon:g}) in [{lo:.3g}, {hi:.3g}]"
    # when the output is the release (a local report, a mechanism's output), the coupling's
    # cost is the output's loss on this path; otherwise the actions post-process it
    level = ("proof" if output_is_release else "pointer") if over else "information"
    summary = (f"every noisy value matched by shifting the noise: the coupling costs {what} "
               f"on this path ({len(moved)} release(s) moved), "
               + ("above" if over else "within") + f" the claim ({epsilon:g}, {delta:g})")
    if over and not output_is_release:
        summary += ("; the output is a post-processing of these releases, so its own loss "
                    "may be lower: the sampled audit decides")
    # the outputs under the same (unshifted) noise: where the moved releases first show
    step = _first_difference(rp.out_d, rp.out_first) if over else None
    return [GrayFinding("release-loss", level, summary, None, pair_text, seed,
                        {"pure_epsilon": pure, "gaussian_mu": mu, "delta_low": lo,
                         "delta_high": hi, "releases_moved": len(moved),
                         "above_claim": bool(over), "first_release_step": worst_step},
                        tuple(parts), step)]


def _output_findings(rp: Replay, pair_text: str, seed: int) -> list[GrayFinding]:
    out = []
    a: np.ndarray | None
    b: np.ndarray | None
    try:
        a = np.asarray(rp.out_d, dtype=float)
        b = np.asarray(rp.out_p, dtype=float)
    except (TypeError, ValueError):
        a = b = None
    la, lb = _length(rp.out_d), _length(rp.out_p)
    if la is not None and lb is not None and la != lb:
        out.append(GrayFinding("output-shape", "pointer",
                               f"the output has {la} value(s) on D and {lb} on D' under the "
                               "same randomness: its length depends on the data", None,
                               pair_text, seed, {"length_d": la, "length_d_prime": lb}))
    elif a is not None and b is not None and a.shape == b.shape:
        fa, fb = np.isfinite(a), np.isfinite(b)
        if np.any(fa != fb):
            i = int(np.flatnonzero(fa != fb)[0])
            out.append(GrayFinding(
                "non-finite", "pointer",
                f"output value {i} is {a.ravel()[i]!r} on D and {b.ravel()[i]!r} on D' under "
                "the same randomness: a non-finite output on one input only is an atom of "
                "its law the other input never shows", None, pair_text, seed,
                {"index": i, "on_d": repr(a.ravel()[i]), "on_d_prime": repr(b.ravel()[i])},
                step=i))
    return out


def _length(x: Any) -> int | None:
    if isinstance(x, list | tuple):
        return sum(_length(v) or 1 for v in x)
    try:
        return int(np.asarray(x, dtype=object).size)
    except (TypeError, ValueError):
        return None


# -- the stage ------------------------------------------------------------------------------------
def user_modules(*objects: Any) -> list[Any]:
    """The modules whose names the recorder patches: those defining ``objects`` and every
    loaded module of the user's files (:func:`~dpaudit.usercode.recorder.is_user_file`)."""
    out: dict[int, Any] = {}
    for obj in objects:
        name = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", None)
        mod = sys.modules.get(name or "")
        if mod is not None:
            out[id(mod)] = mod
    for mod in list(sys.modules.values()):
        path = getattr(mod, "__file__", None)
        if path and is_user_file(path):
            out[id(mod)] = mod
    return list(out.values())


def _warm_up(run: RunFn, data: Any) -> None:
    """One run with the recorder's routes left alone, before any recorded run: code that a
    compiler builds on its first call (numba reads ``np.random.laplace`` as it compiles, and
    would read the recorder's stand-in) is compiled against numpy itself. Its errors are the
    replay's to report."""
    try:
        run(Recorder(0, passthrough=True), data, None)
    except Exception:  # noqa: BLE001 - reported by the recorded runs, if they fail too
        pass


def _deterministic(run: RunFn, data: Any, seed: int) -> str | None:
    """``None`` when two recorded runs with the same seed agree, else what differed: the
    code draws from randomness the recorder does not serve."""
    try:
        a, b = Recorder(seed), Recorder(seed)
        out_a = run(a, data, None)
        b.frozen = {p.key(): p.output for p in a.primitives}  # declared primitives: frozen
        out_b = run(b, data, None)
    except Exception:  # noqa: BLE001 - reported by the replay itself
        return None
    if len(a.events) != len(b.events) or [d.key() for d in a.draws] != \
            [d.key() for d in b.draws] or _first_difference(out_a, out_b) is not None or \
            any(not math.isclose(x.value, y.value, rel_tol=1e-12, abs_tol=1e-12)
                for ea, eb in zip(a.events, b.events, strict=True)
                for x, y in zip(ea.forms, eb.forms, strict=False)):
        return ("two recorded runs with the same randomness differ: the code draws from "
                "randomness the stage does not serve (numba-compiled draws, a C extension, "
                "torch, os.urandom); its findings are left to the sampled audit")
    return None


#: the stage's budget in recorder entries (draws, uses of noisy values, comparisons of marked
#: rewards, summed over its runs): what the recording costs is per entry, so this bounds its
#: time on any code, and it is counted, not timed, so the same seed gives the same findings
MAX_WORK = 250_000


def run_stage(run: RunFn, pairs: Sequence[tuple[Any, Any]], *, epsilon: float, delta: float,
              seeds: Sequence[int] = (1, 2), max_runs: int = 4000, max_work: int = MAX_WORK,
              seconds: float = 60.0,
              describe: Callable[[Any, Any], str] | None = None,
              output_is_release: bool = False, stop_after: int = 8,
              steer_pairs: int = 4,
              more: Callable[[], Sequence[tuple[Any, Any]]] | None = None) -> GrayBoxResult:
    """Replay every pair with each seed (until ``max_runs`` runs of the code are spent, or
    ``stop_after`` pairs made the outputs differ with a pointer or proof) and gather the
    findings (one per kind and site; for release losses the costliest path). The steer names
    up to ``steer_pairs`` pairs whose outputs differed, by the severity of their finding, how
    often the difference shows (:func:`_reveal_rate`) and its strength (a release-level cost).
    ``more`` gives further pairs, asked for only when ``pairs`` are exhausted with fewer than
    ``stop_after`` revealing ones (the decision-boundary pairs, which cost a bisection).

    The budget is in runs and recorder entries (``max_work``), so the same seed gives the same
    findings on any machine; ``seconds`` is only a safety limit, and a stage cut by it says so
    (``cut_by_time``)."""
    start = time.perf_counter()
    describe = describe or (lambda d, dp: f"D = {d!r}, D' = {dp!r}")
    findings: list[tuple[GrayFinding, tuple[Any, Any]]] = []
    unread: list[str] = []
    runs = tried = aligned = 0
    hits = 0
    if pairs:
        _warm_up(run, pairs[0][0])
        why = _deterministic(run, pairs[0][0], seeds[0])
        runs += 2
        if why is not None:
            return GrayBoxResult((), None, 0, runs, time.perf_counter() - start, (why,))
    queue = list(pairs)
    i = 0
    cut = False
    other: dict[str, None] = {}
    work = 0
    while i < len(queue) or more is not None:
        if runs >= max_runs or work >= max_work or hits >= stop_after:
            break
        if time.perf_counter() - start > seconds:
            cut = True
            break
        if i == len(queue):
            assert more is not None
            queue += list(more())
            more = None
            continue
        d, dp = queue[i]
        i += 1
        tried += 1
        strong = False
        for seed in seeds:
            rp = replay_pair(run, d, dp, seed)
            runs += rp.runs
            work += rp.work
            if rp.status == "unread":
                if rp.reason not in unread:
                    unread.append(rp.reason)
                break
            aligned += rp.status == "aligned"
            for rec in (rp.rec_d, rp.rec_p):
                for u in rec.untracked if rec is not None else ():
                    other.setdefault(f"{u.method} at {u.site}", None)
            for f in analyse(rp, (d, dp), describe(d, dp), seed, epsilon=epsilon,
                             delta=delta, output_is_release=output_is_release):
                findings.append((f, (d, dp)))
                strong |= f.level in ("proof", "pointer") and f.step is not None
            if strong:
                break
        hits += strong
    kept: dict[tuple[str, str | None], tuple[GrayFinding, tuple[Any, Any]]] = {}
    for f, pair in findings:
        key = (f.kind, f.site if f.kind != "release-loss" else None)
        old = kept.get(key)
        if old is None or (f.kind == "release-loss" and _costlier(f, old[0])):
            kept[key] = (f, pair)
    ordered = sorted(kept.values(), key=lambda fp: (_SEVERITY[fp[0].kind],
                                                    fp[0].level != "proof"))
    # the steer needs pairs whose outputs differed on the recorded runs: a defect that no
    # output shows on its pair would send the sampled audit where it can find nothing
    revealing = [(f, pair) for f, pair in findings
                 if f.level in ("proof", "pointer") and f.step is not None]
    rates: dict[int, float] = {}
    for _, pair in revealing:
        if id(pair) not in rates:
            rates[id(pair)] = _reveal_rate(run, pair)
            runs += 2 * len(REVEAL_SEEDS)
    revealing.sort(key=lambda fp: (_SEVERITY[fp[0].kind], -rates.get(id(fp[1]), 0.0),
                                   -_strength(fp[0])))
    chosen: list[tuple[GrayFinding, tuple[Any, Any]]] = []
    for f, pair in revealing:
        if rates.get(id(pair), 0.0) > 0.0 and all(pair is not p for _, p in chosen) \
                and len(chosen) < steer_pairs:
            chosen.append((f, pair))
    steer = None if not chosen else Steer(
        tuple(p for _, p in chosen),
        tuple(sorted({f.step for f, _ in chosen if f.step is not None})), chosen[0][0].kind)
    return GrayBoxResult(tuple(f for f, _ in ordered), steer, tried, runs,
                         time.perf_counter() - start, tuple(unread), aligned, cut_by_time=cut,
                         other_draws=tuple(other))


#: recorder seeds on which a steer candidate's outputs are compared (the same randomness on
#: both inputs, no shift): the share that differ ranks the candidates
REVEAL_SEEDS = tuple(range(101, 109))


def _reveal_rate(run: RunFn, pair: tuple[Any, Any]) -> float:
    """On how many of :data:`REVEAL_SEEDS` the pair's two outputs differ (with the same
    randomness on both inputs): how often the difference shows at all, which ranks the pairs
    the sampled audit measures first. A run that fails counts as no difference."""
    hits = 0
    for s in REVEAL_SEEDS:
        try:
            a = run(Recorder(s), pair[0], None)
            b = run(Recorder(s), pair[1], None)
        except Exception:  # noqa: BLE001 - the replay reports what does not run
            continue
        hits += _first_difference(a, b) is not None
    return hits / len(REVEAL_SEEDS)


def _strength(f: GrayFinding) -> float:
    """How strongly a finding's pair should show in the output: the release-level cost of a
    release-loss finding (pure epsilon, else Gaussian mu), 0 for the others."""
    n = f.numbers
    return float(n.get("pure_epsilon") or n.get("gaussian_mu") or 0.0)


def _costlier(a: GrayFinding, b: GrayFinding) -> bool:
    """Whether release-loss finding ``a`` reports a costlier path than ``b`` (above the claim
    first, then the larger pure epsilon, then the larger Gaussian mu): the report keeps the
    worst path the stage saw."""
    def key(f: GrayFinding) -> tuple[bool, float, float]:
        n = f.numbers
        return (bool(n.get("above_claim")), float(n.get("pure_epsilon") or 0.0),
                float(n.get("gaussian_mu") or 0.0))
    return key(a) > key(b)

