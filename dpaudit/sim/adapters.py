"""Adapters: bandit code that dpaudit did not write, seen as an auditable target.

Research code rarely has a vectorised ``sample(data, size, rng)``. This module runs it as it
is, one run at a time, and turns the runs into the black-box protocol of
:mod:`dpaudit.stats.blackbox` (``sample``, ``epsilon``, ``delta``, ``neighbours``,
``search_domain``). It knows no algorithm.

Shapes of code (``interface``)
------------------------------
* ``"select-update"``: an object with ``select() -> arm`` and ``update(arm, reward)``;
* ``"step"``: an object with ``step(last_reward, last_arm) -> arm`` (called with
  ``(None, None)`` at the first step);
* ``"run"``: a function ``fn(rewards, horizon) -> actions`` that plays a whole run; with
  ``feed="table"`` it receives the run's ``(T, K)`` reward table (row ``t - 1`` holds what each
  arm would pay at step ``t``), with ``feed="reward-fn"`` a callable ``reward(t, arm)`` (1-based
  ``t``). A function that only takes arm *means* draws its own rewards, so no neighbouring
  reward input can be fed to it: wrap it so that it reads one of the two.

``methods`` renames the methods (``("choose", "observe")`` or ``("act",)``). Arms are integers
in ``[0, K)``. Objects come from a *factory* (a class or a function) called once per run with
the keywords it accepts among ``n_arms`` (aliases ``k``, ``K``, ``arms``, ``num_arms``),
``horizon`` (``T``), ``epsilon`` (``eps``) and ``delta``, plus ``factory_kwargs``.

Randomness (``seeding``)
------------------------
Run ``i`` of a chunk gets child ``i`` of the chunk's ``SeedSequence``; a ``PCG64`` on that
child draws the run's rewards, and other words of its state seed the generators the code may
use. ``"auto"`` (default) does all that applies: ``rng=`` (a ``numpy.random.Generator``) or
``seed=`` (an int) when the factory (or run function) accepts it, and always ``np.random.seed``
and ``random.seed`` before
the run. The global states are restored after each chunk. The same seed therefore gives the
same report, for any number of workers, whenever the code draws only from these generators; a
generator seeded from the clock or OS entropy still gives independent runs (the bound stays
valid) but not reproducible ones, which the pilot run reports (:func:`is_reproducible`).

Errors: an exception raised by the user's code becomes :class:`UserCodeError` (exit code 3);
an arm outside ``[0, K)`` or a missing method is a protocol break, ``InvalidParameterError``
(exit code 2).
"""

from __future__ import annotations

import inspect
import random
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit.errors import UserCodeError
from dpaudit.interfaces import RewardSource
from dpaudit.validation import InvalidParameterError, check_choice, check_int

__all__ = [
    "INTERFACES",
    "PolicyCode",
    "UserCodeError",
    "adapt",
    "describe_user_error",
    "is_reproducible",
    "next_action",
    "play",
    "realise_rewards",
]

INTERFACES = ("auto", "select-update", "step", "run")
SEEDINGS = ("auto", "none")
FEEDS = ("table", "reward-fn")
_ALIASES = {
    "n_arms": ("n_arms", "k", "K", "arms", "num_arms", "n_actions"),
    "horizon": ("horizon", "T", "n_steps"),
    "epsilon": ("epsilon", "eps"),
    "delta": ("delta",),
}
_DEFAULT_METHODS = {"select-update": ("select", "update"), "step": ("step",)}


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "unknown location"
    last = frames[-1]
    return f"{last.filename}:{last.lineno} in {last.name}"


def describe_user_error(err: UserCodeError) -> str:
    """One line for a :class:`UserCodeError`: its message, and its cause when not in it.

    Errors raised in a worker process lose ``__cause__`` on the way back, so adapters put the
    exception and the user's file and line into the message itself.
    """
    text, cause = " ".join(str(err).split()), err.__cause__
    if cause is not None and type(cause).__name__ not in text:
        detail = " ".join(str(cause).split())
        text += f": {type(cause).__name__}: {detail} (at {_where(cause)})"
    return text


def _user_error(what: str, exc: Exception) -> UserCodeError:
    text = " ".join(str(exc).split())
    err = UserCodeError(f"{what} raised {type(exc).__name__}: {text} (at {_where(exc)})")
    err.__cause__ = exc
    return err


