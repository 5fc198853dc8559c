"""The check engine: run an audit file's claims, findings and regret into one report.

An audit file (``audits/*.py``) declares an :class:`AuditSpec`: the claims with their paper
reference, each with an ``evaluate(ctx, spec)`` that returns *evidence*
(:mod:`dpaudit.stats.evidence`: a proof, an exact loss with its error bound, the counts of one
sampled event, or an inconclusive reason), never a verdict; findings (information only); and a
regret experiment. :func:`run_check` validates the parameters, gives every piece its own seeded
generator (keyed by the piece's id, so results do not depend on what else runs or on the
number of workers), runs every claim, and only then turns each evidence into a
:class:`~dpaudit.stats.results.ClaimResult` with :func:`~dpaudit.stats.evidence.decide`: the check's
``alpha`` is split over its sampled claims and its regret experiment (Bonferroni,
:func:`~dpaudit.stats.evidence.split_alpha`; the regret verdict is decided by
:func:`~dpaudit.stats.evidence.decide_regret` at its share), so the exit code of the whole
check is wrong with probability at most ``alpha``. A finding may
return sampled evidence too; it is decided at the check's full ``alpha`` (it never changes the
exit code) and says so.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from dpaudit.interfaces import Mechanism
from dpaudit.runtime import limits
from dpaudit.runtime.batches import STOP_DECIDED, BatchPlan, batch_seed, run_batches
from dpaudit.runtime.parallel import in_piece, resolve_scheduler
from dpaudit.runtime.schedule import Piece, PieceResult, known_cost, run_graph
from dpaudit.sim.regret import merge_regret
from dpaudit.stats.evidence import (
    Evidence,
    SampledEvidence,
    decide,
    decided_regret,
    split_alpha,
)
from dpaudit.stats.results import (
    CheckReport,
    ClaimResult,
    Finding,
    Notion,
    RegretResult,
    Verdict,
    check_observes,
    default_observes,
)
from dpaudit.stats.rng import DEFAULT_SEED, generator
from dpaudit.validation import InvalidParameterError, check_alpha, check_epsilon_delta, check_int

__all__ = [
    "AuditSpec",
    "Budget",
    "CheckContext",
    "ClaimSpec",
    "FindingSpec",
    "PieceStore",
    "SavedPiece",
    "run_check",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Budget(Generic[T]):
    """A size declared once for the full run and for ``--quick``: ``ctx.size(Budget(...))``."""

    full: T
    quick: T


@dataclass(frozen=True)
class CheckContext:
    """What every claim, finding and regret function receives.

    ``epsilon``/``delta`` are the claim under test (the paper's defaults unless the user gave
    others); ``quick`` asks for a reduced budget (used by tests and ``--quick``); ``variant``
    is the audit's :attr:`AuditSpec.variant` (what the claims build and attack).
    """

    epsilon: float
    delta: float
    seed: int = DEFAULT_SEED
    alpha: float = 0.05
    quick: bool = False
    workers: int = 1
    variant: Any = None
    _shared: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)

    def shared(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` once per check: work several claims of one check need (e.g. an exact
        search whose result a sampled claim attacks). Lives as long as this context, so no
        module-level cache makes results or durations depend on what ran before."""
        if key not in self._shared:
            self._shared[key] = compute()
        value: T = self._shared[key]
        return value

    def rng(self, *keys: str | int) -> np.random.Generator:
        """A generator for the named piece of work (independent of everything else)."""
        return generator(self.seed, *keys)

    def size(self, budget: Budget[T]) -> T:
        """``budget.quick`` under ``--quick``, else ``budget.full``."""
        return budget.quick if self.quick else budget.full


@dataclass(frozen=True)
class ClaimSpec:
    """One claimed guarantee: its id, notion, paper reference and how to gather evidence.

    ``observes``: the level the evidence looks at (``"releases"``, ``"actions"``, ``"next
    action"``, ``"reports"`` or ``"trajectory"``; empty: inferred from the notion and method
    by :func:`~dpaudit.stats.results.default_observes`).
    """

    id: str
    notion: Notion
    statement: str
    reference: str
    evaluate: Callable[[CheckContext, ClaimSpec], Evidence]
    observes: str = ""
    #: ids of the claims or findings whose ``ctx.shared`` work this one reuses: with several
    #: workers it starts after them and receives that work (:mod:`dpaudit.runtime.schedule`)
    after: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_observes(self.observes)


