"""Lemma 8 and Lemma 9 of Wang & Zhu as generic checks on a perturbation family.

Wang & Zhu 2023, Section 5. An FTPL-style algorithm draws ``theta_i`` from a continuous law with CDF
``F`` that depends only on arm ``i``'s history; ``F'`` is the CDF after one observation of that
history changed. With ``g(x) = F(x) - e^eps F'(x)``:

* **Lemma 8** ((eps, delta)-DP): for all ``x``,
  ``F(x) <= e^eps F'(x) + delta`` and ``1 - F(x) <= e^eps (1 - F'(x)) + delta``, i.e.
  ``sup_x g(x) <= delta`` and ``sup_x -g(x) + 1 - e^eps <= delta``.
* **Lemma 9** ((eps, delta)-global DP of the elimination framework): for all ``x < y``,
  ``F(y) - F(x) <= e^eps (F'(y) - F'(x)) + delta_9`` and
  ``1 - F(y) + F(x) <= e^eps (1 - F'(y) + F'(x)) + delta_9``, i.e.
  ``sup_{x<y} g(y) - g(x) <= delta_9`` and ``sup_{x<y} g(x) - g(y) + 1 - e^eps <= delta_9``
  (``x = -inf`` or ``y = +inf`` allowed, which recovers Lemma 8, the paper's Remark 10).

  OCR reconstruction: the seed's display ends both inequalities in a garbled fraction
  ("``+ o``", "``+ 2.``"; in the proof "``+ g``" and "``+ %``"), which we read as
  ``delta/2``; GDP-Elim-New accordingly draws from Lemma 15 with ``(eps, delta/2)``
  (REFERENCE 4.5). The share is the parameter ``delta_share`` (default ``1/2``), so
  ``delta_9 = delta_share * delta``.

The neighbouring relation is symmetric, so by default both orders ``(F, F')`` and
``(F', F)`` are checked (``symmetric=True``).

How each inequality is decided (three tiers, each labelled in the reduced inequality):

1. **symbolic**: ``x`` is split at the breakpoints of the ``Piecewise`` pieces (exact
   parameters via ``nsimplify``); on each region :func:`dpaudit.exact.symbolic.decide` settles
   ``g(x) - delta <= 0`` directly, or proves ``g`` monotone there and decides the sign of its
   end value (a limit at infinity). All regions decided -> PROVED; a counterexample from the
   prover's witness search -> DISPROVED; anything else falls through to the numeric tiers;
2. **certified numeric**: ``g`` on a uniform grid of spacing ``h`` over a window
   ``[lo, hi]``; between grid points ``g`` moves by at most ``L h / 2`` with
   ``L = (1 + e^eps) * density_bound``; outside the window by at most the window's tail mass
   ``F(lo) + e^eps F'(lo)`` (resp. right tail). If grid max + slack <= delta the inequality
   holds everywhere (up to the stated floating-point allowance of the CDF library);
3. **critical points**: when the condition is tight (slack cannot certify), ``sup g`` is
   attained at ``+-inf``, at a density breakpoint, or where ``g' = f - e^eps f'`` changes
   sign; those points are located on the grid, refined by scipy's bracketing root finder
   and evaluated (mpmath at 30 digits where the family allows it). The result is exact to
   the stated tolerance but not a certificate: a pair of sign changes inside one grid cell
   could be missed.

A grid point (or critical point) where the inequality fails by more than the tolerance is a
witness: ``DISPROVED``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from scipy.optimize.elementwise import find_root

from dpaudit.exact.budget import CURRENT, resolve_budget, run_with_budget
from dpaudit.exact.symbolic import Domain, Obligation, decide
from dpaudit.stats.results import ProofResult, ProofStatus, ProofSymbol, ReducedInequality
from dpaudit.validation import InvalidParameterError, check_delta, check_epsilon, check_int

__all__ = ["CdfPair", "lemma8_check", "lemma9_check", "feasible_band"]

#: absolute floating-point allowance for CDF values computed in double precision
DOUBLE_ALLOWANCE = 1e-12
#: largest epsilon for which ``e^eps`` is a finite double (with room for products)
MAX_EPSILON = 700.0
#: tolerance below which a critical-point value counts as "equal to delta"
TIGHT_TOLERANCE = 1e-10

#: a function of a numpy array, elementwise (a lambdified CDF or density)
ArrayFn = Callable[[np.ndarray], np.ndarray]
#: a function of one number (a lambdified expression: float, numpy or mpmath arguments)
ScalarFn = Callable[[Any], Any]


@dataclass(frozen=True)
class CdfPair:
    """A perturbation's CDF ``F`` and its neighbour ``F'``, numeric parameters substituted.

    ``cdf``/``neighbour`` are sympy expressions in the real symbol ``x``;
    ``density_bound`` bounds both densities from above (for the Lipschitz argument; each
    builder derives it in its docstring); ``window`` holds all but a tiny tail of both laws;
    ``breakpoints`` are where a density is not smooth; ``numeric`` optionally gives vectorised
    ``(F, F', f, f')`` equal to the sympy forms (tests check it); ``high_precision`` says
    whether the expressions evaluate correctly in mpmath (elementary functions and erf do; sympy's
    regularised incomplete beta does not lambdify to mpmath correctly, so Beta pairs use
    scipy in double precision with :data:`DOUBLE_ALLOWANCE`).
    """

    name: str
    x: sp.Symbol
    cdf: sp.Expr
    neighbour: sp.Expr
    density_bound: float
    window: tuple[float, float]
    breakpoints: tuple[float, ...] = ()
    high_precision: bool = True
    description: str = ""
    numeric: tuple[ScalarFn, ScalarFn, ScalarFn, ScalarFn] | None = None

    def numpy_functions(self) -> tuple[ArrayFn, ArrayFn, ArrayFn, ArrayFn]:
        """Vectorised ``F, F', f, f'``: ``numeric`` if the builder gave it (e.g. scipy's
        log-space Beta density, which does not overflow for large parameters), else the
        sympy expressions lambdified to scipy/numpy."""
        if self.numeric is not None:
            a, b, c, d = (_vectorised(f) for f in self.numeric)
            return a, b, c, d
        mods = ["scipy", "numpy"]
        fns = [sp.lambdify(self.x, e, modules=mods) for e in
               (self.cdf, self.neighbour, sp.diff(self.cdf, self.x),
                sp.diff(self.neighbour, self.x))]
        a, b, c, d = (_vectorised(f) for f in fns)
        return a, b, c, d

    def mpmath_functions(self) -> tuple[ScalarFn, ScalarFn]:
        return (sp.lambdify(self.x, self.cdf, modules=["mpmath"]),
                sp.lambdify(self.x, self.neighbour, modules=["mpmath"]))


def _vectorised(f: ScalarFn) -> ArrayFn:
    def g(xs: np.ndarray) -> np.ndarray:
        xs = np.asarray(xs, dtype=float)
        out = f(xs)
        return np.broadcast_to(np.asarray(out, dtype=float), xs.shape).copy()
    return g


@dataclass(frozen=True)
class _Orientation:
    label: str
    F: ArrayFn
    G: ArrayFn
    f: ArrayFn
    g: ArrayFn
    Fm: ScalarFn | None
    Gm: ScalarFn | None


def _orientations(pair: CdfPair, symmetric: bool) -> list[_Orientation]:
    F, G, f, g = pair.numpy_functions()
    Fm, Gm = pair.mpmath_functions() if pair.high_precision else (None, None)
    out = [_Orientation("F vs F'", F, G, f, g, Fm, Gm)]
    if symmetric:
        out.append(_Orientation("F' vs F", G, F, g, f, Gm, Fm))
    return out


def _g_values(o: _Orientation, xs: np.ndarray, eps: float, precise: bool) -> np.ndarray:
    """``F(x) - e^eps F'(x)``, in mpmath (30 digits) when ``precise`` and available."""
    if precise and o.Fm is not None and o.Gm is not None:
        fm, gm = o.Fm, o.Gm
        with mpmath.workdps(30):
            e = mpmath.exp(mpmath.mpf(eps))
            return np.array([float(fm(mpmath.mpf(float(v))) - e * gm(mpmath.mpf(float(v))))
                             for v in xs])
    return np.asarray(o.F(xs) - math.exp(eps) * o.G(xs), dtype=float)


