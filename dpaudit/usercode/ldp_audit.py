"""Local DP of bandit code: audit what a user's device releases, not the actions.

Under local DP (Zheng et al. 2020: each user privatises its own reward before the learner sees
it) the claim is about the *report*: for any two rewards ``x, x'`` in ``[0, 1]`` the report's
law changes by at most ``(epsilon, delta)``. The actions say nothing about a report whose
noise is in the wrong argument (``np.random.laplace(1/eps)``: location ``1/eps``, scale 1),
so this audit reads the reports themselves:

* a **hook** (``--ldp-hook``, or found among ``privatize``, ``privatise``, ``report``,
  ``randomize``, ``randomise``, ``perturb``, ``local_report``, ``release``): called on a fresh
  instance as ``hook(reward)`` (``hook(arm, reward)`` when it takes two arguments, by their
  names); its return value (a number or a vector) is the report;
* else a **sink** (``--ldp-sink``, or found among ``aggregate``, ``receive_report``,
  ``collect``, ``server_update``, ``add_report``, ``ingest``; a dotted path such as
  ``server.receive`` reaches an attribute): the method the policy passes its reports to is
  wrapped, one ``select()``/``update(arm, reward)`` round is played on a fresh instance, and
  the numbers passed to the sink are the report.

**Exact where the law is a known family.** The report is computed at rewards 0, 1/4, 1/2,
3/4 and 1, three times each, with ``numpy.random.laplace`` and ``numpy.random.normal``
recorded. When every call makes the same draws (one per report coordinate, the same
function, location and scale each time) and each coordinate is ``g(x) + draw`` with ``g``
the same on every repetition and affine in ``x``, the report is ``g(x)`` plus independent
noise of a known law: the divergence at the claimed epsilon is computed exactly
(:func:`dpaudit.exact.divergence.laplace_hockey_stick`, ``gaussian_hockey_stick``, and
:func:`dpaudit.exact.loss.laplace_composition_delta` for a vector of Laplace coordinates) for
the sensitivity ``|g(1) - g(0)|``. Otherwise the draws are served by the probe of
:mod:`dpaudit.exact.probe` (a ``numpy.random.Generator`` serving chosen standard draws),
whatever the code draws them through: the global ``numpy.random`` functions ``normal``,
``laplace``, ``standard_normal`` and ``randn`` (also when the policy's module imported them by
name), ``numpy.random.default_rng`` (a generator built in the constructor or in the hook,
seeded or not), the ``rng`` it is passed, and every ``numpy.random.Generator`` the instance
holds -- as an attribute, in a nested object's attributes, or in a list or dict, to depth
:data:`GENERATOR_DEPTH` -- or its module holds at top level. The probe reads ``report = g(x)
+ J z`` from the code (verified on draws of the true law, ``J`` the same at every reward,
``g`` affine in the reward) and gives the exact loss between rewards 1 and 0. Each call of
the report builds its instance from another seed, so randomness the probe does not serve
(``rng.uniform``, ``np.random.random``, Python's ``random``) moves the report between calls
and the verification refuses it. Otherwise the report is sampled and the black-box auditor
gives a Clopper-Pearson lower bound.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
import sys
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.exact.divergence import epsilon_for_delta, gaussian_hockey_stick, laplace_hockey_stick
from dpaudit.exact.loss import Bounded, laplace_composition_delta
from dpaudit.exact.probe import AffineReport, PairLoss, ProbeError, pair_loss, probe_report
from dpaudit.stats.evidence import ExactEvidence, decide
from dpaudit.stats.results import ClaimResult, Notion
from dpaudit.usercode.adapters import PolicyCode, _build, _user_error
from dpaudit.usercode.conventions import roles
from dpaudit.usercode.recorder import generator_slots, served_by, swap
from dpaudit.usercode.wording import usage_error
from dpaudit.validation import InvalidParameterError

__all__ = ["HOOK_NAMES", "SINK_NAMES", "LdpPolicyTarget", "exact_claim", "exact_release",
           "find_release", "report"]

HOOK_NAMES = ("privatize", "privatise", "report", "randomize", "randomise", "perturb",
              "local_report", "release")
SINK_NAMES = ("aggregate", "receive_report", "collect", "server_update", "add_report",
              "ingest")


@dataclass(frozen=True)
class Release:
    """Where the report comes from: ``hook`` (a method) or ``sink`` (a wrapped method path)."""

    code: PolicyCode
    hook: str | None = None
    sink: str | None = None
    hook_roles: tuple[str, ...] = ("reward",)

    @property
    def where(self) -> str:
        return (f"{self.code.name}.{self.hook}()" if self.hook
                else f"the values passed to {self.code.name}.{self.sink}()")


def _resolve(obj: Any, path: str) -> tuple[Any, str]:
    parts = path.split(".")
    for p in parts[:-1]:
        obj = getattr(obj, p, None)
    return obj, parts[-1]


def find_release(code: PolicyCode, *, hook: str | None = None, sink: str | None = None
                 ) -> Release:
    """The hook or sink of ``code``'s objects (named, or found by its common names)."""
    if code.interface not in ("select-update", "step", "report") and hook is None:
        raise usage_error(lambda say: (
            f"{say('notion', 'ldp')} needs an object with a report hook or a sink; "
            f"{code.name} is a {code.interface!r} target"))
    if code.contextual and hook is None:
        raise usage_error(lambda say: f"{code.name} takes a context: name its report hook "
                                      f"({say('ldp_hook', 'NAME')}) to audit its reports")
    probe = _build(code, np.random.SeedSequence(0))
    if hook is None and sink is None:
        hook = next((n for n in HOOK_NAMES if callable(getattr(probe, n, None))), None)
        if hook is None:
            sink = next((n for n in SINK_NAMES if callable(getattr(*_resolve(probe, n), None))),
                        None)
    if hook is not None:
        fn = getattr(probe, hook, None)
        if not callable(fn):
            raise usage_error(lambda say: f"{code.name} has no method {hook!r} "
                                          f"({say('ldp_hook', hook)})")
        found = roles(fn, default=("reward",) if len(roles(fn)) == 1 else None)
        if set(found) - {"arm", "reward"} or "reward" not in found:
            found = ("reward",) if len(found) == 1 else ("arm", "reward")
        return Release(code, hook=hook, hook_roles=found)
    if code.interface == "report":  # no bandit methods: only a hook can release
        raise usage_error(lambda say: (
            f"{code.name} has no report hook ({', '.join(HOOK_NAMES)}) and no bandit methods "
            f"to feed a sink: name its report method with {say('ldp_hook', 'NAME')}"))
    if sink is None or not callable(getattr(*_resolve(probe, sink), None)):
        raise usage_error(lambda say: (
            f"{code.name} has no report hook ({', '.join(HOOK_NAMES)}) and no sink "
            f"({', '.join(SINK_NAMES)}): name one with {say('ldp_hook', 'NAME')} or "
            f"{say('ldp_sink', 'NAME')}"))
    return Release(code, sink=sink)


