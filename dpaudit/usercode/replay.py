"""Replay a user's code on a neighbouring pair with aligned noise, and read what differs.

The run on ``D`` is recorded (:mod:`dpaudit.usercode.recorder`): its draws, and the noisy
values it consumed as affine forms ``base + c . z`` in its standard draws ``z``. The run on
``D'`` is then replayed with the same randomness, and with the standard draws of its Laplace
and Gaussian noise shifted, ``z' = z + y``, so that every noisy value it consumes equals
``D``'s: the coupling a Laplace or Gaussian privacy proof uses (the release ``s + b z`` on
``D`` and ``s' + b z'`` on ``D'`` are equal when ``y = (s - s') / b``). ``y`` solves the
linear system of the consumed values met so far, in the least-cost sense of the noise's law
(the smallest ``sum |y|`` for Laplace draws, a linear program; the smallest ``|y|_2`` for
Gaussian ones, the minimum-norm least-squares solution); the replay is repeated until the run
on ``D'`` consumes the same values in the same order as ``D`` (at most :data:`MAX_ROUNDS`
runs: each round aligns everything met before the first difference).

Three outcomes, each a fact about this pair and this randomness:

* **aligned**: every consumed value and the output are equal. On this path the output is a
  function of the noisy values (post-processing of the releases), and the coupling costs
  ``sum |y_i|`` (Laplace, pure epsilon) and ``|y|_2`` (Gaussian ``mu``), composed by
  :func:`dpaudit.exact.composition.composed_delta`;
* **uncovered**: the shifts of the consumed values are not in the range of their noise (one
  draw feeds values the data move apart, or a value whose noise cancelled moves): no shift of
  the noise matches the two runs, which is how a shared draw or an unnoised release shows;
* **diverged**: the consumed values are matched, yet the runs take different paths (other
  lines, other draws, other actions): the control flow read the data other than through the
  noisy values, or through noise the replay does not shift (a uniform or exponential draw,
  served identically to both runs but never aligned).
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit.usercode.recorder import (
    ESCAPES,
    Columns,
    Event,
    Form,
    LineTrace,
    Recorder,
    RecordOverflow,
    is_user_file,
)

__all__ = ["MAX_ROUNDS", "Replay", "RunFn", "Solution", "comparable", "pure_noise",
           "replay_pair",
           "solve_shift", "trace_split"]

#: the most replays of ``D'`` per pair (each round aligns what was met before a difference)
MAX_ROUNDS = 24

#: runs the user's code once on an input, under a recorder, optionally tracing lines
RunFn = Callable[[Recorder, Any, LineTrace | None], Any]


@dataclass(frozen=True)
class Solution:
    """The shift ``y`` (column -> value) that aligns the consumed values met so far, or why
    none does: ``row`` is the index (in the rows given) of the first value whose shift is not
    in the range of the noise, ``residual`` how far it stays."""

    shift: dict[int, float]
    feasible: bool
    row: int | None = None
    residual: float = 0.0


def pure_noise(rec: Recorder) -> set[int]:
    """Indices of the events that turned a value that was still pure noise (drawn at
    location 0, only scaled since: :attr:`~dpaudit.usercode.recorder.Form.pure`) into a plain
    number (:data:`~dpaudit.usercode.recorder.ESCAPES`): they release nothing by themselves,
    and the statistic added to the number later is followed from there (the recorder's
    ``escaped`` numbers), so they are no alignment rows."""
    return {j for j, e in enumerate(rec.events)
            if e.kind in ESCAPES and len(e.forms) == 1 and e.forms[0].pure}


def _rows(events_d: Sequence[Event], events_p: Sequence[Event], skip: Set[int] = frozenset()
          ) -> tuple[list[tuple[tuple[tuple[int, float], ...], float, int, int]], list[str]]:
    """The alignment rows of matched events: ``(coefs, rhs, event index, form index)`` with
    ``coefs . y = base_D - base_D'``, deduplicated, the events in ``skip`` left out; and the
    coefficient mismatches (the noise of a consumed value differs between the runs: a
    data-dependent scale)."""
    out: dict[tuple[tuple[tuple[int, float], ...], float], tuple[int, int]] = {}
    mismatch: list[str] = []
    for j, (a, b) in enumerate(zip(events_d, events_p, strict=False)):
        if j in skip:
            continue
        for k, (fa, fb) in enumerate(zip(a.forms, b.forms, strict=True)):
            if not _same_coefs(fa, fb):
                mismatch.append(f"{j}:{k}")
                continue
            key = (fa.coefs, _round(fa.base - fb.base))
            out.setdefault(key, (j, k))
    rows = [(c, r, j, k) for (c, r), (j, k) in out.items()]
    rows.sort(key=lambda x: (x[2], x[3]))
    return rows, mismatch


def _round(x: float) -> float:
    return float(f"{x:.12g}")


def _same_coefs(a: Form, b: Form) -> bool:
    if a.support != b.support:
        return False
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-300)
               for (_, x), (_, y) in zip(a.coefs, b.coefs, strict=True))


def solve_shift(rows: Sequence[tuple[tuple[tuple[int, float], ...], float]],
                laws: Sequence[str]) -> Solution:
    """The least-cost ``y`` with ``coefs . y = rhs`` for every row (module docstring):
    ``sum |y|`` over Laplace columns (a linear program, scipy's HiGHS), ``|y|_2`` over Gaussian
    ones (minimum-norm least squares); a mixed system is solved in least squares. A row with
    no noise and a non-zero right-hand side, or a system with no solution, is infeasible: the
    first row that makes it so is named."""
    if not rows:
        return Solution({}, True)
    cols = sorted({c for coefs, _ in rows for c, _ in coefs})
    index = {c: i for i, c in enumerate(cols)}
    a = np.zeros((len(rows), len(cols)))
    b = np.array([r for _, r in rows], dtype=float)
    for i, (coefs, _) in enumerate(rows):
        for c, v in coefs:
            a[i, index[c]] = v
    scale = max(float(np.max(np.abs(a))) if a.size else 0.0, 1e-300)
    tol = 1e-9 * (float(np.max(np.abs(b))) + scale) + 1e-12
    for i in range(len(rows)):
        if not np.any(a[i]) and abs(b[i]) > tol:
            return Solution({}, False, i, abs(float(b[i])))
    kinds = {laws[c] for c in cols}
    y = _least_squares(a, b)
    resid = np.abs(a @ y - b)
    if np.any(resid > tol * (1.0 + np.abs(b))):
        return Solution({}, False, _first_infeasible(a, b, tol), float(np.max(resid)))
    if kinds == {"laplace"}:
        y = _least_l1(a, b, y)
    return Solution({c: float(y[index[c]]) for c in cols if y[index[c]] != 0.0}, True)


def _least_squares(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    y, *_ = np.linalg.lstsq(a, b, rcond=None)
    return np.asarray(y, dtype=float)


def _first_infeasible(a: np.ndarray, b: np.ndarray, tol: float) -> int:
    """The first row whose addition makes ``a y = b`` unsolvable."""
    for i in range(1, a.shape[0] + 1):
        y = _least_squares(a[:i], b[:i])
        if np.any(np.abs(a[:i] @ y - b[:i]) > tol * (1.0 + np.abs(b[:i]))):
            return i - 1
    return a.shape[0] - 1


def _least_l1(a: np.ndarray, b: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """``argmin sum |y|`` subject to ``a y = b`` (``y = u - v``, ``u, v >= 0``), scipy's
    HiGHS; the least-squares solution when the program does not solve to its tolerance."""
    from scipy.optimize import linprog

    n = a.shape[1]
    if a.shape[0] == n and np.linalg.matrix_rank(a) == n:
        return fallback  # a unique solution: nothing to minimise
    res = linprog(np.ones(2 * n), A_eq=np.hstack([a, -a]), b_eq=b, bounds=(0, None),
                  method="highs")
    if res.status != 0:
        return fallback
    y = np.asarray(res.x[:n] - res.x[n:], dtype=float)
    return y if np.allclose(a @ y, b, rtol=1e-9, atol=1e-12) else fallback


def _matched(events_d: Sequence[Event], events_p: Sequence[Event]) -> int:
    """How many events both runs consumed alike (same site, kind and noise columns)."""
    n = 0
    for a, b in zip(events_d, events_p, strict=False):
        if a.key() != b.key():
            break
        n += 1
    return n


def _equal_values(events_d: Sequence[Event], events_p: Sequence[Event], m: int,
                  skip: Set[int] = frozenset()) -> bool:
    """Whether the first ``m`` events consumed equal values (the ``skip`` ones, pure noise
    turned into numbers, differ by the shift itself and are not compared)."""
    return all(math.isclose(fa.value, fb.value, rel_tol=1e-9, abs_tol=1e-9)
               for j, (a, b) in enumerate(zip(events_d[:m], events_p[:m], strict=True))
               if j not in skip for fa, fb in zip(a.forms, b.forms, strict=True))


@dataclass
class Replay:
    """One pair replayed: ``status`` is ``aligned``, ``uncovered``, ``diverged`` or ``unread``
    (the code could not run under the recorder: ``reason``). ``rec_d``/``rec_p`` and
    ``out_d``/``out_p`` are the runs on ``D`` and (the last replay of) ``D'``, ``trace_d``/
    ``trace_p`` their lines; ``shift`` the coupling; ``matched`` the events consumed alike;
    ``rows`` the alignment rows and ``bad_row`` the one no noise covers (``uncovered``)."""

    status: str
    rec_d: Recorder | None = None
    rec_p: Recorder | None = None
    out_d: Any = None
    out_p: Any = None
    trace_d: LineTrace | None = None
    trace_p: LineTrace | None = None
    shift: dict[int, float] = field(default_factory=dict)
    matched: int = 0
    rows: list[tuple[tuple[tuple[int, float], ...], float, int, int]] = field(
        default_factory=list)
    bad_row: int | None = None
    residual: float = 0.0
    mismatch: list[str] = field(default_factory=list)
    rounds: int = 0
    reason: str = ""
    runs: int = 0
    #: ``D'``'s output on the first replay (the same noise, unshifted: common random numbers)
    out_first: Any = None
    #: what the runs cost, counted in the recorder's entries (draws, uses of noisy values,
    #: comparisons of marked rewards): deterministic, unlike their seconds
    work: int = 0


def _run(run: RunFn, rec: Recorder, data: Any, trace: bool) -> tuple[Any, LineTrace | None]:
    lines = LineTrace() if trace else None
    rec.trace = lines
    return run(rec, data, lines), lines


def _work(*recs: Recorder | None) -> int:
    """A run's cost in recorder entries (one per draw, use of a noisy value, branch)."""
    return sum(len(r.draws) + len(r.events) + len(r.branches) for r in recs if r is not None)


def trace_split(a: LineTrace | None, b: LineTrace | None) -> int | None:
    """The first position where two line traces differ (``None``: no traces, or the same)."""
    if a is None or b is None:
        return None
    n = min(len(a.lines), len(b.lines))
    i = 0
    while i < n and a.lines[i] == b.lines[i]:
        i += 1
    return None if i == len(a.lines) == len(b.lines) else i


def comparable(events_d: Sequence[Event], events_p: Sequence[Event], split: int | None) -> int:
    """How many events of the two runs can be compared: those both consumed alike (same
    site, kind and noise columns) before their line traces part. After the paths part the
    ``k``-th consumption at a line may be another release; each replay aligns what came
    before, so the next one goes further when the parting was the noise's doing."""
    m = _matched(events_d, events_p)
    if split is None:
        return m
    before = sum(1 for e in events_d[:m] if e.at_line <= split)
    return min(m, before)


def _same_output(a: Any, b: Any) -> bool:
    try:
        x, y = np.asarray(a), np.asarray(b)
        if x.dtype == object or y.dtype == object:
            return bool(repr(a) == repr(b))
        if x.shape != y.shape:
            return False
        if x.dtype.kind in "fc" or y.dtype.kind in "fc":  # equal up to the alignment's rounding
            return bool(np.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True))
        return bool(np.array_equal(x, y))
    except (TypeError, ValueError):
        return bool(repr(a) == repr(b))