def bisect_sign_changes(fn: Callable[[np.ndarray], np.ndarray], xs: np.ndarray, *,
                        rel_tol: float = 1e-12) -> np.ndarray:
    """Both ends of the final bracket of every sign change of ``fn`` on the grid ``xs``.

    Every grid cell where ``fn`` changes sign is handed, all at once, to scipy's vectorised
    bracketing root finder (``scipy.optimize.elementwise.find_root``, Chandrupatla's method)
    run to the last bit; both ends of each final bracket are returned, so a caller that
    evaluates at them sees both signs. Values within ``rel_tol`` of zero (relative to the
    largest ``|fn|``) count as zero, so a function that vanishes on an interval (a tight
    condition) is not mistaken for thousands of sign changes caused by rounding.
    """
    vals = fn(xs)
    tol = rel_tol * max(1.0, float(np.max(np.abs(vals))))
    sg = np.where(np.abs(vals) <= tol, 0, np.sign(vals))
    idx = np.nonzero(sg[:-1] * sg[1:] < 0)[0]
    if idx.size == 0:
        return np.empty(0)
    a, b = xs[idx].astype(float), xs[idx + 1].astype(float)
    res = find_root(fn, (a, b), tolerances={"xatol": 0.0, "xrtol": 4 * np.finfo(float).eps},
                    maxiter=200)
    lo, hi = np.minimum(*res.bracket), np.maximum(*res.bracket)
    return np.concatenate([lo, hi])


