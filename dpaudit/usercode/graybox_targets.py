"""The gray-box stage on the user's code: a mechanism (``audit``) or a policy (``audit-policy``).

:func:`graybox_mechanism` runs ``mech.sample(data, 1, rng)`` under the recorder on the
mechanism's neighbouring pairs and, where the output is ``g(D) + J z`` in Laplace or Gaussian
draws (:func:`dpaudit.exact.probe.probe_report`, every route of the recorder served by the
probe), computes the output's exact loss: the output *is* the release, so a loss above the
claim is a proof (``VIOLATED`` with the exact figure, decided by
:func:`dpaudit.stats.evidence.decide`), and each moved coordinate is traced to the line that
drew its noise.

:func:`graybox_policy` runs one run of the policy (global DP: a reward table and the table
with one step changed; per-step DP: a history and the history with one reward changed; local
DP: the report at rewards 0 and 1) under the recorder, replays the neighbour with aligned
noise (:mod:`dpaudit.usercode.replay`) and reports what it saw
(:mod:`dpaudit.usercode.graybox`), with a steer for the sampled audit.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from dpaudit.exact.divergence import (
    epsilon_for_delta,
    gaussian_hockey_stick,
    laplace_hockey_stick,
)
from dpaudit.exact.probe import (
    AffineReport,
    PairLoss,
    ProbeGenerator,
    pair_loss,
    probe_report,
)
from dpaudit.stats.evidence import ExactEvidence
from dpaudit.usercode.adapters import PolicyCode, next_action, play, realise_rewards
from dpaudit.usercode.graybox import GrayBoxResult, GrayFinding, run_stage, user_modules
from dpaudit.usercode.ldp_audit import report
from dpaudit.usercode.neighbour_search import (
    RewardInput,
    boundary_pairs,
    global_bases,
    table_source,
)
from dpaudit.usercode.recorder import (
    LineTrace,
    Recorder,
    Site,
    intercept,
    plain,
    swap,
    swap_generators,
    tracing,
    user_site,
)
from dpaudit.usercode.recorder import (
    generator_slots as _slots,
)

__all__ = ["exact_mechanism", "graybox_mechanism", "graybox_policy", "policy_pairs",
           "served_by"]

#: the stage's safety limit in seconds by default (a quarter of a ``--seconds`` deadline
#: otherwise); its budget proper is in runs, so that reports do not depend on speed
STAGE_SECONDS = 60.0
#: the stage's budget in steps of the user's code (runs times the horizon) for a policy: at
#: a horizon T it may run the code ``STAGE_STEPS / T`` times (at least :data:`MIN_RUNS`)
STAGE_STEPS = 2_000_000
MIN_RUNS = 60
#: runs of ``sample(data, 1, rng)`` the stage may make on a mechanism
MECHANISM_RUNS = 2000


# -- policies -------------------------------------------------------------------------------------
def _count_steps(obj: Any, name: str, rec: Recorder) -> None:
    """Wrap ``obj.name`` (the select method) so the recorder knows the step of each event."""
    fn = getattr(obj, name, None)
    if not callable(fn):
        return
    taken = [0]

    def counted(*args: Any, **kwargs: Any) -> Any:
        rec.step = taken[0]
        taken[0] += 1
        return fn(*args, **kwargs)
    try:
        setattr(obj, name, counted)
    except (AttributeError, TypeError):
        pass


def _instrumented(code: PolicyCode, rec: Recorder) -> PolicyCode:
    """``code`` whose objects count their steps and draw through ``rec`` (the generators
    they hold are swapped after construction)."""
    if code.interface == "run":
        return code
    factory = code.factory

    def build(*args: Any, **kwargs: Any) -> Any:
        obj = factory(*args, **kwargs)
        if code.interface in ("select-update", "step") and code.methods:
            _count_steps(obj, code.methods[0], rec)
        swap_generators(obj, rec)
        return obj
    for attr in ("__name__", "__qualname__", "__module__", "__doc__"):
        try:
            setattr(build, attr, getattr(factory, attr))
        except (AttributeError, TypeError):
            pass
    return dataclasses.replace(code, factory=build)


def policy_pairs(code: PolicyCode, notion: str, *, rewards: str = "table",
                 means: object | None = None, per_step_pairs: Sequence[Any] = ()
                 ) -> list[tuple[Any, Any]]:
    """The pairs the stage replays: for global DP, each base input of
    :func:`~dpaudit.usercode.neighbour_search.global_bases` with one step changed to its
    extreme value (steps ``1, 2, K + 1, 2K + 1, T/4, T/2, T``, the early ones first, bases in
    turn); per-step DP: ``per_step_pairs``; local DP: rewards 0 and 1."""
    if notion == "ldp":
        return [(0.0, 1.0)]
    if notion == "per-step":
        return list(per_step_pairs)
    t, k = code.horizon, code.n_arms
    bases = global_bases(t, k, rewards=rewards, means=means)
    steps = sorted({s for s in (1, 2, k + 1, 2 * k + 1, t // 4, t // 2, t) if 1 <= s <= t})
    return [(b.input(), b.changed(s, b.values[0], "gray-box replay")) for s in steps
            for b in bases]


def graybox_policy(code: PolicyCode, *, epsilon: float, delta: float, notion: str = "global",
                   rewards: str = "table", means: object | None = None,
                   contexts: np.ndarray | None = None, history_method: str | None = None,
                   release: Any = None, per_step_pairs: Sequence[Any] = (),
                   seconds: float = STAGE_SECONDS) -> GrayBoxResult:
    """The gray-box stage on a policy (module docstring). ``release`` is the local-DP report
    route (:class:`dpaudit.usercode.ldp_audit.Release`) for ``notion="ldp"``."""
    gcode = code
    notes: list[str] = []
    if code.numba:  # compiled draws are out of sight: the Python function is read instead
        gcode = dataclasses.replace(code, factory=getattr(code.factory, "py_func"),  # noqa: B009
                                    numba=False)
        notes.append(f"{code.name} is numba-compiled: the stage read its Python function "
                     "(.py_func), whose draws follow the same laws")
    modules = user_modules(gcode.factory)
    ctx = None if contexts is None else np.asarray(contexts, dtype=float)

    def run(rec: Recorder, data: Any, trace: LineTrace | None) -> Any:
        inst = _instrumented(gcode, rec)
        seq = np.random.SeedSequence(rec.seed)
        table = None
        if notion == "global":
            table = realise_rewards(data.source, gcode.horizon,
                                    np.random.Generator(np.random.PCG64(rec.seed)))
        state, pystate = np.random.get_state(), random.getstate()
        try:
            with intercept(rec, modules=modules), tracing(trace):
                if notion == "per-step":
                    out: Any = next_action(inst, data.arms, data.rewards, seq,
                                           history_method=history_method)
                elif notion == "ldp":
                    out = report(dataclasses.replace(release, code=inst),
                                 rec.taint(float(data), _REWARD), seq)
                else:
                    c = getattr(data, "contexts", None)
                    assert table is not None
                    out = play(inst, _tainted(rec, table, gcode), seq,
                               contexts=ctx if c is None else c)
        finally:
            np.random.set_state(state)
            random.setstate(pystate)
        return plain(out)

    pairs = policy_pairs(gcode, notion, rewards=rewards, means=means,
                         per_step_pairs=per_step_pairs)
    boundary = notion == "global" and rewards == "table" and code.n_arms > 1 and \
        contexts is None
    result = run_stage(run, pairs, epsilon=epsilon, delta=delta, seconds=seconds,
                       max_runs=max(MIN_RUNS, STAGE_STEPS // max(code.horizon, 1)),
                       describe=lambda d, dp: f"D = {d!r}, D' = {dp!r}",
                       output_is_release=notion == "ldp",
                       more=(lambda: _boundary_pairs(run, gcode)) if boundary else None)
    return dataclasses.replace(result, notes=tuple(notes))


_REWARD = Site("<reward>", 0, "the audited reward")


def _boundary_pairs(run: Callable[[Recorder, Any, LineTrace | None], Any],
                    code: PolicyCode) -> list[tuple[Any, Any]]:
    """Pairs at the gaps where the policy's decision turns
    (:func:`~dpaudit.usercode.neighbour_search.boundary_pairs`), found on recorded runs: the
    recorder's seed couples them (the same noise, line by line, on every table), and one run
    per probe suffices because it is the same run. A run that fails gives none."""
    def runner(table: np.ndarray, n: int, seed: int) -> np.ndarray:
        source = RewardInput(table_source(table), "gap table")
        return np.stack([np.asarray(run(Recorder(seed + i), source, None)) for i in range(n)])
    try:
        pairs, _ = boundary_pairs(runner, code.horizon, code.n_arms, seed=1)
    except Exception:  # noqa: BLE001 - the replay reports what does not run
        return []
    return pairs


def _tainted(rec: Recorder, table: np.ndarray, code: PolicyCode) -> Any:
    """The reward table as rows of :class:`~dpaudit.usercode.recorder.Tainted` numbers (each
    marked with its step), for the interfaces that read rows one reward at a time; a
    whole-run function gets the float array it expects."""
    if code.interface == "run":
        return table
    return [[rec.taint(v, Site("<reward table>", s + 1, f"step {s + 1}")) for v in row]
            for s, row in enumerate(table.tolist())]


# -- mechanisms -----------------------------------------------------------------------------------
def _mechanism_run(mech: Any) -> Callable[[Recorder, Any, LineTrace | None], Any]:
    modules = user_modules(mech, type(mech))

    def run(rec: Recorder, data: Any, trace: LineTrace | None) -> Any:
        state, pystate = np.random.get_state(), random.getstate()
        try:
            with intercept(rec, holders=[mech], modules=modules), tracing(trace):
                out = mech.sample(data, 1, rec.generator())
        finally:
            np.random.set_state(state)
            random.setstate(pystate)
        return plain(out)
    return run


def graybox_mechanism(mech: Any, pairs: Sequence[tuple[Any, Any]], *, epsilon: float,
                      delta: float, seconds: float = STAGE_SECONDS,
                      describe: Callable[[Any, Any], str] | None = None) -> GrayBoxResult:
    """The gray-box stage on a mechanism (module docstring): findings from the replay of each
    pair and, when every tried pair's output law is read by the probe, the exact loss of the
    worst pair (``exact``, an :class:`~dpaudit.stats.evidence.ExactEvidence`)."""
    result = run_stage(_mechanism_run(mech), pairs, epsilon=epsilon, delta=delta,
                       seconds=seconds, max_runs=MECHANISM_RUNS, describe=describe,
                       output_is_release=True)
    exact, finding = exact_mechanism(mech, pairs[:16], epsilon=epsilon, delta=delta,
                                     describe=describe)
    notes: tuple[str, ...] = ()
    if exact is not None and result.other_draws:  # a rare branch on them may be unseen
        exact = finding = None
        notes = (f"the output also depends on draws the probe does not read ("
                 f"{', '.join(result.other_draws[:3])}): its law is not taken as read, the "
                 "sampled audit decides",)
    if exact is None:
        exact = declared_exact(result, epsilon=epsilon, delta=delta)
    findings = result.findings
    if finding is not None:  # the exact law says more than the coupling on one path
        findings = (finding, *(f for f in findings if f.kind != "release-loss"))
    return dataclasses.replace(result, exact=exact, findings=findings,
                               notes=(*result.notes, *notes))


@contextmanager
def served_by(gen: ProbeGenerator, *, modules: Sequence[Any] = (), holders: Sequence[Any] = ()
              ) -> Iterator[None]:
    """Route the Laplace and Gaussian draws of every route the recorder reads to the probe's
    generator ``gen`` (numpy's global ``normal``, ``laplace``, ``standard_normal``, ``randn``,
    ``default_rng``; Python's ``random.gauss`` and ``normalvariate``; the same names imported
    into ``modules``; the generators ``modules`` hold at top level and those ``holders``
    hold), restored on exit. Other draws are not served: they then vary between the probe's
    calls and its verification refuses the law."""
    serve: dict[str, Callable[..., Any]] = {
        "normal": gen.normal, "laplace": gen.laplace, "standard_normal": gen.standard_normal,
        "randn": lambda *shape: gen.standard_normal(tuple(shape) if shape else None),
        "default_rng": lambda *args, **kwargs: gen}
    py_serve: dict[str, Callable[..., Any]] = {
        "gauss": lambda mu=0.0, sigma=1.0: gen.normal(mu, sigma),
        "normalvariate": lambda mu=0.0, sigma=1.0: gen.normal(mu, sigma)}
    saved: list[tuple[Any, str, Any]] = []
    swapped: list[tuple[Any, Any, Any]] = []

    def patch(space: Any, name: str, value: Any) -> None:
        saved.append((space, name, getattr(space, name)))
        setattr(space, name, value)
    originals = {id(getattr(np.random, n)): serve[n] for n in serve}
    originals.update({id(getattr(random, n)): py_serve[n] for n in py_serve})
    try:
        for n, fn in serve.items():
            patch(np.random, n, fn)
        for n, fn in py_serve.items():
            patch(random, n, fn)
        for module in modules:
            for attr, value in list(vars(module).items()):
                if attr.startswith("__"):
                    continue
                if isinstance(value, np.random.Generator) and not isinstance(
                        value, ProbeGenerator):
                    patch(module, attr, gen)
                elif id(value) in originals:
                    patch(module, attr, originals[id(value)])
        for obj in holders:
            for holder, key in _slots(obj):
                old = holder[key] if isinstance(holder, dict | list) else getattr(holder, key)
                swap(holder, key, gen)
                swapped.append((holder, key, old))
        yield
    finally:
        for holder, key, old in reversed(swapped):
            swap(holder, key, old)
        for space, name, value in reversed(saved):
            setattr(space, name, value)


def _probe(mech: Any, data: Any, modules: Sequence[Any]
           ) -> tuple[AffineReport | Any, list[Site]]:
    """The probe's reading of one output on ``data``, and the site of each draw call (in the
    order of the report's calls)."""
    sites: list[Site] = []

    def report(gen: np.random.Generator) -> Any:
        assert isinstance(gen, ProbeGenerator)
        gen.on_take = lambda method, shape: sites.append(user_site()) \
            if len(sites) < len(gen.calls) else None
        sites.clear()
        with served_by(gen, modules=modules, holders=[mech]):
            return plain(mech.sample(data, 1, gen))
    state, pystate = np.random.get_state(), random.getstate()
    read: Any
    try:
        read = probe_report(report)
    except Exception as exc:  # noqa: BLE001 - the user's code under the probe (ProbeError too)
        read = exc
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    return read, list(sites)