def _numbers(values: Any) -> list[float]:
    out: list[float] = []
    for v in values:
        if isinstance(v, bool | np.bool_):
            out.append(float(v))
        elif isinstance(v, int | float | np.integer | np.floating):
            out.append(float(v))
        elif isinstance(v, np.ndarray):
            out += _numbers(v.ravel().tolist())
        elif isinstance(v, list | tuple):  # nested lists of any lengths, row-major
            out += _numbers(list(v))
        elif hasattr(v, "__float__") and not isinstance(v, str | bytes | complex):
            out.append(float(v))  # a number of another type (a noisy value the stage tracks)
    return out


def report(rel: Release, reward: float, seq: np.random.SeedSequence, *, arm: int = 0,
           generator: np.random.Generator | None = None) -> np.ndarray:
    """One report of a fresh instance for ``reward`` (a 1-d float array); ``generator``, when
    given, replaces every generator the instance holds
    (:func:`~dpaudit.usercode.recorder.generator_slots`; the probe's route)."""
    code = rel.code
    obj = _build(code, seq)
    if generator is not None:
        for holder, key in generator_slots(obj):
            swap(holder, key, generator)
    out: Any = None
    try:
        if rel.hook is not None:
            given = {"arm": arm, "reward": reward}
            out = getattr(obj, rel.hook)(*(given[r] for r in rel.hook_roles))
            values = _numbers([out])
            if not values and _empty_sequence(out):
                return np.zeros(0)  # an empty report (no class present, say): an outcome
        else:
            if rel.sink is None:  # find_release gives a hook or a sink
                raise InvalidParameterError(f"{code.name}: no report hook and no sink")
            parent, name = _resolve(obj, rel.sink)
            original, seen = getattr(parent, name), []

            def record(*args: Any, **kwargs: Any) -> Any:
                seen.extend([*args, *kwargs.values()])
                return original(*args, **kwargs)
            setattr(parent, name, record)
            if code.interface == "select-update":
                a = getattr(obj, code.methods[0])(*(code.time_base for _ in code.select_roles))
                given = {"t": code.time_base, "arm": int(a), "reward": reward}
                getattr(obj, code.methods[1])(*(given[r] for r in code.update_roles))
            else:
                a = getattr(obj, code.methods[0])(None, None)
                getattr(obj, code.methods[0])(reward, a)
            values = _numbers(seen)
            out = seen
    except (InvalidParameterError, ProbeError):
        raise
    except Exception as exc:
        raise _user_error(rel.where, exc) from exc
    if not values:
        shown = repr(out)
        raise InvalidParameterError(
            f"{rel.where} released no number for reward={reward:g}: it returned "
            f"{shown if len(shown) <= 60 else shown[:57] + '...'} (a report is a number or a "
            "list or array of numbers; NaN and infinities are reports too)")
    return np.array(values, dtype=float)