@dataclass(frozen=True)
class FindingSpec:
    """Information reported beside the claims (never changes the exit code).


    ``evaluate(ctx)`` returns a :class:`~dpaudit.stats.results.Finding`, or sampled evidence
    that the engine turns into one (``summary`` then heads it, with the bound appended).
    """

    id: str
    evaluate: Callable[[CheckContext], Finding | SampledEvidence]
    summary: str = ""
    notion: Notion | None = None
    observes: str = ""
    #: as :attr:`ClaimSpec.after`
    after: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_observes(self.observes)


@dataclass(frozen=True)
class AuditSpec:
    """A checkable name: ``python -m dpaudit check NAME``.

    ``allow_zero_epsilon`` says whether the mechanism is defined at ``epsilon = 0`` (then
    ``delta > 0`` is required). ``regret`` returns the regret experiment's result or ``None``.
    ``variant`` is what the claims audit (an algorithm or mechanism class, or a small frozen
    configuration), handed to them as ``ctx.variant``. A broken twin is declared one way,
    :meth:`twin`: the same audit on a broken ``variant``, whose docstring says what is wrong
    (kept in ``broken``; :attr:`faulty` is true exactly when it is set), named
    ``NAME-<bug>`` (``original`` is ``NAME``) with its ``true_epsilon``: the twin's true
    privacy loss at the default epsilon and delta, established exactly (a derivation in the
    variant's docstring, a computation in a test), never by the audit itself; ``None`` for
    the older twins whose loss is only bounded below. A twin is expected VIOLATED unless its
    true loss is within the claim (:attr:`expect_violated`).
    ``mechanism(epsilon, delta)``, when given, builds the object (black-box protocol of
    :mod:`dpaudit.stats.blackbox`) that ``python -m dpaudit audit NAME`` attacks: the same mechanism
    the claims are about, so ``check NAME`` and ``audit NAME`` mean one thing.
    ``paper_claim_false(epsilon, delta)``, when given, says where the paper's own statement
    (checked at the scope the paper states it) is known to be false, decided exactly: there
    a VIOLATED is the truth about the paper, and the parameter-domain battery expects it.
    """

    name: str
    description: str
    paper: str
    claims: Sequence[ClaimSpec]
    default_epsilon: float
    default_delta: float
    allow_zero_epsilon: bool = False
    findings: Sequence[FindingSpec] = ()
    regret: Callable[[CheckContext], RegretResult] | None = None
    variant: Any = None
    broken: str = ""
    mechanism: Callable[[float, float], Mechanism] | None = None
    paper_claim_false: Callable[[float, float], bool] | None = None
    true_epsilon: float | None = None
    original: str = ""
    #: ids of the claims or findings whose ``ctx.shared`` work the regret experiment reuses
    #: (as :attr:`ClaimSpec.after`)
    regret_after: tuple[str, ...] = ()

    @property
    def faulty(self) -> bool:
        """A deliberately broken twin (see :attr:`expect_violated`)."""
        return bool(self.broken)

    @property
    def expect_violated(self) -> bool:
        """A twin whose true loss exceeds the claim (or is not stated) must come out
        VIOLATED; a benign twin (true loss within the claim) CONSISTENT."""
        return self.faulty and (self.true_epsilon is None
                                or self.true_epsilon > self.default_epsilon)

    def twin(self, variant: Any, *, claims: Sequence[ClaimSpec] | None = None,
             findings: Sequence[FindingSpec] | None = None,
             mechanism: Callable[[float, float], Mechanism] | None = None,
             bug: str = "faulty", true_epsilon: float | None = None) -> AuditSpec:
        """The broken twin ``NAME-<bug>`` (default ``NAME-faulty``): the same claims (or
        ``claims``) on ``variant``, with its exact ``true_epsilon`` when known.

        ``variant``'s docstring must say what is wrong; its first paragraph becomes
        ``broken`` and ends the description. The twin has no regret experiment; its
        ``mechanism`` (for ``audit NAME-faulty``) is the broken one, or none.
        """
        plain = isinstance(variant, int | float | str | tuple | list | dict) or variant is None
        doc = "" if plain else (inspect.getdoc(variant) or "")
        if not doc:
            raise InvalidParameterError(
                f"variant={variant!r} of {self.name}-faulty must have a docstring saying what "
                "is wrong")
        broken = " ".join(doc.split("\n\n")[0].replace("``", "").split())
        broken = broken.removesuffix(" BROKEN.").removesuffix(" BROKEN")
        if not (bug and bug == bug.lower() and " " not in bug):
            raise InvalidParameterError(f"bug={bug!r} must be a lower-case word (the name is "
                                        f"{self.name}-<bug>)")
        if true_epsilon is not None and not (true_epsilon >= 0):
            raise InvalidParameterError(f"true_epsilon={true_epsilon!r} must be >= 0")
        return replace(self, name=f"{self.name}-{bug}", original=self.name,
                       true_epsilon=None if true_epsilon is None else float(true_epsilon),
                       description=f"{self.description} -- BROKEN: {broken}",
                       claims=self.claims if claims is None else claims,
                       findings=self.findings if findings is None else findings,
                       regret=None, variant=variant, broken=broken, mechanism=mechanism,
                       paper_claim_false=None)