def _critical_points(o: _Orientation, eps: float, xs: np.ndarray,
                     breakpoints: tuple[float, ...]) -> np.ndarray:
    """Grid points, breakpoints and refined sign changes of ``g' = f - e^eps f'``."""
    k = math.exp(eps)

    def dg(v: np.ndarray) -> np.ndarray:
        return np.asarray(o.f(v) - k * o.g(v), dtype=float)

    roots = bisect_sign_changes(dg, xs)
    return np.unique(np.concatenate([xs, np.asarray(roots, float),
                                     np.asarray(breakpoints, float)]))


@dataclass(frozen=True)
class _Profile:
    """``g`` at candidate points (sorted), plus the slack terms of the certificate."""

    xs: np.ndarray
    values: np.ndarray
    lipschitz_slack: float
    tail_slack: float
    allowance: float
    grid: int
    h: float
    seconds: float = 0.0  # time to build it (shared by the orientation's two inequalities)


def _profile(pair: CdfPair, o: _Orientation, eps: float, grid: int) -> _Profile:
    start = time.perf_counter()
    lo, hi = pair.window
    xs = np.linspace(lo, hi, grid)
    h = (hi - lo) / (grid - 1)
    cands = _critical_points(o, eps, xs, tuple(b for b in pair.breakpoints if lo < b < hi))
    values = _g_values(o, cands, eps, precise=False)
    k = math.exp(eps)
    ends = np.array([lo, hi])
    fe, ge = o.F(ends), o.G(ends)
    tail = max(fe[0] + k * ge[0], (1 - fe[1]) + k * (1 - ge[1]))
    return _Profile(cands, values, 0.5 * h * (1 + k) * pair.density_bound, float(tail),
                    DOUBLE_ALLOWANCE * (1 + k), grid, h, time.perf_counter() - start)


