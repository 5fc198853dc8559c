"""Figure reproductions, registered like audits: ``python -m dpaudit reproduce NAME``.

An experiment file beside the audits (``audits/fig_*.py``) declares
``EXPERIMENTS = [Experiment(name=..., paper=..., description=..., run=...)]``; the registry
finds it and ``reproduce`` runs it. ``run(settings)`` receives the validated
:class:`ExperimentSettings` (horizon, runs, seed, quick) and returns an
:class:`ExperimentOutput`: a matplotlib figure, a table and a short Markdown summary. This
module writes them as ``<stem>.png``, ``<stem>.csv`` and ``<stem>.md`` (``stem`` is the name
with ``-`` replaced by ``_``). It knows no algorithm and no figure.

:func:`mean_interval` gives the band every reproduction draws around a mean over runs: the
95% Student-t interval of the mean, so a legend can say exactly what the band is. It assumes
a near-normal mean (see :mod:`dpaudit.stats.intervals`); regret is heavy-tailed for some
algorithms, so at few runs the band is indicative, and the verdicts are decided by
:mod:`dpaudit.stats.evidence`, not read off the band.
"""

from __future__ import annotations

import csv
import io
import math
import time
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from dpaudit.runtime import limits
from dpaudit.runtime.batches import BatchPlan, describe, run_batches
from dpaudit.stats.evidence import ExperimentEvidence, decide_experiment
from dpaudit.stats.rng import DEFAULT_SEED, generator
from dpaudit.stats.rule import CONFIRM_FACTOR, keeping_runs
from dpaudit.validation import InvalidParameterError, check_int, check_real

__all__ = [
    "Experiment",
    "ExperimentOutput",
    "ExperimentSettings",
    "Table",
    "cached",
    "mean_interval",
    "new_figure",
    "run_experiment",
]


T = TypeVar("T")

#: ``reproduce --max-runs``'s default, in first batches: the runs the rule's confirmation at
#: 4x the runs cost before (:func:`run_experiment`)
RUN_CAP_FACTOR = 4


class CellCache(Protocol):
    """Where a reproduction keeps its completed cells
    (:class:`dpaudit.runtime.state.ExperimentCache`)."""

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The cell ``key``: saved, or ``compute()`` (then saved)."""


# the cell cache of the reproduction running in this context (see run_experiment)
_ACTIVE_CACHE: ContextVar[CellCache | None] = ContextVar("dpaudit_experiment_cache",
                                                         default=None)


@dataclass(frozen=True)
class ExperimentSettings:
    """The validated budget of one reproduction run.

    ``cache`` (a :class:`dpaudit.runtime.state.ExperimentCache`, set by ``reproduce``; ``None``: no
    caching) keeps the completed cells of the run, see :meth:`cached`.
    """

    horizon: int
    runs: int
    seed: int = DEFAULT_SEED
    quick: bool = False
    cache: CellCache | None = field(default=None, compare=False, repr=False)

    def confirmation(self) -> ExperimentSettings:
        """The rule's confirmation run (:mod:`dpaudit.stats.rule`): the same experiment at
        :data:`~dpaudit.stats.rule.CONFIRM_FACTOR` times the runs with a fresh seed
        (:func:`confirmation_seed`); its cells are kept apart from the first run's in the
        cache, so ``--resume`` covers it too."""
        cache = None if self.cache is None else _Prefixed(self.cache, "confirmation")
        return ExperimentSettings(self.horizon, self.runs * CONFIRM_FACTOR,
                                  confirmation_seed(self.seed), self.quick, cache)

    def batch(self, index: int, runs: int, seed: int) -> ExperimentSettings:
        """Batch ``index`` of running until decided (:mod:`dpaudit.runtime.batches`): the
        same experiment at ``runs`` runs and the batch's ``seed``; its cells are kept apart
        in the cache, so ``--resume`` covers it too."""
        cache = None if self.cache is None else _Prefixed(self.cache, f"batch {index}")
        return ExperimentSettings(self.horizon, runs, seed, self.quick, cache)

    def rng(self, *keys: str | int) -> np.random.Generator:
        """A generator for the named piece of work (independent of everything else)."""
        return generator(self.seed, *keys)

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, kept as one cell of this run: ``reproduce --resume`` reads a cell an
        interrupted run completed instead of recomputing it.

        ``key`` (strings and numbers, or tuples of them) names the cell within the
        experiment; the run's own key (experiment, horizon, runs, seed, ``--quick``, dpaudit's
        code) is added by the cache. ``compute`` must draw its randomness from generators
        keyed by the cell (``settings.rng(...)``, never one shared with other cells) and
        return numbers, strings, numpy arrays, or lists/tuples/dicts of them; the cell then
        comes back bit for bit, so a resumed reproduction writes the same numbers.
        """
        return _cell(self.cache, key, compute)