def replay_pair(run: RunFn, d: Any, d_prime: Any, seed: int, *, trace: bool = True,
                columns: Columns | None = None) -> Replay:
    """Record ``run`` on ``d`` and replay it on ``d_prime`` with aligned noise (module
    docstring). Any exception inside the user's code, or a run too large to record, gives
    ``status="unread"`` with the reason: the stage then says what it could not read and the
    sampled audit runs the code as it is."""
    cols = Columns() if columns is None else columns
    rec_d = Recorder(seed, cols)
    runs = 0
    try:
        out_d, trace_d = _run(run, rec_d, d, trace)
        runs += 1
        work = _work(rec_d)
        skip = pure_noise(rec_d)
        shift: dict[int, float] = {}
        rec_p = out_p = trace_p = out_first = None
        rows: list[Any] = []
        mismatch: list[str] = []
        for rounds in range(1, MAX_ROUNDS + 1):
            rec_p = Recorder(seed, cols, shift)
            rec_p.frozen = {p.key(): p.output for p in rec_d.primitives}
            out_p, trace_p = _run(run, rec_p, d_prime, trace)
            runs += 1
            work += _work(rec_p)
            if rounds == 1:
                out_first = out_p
            m = comparable(rec_d.events, rec_p.events, trace_split(trace_d, trace_p))
            rows, mismatch = _rows(rec_d.events[:m], rec_p.events[:m], skip)
            sol = solve_shift([(c, r) for c, r, _, _ in rows], cols.law)
            if not sol.feasible:
                return Replay("uncovered", rec_d, rec_p, out_d, out_p, trace_d, trace_p,
                              shift, m, rows, sol.row, sol.residual, mismatch, rounds,
                              runs=runs, out_first=out_first, work=work)
            full = m == len(rec_d.events) == len(rec_p.events)
            if full and _equal_values(rec_d.events, rec_p.events, m, skip) and \
                    _same_output(out_d, out_p) and trace_split(trace_d, trace_p) is None:
                return Replay("aligned", rec_d, rec_p, out_d, out_p, trace_d, trace_p, shift, m,
                              rows, mismatch=mismatch, rounds=rounds, runs=runs,
                              out_first=out_first, work=work)
            if _close(sol.shift, shift):  # nothing left to align: the paths differ anyway
                return Replay("diverged", rec_d, rec_p, out_d, out_p, trace_d, trace_p, shift,
                              m, rows, mismatch=mismatch, rounds=rounds, runs=runs,
                              out_first=out_first, work=work)
            shift = sol.shift
        return Replay("diverged", rec_d, rec_p, out_d, out_p, trace_d, trace_p, shift, m, rows,
                      mismatch=mismatch, rounds=MAX_ROUNDS, runs=runs,
                      reason=f"not aligned after {MAX_ROUNDS} replays", out_first=out_first,
                      work=work)
    except RecordOverflow as exc:
        return Replay("unread", reason=str(exc), runs=runs)
    except Exception as exc:  # noqa: BLE001 - the user's code under the recorder
        return Replay("unread", reason=_describe(exc), runs=runs)


def _close(a: dict[int, float], b: dict[int, float]) -> bool:
    keys = set(a) | set(b)
    return all(math.isclose(a.get(k, 0.0), b.get(k, 0.0), rel_tol=1e-9, abs_tol=1e-12)
               for k in keys)


def _describe(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if is_user_file(f.filename)]
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}{where}"