def _refined_max(o: _Orientation, eps: float, sign: float, offset: float, xs: np.ndarray,
                 vals: np.ndarray, budget: float, lipschitz: float, *, depth: int = 4,
                 split: int = 32, max_points: int = 200_000) -> float:
    """Certified ``sup`` of ``sign * g + offset`` over ``[xs[0], xs[-1]]``.

    A cell ``[x_i, x_{i+1}]`` contributes ``max(v_i, v_{i+1}) + L h / 2``. Cells whose bound
    exceeds ``budget`` are split into ``split`` sub-cells (all at once, vectorised), up to
    ``depth`` times and ``max_points`` new evaluations in all; refinement stops early where it
    cannot help (a grid value itself within 0.1% of the budget). The result is always a valid
    upper bound; it is below ``budget`` only when the certificate succeeded.
    """
    lefts, rights, vl, vr = xs[:-1], xs[1:], vals[:-1], vals[1:]
    best = -math.inf
    spent = 0
    for level in range(depth + 1):
        top = np.maximum(vl, vr)
        cell = top + 0.5 * lipschitz * (rights - lefts)
        bad = cell > budget
        if (~bad).any():
            best = max(best, float(cell[~bad].max()))
        if not bad.any():
            return best
        hopeless = bool((top[bad] > budget - 1e-3 * abs(budget) - 1e-15).any())
        spent += int(bad.sum()) * (split - 1)
        if level == depth or hopeless or spent > max_points:
            return max(best, float(cell[bad].max()))
        a, b = lefts[bad], rights[bad]
        pts = a[:, None] + (b - a)[:, None] * np.linspace(0.0, 1.0, split + 1)[None, :]
        v = sign * _g_values(o, pts.ravel(), eps, precise=False).reshape(pts.shape) + offset
        lefts, rights = pts[:, :-1].ravel(), pts[:, 1:].ravel()
        vl, vr = v[:, :-1].ravel(), v[:, 1:].ravel()
    return best


def _numeric_decision(name: str, statement: str, sup_value: float, argsup: dict[str, float],
                      bound: float, budget: float, how: str) -> ReducedInequality:
    """Map ``sup <= budget`` to a reduced inequality (certified, tight-exact, or witness)."""
    if sup_value > budget + TIGHT_TOLERANCE:
        return ReducedInequality(
            name, statement, ProofStatus.DISPROVED,
            f"fails at the witness: sup = {sup_value:.10g} > {budget:.6g} ({how})",
            {**argsup, "value": sup_value - budget}, tier="certified-numeric")
    if bound <= budget:
        return ReducedInequality(
            name, statement, ProofStatus.PROVED,
            f"certified numeric: sup <= {bound:.6g} <= {budget:.6g}; largest value found "
            f"{sup_value:.6g} ({how})", tier="certified-numeric")
    return ReducedInequality(
        name, statement, ProofStatus.PROVED,
        f"exact at critical points (not a certificate: the condition is tight or the "
        f"Lipschitz slack too coarse): sup = {sup_value:.12g} <= {budget:.6g} within "
        f"{TIGHT_TOLERANCE:g} ({how}); the slack alone certifies only sup <= {bound:.6g}",
        tier="critical-points")


def _breakpoints(expr: sp.Expr, x: sp.Symbol) -> list[sp.Expr]:
    """Where a ``Piecewise`` in ``expr`` switches piece (conditions solved for ``x``), sorted."""
    found: list[sp.Expr] = []
    for pw in expr.atoms(sp.Piecewise):
        for _, cond in pw.args:
            if isinstance(cond, sp.core.relational.Relational):
                found += sp.solve(sp.Eq(cond.lhs, cond.rhs), x)
    out: list[sp.Expr] = []
    for b in sorted(found, key=lambda v: float(v)):
        if not out or abs(float(b) - float(out[-1])) > 1e-12:
            out.append(b)
    return out