def cached(key: Hashable, compute: Callable[[], T]) -> T:
    """:meth:`ExperimentSettings.cached` for code that is handed no settings (a helper called
    by an experiment): the cache of the reproduction running now, or plain ``compute()``."""
    return _cell(_ACTIVE_CACHE.get(), key, compute)


def _cell(cache: CellCache | None, key: Hashable, compute: Callable[[], T]) -> T:
    """The cell ``key``; under ``reproduce --seconds`` a cell not started by the deadline is
    not started (:class:`~dpaudit.runtime.limits.DeadlineReached`; a saved cell is still read)."""
    def bounded() -> T:
        if limits.deadline_passed():
            raise limits.deadline_reached("cells of the experiment")
        return compute()
    return bounded() if cache is None else cache.get(key, bounded)


def confirmation_seed(seed: int) -> int:
    """The seed of the confirmation run of a run seeded ``seed``: a 63-bit integer drawn from
    ``SeedSequence((seed, 0x5EED_C0F))``, so it shares no stream with the first run."""
    state = np.random.SeedSequence((int(seed), 0x5EEDC0F)).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1]))


class _Prefixed:
    """A cell cache whose keys are prefixed (the confirmation run's cells)."""

    def __init__(self, cache: CellCache, prefix: str) -> None:
        self.cache, self.prefix = cache, prefix

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        return self.cache.get((self.prefix, key), compute)


#: modules that decide and report but compute no stored number: a stored output keeps its raw
#: evidence, and its status is decided again from it by the rule of today, so a change here
#: does not make the output stale (nor are their imports followed: the registry imports every
#: paper)
NOT_IN_DIGEST = ("dpaudit.stats.evidence", "dpaudit.stats.rule", "dpaudit.stats.intervals",
                 "dpaudit.stats.results", "dpaudit.reports", "dpaudit.commands", "dpaudit.cli",
                 "dpaudit.registry", "dpaudit.schema", "dpaudit.testing",
                 "dpaudit.pytest_plugin", "dpaudit.engine", "dpaudit.statements",
                 # the registry's policy table (which policies exist, not what they compute:
                 # the modules of those an experiment looked up are added by name) and the
                 # saved state of interrupted runs (it restores numbers, it makes none)
                 "dpaudit.sim.policies", "dpaudit.runtime.state",
                 # the harness itself (settings, tables, writing files): the only numbers it
                 # makes are seeds, and tests/test_findings_page.py pins those
                 "dpaudit.experiments")


def _excluded(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in NOT_IN_DIGEST)


#: while an experiment runs (:func:`run_experiment`), the modules declaring the registered
#: policies it looked up by name (the registry notes them: :func:`note_policy_module`)
_LOOKED_UP: ContextVar[set[str] | None] = ContextVar("dpaudit_policy_lookups", default=None)


def note_policy_module(module: str) -> None:
    """Record that the running experiment uses a policy declared in ``module``."""
    used = _LOOKED_UP.get()
    if used is not None:
        used.add(module)


def digest_of_modules(modules: Sequence[str]) -> str:
    """SHA-256 of the source of ``modules`` (dpaudit module names), in sorted order."""
    import hashlib
    import importlib.util

    h = hashlib.sha256()
    for name in sorted(set(modules)):
        spec = importlib.util.find_spec(name)
        origin = None if spec is None else spec.origin
        h.update(name.encode() + b"\0")
        h.update(Path(origin).read_bytes() if origin else b"<missing>")
        h.update(b"\0")
    return h.hexdigest()


