"""Symbolic prover: decide the inequalities a privacy proof reduces to, three-valued.

A proof in dpaudit is a list of *obligations*: named relations ``expr <= 0``, ``expr < 0`` or
``expr == 0`` over symbols with a declared domain (``Domain``). :func:`decide` tries, in order:

1. sympy's own sign logic on ``expr``, ``simplify(expr)`` and ``factor(...)`` under the symbols'
   assumptions (``positive=True`` etc.);
2. the same after reparametrising to the positive orthant: ``exp(s) -> 1 + a_s`` for a
   positive symbol ``s`` (so ``e^eps - 1`` becomes a positive symbol), and
   ``s -> 1/(1 + w_s)`` for a symbol declared in ``(0, 1)``;
3. a numeric search for a counterexample at the domain's corner and random points; a point
   where the relation fails by more than a relative ``1e-9`` is a *witness* and the
   obligation is ``DISPROVED``.

Tier 1-2 run under a wall-clock budget per obligation (``budget``, default: the budget in
force, :data:`dpaudit.exact.budget.DEFAULT_SYMBOLIC_BUDGET` = 5 s unless ``--symbolic-budget`` set
another) in a forked worker that is killed when
the budget is spent; the obligation then goes on to tier 3. Each reduced inequality records the
``tier`` that decided it (``symbolic``, ``witness-search`` or ``undecided``) and its ``seconds``.

What survives all three is ``UNKNOWN``, which never counts as a pass (a proof with one
``UNKNOWN`` obligation is ``UNKNOWN``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from dpaudit.exact.budget import CURRENT, resolve_budget, run_with_budget
from dpaudit.stats.results import ProofResult, ProofStatus, ProofSymbol, ReducedInequality

__all__ = ["Domain", "Obligation", "decide", "prove"]


@dataclass(frozen=True)
class Domain:
    """Where a symbol ranges: the interval from ``low`` to ``high``, with preferred witness
    values. The interval is open except at an endpoint that is itself a preferred value: the
    witness search tries the preferred values first, so such an endpoint (``m = 1`` for an
    episode length ``m >= 1``) is in the domain and is printed closed, ``[1, inf)``.

    ``meaning`` says what the symbol stands for; :func:`prove` records it with the domain in
    the proof's :class:`~dpaudit.stats.results.ProofSymbol` list, which the reports print.
    """

    low: float
    high: float
    preferred: tuple[float, ...] = ()
    meaning: str = ""

    def describe(self, symbol: sp.Symbol) -> str:
        """``symbol``'s sympy assumptions and this interval, e.g. ``"positive integer in
        [1, inf)"`` (a sign implies real, so ``"positive real"``; an endpoint is closed when it
        is a preferred witness value, so a witness is never printed outside its domain)."""
        sign = ("positive" if symbol.is_positive
                else "nonnegative" if symbol.is_nonnegative else "")
        kind = "integer" if symbol.is_integer else "real" if symbol.is_real else "number"
        kinds = [w for w in (sign, kind) if w]
        left = "[" if math.isfinite(self.low) and self.low in self.preferred else "("
        right = "]" if math.isfinite(self.high) and self.high in self.preferred else ")"
        return f"{' '.join(kinds)} in {left}{self.low:g}, {self.high:g}{right}"

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        lo, hi = self.low, self.high
        if math.isinf(hi):
            base = max(lo, 0.0)
            return base + np.exp(rng.uniform(-6, 6, size))
        if math.isinf(lo):
            return hi - np.exp(rng.uniform(-6, 6, size))
        return rng.uniform(lo, hi, size)


@dataclass(frozen=True)
class Obligation:
    """``expr <relation> 0`` with ``relation`` one of ``"<="``, ``"<"``, ``"=="``."""

    name: str
    expr: sp.Expr
    relation: str = "<="
    reason: str = ""
    display: str = ""

    def statement(self) -> str:
        return self.display or f"{sp.sstr(self.expr)} {self.relation} 0"


def _reparametrisations(expr: sp.Expr, domain: dict[sp.Symbol, Domain]) -> list[sp.Expr]:
    out = []
    e = expr
    for s, d in domain.items():
        if d.low == 0.0 and d.high == 1.0:
            w = sp.Symbol(f"w_{s.name}", positive=True)
            e = e.subs(s, 1 / (1 + w))
    out.append(e)
    e2 = e
    for s, d in domain.items():
        if d.low == 0.0 and math.isinf(d.high):
            a = sp.Symbol(f"a_{s.name}", positive=True)
            e2 = e2.subs(sp.exp(s), 1 + a)
    if e2 is not e:
        out.append(e2)
    return out


_TRANSFORMS = (
    lambda e: e,
    sp.simplify,
    lambda e: sp.factor(sp.simplify(e)),
    lambda e: sp.factor(sp.together(sp.expand(e))),
)


def _candidates(expr: sp.Expr, domain: dict[sp.Symbol, Domain]) -> Iterator[sp.Expr]:
    """Equivalent forms of ``expr``: rewritten, then reparametrised, then rewritten again."""
    seen: set[sp.Expr] = set()
    for base in [expr, *_reparametrisations(expr, domain)]:
        for transform in _TRANSFORMS:
            try:
                cand = transform(base)
            except (TypeError, ValueError, NotImplementedError, RecursionError):
                continue
            forms = [cand]
            if base is expr:  # a simplified form may expose exp(s) only now
                forms += [sp.factor(r) for r in _reparametrisations(cand, domain)[1:]]
            for form in forms:
                if form not in seen:
                    seen.add(form)
                    yield form


def _sign_decision(candidate: sp.Expr, relation: str) -> ProofStatus | None:
    if relation == "<=":
        if candidate.is_nonpositive:
            return ProofStatus.PROVED
        if candidate.is_positive:
            return ProofStatus.DISPROVED
    elif relation == "<":
        if candidate.is_negative:
            return ProofStatus.PROVED
        if candidate.is_nonnegative:
            return ProofStatus.DISPROVED
    elif relation == "==":
        if candidate == 0 or candidate.is_zero:
            return ProofStatus.PROVED
        if candidate.is_zero is False:
            return ProofStatus.DISPROVED
    return None


def _holds(value: float, relation: str, scale: float) -> bool:
    tol = 1e-9 * max(1.0, scale)
    if relation == "<=":
        return value <= tol
    if relation == "<":
        return value < tol
    return abs(value) <= tol


def _search_witness(
    ob: Obligation, domain: dict[sp.Symbol, Domain], n_random: int, seed: int
) -> dict[str, float] | None:
    # sorted by name: a set's order follows PYTHONHASHSEED, and the draws below are assigned
    # in this order, so an unsorted list made the witness differ between processes
    syms = sorted((s for s in ob.expr.free_symbols if s in domain), key=lambda s: s.name)
    if len(syms) != len(ob.expr.free_symbols):
        return None  # a symbol without a domain: no honest search is possible
    f = sp.lambdify(syms, ob.expr, modules=["mpmath"])
    # the additive terms, evaluated apart: their size is the scale of the cancellation noise
    terms = [sp.lambdify(syms, t, modules=["mpmath"]) for t in sp.Add.make_args(ob.expr)]
    rng = np.random.default_rng(seed)
    points: list[dict[sp.Symbol, float]] = []
    pref = [domain[s].preferred or (domain[s].sample(rng, 1)[0],) for s in syms]
    for combo in np.array(np.meshgrid(*pref)).reshape(len(syms), -1).T if syms else []:
        points.append(dict(zip(syms, combo, strict=True)))
    draws = {s: domain[s].sample(rng, n_random) for s in syms}
    for i in range(n_random):
        points.append({s: draws[s][i] for s in syms})
    import mpmath

    def evaluate(pt: dict[sp.Symbol, float], digits: int) -> tuple[float, float]:
        with mpmath.workdps(digits):
            args = [mpmath.mpf(float(pt[s])) for s in syms]
            value = float(mpmath.re(f(*args)))
            # scale: the size of the largest term, so that cancellation noise between huge
            # terms (e^eps at eps = 40, say) is not mistaken for a witness
            scale = max((abs(float(mpmath.re(t(*args)))) for t in terms), default=0.0)
        return value, scale

    for pt in points:
        try:
            value, scale = evaluate(pt, 40)
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            continue
        if not (math.isfinite(value) and math.isfinite(scale)):
            continue
        if _holds(value, ob.relation, scale):
            continue
        # cancellation inside a term (1 - p with p within 1e-34 of 1) is not seen by the
        # scale: a witness must fail again, by about as much, at twice the precision
        try:
            again, scale2 = evaluate(pt, 80)
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            continue
        stable = math.isfinite(again) and abs(again - value) <= 0.5 * abs(again)
        if stable and not _holds(again, ob.relation, scale2):
            return {s.name: float(pt[s]) for s in syms} | {"value": again}
    return None


def _sympy_tier(ob: Obligation, domain: dict[sp.Symbol, Domain]
                ) -> tuple[ProofStatus | None, str]:
    """sympy's sign logic on the candidate forms: ``(status or None, reduced form)``."""
    tried: list[sp.Expr] = []
    for cand in _candidates(ob.expr, domain):
        tried.append(cand)
        status = _sign_decision(cand, ob.relation)
        if status is not None:
            return status, sp.sstr(cand)
    simplest = min(tried, key=sp.count_ops) if tried else ob.expr
    return None, sp.sstr(simplest)