def _active(expr: sp.Expr, x: sp.Symbol, point: float) -> sp.Expr:
    """``expr`` with every ``Piecewise`` replaced by its piece active at ``x = point``."""
    mapping = {}
    for pw in expr.atoms(sp.Piecewise):
        for piece, cond in pw.args:
            if cond == sp.true or bool(cond.subs(x, point)):
                mapping[pw] = piece
                break
    return expr.xreplace(mapping)


def _region_decision(g: sp.Expr, x: sp.Symbol, lo: sp.Expr | None, hi: sp.Expr | None,
                     window: tuple[float, float]
                     ) -> tuple[ProofStatus, str, dict[str, float] | None]:
    """Decide ``g <= 0`` on ``(lo, hi)``: directly, or by monotonicity and the end value."""
    t, u = sp.Symbol("t", positive=True), sp.Symbol("u", positive=True)
    if lo is None and hi is None:
        sub, dom, ends = x, {x: Domain(window[0], window[1], (sum(window) / 2,))}, (-sp.oo, sp.oo)
    elif lo is None:
        sub, dom, ends = hi - t, {t: Domain(0.0, math.inf, (1.0,))}, (-sp.oo, hi)
    elif hi is None:
        sub, dom, ends = lo + t, {t: Domain(0.0, math.inf, (1.0,))}, (lo, sp.oo)
    else:
        sub, dom, ends = lo + (hi - lo) * u, {u: Domain(0.0, 1.0, (0.5,))}, (lo, hi)
    direct = decide(Obligation("region", g.subs(x, sub), "<="), dom, n_random=10, budget=None)
    if direct.status is not ProofStatus.UNKNOWN:
        w = direct.witness
        if w is not None:  # map the region coordinate back to x
            point = float(sub.subs({sym: w[sym.name] for sym in dom if sym.name in w}))
            w = {"x": point, "value": w["value"]}
        return direct.status, direct.reason, w
    dg = sp.diff(g, x).subs(x, sub)
    for end, sign, word in ((ends[1], -1, "increasing"), (ends[0], 1, "decreasing")):
        mono = decide(Obligation("monotone", sign * dg, "<="), dom, n_random=10, budget=None)
        if mono.status is ProofStatus.PROVED:
            value = sp.limit(g, x, end) if end in (sp.oo, -sp.oo) else g.subs(x, end)
            value = sp.nsimplify(sp.simplify(value)) if value.is_number else sp.simplify(value)
            if value.is_nonpositive:
                return ProofStatus.PROVED, f"{word}; value at the end {sp.sstr(value)} <= 0", None
            if value.is_positive and end not in (sp.oo, -sp.oo):
                return (ProofStatus.DISPROVED, f"{word}; value at the end {sp.sstr(value)} > 0",
                        {"x": float(end), "value": float(value)})
    return ProofStatus.UNKNOWN, "undecided", None


def _symbolic_attempt(pair: CdfPair, expr: sp.Expr, name: str,
                      display: str) -> ReducedInequality | None:
    """Symbolic tier: split ``x`` at the pieces' breakpoints; on each region sympy decides
    ``expr <= 0`` directly or proves monotonicity and decides the end value. Only trusted
    when every region is decided (PROVED) or one is disproved; otherwise ``None``."""
    if expr.has(sp.betainc_regularized):
        return None  # sympy's incomplete beta is not usable here; go numeric
    x = pair.x
    bps = _breakpoints(expr, x)
    edges: list[sp.Expr | None] = [None, *bps, None]
    steps = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        a = float(lo) if lo is not None else (float(hi) - 1.0 if hi is not None else 0.0)
        b = float(hi) if hi is not None else a + 2.0
        point = 0.5 * (a + b) if lo is not None and hi is not None else (
            a if lo is None and hi is not None else a + 1.0)
        g = _active(expr, x, point)
        try:
            status, why, witness = _region_decision(g, x, lo, hi, pair.window)
        except (NotImplementedError, ValueError, TypeError, RecursionError):
            return None
        where = f"({'-oo' if lo is None else f'{float(lo):.6g}'}, " \
                f"{'oo' if hi is None else f'{float(hi):.6g}'})"
        if status is ProofStatus.DISPROVED and witness is not None:
            return ReducedInequality(name, display, status, f"symbolic: on x in {where}: {why}",
                                     witness)
        if status is not ProofStatus.PROVED:
            return None  # undecided (or disproved without a usable witness): go numeric
        steps.append(f"x in {where}: {why}")
    return ReducedInequality(name, display, ProofStatus.PROVED,
                             "symbolic, by regions between the pieces' breakpoints: "
                             + "; ".join(steps))