class SavedPiece(Protocol):
    """A completed piece of work: its ``value`` and the ``seconds`` it took."""

    @property
    def value(self) -> Any: ...

    @property
    def seconds(self) -> float: ...


def _observed(claim: ClaimResult, spec: ClaimSpec) -> ClaimResult:
    """The decided claim with the level its spec observes (or the inferred one)."""
    level = getattr(spec, "observes", "") or default_observes(claim.notion, claim.method)
    return replace(claim, observes=level)


class PieceStore(Protocol):
    """Where :func:`run_check` keeps completed work (see :mod:`dpaudit.runtime.state`)."""

    def load(self, piece: str) -> SavedPiece | None:
        """``None``, or the saved piece: an object with ``value`` and ``seconds``."""

    def save(self, piece: str, value: Any, seconds: float) -> None:
        """Keep ``value``, computed in ``seconds``, as the result of ``piece``."""


def _finding(spec: FindingSpec, ctx: CheckContext, result: Finding | SampledEvidence
             ) -> Finding:
    if isinstance(result, Finding):
        if spec.observes and not result.observes:
            return replace(result, observes=spec.observes)
        return result
    if not isinstance(result, SampledEvidence):
        raise TypeError(f"finding {spec.id!r}: evaluate returned {type(result).__name__}, not "
                        "a Finding or SampledEvidence")
    claim = decide(_FindingAsClaim(spec), ctx, result, alpha=ctx.alpha)
    observes = spec.observes or default_observes(spec.notion, claim.method)
    bound = float(claim.epsilon_lower_bound or 0.0)
    above = " (above the claimed epsilon)" if claim.verdict is Verdict.VIOLATED else ""
    return Finding(spec.id, f"{spec.summary}: epsilon >= {bound:.3f}{above}", spec.notion,
                   epsilon_lower_bound=bound, alpha=ctx.alpha,
                   details=(*claim.details, f"decided at the finding's own alpha = {ctx.alpha:g}"
                            " (a finding never changes the exit code)"),
                   data={**claim.data, "verdict": claim.verdict.value,
                         "detectable_epsilon": claim.detectable_epsilon,
                         **({"privacy_profile": claim.profile} if claim.profile else {})},
                   observes=observes)


def calibration_findings(claims: Sequence[ClaimResult]) -> list[Finding]:
    """One finding per sampled claim whose privacy profile shows the code's Gaussian DP
    parameter above its analysis's (:func:`dpaudit.stats.profile.calibration_finding`): the
    code adds less noise than its analysis. Information, never a verdict."""
    out = []
    for c in claims:
        found = c.data.get("calibration_finding")
        if not found:
            continue
        out.append(Finding(f"{c.id}-calibration", found["summary"], c.notion,
                           alpha=c.alpha,
                           details=(f"from the privacy profile of claim {c.id} (confidence "
                                    f"{found['confidence']:.3g}): Gaussian DP mu >= "
                                    f"{found['mu_lower_bound']:.6g}, the analysis implies "
                                    f"mu = {found['analysis_mu']:.6g} (sensitivity / sigma)",),
                           data=dict(found), observes=c.observes))
    return out