def exact_mechanism(mech: Any, pairs: Sequence[tuple[Any, Any]], *, epsilon: float,
                    delta: float, describe: Callable[[Any, Any], str] | None = None
                    ) -> tuple[ExactEvidence | None, GrayFinding | None]:
    """The exact loss of the worst of ``pairs`` when the probe reads every output's law
    (module docstring), as evidence and as a finding naming the lines of the moved noise;
    ``(None, None)`` when any output is not read (its reason goes to the sampled audit)."""
    describe = describe or (lambda d, dp: f"D = {d!r}, D' = {dp!r}")
    modules = user_modules(mech, type(mech))
    best: tuple[float, int, PairLoss, AffineReport, AffineReport, list[Site]] | None = None
    for i, (d, dp) in enumerate(pairs):
        a, sites = _probe(mech, d, modules)
        b, _ = _probe(mech, dp, modules)
        if not isinstance(a, AffineReport) or not isinstance(b, AffineReport) or not a.kinds:
            return None, None
        loss = pair_loss(a, b, epsilon, delta)
        if not isinstance(loss, PairLoss):
            return None, None
        key = float(loss.delta.value)
        if best is None or key > best[0]:
            best = (key, i, loss, a, b, sites)
    if best is None:
        return None, None
    _, i, loss, a, b, sites = best
    d, dp = pairs[i]
    at = loss.epsilon_at_delta
    lines = _attribution(a, b, sites)
    fam = "Gaussian" if loss.law in ("normal", "none") else "Laplace"
    figure = (f"Mahalanobis distance {loss.mu:.6g}" if loss.mu is not None
              else f"pure-DP loss {loss.pure:.6g}")
    ev = ExactEvidence(
        delta_at_epsilon=float(loss.delta.value), error=float(loss.delta.error),
        epsilon_at_delta=at if at is not None and math.isfinite(at) else None,
        details=(f"gray-box: the output is read exactly, output = g(D) + J z in "
                 f"{len(a.kinds)} {fam} draw(s) (verified on {a.verified} draws of the true "
                 f"law), on {len(pairs)} neighbouring pair(s); it is the release itself, so "
                 "its loss is the claim's", f"worst pair {describe(d, dp)}: {figure}; "
                 f"divergence at epsilon {epsilon:g}: {loss.delta.how}", *lines),
        data={"route": "graybox probe", "family": loss.law, "mu": _finite(loss.mu),
              "pure_loss": _finite(loss.pure),
              "pair": describe(d, dp), "sites": [str(s) for s in sites]})
    over = float(loss.delta.value) - float(loss.delta.error) > delta
    finding = GrayFinding(
        "exact-loss", "proof" if over else "information",
        f"the output's law read exactly: {figure} between D and D' "
        + (f"(epsilon at delta {delta:g}: {at:.6g})" if at is not None else "")
        + (f", above the claim ({epsilon:g}, {delta:g})" if over else
           f", within the claim ({epsilon:g}, {delta:g})"),
        str(sites[0]) if sites else None, describe(d, dp), 0,
        {"mu": _finite(loss.mu), "pure_loss": _finite(loss.pure),
         "epsilon_at_delta": _finite(at), "delta_at_epsilon": float(loss.delta.value)},
        tuple(lines))
    return ev, finding