def _signature(fn: Callable) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _factory_kwargs(factory: Callable, values: dict[str, Any]) -> tuple[dict[str, Any], bool,
                                                                         bool]:
    """Keywords to pass ``factory``, and whether it accepts ``rng`` / ``seed``."""
    sig = _signature(factory)
    if sig is None:
        return {}, False, False
    params = sig.parameters
    kwargs: dict[str, Any] = {}
    for canonical, names in _ALIASES.items():
        for name in names:
            if name in params and params[name].kind in (
                    inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
                kwargs[name] = values[canonical]
                break
    return kwargs, "rng" in params, "seed" in params


def _check_required(factory: Callable, given: dict[str, Any], skip: int) -> None:
    sig = _signature(factory)
    if sig is None:
        return
    missing = [n for i, (n, p) in enumerate(sig.parameters.items())
               if i >= skip and p.default is inspect.Parameter.empty and n not in given
               and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              inspect.Parameter.KEYWORD_ONLY)]
    if missing:
        raise InvalidParameterError(
            f"factory={getattr(factory, '__qualname__', factory)!r} must accept its arguments "
            f"by name among n_arms, horizon, epsilon, delta (and rng or seed); it requires "
            f"{', '.join(missing)}: pass factory_kwargs or wrap it in a function")


@dataclass(frozen=True)
class PolicyCode:
    """How to run the user's code once (picklable when ``factory`` is importable).

    Built by :func:`adapt`; ``kwargs`` are the factory's keywords, ``pass_rng`` /
    ``pass_seed`` whether it receives a generator or an int seed per run.
    """

    factory: Callable[..., Any]
    n_arms: int
    horizon: int
    interface: str
    methods: tuple[str, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    pass_rng: bool = False
    pass_seed: bool = False
    seed_globals: bool = True
    feed: str = "table"

    @property
    def name(self) -> str:
        return getattr(self.factory, "__qualname__", type(self.factory).__name__)


def adapt(factory: Callable[..., Any], *, n_arms: int, horizon: int, epsilon: float,
          delta: float = 0.0, interface: str = "auto", methods: Sequence[str] | None = None,
          factory_kwargs: dict[str, Any] | None = None, seeding: str = "auto",
          feed: str = "table") -> PolicyCode:
    """Describe how to run ``factory``'s code; see the module docstring for every option.

    ``interface="auto"``: a function whose first parameter is ``rewards``, ``table``,
    ``reward_table`` or ``reward_fn`` is a whole-run function (``"run"``); otherwise one probe
    instance decides (``select``/``update`` methods, else ``step``).
    """
    k = check_int("n_arms", n_arms, low=1)
    t = check_int("horizon", horizon, low=1)
    interface = check_choice("interface", interface, INTERFACES)
    seeding = check_choice("seeding", seeding, SEEDINGS)
    feed = check_choice("feed", feed, FEEDS)
    if not callable(factory):
        raise InvalidParameterError(f"factory={factory!r} must be callable (a class or function)")
    values = {"n_arms": k, "horizon": t, "epsilon": epsilon, "delta": delta}
    kwargs, pass_rng, pass_seed = _factory_kwargs(factory, values)
    kwargs.update(factory_kwargs or {})
    if seeding == "none":
        pass_rng = pass_seed = False
    sig = _signature(factory)
    first = next(iter(sig.parameters), None) if sig is not None else None
    if interface == "auto" and not inspect.isclass(factory) and first in (
            "rewards", "table", "reward_fn", "reward_table"):
        interface = "run"
    if interface == "run":
        kwargs = {n: v for n, v in kwargs.items() if n not in _ALIASES["horizon"]}
        _check_required(factory, {**kwargs, "rng": 0, "seed": 0}, skip=2)
        return PolicyCode(factory, k, t, "run", (), kwargs, pass_rng, pass_seed,
                          seeding != "none", feed)
    _check_required(factory, {**kwargs, "rng": 0, "seed": 0}, skip=0)
    if interface == "auto":
        state, pystate = np.random.get_state(), random.getstate()
        try:
            probe = _build(PolicyCode(factory, k, t, "select-update", ("select", "update"),
                                      kwargs, pass_rng, pass_seed), np.random.SeedSequence(0))
        finally:
            np.random.set_state(state)
            random.setstate(pystate)
        interface = _detect(probe, methods)
    names = tuple(methods) if methods else _DEFAULT_METHODS[interface]
    want = len(_DEFAULT_METHODS[interface])
    if len(names) != want or not all(isinstance(m, str) and m for m in names):
        raise InvalidParameterError(
            f"methods={tuple(names)!r} must name {want} method(s) for interface "
            f"{interface!r} ({', '.join(_DEFAULT_METHODS[interface])})")
    return PolicyCode(factory, k, t, interface, names, kwargs, pass_rng, pass_seed,
                      seeding != "none", feed)


def _detect(probe: Any, methods: Sequence[str] | None) -> str:
    if methods:
        if len(methods) in (1, 2):
            return "step" if len(methods) == 1 else "select-update"
        raise InvalidParameterError(f"methods={tuple(methods)!r} must name 1 or 2 methods")
    if callable(getattr(probe, "select", None)) and callable(getattr(probe, "update", None)):
        return "select-update"
    if callable(getattr(probe, "step", None)):
        return "step"
    raise InvalidParameterError(
        f"{type(probe).__name__} has neither select()/update(arm, reward) nor "
        "step(last_reward, last_arm): name its methods with methods=(...) (--methods) or use "
        "interface='run' for a whole-run function")


# -- one run ---------------------------------------------------------------------------------
def _seed_kwargs(code: PolicyCode, seq: np.random.SeedSequence) -> dict[str, Any]:
    """Seed the generators the code may use from ``seq`` (see the module docstring).

    Words 8-15 of ``seq.generate_state(16)`` are used (a ``PCG64(seq)`` reward generator
    consumes words 0-7): 128 bits for ``np.random.seed`` (a 32-bit int seed would make two of
    10^5 runs share their noise with probability near one), 64 for ``random.seed``, 64 for
    the ``rng``/``seed`` keyword.
    """
    words = seq.generate_state(16)[8:]
    if code.seed_globals:
        np.random.seed(words[:4])
        random.seed(int(words[4]) << 32 | int(words[5]))
    extra: dict[str, Any] = {}
    if code.pass_rng:
        extra["rng"] = np.random.Generator(np.random.PCG64(words[6:8]))
    if code.pass_seed:
        extra["seed"] = int(words[6]) << 32 | int(words[7])
    return extra


def _build(code: PolicyCode, seq: np.random.SeedSequence) -> Any:
    extra = _seed_kwargs(code, seq)
    try:
        return code.factory(**code.kwargs, **extra)
    except Exception as exc:
        raise _user_error(f"factory {code.name}", exc) from exc


def _method(obj: Any, name: str) -> Callable:
    fn = getattr(obj, name, None)
    if not callable(fn):
        raise InvalidParameterError(
            f"{type(obj).__name__} has no method {name!r}; name its methods with methods=(...)")
    return fn


def _arm(value: Any, k: int, where: str) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise InvalidParameterError(
            f"{where} returned arm={value!r}; it must be an integer in [0, {k})")
    arm = int(value)
    if not 0 <= arm < k:
        raise InvalidParameterError(
            f"{where} returned arm={arm}; it must be an integer in [0, {k})")
    return arm


def play(code: PolicyCode, table: np.ndarray, seq: np.random.SeedSequence) -> np.ndarray:
    """Actions ``(T,)`` of one run of the user's code on the reward table ``table`` (T, K)."""
    if code.interface == "run":
        return _play_run(code, np.asarray(table, dtype=float), seq)
    horizon, k = code.horizon, code.n_arms
    rows = table.tolist() if isinstance(table, np.ndarray) else table
    actions: list[int] = []
    obj = _build(code, seq)
    where = f"{code.name}.{code.methods[0]}()"
    t = 0
    try:
        if code.interface == "select-update":
            select, update = (_method(obj, m) for m in code.methods)
            for t in range(horizon):
                a = select()
                if type(a) is not int or not 0 <= a < k:  # fast path for plain ints
                    a = _arm(a, k, where)
                actions.append(a)
                update(a, rows[t][a])
        else:
            step = _method(obj, code.methods[0])
            last_r, last_a = None, None
            for t in range(horizon):
                a = step(last_r, last_a)
                if type(a) is not int or not 0 <= a < k:
                    a = _arm(a, k, where)
                actions.append(a)
                last_r, last_a = rows[t][a], a
    except (InvalidParameterError, UserCodeError):
        raise
    except Exception as exc:
        raise _user_error(f"{code.name} at step {t + 1}", exc) from exc
    return np.array(actions, dtype=np.int64)


def _play_run(code: PolicyCode, table: np.ndarray, seq: np.random.SeedSequence) -> np.ndarray:
    extra = _seed_kwargs(code, seq)
    rewards: Any = table.copy()
    if code.feed == "reward-fn":
        def rewards(t: int, arm: int) -> float:
            return float(table[int(t) - 1, int(arm)])
    try:
        out = code.factory(rewards, code.horizon, **code.kwargs, **extra)
    except Exception as exc:
        raise _user_error(f"run function {code.name}", exc) from exc
    try:
        acts = np.asarray(out)
    except Exception:  # noqa: BLE001 - any unconvertible return is a protocol break
        acts = np.asarray([])
    if acts.shape != (code.horizon,) or acts.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"run function {code.name} returned {type(out).__name__} of shape "
            f"{getattr(acts, 'shape', '?')}; it must return {code.horizon} integer arms")
    if acts.min() < 0 or acts.max() >= code.n_arms:
        raise InvalidParameterError(
            f"run function {code.name} returned arms outside [0, {code.n_arms})")
    return acts.astype(np.int64)