@dataclass(frozen=True)
class _FindingAsClaim:
    spec: FindingSpec

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def notion(self) -> Notion:
        return self.spec.notion or Notion.GLOBAL

    @property
    def statement(self) -> str:
        return self.spec.summary

    reference = "finding"


def _regret_until_decided(regret_fn: Callable[[CheckContext], RegretResult | None],
                          ctx: CheckContext, first: RegretResult, piece: Callable[..., Any],
                          piece_seconds: dict[str, float], *, alpha: float, max_runs: int,
                          max_seconds: float | None, started: float) -> RegretResult:
    """The regret experiment run until its verdict at ``alpha`` is decided (see
    :func:`run_check`). A batch of ``k`` times the first batch's runs is ``k`` calls of the
    experiment, call ``j`` of batch ``b`` seeded ``batch_seed(batch_seed(seed, "regret", b),
    "call", j)`` (batch 0 is the first call, at the check's seed)."""
    unit = first.runs
    plan = BatchPlan(unit, max(max_runs, unit), max_seconds, unit=unit)

    def run(index: int, size: int, seed: int) -> RegretResult:
        parts = []
        for j in range(size // unit):
            call_seed = batch_seed(seed, "call", j)
            key = f"regret:{index}:{j}"
            sub = replace(ctx, seed=call_seed, _shared={})
            got = piece(key, f"regret experiment, batch {index + 1} ({j + 1}/{size // unit})",
                        partial(regret_fn, sub))
            if got is None or got.values is None or got.runs != unit:
                raise InvalidParameterError(
                    "a regret experiment run again with another seed must return the same "
                    "number of runs, with their values (summarise_regret keeps them)")
            parts.append(replace(got, seconds=piece_seconds[key]))
        return parts[0] if len(parts) == 1 else merge_regret(parts)

    def decided(results: Sequence[RegretResult], looks: tuple[int, ...]) -> bool | None:
        if first.bound is None or first.max_per_run is None or first.values is None:
            return None
        merged = merge_regret(results, batching={})
        return decided_regret(merged, alpha=alpha).verdict is not Verdict.INCONCLUSIVE

    done = run_batches(run, plan=plan, seed=ctx.seed, key="regret", decided=decided,
                       first=first, started=started)
    if len(done.results) == 1 and done.stopped != STOP_DECIDED:
        return replace(first, batching=done.to_dict())
    batches = [first, *(r for r in done.results[1:])]
    merged = merge_regret(batches, batching=done.to_dict())
    return replace(merged, looks=done.looks)


def _no_regret(spec: AuditSpec, asked: bool) -> str:
    """Why a report has no regret section (the text report and the JSON say it)."""
    if spec.regret is None and spec.original:
        return ("none: a broken twin runs no regret experiment, its claims test the planted "
                f"privacy bug (a regret experiment, where there is one, is {spec.original}'s: "
                f"`check {spec.original}`)")
    if spec.regret is None:
        return "none: this check declares no regret experiment"
    if not asked:
        return "not run (--no-regret)"
    return "not run: the regret experiment returned no result"


def scheduled(workers: int) -> bool:
    """Whether :func:`run_check` hands its pieces to the scheduler
    (:mod:`dpaudit.runtime.schedule`): with several workers or a Dask scheduler, unless this
    is itself a scheduled piece (a check of ``claims``: its pieces run in its worker, their
    chunks sharing the workers) or a deadline is set (``--seconds`` runs the pieces in their
    declared order, each started only before it)."""
    if in_piece() or limits.current_deadline() is not None:
        return False
    return workers > 1 or resolve_scheduler(None) is not None


def _piece_run(ctx: CheckContext, compute: Callable[[], Any],
               imports: dict[Hashable, Any]) -> tuple[Any, dict[Hashable, Any]]:
    """A scheduled piece: ``compute()`` with the ``ctx.shared`` work of the pieces it comes
    after; returns its value and the shared work it added (for the pieces after it). In a
    worker process the context is this process's copy, so pieces that run there one after
    the other share their work too."""
    shared = ctx._shared
    for k, v in imports.items():
        shared.setdefault(k, v)
    before = set(shared)  # what it received is not offered again
    value = compute()
    return value, {k: shared[k] for k in shared if k not in before}


def piece_cost_key(name: str, quick: bool, key: str) -> str:
    """The key of a check's piece in the table of costs (:func:`~dpaudit.runtime.schedule.
    known_cost`)."""
    return f"check:{name}:{'quick' if quick else 'full'}:{key}"


def _schedule(spec: AuditSpec, ctx: CheckContext, state: PieceStore | None,
              step: Callable[[str], None], piece_seconds: dict[str, float],
              ready: dict[str, Any], *, regret: bool) -> float:
    """Every claim, finding and the regret experiment's first run, on the scheduler: results
    into ``ready`` (saved pieces are read back, not run); each computed piece is saved as it
    completes. Returns the saved pieces' seconds."""
    ids: dict[str, list[str]] = {}
    plan: list[tuple[str, str, Callable[[], Any], tuple[str, ...]]] = []
    for i, c in enumerate(spec.claims, 1):
        key = f"claim:{i}:{c.id}"
        ids.setdefault(c.id, []).append(key)
        plan.append((key, f"claim {i}/{len(spec.claims)}: {c.id}", partial(c.evaluate, ctx, c),
                     tuple(getattr(c, "after", ()))))
    for i, f in enumerate(spec.findings, 1):
        key = f"finding:{i}:{f.id}"
        ids.setdefault(f.id, []).append(key)
        plan.append((key, f"finding: {f.id}", partial(f.evaluate, ctx),
                     tuple(getattr(f, "after", ()))))
    if regret and spec.regret is not None:
        plan.append(("regret", "regret experiment", partial(spec.regret, ctx),
                     tuple(spec.regret_after)))
    saved = 0.0
    pieces, labels = [], {}
    for key, label, compute, after in plan:
        got = None if state is None else state.load(key)
        if got is not None:
            step(f"{label} (saved)")
            saved += got.seconds
            piece_seconds[key] = got.seconds
            ready[key] = got.value
            continue
        labels[key] = label
        pieces.append(Piece(key, partial(_piece_run, ctx, compute),
                            known_cost(piece_cost_key(spec.name, ctx.quick, key)),
                            tuple(k for a in after for k in ids.get(a, ())), label))

    def done(res: PieceResult) -> None:
        step(f"{labels[res.key]} (done)")
        piece_seconds[res.key] = res.seconds
        ready[res.key] = res.value
        if state is not None:
            state.save(res.key, res.value, res.seconds)

    run_graph(pieces, workers=ctx.workers, done=done)
    return saved


def run_check(
    spec: AuditSpec,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    quick: bool = False,
    workers: int = 1,
    regret: bool = True,
    progress: Callable[[str], None] | None = None,
    state: PieceStore | None = None,
    regret_max_runs: int | None = None,
    regret_max_seconds: float | None = None,
) -> CheckReport:
    """Run every claim (and findings and regret) of ``spec``; see the module docstring.

    ``regret_max_runs`` (``check --max-runs``; ``None``: the regret experiment runs once):
    while the regret verdict is undecided, the experiment is run again with fresh seeds in
    doubling batches (:mod:`dpaudit.runtime.batches`; pieces ``regret:<batch>:<call>``), up
    to this many runs in all, or ``regret_max_seconds`` (``check --max-seconds``) of it; the
    betting confidence sequence that decides is valid wherever that stops.

    ``progress(label)``, when given, is called before each piece of work (a claim, a finding,
    the regret experiment): the CLI draws its progress line with it. It changes no result.

    ``state`` (e.g. :class:`dpaudit.runtime.state.CheckState`), when given, keeps completed work: a
    piece it holds (``state.load(piece)``) is not recomputed, and each piece computed here is
    handed to ``state.save(piece, value, seconds)`` as soon as it completes. Pieces are
    ``claim:<i>:<id>`` (the claim's *evidence*: verdicts are decided only after every claim,
    as always), ``finding:<i>:<id>`` and ``regret``. The caller keys the state by every
    parameter that changes results; each piece has its own generator, so a restored piece is
    the one an uninterrupted run computes. The report's ``seconds`` then counts the saved
    pieces' own seconds plus this run's.
    """
    def step(label: str) -> None:
        if progress is not None:
            progress(label)

    saved_seconds = 0.0
    piece_seconds: dict[str, float] = {}
    #: pieces already computed by the scheduler (several workers or a Dask cluster)
    ready: dict[str, Any] = {}

    def piece(key: str, label: str, compute: Callable[[], T]) -> T:
        nonlocal saved_seconds
        if key in ready:
            done: T = ready.pop(key)
            return done
        got = None if state is None else state.load(key)
        if got is not None:
            step(f"{label} (saved)")
            saved_seconds += got.seconds
            piece_seconds[key] = got.seconds
            saved: T = got.value
            return saved
        step(label)
        t0 = time.perf_counter()
        value = compute()
        piece_seconds[key] = time.perf_counter() - t0
        if state is not None:
            state.save(key, value, piece_seconds[key])
        return value

    eps = spec.default_epsilon if epsilon is None else epsilon
    dlt = spec.default_delta if delta is None else delta
    eps, dlt = check_epsilon_delta(eps, dlt, allow_zero_epsilon=spec.allow_zero_epsilon,
                                   finite_exp=True)
    check_int("seed", seed, low=0)
    check_alpha(alpha)
    check_int("workers", workers, low=1)
    ctx = CheckContext(eps, dlt, seed, alpha, quick, workers, spec.variant)
    start = time.perf_counter()
    run_regret = regret and spec.regret is not None
    if scheduled(workers):
        saved_seconds += _schedule(spec, ctx, state, step, piece_seconds, ready,
                                   regret=run_regret)
    evidences = []
    for i, c in enumerate(spec.claims, 1):
        evidences.append(piece(f"claim:{i}:{c.id}", f"claim {i}/{len(spec.claims)}: {c.id}",
                               partial(c.evaluate, ctx, c)))
    per_claim = split_alpha(alpha, evidences, regret=run_regret)
    claims = tuple(replace(_observed(decide(c, ctx, ev, alpha=per_claim), c),
                           seconds=piece_seconds[f"claim:{i}:{c.id}"])
                   for i, (c, ev) in enumerate(zip(spec.claims, evidences, strict=True), 1))
    sampled = sum(isinstance(e, SampledEvidence) for e in evidences)
    findings = []
    for i, f in enumerate(spec.findings, 1):
        raw = piece(f"finding:{i}:{f.id}", f"finding: {f.id}", partial(f.evaluate, ctx))
        findings.append(_finding(f, ctx, raw))
    findings.extend(calibration_findings(claims))
    regret_result = None
    if run_regret and spec.regret is not None:
        regret_fn = spec.regret
        t0 = time.monotonic()
        raw_regret = piece("regret", "regret experiment", lambda: regret_fn(ctx))
        # the regret experiment is one share of the split, decided like a sampled claim (a
        # regret function may return None: no experiment, e.g. one left out at a deadline)
        if raw_regret is not None:
            raw_regret = replace(raw_regret, seconds=piece_seconds["regret"])
            if regret_max_runs is not None:
                raw_regret = _regret_until_decided(
                    regret_fn, ctx, raw_regret, piece, piece_seconds, alpha=per_claim,
                    max_runs=regret_max_runs, max_seconds=regret_max_seconds, started=t0)
            regret_result = decided_regret(raw_regret, alpha=per_claim)
    return CheckReport(
        name=spec.name,
        description=spec.description,
        paper=spec.paper,
        parameters={"epsilon": eps, "delta": dlt, "seed": seed, "alpha": alpha,
                    "quick": quick, "workers": workers},
        claims=claims,
        findings=tuple(findings),
        regret=regret_result,
        regret_note=None if regret_result is not None else _no_regret(spec, regret),
        seconds=time.perf_counter() - start + saved_seconds,
        alpha_split={"method": "Bonferroni", "alpha": alpha, "sampled_claims": sampled,
                     "regret_experiments": int(run_regret),
                     "per_claim_alpha": per_claim if sampled or run_regret else None},
    )