def decide(
    ob: Obligation, domain: dict[sp.Symbol, Domain], *, n_random: int = 200, seed: int = 0,
    budget: float | None = CURRENT,
) -> ReducedInequality:
    """Decide one obligation (see the module docstring for the strategy).

    ``budget``: wall-clock seconds for the sympy tier (run in a worker that is abandoned
    when the budget is spent, :func:`dpaudit.exact.budget.run_with_budget`; ``None``: no limit).
    Past the budget the obligation goes to the witness search; without a witness it is
    ``UNKNOWN``, never a hang. The result records the deciding ``tier`` and ``seconds``.
    """
    start = time.perf_counter()
    budget = resolve_budget(budget)
    run = run_with_budget(_sympy_tier, (ob, domain), seconds=budget)
    status, form = run.value if run.finished else (None, sp.sstr(ob.expr))
    if status is ProofStatus.PROVED:
        reason = ob.reason or "sympy sign logic"
        return ReducedInequality(
            ob.name, ob.statement(), status, f"{reason}; reduces to {form} {ob.relation} 0",
            tier="symbolic", seconds=time.perf_counter() - start)
    if status is ProofStatus.DISPROVED:
        witness = _search_witness(ob, domain, n_random, seed)
        return ReducedInequality(
            ob.name, ob.statement(), status,
            f"reduces to {form}, which sympy shows violates {ob.relation} 0 everywhere on the "
            "domain", witness, tier="symbolic", seconds=time.perf_counter() - start)
    timed_out = "" if run.finished else (
        f"sympy ran out of its {budget:g} s budget (abandoned); ")
    witness = _search_witness(ob, domain, n_random, seed)
    if witness is not None:
        return ReducedInequality(
            ob.name, ob.statement(), ProofStatus.DISPROVED,
            f"{timed_out}fails numerically (40-digit mpmath) at the witness; value "
            f"{witness['value']:.6g}", witness, tier="witness-search",
            seconds=time.perf_counter() - start)
    return ReducedInequality(
        ob.name, ob.statement(), ProofStatus.UNKNOWN,
        f"{timed_out}sympy could not decide {form} {ob.relation} 0 and no counterexample was "
        f"found at {n_random} random points; this is not a pass", tier="undecided",
        seconds=time.perf_counter() - start)


def prove(
    obligations: Sequence[Obligation] | Iterable[Obligation],
    domain: dict[sp.Symbol, Domain],
    assumptions: Sequence[str],
    *,
    seed: int = 0,
    budget: float | None = CURRENT,
) -> ProofResult:
    """Decide every obligation; PROVED only if all are, DISPROVED if any is.

    ``budget`` is the sympy time budget of *each* obligation (see :func:`decide`). The
    result's ``symbols`` define each symbol of ``domain``: its name, its domain
    (:meth:`Domain.describe`) and its meaning (:attr:`Domain.meaning`).
    """
    results = tuple(decide(ob, domain, seed=seed, budget=budget) for ob in obligations)
    statuses = {r.status for r in results}
    if ProofStatus.DISPROVED in statuses:
        status = ProofStatus.DISPROVED
    elif ProofStatus.UNKNOWN in statuses or not results:
        status = ProofStatus.UNKNOWN
    else:
        status = ProofStatus.PROVED
    symbols = tuple(ProofSymbol(s.name, d.describe(s), d.meaning) for s, d in domain.items())
    return ProofResult(status, tuple(assumptions), results, symbols)