def _budgeted_symbolic(pair: CdfPair, expr: sp.Expr, name: str, display: str,
                       budget: float | None) -> tuple[ReducedInequality | None, str, bool]:
    """The symbolic tier under its time budget: ``(result or None, note, timed out)``."""
    run = run_with_budget(_symbolic_attempt, (pair, expr, name, display), seconds=budget)
    if not run.finished:
        return None, (f"; the symbolic tier ran out of its {budget:g} s budget after "
                      f"{run.seconds:.1f} s and was abandoned"), True
    if run.value is None:
        return None, f"; the symbolic tier was inconclusive ({run.seconds:.2f} s)", False
    return replace(run.value, tier="symbolic", seconds=run.seconds), "", False


def _out_of_range(pair: CdfPair, eps: float, dl: float, what: str) -> ProofResult:
    """``UNKNOWN`` with the reason: ``e^eps`` is not representable in double precision."""
    ineq = ReducedInequality(
        "epsilon-range", f"e^eps representable (eps <= {MAX_EPSILON:g})", ProofStatus.UNKNOWN,
        f"epsilon = {eps:g}: e^eps overflows double precision, so neither the grid nor the "
        "critical points can be evaluated; the exact divergence (log space) decides instead",
        tier="undecided")
    return _combine([ineq], pair, eps, dl, what)


def _validate(eps: float, delta: float, grid: int) -> tuple[float, float, int]:
    return (check_epsilon(eps, allow_zero=True), check_delta(delta),
            check_int("grid", grid, low=11, high=10**6))