def _empty_sequence(value: Any) -> bool:
    """Whether ``value`` is an empty list, tuple or array (a report of length 0)."""
    return isinstance(value, list | tuple | np.ndarray) and np.size(value) == 0


# -- exact law -------------------------------------------------------------------------------
@contextmanager
def _recording(draws: list[tuple[str, float, float, float]]) -> Any:
    """Record ``numpy.random.laplace`` / ``normal`` calls (function, loc, scale, value)."""
    saved = {n: getattr(np.random, n) for n in ("laplace", "normal")}

    def wrap(name: str, fn: Callable) -> Callable:
        def call(loc: float = 0.0, scale: float = 1.0, size: Any = None) -> Any:
            value = fn(loc, scale, size)
            if size is None:
                draws.append((name, float(loc), float(scale), float(value)))
            else:
                draws.append((name, float("nan"), float("nan"), float("nan")))
            return value
        return call
    try:
        for n, fn in saved.items():
            setattr(np.random, n, wrap(n, fn))
        yield draws
    finally:
        for n, fn in saved.items():
            setattr(np.random, n, fn)


#: the rewards at which the report's law is read
XS = (0.0, 0.25, 0.5, 0.75, 1.0)


def exact_release(rel: Release, *, epsilon: float, delta: float) -> ExactEvidence | None:
    """The exact divergence when the report is a known family (module docstring), else None:
    from the global numpy draws, or, for a policy holding its own generator, by the probe."""
    ev = _global_release(rel, epsilon=epsilon, delta=delta)
    return ev if ev is not None else probe_release(rel, epsilon=epsilon, delta=delta)