def code_digest_of(module: str, *extra: str) -> tuple[str, tuple[str, ...]]:
    """``(sha256, modules)``: a digest of the source of ``module`` and of every dpaudit
    module it imports, directly or through others (every ``import`` statement in each file,
    function-local ones included, read with :mod:`ast`; nothing is executed), except the
    deciding and reporting modules of :data:`NOT_IN_DIGEST`; ``extra``: more modules to
    start from (those of the registered policies the experiment looked up by name, which no
    import statement shows). A stored output records it, so a test can tell when the code
    that produced its numbers has changed since."""
    import ast
    import importlib.util

    seen: dict[str, Path] = {}
    todo = [module]
    todo += list(extra)
    while todo:
        name = todo.pop()
        if name in seen or not (name == "dpaudit" or name.startswith("dpaudit.")) \
                or _excluded(name):
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        path = Path(spec.origin)
        seen[name] = path
        tree = ast.parse(path.read_text(), filename=str(path))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                todo += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[:len(parts) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                todo.append(base)
                todo += [f"{base}.{a.name}" for a in node.names]
    return digest_of_modules(list(seen)), tuple(sorted(seen))


def csv_cell(value: Any) -> Any:
    """A table cell as a CSV writes it: floats (numpy's too) with 12 significant digits."""
    if isinstance(value, float | np.floating) and not isinstance(value, bool):
        return f"{float(value):.12g}"
    return value


@dataclass(frozen=True)
class Table:
    """Rows of numbers or text under named columns; written as CSV and as Markdown."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise InvalidParameterError(
                    f"row {row!r} has {len(row)} cells; the table has {len(self.columns)} "
                    "columns")

    def to_csv(self) -> str:
        """The table as CSV; a float is written with 12 significant digits (``853.505``, not
        the ``853.5049999999286`` that summing in another order leaves), which is well
        beyond any interval the tables report, so no figure changes."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows([csv_cell(v) for v in row] for row in self.rows)
        return buf.getvalue()

    def to_markdown(self, digits: int = 4) -> str:
        def cell(v: Any) -> str:
            if isinstance(v, float):
                return "-" if math.isnan(v) else f"{v:.{digits}g}"
            return str(v)

        lines = ["| " + " | ".join(self.columns) + " |",
                 "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in self.rows]
        return "\n".join(lines)


@dataclass(frozen=True)
class ExperimentOutput:
    """What a reproduction returns: ``figure`` (a matplotlib ``Figure``), ``table`` and
    ``summary`` (Markdown: settings, what the paper claims, what was measured).

    ``evidence`` (optional, :class:`~dpaudit.stats.evidence.ExperimentEvidence`): the paper's
    values beside the measured ones with their runs and spread; the reviewer's ledger
    (``python -m dpaudit claims``) decides it with
    :func:`~dpaudit.stats.evidence.decide_experiment` (``None``: status ``run``). ``verdict``
    is the experiment's narration of what it measured. ``reproduced`` is kept for callers
    written before ``evidence`` existed and decides nothing: an experiment never judges
    itself.
    """

    figure: Any
    table: Table
    summary: str
    reproduced: bool | None = None
    verdict: str = ""
    evidence: ExperimentEvidence | None = None


@dataclass(frozen=True)
class Experiment:
    """A figure reproduction: ``python -m dpaudit reproduce NAME``.

    ``horizon``/``runs`` are the paper's settings, ``quick_horizon``/``quick_runs`` those of
    ``--quick``. ``min_horizon`` is the smallest horizon at which the figure means anything
    (``min_horizon_reason`` says why); smaller ones are refused with that reason.
    """

    name: str
    paper: str
    description: str
    run: Callable[[ExperimentSettings], ExperimentOutput]
    horizon: int = 10**7
    runs: int = 20
    quick_horizon: int = 10**6
    quick_runs: int = 10
    min_horizon: int = 1
    min_horizon_reason: str = ""
    #: the module that declares it in ``EXPERIMENTS`` (set by the registry): part of a stored
    #: output's code digest even when ``run`` lives in a shared helper module
    declared_in: str = ""

    @property
    def modules(self) -> tuple[str, ...]:
        """The modules a stored output's digest starts from (``run``'s and the declaring one)."""
        return tuple(m for m in dict.fromkeys((self.run.__module__, self.declared_in)) if m)

    @property
    def stem(self) -> str:
        return self.name.replace("-", "_")

    def settings(self, *, horizon: int | None = None, runs: int | None = None,
                 seed: int = DEFAULT_SEED, quick: bool = False) -> ExperimentSettings:
        """Validated settings: the paper's (or ``--quick``'s) unless given."""
        h = (self.quick_horizon if quick else self.horizon) if horizon is None else horizon
        r = (self.quick_runs if quick else self.runs) if runs is None else runs
        if isinstance(h, int) and not isinstance(h, bool) and h < self.min_horizon:
            reason = f" ({self.min_horizon_reason})" if self.min_horizon_reason else ""
            raise InvalidParameterError(
                f"horizon={h!r} must be an integer in [{self.min_horizon}, inf) for "
                f"{self.name}{reason}")
        return ExperimentSettings(check_int("horizon", h, low=self.min_horizon),
                                  check_int("runs", r, low=1), check_int("seed", seed, low=0),
                                  bool(quick))


def mean_interval(values: np.ndarray, *, confidence: float = 0.95, axis: int = 0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(mean, low, high)``: the Student-t interval of the mean over ``axis`` (runs).

    It assumes independent runs and a sample mean close to normal (the central limit theorem
    at this many runs). Regret is heavy-tailed for some algorithms (a rare run stuck on a bad
    arm), and then the coverage at few runs can be well below ``confidence``: the band is the
    reporting convention, and verdicts are decided by :mod:`dpaudit.stats.evidence` (which
    uses a distribution-free interval for a regret ``VIOLATED`` when the range is known). With
    one run the interval is the mean itself (no spread can be estimated).
    """
    from scipy import stats

    check_real("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)
    v = np.asarray(values, dtype=float)
    n = v.shape[axis]
    mean = v.mean(axis=axis)
    if n < 2:
        return mean, mean.copy(), mean.copy()
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * v.std(axis=axis, ddof=1) / math.sqrt(n)
    return mean, mean - half, mean + half


def ratio_interval(numerator: np.ndarray, denominator: np.ndarray, *, confidence: float = 0.95
                   ) -> tuple[float, float, float]:
    """``(ratio of means, low, high)`` for two independent samples (runs of two algorithms).

    The interval is ``[lo_N / hi_D, hi_N / lo_D]`` from the two means' Student-t intervals at
    ``1 - (1 - confidence) / 2`` each (Bonferroni: both cover, so the ratio's interval covers,
    with probability at least ``confidence``); ``nan`` limits when either sample has fewer than
    two runs or the denominator's interval reaches 0. Indicative for heavy-tailed regret, as
    :func:`mean_interval` is.
    """
    each = 1.0 - (1.0 - confidence) / 2.0
    num, den = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    mn, ln, hn = (float(x) for x in mean_interval(num, confidence=each))
    md, ld, hd = (float(x) for x in mean_interval(den, confidence=each))
    ratio = mn / md if md != 0 else math.inf
    if ld <= 0 or num.size < 2 or den.size < 2:
        return ratio, math.nan, math.nan
    return ratio, max(ln, 0.0) / hd, hn / ld


def new_figure(*, figsize: tuple[float, float] = (6.4, 4.2)) -> tuple[Any, Any]:
    """A matplotlib ``(figure, axes)`` pair that needs no display and no global state."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=120)
    return fig, fig.subplots()


def undecided_anytime(evidence: ExperimentEvidence) -> bool:
    """Some compared cell on an anytime-valid interval straddles its paper value: more runs
    may decide it (a cell on a fixed-run interval is decided on its first batch only)."""
    d = decide_experiment(evidence)
    return any(c.outcome == "straddles" and c.measurement.anytime and c.valid
               for c in d.cells)


def run_experiment(experiment: Experiment, settings: ExperimentSettings, out: Path, *,
                   confirm: bool = True, max_runs: int | None = None,
                   max_seconds: float | None = None) -> Sequence[Path]:
    """Run ``experiment`` and write ``<stem>.png``, ``<stem>.csv``, ``<stem>.md`` and
    ``<stem>.json`` in ``out``.

    Run until decided (``max_runs``, ``reproduce --max-runs``; ``None``: one run): while a
    cell on an anytime-valid interval (a betting confidence sequence of its kept runs)
    straddles its paper value, the experiment runs again in doubling batches of runs with
    their own seeds (:mod:`dpaudit.runtime.batches`; ``settings.runs`` is the first batch),
    up to ``max_runs`` runs in all or ``max_seconds``; each such cell's runs are appended in
    batch order (:meth:`~dpaudit.stats.evidence.ExperimentEvidence.merged`) and its interval
    looked at the end of each batch, which keeps it valid wherever that stops.

    When its evidence has sampled cells on intervals valid only at a fixed run count (counts,
    intervals the experiment gives, cells whose runs were not kept) and ``confirm`` is true,
    the experiment runs once more at 4x the first batch's runs with a fresh seed
    (:meth:`ExperimentSettings.confirmation`), and those cells are decided by the rule with
    that confirmation (:func:`~dpaudit.stats.evidence.decide_experiment`); the figure and
    table are the first batch's. ``<stem>.json`` holds the evidence (all batches), the
    confirmation's when one ran, the settings, the batching and the digest of the code that
    ran (:func:`code_digest_of`): the findings page decides from it, and a test fails when
    the code has changed since. While it runs, :func:`cached` uses ``settings.cache``.
    """
    used: set[str] = set()
    token = _LOOKED_UP.set(used)
    try:
        started = time.monotonic()
        result = _run(experiment, settings)
        evidence = result.evidence
        batched = None
        if evidence is not None and max_runs is not None and undecided_anytime(evidence):
            first = evidence

            def run(index: int, size: int, seed: int) -> ExperimentEvidence:
                # an added batch keeps its runs at any size, so that they are appended to the
                # cell's (Measurement.merged): one above KEEP_RUNS would be dropped
                with keeping_runs():
                    got = _run(experiment, settings.batch(index, size, seed)).evidence
                if got is None:
                    raise TypeError(f"experiment {experiment.name!r} returned no evidence on "
                                    "a batch of more runs")
                return got

            def decided(evs: Sequence[ExperimentEvidence], looks: tuple[int, ...]) -> bool:
                return not undecided_anytime(evs[0].merged(evs[1:]))

            batched = run_batches(run, plan=BatchPlan(settings.runs, max(max_runs,
                                                                         settings.runs),
                                                      max_seconds),
                                  seed=settings.seed, key=f"reproduce:{experiment.name}",
                                  decided=decided, first=first, started=started)
            evidence = batched.results[0].merged(batched.results[1:])
        second = None
        if confirm and evidence is not None and evidence.needs_confirmation:
            second = _run(experiment, settings.confirmation())
    finally:
        _LOOKED_UP.reset(token)
    out.mkdir(parents=True, exist_ok=True)
    png, csv_path, md, js = (out / f"{experiment.stem}.{ext}"
                             for ext in ("png", "csv", "md", "json"))
    result.figure.tight_layout()
    result.figure.savefig(png)
    csv_path.write_text(result.table.to_csv())
    confirm_ev = None if second is None else second.evidence
    more = "" if batched is None else f" {describe(batched.to_dict())}."
    md.write_text("\n".join([
        f"# {experiment.paper}: {experiment.description}", "",
        f"Settings: T = {settings.horizon}, {settings.runs} runs, seed {settings.seed}"
        + (" (--quick)" if settings.quick else "") + "." + more, "",
        result.table.to_markdown(), "", result.summary.strip(), "",
        *status_lines(evidence, confirm_ev, confirm_required=confirm),
        f"Reproduce: `python -m dpaudit reproduce {experiment.name}"
        + (" --quick" if settings.quick else "")
        + f" --horizon {settings.horizon} --runs {settings.runs} --seed {settings.seed}"
        + ("" if max_runs is None or max_runs == RUN_CAP_FACTOR * settings.runs
           else f" --max-runs {max_runs}")
        + ("" if max_seconds is None else f" --max-seconds {max_seconds:g}") + "`", ""]))
    digest, modules = code_digest_of(*experiment.modules, *sorted(used))
    doc = {"experiment": experiment.name, "horizon": settings.horizon, "runs": settings.runs,
           "seed": settings.seed, "quick": settings.quick,
           "confirmation": None if second is None else {
               "runs": settings.runs * CONFIRM_FACTOR,
               "seed": confirmation_seed(settings.seed)},
           "batching": None if batched is None else batched.to_dict(),
           "code_digest": digest, "modules": list(modules),
           "evidence": None if evidence is None else evidence.to_dict(),
           "confirm_evidence": None if confirm_ev is None else confirm_ev.to_dict()}
    import json

    js.write_text(json.dumps(doc, indent=1, sort_keys=True, default=_plain) + "\n")
    return png, csv_path, md, js


def _plain(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"{type(x).__name__} is not JSON-serialisable")


def _run(experiment: Experiment, settings: ExperimentSettings) -> ExperimentOutput:
    token = _ACTIVE_CACHE.set(settings.cache)
    try:
        result = experiment.run(settings)
    finally:
        _ACTIVE_CACHE.reset(token)
    if not isinstance(result, ExperimentOutput):
        raise TypeError(f"experiment {experiment.name!r} returned {type(result).__name__}, "
                        "not an ExperimentOutput")
    return result


def status_lines(evidence: ExperimentEvidence | None,
                 confirm: ExperimentEvidence | None = None, *,
                 confirm_required: bool = True) -> list[str]:
    """The status the rule gives this run's evidence (what the ledger reports), with its
    interval method, stability, tail and the runs that would settle it."""
    if evidence is None:
        return []
    d = decide_experiment(evidence, confirm=confirm, confirm_required=confirm_required)
    lines = [f"Status (decided by dpaudit.stats.evidence.decide_experiment): **{d.status}** "
             f"({d.reason})."]
    if d.key is not None:
        m = d.key.measurement
        tail = f"; {m.tail_text()}" if m.tails else ""
        lines.append(f"Key cell {m.label}: measured {m.measured:.4g}, interval "
                     f"[{d.key.ci_low:.4g}, {d.key.ci_high:.4g}] ({d.key.method}), {m.runs} "
                     f"runs; paper {m.direction} {m.paper_value:.4g}{tail}.")
    return [*lines, ""]