def lemma8_check(pair: CdfPair, epsilon: float, delta: float, *, grid: int = 4001,
                 symmetric: bool = True, symbolic: bool = True,
                 symbolic_budget: float | None = CURRENT) -> ProofResult:
    """Decide Wang & Zhu 2023 Lemma 8's two CDF inequalities for ``pair`` at ``(epsilon, delta)``.

    ``symbolic=False`` skips the sympy tier (it costs seconds and rarely succeeds on
    non-elementary CDFs such as the Gaussian's ``erf``); ``symbolic_budget`` is its wall-clock
    budget per inequality (seconds; :func:`dpaudit.exact.budget.run_with_budget`), after which the
    inequality falls to the numeric tiers. The four inequalities of one pair are the same
    expression up to orientation, so once one has run out of its budget the others skip the
    symbolic tier (saying so): a check costs at most one budget in sympy, not four. Each
    reduced inequality records its ``tier`` and ``seconds``. By default the budget is the one in
    force (:func:`dpaudit.exact.budget.current_symbolic_budget`; ``check --symbolic-budget``).
    """
    eps, dl, grid = _validate(epsilon, delta, grid)
    symbolic_budget = resolve_budget(symbolic_budget)
    if eps > MAX_EPSILON:
        return _out_of_range(pair, eps, dl, "Lemma 8 (Wang & Zhu 2023)")
    k = math.exp(eps)
    results = []
    budget_spent = False  # after one timeout, the sibling inequalities go straight to numeric
    for o in _orientations(pair, symmetric):
        a, b = ("F", "F'") if o.label == "F vs F'" else ("F'", "F")
        prof = _profile(pair, o, eps, grid)
        first, second = ((pair.cdf, pair.neighbour) if o.label == "F vs F'"
                         else (pair.neighbour, pair.cdf))
        for which in ("lower", "upper"):
            if which == "lower":
                stmt = f"{a}(x) <= e^eps {b}(x) + delta for all x"
                vals, extra = prof.values, 0.0
                sym = first - sp.exp(sp.nsimplify(eps)) * second - sp.nsimplify(dl)
            else:
                stmt = f"1 - {a}(x) <= e^eps (1 - {b}(x)) + delta for all x"
                vals, extra = -prof.values, 1.0 - k
                sym = (1 - first) - sp.exp(sp.nsimplify(eps)) * (1 - second) - sp.nsimplify(dl)
            name = f"lemma8_{which}[{o.label}]"
            start = time.perf_counter()
            if symbolic and not budget_spent:
                res, note, budget_spent = _budgeted_symbolic(pair, sym, name, stmt,
                                                             symbolic_budget)
            else:
                res, note = None, ("; symbolic tier skipped: a sibling inequality of this pair "
                                   "ran out of its budget" if symbolic else "")
            if res is None:
                # the limits x -> -inf / +inf: g -> 0 and g -> 1 - e^eps
                limit_vals = np.array([0.0 + (0.0 if which == "lower" else extra),
                                       (1 - k) if which == "lower" else -(1 - k) + extra])
                cand = vals + extra
                i = int(np.argmax(cand))
                sup_grid = float(cand[i])
                if pair.high_precision and o.Fm is not None:  # re-evaluate at 30 digits
                    g_hp = _g_values(o, prof.xs[i:i + 1], eps, precise=True)[0]
                    sup_grid = (g_hp if which == "lower" else -g_hp) + extra
                sup = max(sup_grid, float(limit_vals.max()))
                sign = 1.0 if which == "lower" else -1.0
                if sup > dl + TIGHT_TOLERANCE:  # a witness: no certificate needed
                    interior = sup
                else:
                    interior = _refined_max(o, eps, sign, extra, prof.xs, cand,
                                            dl - prof.allowance, (1 + k) * pair.density_bound)
                edges = max(cand[0], cand[-1]) + prof.tail_slack
                bound = max(interior, edges, float(limit_vals.max())) + prof.allowance
                how = (f"grid of {prof.grid} points (h={prof.h:.3g}) refined where needed, "
                       f"Lipschitz constant {(1 + k) * pair.density_bound:.4g}, tail slack "
                       f"{prof.tail_slack:.3g}")
                res = _numeric_decision(name, stmt, sup, {"x": float(prof.xs[i])}, bound,
                                        dl, how + note)
            results.append(replace(res, seconds=time.perf_counter() - start + prof.seconds / 2))
    return _combine(results, pair, eps, dl, "Lemma 8 (Wang & Zhu 2023)")


def _max_increase(values: np.ndarray) -> tuple[float, int, int]:
    """``max_{i <= j} values[j] - values[i]`` with its indices (O(n))."""
    run_min = np.minimum.accumulate(values)
    arg_min = np.zeros(values.size, dtype=int)
    best = 0
    for j in range(1, values.size):  # indices of the running minimum (cheap, n ~ 1e4)
        best = j if values[j] < values[best] else best
        arg_min[j] = best
    gains = values - run_min
    j = int(np.argmax(gains))
    return float(gains[j]), int(arg_min[j]), j