def probe_release(rel: Release, *, epsilon: float, delta: float) -> ExactEvidence | None:
    """The exact loss of a report whose draws the probe of :mod:`dpaudit.exact.probe` serves
    (module docstring: the global functions, ``default_rng``, the generators the instance and
    its module hold); None when the report makes no served draw or its law does not verify.
    Every call builds the instance from its own seed, so unserved randomness fails the
    verification instead of passing for part of ``g``."""
    # the module's generators are served, not reseeded (the probe generator has no state)
    code = dataclasses.replace(rel.code, module_rngs=())
    served = dataclasses.replace(rel, code=code)
    state, pystate = np.random.get_state(), random.getstate()
    calls = itertools.count()
    try:
        probes = []
        for i, x in enumerate(XS):
            def run(gen: np.random.Generator, x: float = x) -> np.ndarray:
                seq = np.random.SeedSequence([0, 7, next(calls)])
                module = sys.modules.get(getattr(code.factory, "__module__", None) or "")
                with served_by(gen, modules=[module] if module is not None else [],
                               python_random=False):
                    return report(served, x, seq, generator=gen)
            probes.append(probe_report(run, rng=np.random.default_rng([7, i])))
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    read = [p for p in probes if isinstance(p, AffineReport)]
    if len(read) != len(probes) or not read[0].kinds:
        return None
    if len({p.g.shape for p in read}) > 1:
        return None  # the report's length changes with the reward: the sampled audit reads it
    g = np.array([p.g for p in read])
    line = g[0] + np.outer(np.array(XS), g[-1] - g[0])
    if not np.allclose(g, line, rtol=1e-12, atol=1e-12):
        return None  # not affine in the reward: the sup over [0, 1] is not read off the ends
    losses = [pair_loss(read[-1], p, epsilon, delta) for p in read[:-1]]
    if not all(isinstance(loss, PairLoss) for loss in losses):
        return None  # J changes with the reward, or another law
    loss = losses[0]
    assert isinstance(loss, PairLoss)
    if loss.law == "laplace" and not loss.exact:
        return None  # several Laplace coordinates beyond eps: only a lower bound
    at = loss.epsilon_at_delta
    a = read[0]
    family = "normal" if loss.law in ("normal", "none") else loss.law
    return ExactEvidence(
        delta_at_epsilon=float(loss.delta.value), error=float(loss.delta.error),
        epsilon_at_delta=at if at is not None and math.isfinite(at) else None,
        details=(f"release law read by the probe, which served the draws of {rel.where} "
                 f"(numpy's global normal/laplace/standard_normal/randn, default_rng, the "
                 f"generators the instance and its module hold): report = g(reward) + J z, "
                 f"{len(a.kinds)} {family} draws into {a.g.size} coordinates, verified at "
                 f"rewards {', '.join(f'{x:g}' for x in XS)}",
                 "rewards 1 vs 0: " + (f"Mahalanobis distance {loss.mu:.6g}"
                                        if loss.mu is not None else
                                        f"pure-DP loss {loss.pure:.6g}")
                 + f"; divergence at epsilon {epsilon:g}: {loss.delta.how}"),
        data={"family": family, "route": "probe",
              "sensitivity": [float(v) for v in np.abs(g[-1] - g[0])],
              "mu": None if loss.mu is None or not math.isfinite(loss.mu) else loss.mu,
              "pure_loss": None if loss.pure is None or not math.isfinite(loss.pure)
              else loss.pure})


def _global_release(rel: Release, *, epsilon: float, delta: float) -> ExactEvidence | None:
    """The law from the global ``numpy.random.laplace``/``normal`` draws (module docstring)."""
    xs = XS
    shifts: dict[float, list[np.ndarray]] = {}
    laws: set[tuple[tuple[str, float], ...]] = set()
    state, pystate = np.random.get_state(), random.getstate()
    try:
        for rep in range(3):
            for x in xs:
                draws: list[tuple[str, float, float, float]] = []
                with _recording(draws):
                    y = report(rel, x, np.random.SeedSequence([rep, int(x * 4)]))
                if len(draws) != y.size or any(np.isnan(d[3]) for d in draws):
                    return None
                laws.add(tuple((d[0], d[2]) for d in draws))
                shifts.setdefault(x, []).append(y - np.array([d[3] for d in draws]))
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    if len(laws) != 1 or len({v[0].shape for v in shifts.values()}) > 1:
        return None
    law = next(iter(laws))
    g = np.array([v[0] for v in shifts.values()])
    if any(not np.allclose(r, v[0], rtol=0, atol=1e-9) for v in shifts.values() for r in v):
        return None
    line = g[0] + np.outer(np.array(xs), g[-1] - g[0])
    if not np.allclose(g, line, rtol=0, atol=1e-9):
        return None  # not affine in the reward: the sup over [0, 1] is not read off the ends
    sens = np.abs(g[-1] - g[0])
    names = {n for n, _ in law}
    if names == {"laplace"}:
        loss = float(np.sum(sens / np.array([s for _, s in law])))
        div: Bounded = (laplace_hockey_stick(epsilon, float(sens[0]), law[0][1]) if len(law) == 1
                        else laplace_composition_delta(loss, len(law), epsilon))
        family = (f"{len(law)} independent Laplace coordinate(s), scales "
                  f"{', '.join(f'{s:g}' for _, s in law)}, sensitivities "
                  f"{', '.join(f'{v:g}' for v in sens)}: pure-DP loss {loss:.6g}")
        at_delta = epsilon_for_delta(
            lambda e: laplace_hockey_stick(e, float(sens[0]), law[0][1]), delta).value \
            if len(law) == 1 else (loss if delta == 0 else None)
    elif names == {"normal"} and len(law) == 1:
        sigma = law[0][1]
        div = gaussian_hockey_stick(epsilon, float(sens[0]), sigma)
        family = f"Gaussian noise, sigma {sigma:g}, sensitivity {sens[0]:g}"
        at_delta = epsilon_for_delta(
            lambda e: gaussian_hockey_stick(e, float(sens[0]), sigma), delta).value
    else:
        return None
    return ExactEvidence(
        delta_at_epsilon=float(div.value), error=float(div.error),
        epsilon_at_delta=None if at_delta is None else float(at_delta),
        details=(f"release law read from the numpy draws of {rel.where} at rewards "
                 f"{', '.join(f'{x:g}' for x in xs)} (3 repetitions): report = g(reward) + "
                 f"{family}", f"divergence at epsilon {epsilon:g}: {div.how}"),
        data={"family": sorted(names)[0], "sensitivity": [float(v) for v in sens],
              "scales": [s for _, s in law]})