def next_action(code: PolicyCode, arms: Sequence[int], rewards: Sequence[float],
                seq: np.random.SeedSequence, *, history_method: str | None = None) -> int:
    """The next arm after the history ``(arms, rewards)`` has been set (per-step DP).

    The history is set with ``history_method(arms, rewards)`` when named (select-update
    interface), else replayed:
    ``update(a, r)`` for each entry (``step(r, a)`` for the step interface), then one
    ``select()``. Replay suits policies whose state is a function of what ``update`` saw
    (index policies); an episodic policy's next action also depends on its episode plan.
    """
    if code.interface == "run":
        raise InvalidParameterError("interface='run' has no per-step next action: per-step DP "
                                    "needs an object whose history can be set")
    if history_method is not None and code.interface != "select-update":
        raise InvalidParameterError(f"history_method={history_method!r} needs the "
                                    "select-update interface (the step interface is replayed)")
    obj = _build(code, seq)
    name = f"{code.name}.{history_method or code.methods[-1]}()"
    try:
        if history_method is not None:
            _method(obj, history_method)(list(arms), list(rewards))
            pairs: list[tuple[int, float]] = []
        else:
            pairs = [(int(a), float(r)) for a, r in zip(arms, rewards, strict=True)]
        if code.interface == "select-update":
            update = _method(obj, code.methods[1])
            for a, r in pairs:
                update(a, r)
            name = f"{code.name}.{code.methods[0]}()"
            return _arm(_method(obj, code.methods[0])(), code.n_arms, name)
        step = _method(obj, code.methods[0])
        out = step(None, None)
        for a, r in pairs:
            out = step(r, a)
        return _arm(out, code.n_arms, name)
    except (InvalidParameterError, UserCodeError):
        raise
    except Exception as exc:
        raise _user_error(name, exc) from exc