def declared_exact(result: GrayBoxResult, *, epsilon: float, delta: float
                   ) -> ExactEvidence | None:
    """The exact loss of a mechanism whose output is what a declared primitive returned
    (:func:`dpaudit.usercode.annotate.noise_primitive` with a law and scale), from the
    distance its statistic moved on the recorded pair: ``Lap(b)`` shifted by ``d`` (L1) or
    ``N(0, sigma^2)`` by ``d`` (L2). It rests on the declaration of the law and scale, which
    the stage cannot see; the details say so. ``None`` without such a finding."""
    found = [f for f in result.findings if f.kind == "declared-sensitivity"
             and f.numbers.get("output_is_release") and f.numbers.get("release_loss")]
    if not found:
        return None
    f = max(found, key=lambda x: float(x.numbers["release_loss"]))
    d, b, law = float(f.numbers["measured"]), float(f.numbers["scale"]), f.numbers["law"]
    div = laplace_hockey_stick if law == "laplace" else gaussian_hockey_stick
    h = div(epsilon, d, b)
    at = epsilon_for_delta(lambda e: div(e, d, b), delta).value if delta > 0 else (
        d / b if law == "laplace" else math.inf)
    return ExactEvidence(
        delta_at_epsilon=float(h.value), error=float(h.error),
        epsilon_at_delta=float(at) if math.isfinite(float(at)) else None,
        details=(f"gray-box: the output is what the declared noise primitive at {f.site} "
                 f"returned; its statistic moved by {d:.6g} on the pair {f.pair}, and its "
                 f"declared law, {law} of scale {b:g}, gives this loss (the law and scale are "
                 "the code's declaration: the draws are out of the stage's sight)",),
        data={"route": "declared primitive", "family": law, "distance": d, "scale": b})


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _attribution(a: AffineReport, b: AffineReport, sites: Sequence[Site]) -> list[str]:
    """Which draws carry the moved coordinates: for each of the largest shifts, the line that
    drew its noise and the shift against the noise's scale."""
    call_of: list[int] = []
    for i, (_, shape) in enumerate(a.calls):
        call_of += [i] * (int(np.prod(shape)) if shape else 1)
    s = a.g - b.g
    lines = []
    order = np.argsort(-np.abs(s))[:4]
    for i in order:
        if abs(s[i]) <= float(a.g_error[i] + b.g_error[i]):
            continue
        col = np.abs(a.jac[i])
        if col.size == 0 or not np.any(col > 0):
            lines.append(f"output coordinate {int(i)} moves by {s[i]:.6g} and carries no noise")
            continue
        j = int(np.argmax(col))
        where = str(sites[call_of[j]]) if call_of and call_of[j] < len(sites) else "?"
        lines.append(f"output coordinate {int(i)} moves by {s[i]:.6g} against the noise "
                     f"scale {col[j]:.6g} drawn at {where} ({abs(s[i]) / col[j]:.6g} scales)")
    return lines