@dataclass(frozen=True)
class _Subject:
    id: str
    notion: Notion
    statement: str
    reference: str
    epsilon: float
    delta: float


def exact_claim(evidence: ExactEvidence, *, id: str, notion: Notion, statement: str,
                reference: str, epsilon: float, delta: float) -> ClaimResult:
    """The verdict on an exact release law (:func:`dpaudit.stats.evidence.decide`)."""
    subject = _Subject(id, notion, statement, reference, float(epsilon), float(delta))
    return decide(subject, subject, evidence)


# -- sampled ---------------------------------------------------------------------------------
def _ldp_chunk(rel: Release, reward: float, size: int, rng: np.random.Generator
               ) -> np.ndarray:
    """``size`` reports for ``reward``, as an object array of 1-d float rows: chunks of
    reports of any lengths concatenate, and :meth:`LdpPolicyTarget.sample` reads them."""
    rows = []
    state, pystate = np.random.get_state(), random.getstate()
    try:
        seed_seq = rng.bit_generator.seed_seq
        if not isinstance(seed_seq, np.random.SeedSequence):
            raise InvalidParameterError("rng must be a numpy.random.Generator built from a "
                                        "numpy.random.SeedSequence")
        for seq in seed_seq.spawn(size):
            rows.append(report(rel, reward, seq))
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    out = np.empty(len(rows), dtype=object)
    for i, r in enumerate(rows):
        out[i] = r
    return out


class LdpPolicyTarget:
    """Local DP: the report for a reward ``x`` against the report for ``x'``, both in [0, 1].

    The sampler of :class:`dpaudit.usercode.policy_audit._Sampler` is reused by the caller (it
    passes ``sampler``); ``neighbours`` are the extreme rewards, the search domain random
    pairs of rewards.
    """

    notion = "ldp"

    def __init__(self, rel: Release, sampler: Any) -> None:
        self.rel, self.sampler = rel, sampler
        self.epsilon, self.delta = sampler.epsilon, sampler.delta
        self.neighbours = [(0.0, 1.0)]
        self.runs = 0

    def search_domain(self, rng: np.random.Generator, n: int) -> list[tuple[Any, Any]]:
        pts = rng.random((n, 2))
        return [(float(a), float(b)) for a, b in pts]

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` reports for the reward ``data``: a float array (one column per report
        coordinate, or one value per report when it has one) when every report has the same
        length, else the object array of the reports, which the engine reads through their
        lengths and values (:mod:`dpaudit.stats.outputs`; NaN and infinities are outcomes)."""
        rows = self.sampler._map(functools.partial(_ldp_chunk, self.rel, float(data)), size,
                                 rng)
        self.runs = self.sampler.runs
        if len({r.size for r in rows}) > 1:
            return rows
        out = np.stack(list(rows)) if len(rows) else np.zeros((0, 1))
        return out[:, 0] if out.shape[1] == 1 else out

    def close(self) -> None:
        self.sampler.close()