# -- rewards ---------------------------------------------------------------------------------
def realise_rewards(source: RewardSource, horizon: int, rng: np.random.Generator | None
                    ) -> np.ndarray:
    """One run's ``(T, K)`` rewards from a reward source (what each arm pays at each step).

    A fixed table (Azize & Basu 2022, Definition 2) is returned as it is; an instance of
    Bernoulli arms draws every entry independently and applies its revision rule (Wang &
    Zhu 2023, Definition 3: the reward at the revised step is the revised value whichever arm
    is pulled). Only the entry of the pulled arm is ever read, so drawing all ``K`` entries of
    a step gives each run the law of the source. Other sources are asked step by step.
    ``rng`` may be ``None`` only for a fixed table (nothing is drawn).
    """
    k = int(source.n_arms)
    table = getattr(source, "table", None)
    if table is not None:
        arr = np.asarray(table, dtype=float)
        if arr.ndim == 1:
            arr = np.repeat(arr[:, None], k, axis=1)
        if arr.shape[0] < horizon:
            raise InvalidParameterError(
                f"horizon={horizon} must be at most the reward table's {arr.shape[0]} steps")
        return np.array(arr[:horizon], dtype=float)
    if rng is None:
        raise InvalidParameterError(f"source={source!r} draws its rewards: rng must be a "
                                    "numpy.random.Generator")
    means = getattr(source, "means", None)
    if (means is not None and hasattr(source, "revision_step")
            and hasattr(source, "revision_value")):
        out = (rng.random((horizon, k)) < np.asarray(means)).astype(float)
        step = source.revision_step
        if step is not None and step <= horizon:
            out[step - 1, :] = source.revision_value
        return out
    arms = np.arange(k)
    return np.stack([np.asarray(source.rewards(t, arms, rng), dtype=float)
                     for t in range(1, horizon + 1)])


def is_reproducible(code: PolicyCode, table: np.ndarray, *, runs: int = 2) -> bool:
    """Whether ``runs`` runs with the same seed give the same actions (a pilot check)."""
    state, pystate = np.random.get_state(), random.getstate()
    try:
        seq = np.random.SeedSequence(12345)
        first = play(code, table, np.random.SeedSequence(seq.entropy))
        return all(np.array_equal(first, play(code, table, np.random.SeedSequence(seq.entropy)))
                   for _ in range(runs - 1))
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