def lemma9_check(pair: CdfPair, epsilon: float, delta: float, *, delta_share: float = 0.5,
                 grid: int = 4001, symmetric: bool = True) -> ProofResult:
    """Decide Wang & Zhu 2023 Lemma 9's interval inequalities with budget ``delta_share *
    delta``."""
    eps, dl, grid = _validate(epsilon, delta, grid)
    if not (isinstance(delta_share, int | float) and 0 < delta_share <= 1):
        raise InvalidParameterError(f"delta_share={delta_share!r} must be a number in (0, 1]")
    budget = delta_share * dl
    what = f"Lemma 9 (Wang & Zhu 2023), delta_9 = {delta_share:g} * delta"
    if eps > MAX_EPSILON:
        return _out_of_range(pair, eps, dl, what)
    k = math.exp(eps)
    results = []
    for o in _orientations(pair, symmetric):
        a, b = ("F", "F'") if o.label == "F vs F'" else ("F'", "F")
        prof = _profile(pair, o, eps, grid)
        # prepend x = -inf (g = 0) and append y = +inf (g = 1 - e^eps)
        xs = np.concatenate([[-math.inf], prof.xs, [math.inf]])
        g = np.concatenate([[0.0], prof.values, [1.0 - k]])
        slack = 2 * max(prof.lipschitz_slack, prof.tail_slack) + 2 * prof.allowance
        how = (f"grid of {prof.grid} points, h={prof.h:.3g}, slack {slack:.3g} for both ends "
               "of the interval")
        for which in ("inside", "outside"):
            start = time.perf_counter()
            if which == "inside":
                stmt = f"{a}(y) - {a}(x) <= e^eps ({b}(y) - {b}(x)) + delta_9 for x < y"
                sup, i, j = _max_increase(g)
            else:
                stmt = (f"1 - {a}(y) + {a}(x) <= e^eps (1 - {b}(y) + {b}(x)) + delta_9 "
                        "for x < y")
                inc, i, j = _max_increase(-g)
                sup = inc + 1.0 - k
            res = _numeric_decision(f"lemma9_{which}[{o.label}]", stmt, sup,
                                    {"x": float(xs[i]), "y": float(xs[j])}, sup + slack,
                                    budget, how)
            results.append(replace(res, seconds=time.perf_counter() - start + prof.seconds / 2))
    return _combine(results, pair, eps, dl, what)


def _combine(results: list[ReducedInequality], pair: CdfPair, eps: float, dl: float,
             what: str) -> ProofResult:
    statuses = {r.status for r in results}
    if ProofStatus.DISPROVED in statuses:
        status = ProofStatus.DISPROVED
    elif ProofStatus.UNKNOWN in statuses:
        status = ProofStatus.UNKNOWN
    else:
        status = ProofStatus.PROVED
    assumptions = (
        f"{what} for {pair.name}" + (f": {pair.description}" if pair.description else ""),
        f"epsilon = {eps:g}, delta = {dl:g}",
        f"densities bounded by {pair.density_bound:.6g}; window {pair.window}",
    )
    symbols = (
        ProofSymbol("x, y", "real, x < y (either may be -inf or +inf in Lemma 9)",
                    "points of the real line where the CDFs are compared"),
        ProofSymbol("F, F'", "functions R -> [0, 1]",
                    f"CDFs of the perturbation on two neighbouring histories ({pair.name})"),
        ProofSymbol("eps", f"{eps:g}", "claimed privacy loss"),
        ProofSymbol("delta", f"{dl:g}", "claimed failure probability"),
    ) + ((ProofSymbol("delta_9", "(0, delta]", "Lemma 9's share of delta"),)
         if what.startswith("Lemma 9") else ())
    return ProofResult(status, assumptions, tuple(results), symbols)


def feasible_band(F: np.ndarray, epsilon: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Where ``F'`` may lie given ``F`` so that Lemma 8 holds in both orders (Figs. 1-3).

    From ``F <= e^eps F' + delta``, ``1 - F <= e^eps (1 - F') + delta`` and the same with
    ``F, F'`` swapped: ``max((F - delta) e^-eps, 1 - e^eps (1 - F) - delta) <= F' <=
    min(e^eps F + delta, 1 - (1 - F - delta) e^-eps)``, clipped to ``[0, 1]``.
    """
    F = np.asarray(F, dtype=float)
    k = math.exp(epsilon)
    lower = np.maximum((F - delta) / k, 1 - k * (1 - F) - delta)
    upper = np.minimum(k * F + delta, 1 - (1 - F - delta) / k)
    return np.clip(lower, 0, 1), np.clip(upper, 0, 1)
