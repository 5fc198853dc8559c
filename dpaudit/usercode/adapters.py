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
* ``"object-run"``: an object built with an environment (a constructor parameter ``env``)
  whose ``run()`` (``play``, ``simulate``, ``main``) pulls the arms itself; the actions are
  the arms it pulled from the :class:`~dpaudit.usercode.conventions.RewardEnv` (``feed="env"``
  does the same for a whole-run function ``fn(env, horizon)``).

Method names and argument orders are found from names and signatures
(:mod:`dpaudit.usercode.conventions`: ``get_arm(t)``, ``update(t, arm, reward)``,
``observe(reward, arm)``, ``step(reward, arm)``, a ``context`` parameter); ``methods``
renames them when no convention applies (``("pick", "learn")`` or ``("act",)``). Arms are
integers in ``[0, K)``. Objects come from a *factory* (a class or a function) called once per
run with the keywords it accepts among ``n_arms`` (aliases ``k``, ``K``, ``arms``,
``num_arms``), ``horizon`` (``T``), ``epsilon`` (``eps``) and ``delta``, plus
``factory_kwargs`` (settings; a ``params`` parameter receives them as one dict).

Randomness (``seeding``)
------------------------
Run ``i`` of a chunk gets child ``i`` of the chunk's ``SeedSequence``; a ``PCG64`` on that
child draws the run's rewards, and other words of its state seed the generators the code may
use. ``"auto"`` (default) does all that applies: ``rng=`` (a ``numpy.random.Generator``) or
``seed=`` (an int) when the factory (or run function) accepts it, and always ``np.random.seed``,
``random.seed`` and the generators held at the top level of the factory's module before the
run (numba's own generator: once per chunk, in :mod:`dpaudit.usercode.policy_audit`). The global
states are restored after each chunk. The same seed therefore gives the
same report, for any number of workers, whenever the code draws only from these generators; a
generator seeded from the clock or OS entropy still gives independent runs (the bound stays
valid) but not reproducible ones, which the pilot run reports (:func:`is_reproducible`).

Errors: an exception raised by the user's code becomes :class:`UserCodeError` (exit code 3);
an arm outside ``[0, K)`` or a missing method is a protocol break, ``InvalidParameterError``
(exit code 2).
"""

from __future__ import annotations

import dataclasses
import inspect
import random
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit import errors
from dpaudit.errors import UserCodeError
from dpaudit.sim.reward_inputs import realise_rewards
from dpaudit.usercode.conventions import (
    _ALIASES,
    ENV_NAMES,
    RewardEnv,
    _check_required,
    _factory_kwargs,
    _settings_kwargs,
    _signature,
    find_methods,
    module_generators,
    numba_dispatcher,
    numba_seed,
    reseed_module_generators,
    roles,
    run_method,
)
from dpaudit.usercode.wording import extend, usage_error
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
    "with_horizon",
]

INTERFACES = ("auto", "select-update", "step", "run", "object-run")
SEEDINGS = ("auto", "none")
FEEDS = ("table", "reward-fn", "env", "module")
#: first parameters of a whole-run function that takes arm means (``run(means, horizon)``):
#: with ``reward_fn`` it gets placeholder means, its rewards come from the module function
MEANS_NAMES = ("means", "mu", "mus", "arm_means", "probs", "thetas", "true_means")
_DEFAULT_METHODS = {"select-update": ("select", "update"), "step": ("step",)}


#: packages whose frames are not the user's, beyond those :mod:`dpaudit.errors` names
_NOT_USER = frozenset({"numba", "llvmlite", "tqdm"})


def user_frame(exc: BaseException) -> str | None:
    """``file:line in function`` of the innermost frame of ``exc``'s traceback in the user's
    own files: not dpaudit's, not the standard library's, not a dependency's (an error raised
    inside ``numpy.random.laplace`` is placed at the user's line that called it; a compiled
    module's frame, such as ``numpy/random/_common.pyx``, is skipped). ``None``: no such
    frame."""
    own = errors._source_roots()
    deps = errors._DEPENDENCIES | _NOT_USER
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename.startswith("<"):  # <frozen ...>, <string>: not a source file
            continue
        raw = Path(frame.filename)
        if not raw.is_absolute() and raw.parts and raw.parts[0] in deps:
            continue  # a compiled module's own source name
        path = raw.resolve()
        parts = path.parts
        package = (parts[parts.index("site-packages") + 1].split(".")[0]
                   if "site-packages" in parts[:-1] else None)
        if (errors._within(path, own) or errors._is_library(path) or package in deps
                or not path.is_file()):
            continue
        return f"{frame.filename}:{frame.lineno} in {frame.name}"
    return None


def _where(exc: BaseException) -> str:
    """``file:line in function`` of the innermost frame in the user's own files
    (:func:`user_frame`), else of the innermost frame."""
    mine = user_frame(exc)
    if mine is not None:
        return mine
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "unknown location"
    last = frames[-1]
    return f"{last.filename}:{last.lineno} in {last.name}"


def _bind_error(fn: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> str | None:
    """Why dpaudit's call ``fn(*args, **kwargs)`` does not fit ``fn``'s signature (``None``:
    it fits, or the signature cannot be read). A ``TypeError`` raised by such a call is the
    adapter's mistake (the call it built), not an error inside the user's code."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    try:
        sig.bind(*args, **kwargs)
    except TypeError as exc:
        return str(exc)
    return None


def _call_error(what: str, why: str, flags: str) -> InvalidParameterError:
    """The usage error of a call dpaudit built that ``what`` cannot take (``why``, Python's
    own words), naming the options that decide that call."""
    return InvalidParameterError(
        f"dpaudit's call of {what} does not fit its signature ({why}): this is how dpaudit "
        f"was told to call it, not an error in the code; {flags}")


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
    select_roles: tuple[str, ...] = ()
    update_roles: tuple[str, ...] = ("arm", "reward")
    step_roles: tuple[str, ...] = ("reward", "arm")
    time_base: int = 0
    env_param: str | None = None
    module_rngs: tuple[tuple[str, str], ...] = ()
    numba: bool = False
    #: ``(module, attribute)`` of the module-level reward function the code draws its rewards
    #: through (``feed="module"``): replaced during each run by one serving the audited table
    reward_hook: tuple[str, str] | None = None
    means_first: bool = False
    #: the claim, which an environment the code reads its parameters from reports
    #: (``env.epsilon``, ``env.delta``; :class:`~dpaudit.usercode.conventions.RewardEnv`)
    epsilon: float | None = None
    delta: float = 0.0

    @property
    def contextual(self) -> bool:
        """Whether a method takes a context (its parameter is named ``context``, ...)."""
        return "context" in self.select_roles or "context" in self.update_roles

    @property
    def name(self) -> str:
        return getattr(self.factory, "__qualname__", type(self.factory).__name__)


def adapt(factory: Callable[..., Any], *, n_arms: int, horizon: int, epsilon: float,
          delta: float = 0.0, interface: str = "auto", methods: Sequence[str] | None = None,
          factory_kwargs: dict[str, Any] | None = None, seeding: str = "auto",
          feed: str = "table", time_base: int | None = 0,
          reward_fn: str | None = None, release_only: bool = False) -> PolicyCode:
    """Describe how to run ``factory``'s code; see the module docstring for every option.

    ``interface="auto"``: a function whose first parameter is ``rewards``, ``table``,
    ``reward_table``, ``reward_fn`` or an environment (``env``) is a whole-run function
    (``"run"``); otherwise one probe instance decides (select/update methods by their common
    names, else ``step``, else a ``run()`` method of an object built with an environment).
    ``factory_kwargs`` are settings (:func:`dpaudit.usercode.conventions.parse_settings`).
    ``time_base=None``: methods taking a time index (``get_arm(t)``) are tried on a short run
    of zero rewards with ``t`` from 0, then from 1; the first base that runs is used.
    ``reward_fn="module:name"``: ``factory`` is a whole-run function that draws its rewards
    through that module-level function (``pull(arm)``, ``draw_reward(means, arm)``, numba-
    compiled or not); each run replaces it by one serving the audited reward table, and the
    actions are the arms it was asked for. A first parameter named like ``means`` gets
    placeholder means (0.5 each). A numba-compiled ``factory`` is run as its ``.py_func``
    (compiled code binds the reward function when it is compiled).
    ``release_only`` (``--notion ldp``): an object with no bandit methods is accepted as a
    ``"report"`` target (only its report hook is called: :mod:`dpaudit.usercode.ldp_audit`).
    """
    k = check_int("n_arms", n_arms, low=1)
    t = check_int("horizon", horizon, low=1)
    interface = check_choice("interface", interface, INTERFACES)
    seeding = check_choice("seeding", seeding, SEEDINGS)
    feed = check_choice("feed", feed, FEEDS)
    base = None if time_base is None else check_int("time_base", time_base, low=0, high=1)
    if not callable(factory):
        raise usage_error(lambda say: f"{say('factory')} {factory!r} must be callable (a class "
                                      "or function)")
    values = {"n_arms": k, "horizon": t, "epsilon": epsilon, "delta": delta}
    kwargs, pass_rng, pass_seed = _factory_kwargs(factory, values)
    sig = _signature(factory)
    extra, env = _settings_kwargs(factory, sig, values, dict(factory_kwargs or {}))
    kwargs.update(extra)
    if seeding == "none":
        pass_rng = pass_seed = False
    first = next(iter(sig.parameters), None) if sig is not None else None
    is_numba = numba_dispatcher(factory)
    common: dict[str, Any] = {
              "seed_globals": seeding != "none", "time_base": base or 0, "numba": is_numba,
              "module_rngs": module_generators(factory) if seeding != "none" else (),
              "epsilon": float(epsilon), "delta": float(delta)}
    if reward_fn is not None:
        return _module_feed(factory, reward_fn, k, t, kwargs, pass_rng, pass_seed, first,
                            common)
    if interface == "auto" and not inspect.isclass(factory) and first in (
            "rewards", "table", "reward_fn", "reward_table", *ENV_NAMES):
        interface = "run"
        feed = "env" if first in ENV_NAMES else feed
    if interface == "run":
        if is_numba and feed != "table":
            raise usage_error(lambda say: (
                f"{getattr(factory, '__name__', factory)} is numba-compiled: it can take the "
                f"reward table ({say('feed', 'table')}: a float64 (T, K) array), not a Python "
                f"{'callable' if feed == 'reward-fn' else 'environment object'}"))
        kwargs = {n: v for n, v in kwargs.items() if n not in _ALIASES["horizon"]}
        _check_required(factory, {**kwargs, "rng": 0, "seed": 0}, skip=2)
        return PolicyCode(factory, k, t, "run", (), kwargs, pass_rng, pass_seed, feed=feed,
                          **common)
    _check_required(factory, {**kwargs, "rng": 0, "seed": 0, **({env: 0} if env else {})},
                    skip=0)
    probe_code = PolicyCode(factory, k, t, "select-update", ("select", "update"), kwargs,
                            pass_rng, pass_seed, env_param=env, **common)
    state, pystate = np.random.get_state(), random.getstate()
    try:
        probe = _build(probe_code, np.random.SeedSequence(0))  # no (T, K) table: lazy zeros
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    if interface == "auto":
        try:
            interface = _detect(probe, methods, env)
        except InvalidParameterError:
            if not release_only or methods:
                raise
            return dataclasses.replace(probe_code, interface="report", methods=())
    if interface == "object-run":
        name = methods[0] if methods else run_method(probe)
        if env is None or name is None:
            raise usage_error(lambda say: (
                f"{say('interface', 'object-run')} needs a factory with an environment "
                f"parameter ({', '.join(ENV_NAMES)}) and a run method (run, play, simulate, "
                "main)"))
        return dataclasses.replace(probe_code, interface="object-run", methods=(name,))
    names = tuple(methods) if methods else (
        find_methods(probe) or _DEFAULT_METHODS[interface] if interface == "select-update"
        else _DEFAULT_METHODS[interface])
    want = len(_DEFAULT_METHODS[interface])
    if len(names) != want or not all(isinstance(m, str) and m for m in names):
        raise usage_error(lambda say: (
            f"{say('methods', tuple(names))} must name {want} method(s) for "
            f"{say('interface', interface)} ({', '.join(_DEFAULT_METHODS[interface])})"))
    fns = [_method(probe, m) for m in names]
    if interface == "select-update":
        code = dataclasses.replace(probe_code, methods=names, select_roles=roles(fns[0]),
                                   update_roles=roles(fns[1]))
        _check_roles(code, probe)
        if base is None and "t" in code.select_roles + code.update_roles:
            code = dataclasses.replace(code, time_base=_time_base(code))
        return code
    code = dataclasses.replace(probe_code, interface="step", methods=names,
                               step_roles=roles(fns[0], default=("reward", "arm")))
    _check_roles(code, probe)
    return code


#: what dpaudit can pass each method: a select method is called before the step's arm and
#: reward exist, an update method after; a step method gets the last reward and arm
_PASSABLE = {"select": {"t", "context"}, "update": {"t", "arm", "reward", "context"},
             "step": {"arm", "reward"}}


def _check_roles(code: PolicyCode, probe: Any) -> None:
    """Refuse, before any run, a method whose parameters ask for what dpaudit cannot pass at
    that call (a select method asking for a reward): otherwise the adapter's own lookup fails
    inside the run (``KeyError: 'reward'``) and looks like an error in the user's code."""
    if code.interface == "step":
        checks = [("step", code.methods[0], code.step_roles)]
    else:
        checks = [("select", code.methods[0], code.select_roles),
                  ("update", code.methods[1], code.update_roles)]
    for kind, name, found in checks:
        extra = [r for r in found if r not in _PASSABLE[kind]]
        fn = getattr(probe, name, None)
        if not extra and (kind != "step" or _bind_error(fn, (None, None), {}) is None):
            continue
        params = ", ".join(_required_names(fn))
        what = {"select": "before the step's arm and reward exist: it may take a time index "
                          "or a context",
                "update": "after the step: it may take a time index, the arm, the reward and "
                          "a context",
                "step": "as step(last_reward, last_arm)"}[kind]
        head = (f"{type(probe).__name__}.{name}({params}) asks for "
                f"{', '.join(extra) if extra else 'other arguments'}, which dpaudit cannot "
                f"pass there: it calls the {kind} method {what}")
        raise usage_error(lambda say: (  # built at once: the loop's values are current
            f"{head}; name the methods that fit with "  # noqa: B023
            f"{say('methods', ('SELECT', 'UPDATE'))}, "
            f"or use {say('interface', 'step')} for a step(last_reward, last_arm) method"))


def _required_names(fn: Any) -> list[str]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    return [n for n, p in sig.parameters.items()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]


def _module_feed(factory: Callable, spec: str, k: int, t: int, kwargs: dict[str, Any],
                 pass_rng: bool, pass_seed: bool, first: str | None,
                 common: dict[str, Any]) -> PolicyCode:
    """The :class:`PolicyCode` of a whole-run function fed through a module-level reward
    function (``adapt(reward_fn=...)``); a name that does not resolve is a usage error."""
    import importlib

    module_name, _, attr = spec.partition(":")
    if not module_name or not attr or "." in attr:
        raise usage_error(lambda say: f"{say('reward_fn', spec)} must be MODULE:NAME, a "
                                      "module-level function")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        why = str(exc)
        raise usage_error(lambda say: f"{say('reward_fn', spec)}: module {module_name!r} "
                                      f"does not import ({why})") from None
    if not callable(getattr(module, attr, None)):
        raise usage_error(lambda say: f"{say('reward_fn', spec)}: module {module_name!r} has "
                                      f"no function {attr!r}")
    if common["numba"]:
        # compiled code bound the reward function at compile time
        factory = getattr(factory, "py_func")  # noqa: B009 - numba dispatchers only
        common = {**common, "numba": False}
    means_first = first in MEANS_NAMES
    sig = _signature(factory)
    named = [n for n in (sig.parameters if sig is not None else ()) if n in MEANS_NAMES]
    taken = [n for n in named if n in kwargs]
    if taken:
        raise usage_error(lambda say: (
            f"{getattr(factory, '__qualname__', factory)}'s parameter {taken[0]!r} is given by "
            f"dpaudit (distinct placeholder means: the rewards come through "
            f"{say('reward_fn', spec)}, from dpaudit's reward inputs), so it cannot also be a "
            f"setting: drop {say('factory_kwargs', f'{taken[0]}=...')} (Bernoulli arms with "
            f"chosen means: {say('rewards', 'instance')} {say('means', 'M1,M2')})"))
    if not means_first and named:  # run(horizon, means, ...): the means by name
        kwargs = {**kwargs, named[0]: placeholder_means(k)}
    _check_required(factory, {**kwargs, "rng": 0, "seed": 0}, skip=1 if means_first else 0)
    return PolicyCode(factory, k, t, "run", (), kwargs, pass_rng, pass_seed, feed="module",
                      reward_hook=(module_name, attr), means_first=means_first, **common)


def placeholder_means(n_arms: int) -> list[float]:
    """The means a module-fed whole-run function is given (its rewards come from dpaudit's
    reward inputs, so only their identity matters): ``(2 a + 1) / 2^m`` for arm ``a``, with
    ``2^m >= 2 K``. Distinct, inside ``(0, 1)``, never an integer and exact in float32, so a
    reward function passed ``means[a]`` (not ``a``) still says which arm it asks for."""
    k = check_int("n_arms", n_arms, low=1)
    size = 1 << max(1, (2 * k - 1).bit_length())
    return [(2 * a + 1) / size for a in range(k)]


def _integral(x: Any) -> int | None:
    """``x`` as an arm index when it is an integer (or an integral float), else ``None``."""
    if isinstance(x, bool | np.bool_):
        return None
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, float | np.floating) and float(x).is_integer():
        return int(x)
    return None


def _reading(args: Sequence[Any], kw: dict[str, Any], n_arms: int, means: dict[float, int],
             arm_param: tuple[int, str] | None = None) -> tuple[str, int | str] | None:
    """How the reward function's arguments say which arm it asks for, decided at its first
    call: ``("index", where)`` (an arm index, alone or beside a means vector) or ``("mean",
    where)`` (the arm's placeholder mean, see :func:`placeholder_means`); ``where`` is a
    position or a keyword. Several arm-like integers: the one passed to the parameter whose
    name says arm (``arm_param``: its position and name). ``None``: the arguments do not say
    (the caller refuses)."""
    given: list[tuple[int | str, Any]] = [*enumerate(args), *kw.items()]
    vectors, indices, mean_args = [], [], []
    for where, x in given:
        if isinstance(x, list | tuple | np.ndarray) and np.ndim(x) == 1 and len(x) == n_arms:
            vectors.append(where)
        elif (index := _integral(x)) is not None and 0 <= index < n_arms:
            indices.append(where)
        elif isinstance(x, float | np.floating) and float(x) in means:
            mean_args.append(where)
    if vectors and len(indices) == 1:  # pull(means, arm)
        return "index", indices[0]
    if len(mean_args) == 1:  # pull(means[arm], ...)
        return "mean", mean_args[0]
    if len(indices) == 1 and not mean_args:  # pull(arm, ...)
        return "index", indices[0]
    if len(indices) > 1 and not mean_args and arm_param is not None:  # pull(arm, n=1)
        for where in arm_param:
            if where in indices:
                return "index", where
    return None


def _serve_module_rewards(code: PolicyCode, table: np.ndarray, extra: dict[str, Any]
                          ) -> np.ndarray:
    """One run of a module-fed whole-run function: its reward function serves ``table``.

    What the reward function is passed decides the arm (:func:`_reading`, at its first call):
    an arm index (``pull(arm)``, ``pull(means, arm)``) or the arm's mean (``pull(means[arm],
    rng)``: the placeholder means are distinct, so the mean names the arm). Arguments that say
    neither are refused (exit 2): an action the code did not take is never recorded. When the
    function returns its own actions they must be the arms it asked for.
    """
    import sys

    module_name, attr = code.reward_hook or ("", "")
    module = sys.modules[module_name]
    original = getattr(module, attr)
    rows = table.tolist()
    pulled: list[int] = []
    placeholders = placeholder_means(code.n_arms)
    means = {m: a for a, m in enumerate(placeholders)}
    mode: list[tuple[str, int | str]] = []  # decided at the first call
    inner = getattr(original, "py_func", original)
    names = _required_names(inner)
    who = roles(inner) if names and len(names) <= 4 else ()
    arm_param = (who.index("arm"), names[who.index("arm")]) if "arm" in who else None

    def refuse(args: Sequence[Any], kw: dict[str, Any], why: str) -> InvalidParameterError:
        shown = ", ".join([*(_short(x) for x in args), *(f"{k}={_short(v)}"
                                                          for k, v in kw.items())])
        return usage_error(lambda say: (
            f"{code.name} called {attr}({shown}) at draw {len(pulled) + 1}: {why}; dpaudit "
            "records the arm each reward is drawn for, and these arguments do not say which "
            f"arm: pass {attr} the arm index ({attr}(arm) or {attr}(means, arm)) or the mean "
            "from the means dpaudit gives the run function's first parameter (named "
            f"{', '.join(MEANS_NAMES[:3])} ...); or read the rewards another way "
            f"({say('feed', 'table')}, {say('feed', 'env')})"))

    def serve(*args: Any, **kw: Any) -> float:
        if len(pulled) >= code.horizon:
            raise InvalidParameterError(f"{code.name} drew more than horizon={code.horizon} "
                                        f"rewards through {attr}()")
        if not mode:
            found = _reading(args, kw, code.n_arms, means if code.means_first or any(
                n in code.kwargs for n in MEANS_NAMES) else {}, arm_param)
            if found is None:
                raise refuse(args, kw, "neither an arm index in [0, "
                                       f"{code.n_arms}) nor one of the arms' means")
            mode.append(found)
        how, where = mode[0]
        try:
            x = args[where] if isinstance(where, int) else kw[where]
        except (IndexError, KeyError):
            raise refuse(args, kw, f"its argument {where!r} (the arm at the first draw) is "
                                   "missing") from None
        if how == "mean":
            a = means.get(float(x)) if isinstance(x, float | np.floating) else None
            if a is None:
                raise refuse(args, kw, f"{x!r} is not one of the arms' means "
                                       f"{placeholders}")
        else:
            index = _integral(x)
            if index is None or not 0 <= index < code.n_arms:
                raise refuse(args, kw, f"{x!r} is not an arm index in [0, {code.n_arms})")
            a = index
        pulled.append(a)
        return float(rows[len(pulled) - 1][a])

    args = [list(placeholders)] if code.means_first else []
    kwargs = {**code.kwargs, **extra}
    setattr(module, attr, serve)
    try:
        out = code.factory(*args, **kwargs)
    except InvalidParameterError:
        raise
    except Exception as exc:
        why = _bind_error(code.factory, args, kwargs) if isinstance(exc, TypeError) else None
        if why is not None:
            raise _call_error(f"run function {code.name}", why,
                              "its settings come from --set/--config and its first parameter "
                              "gets the placeholder means when it is named "
                              f"{', '.join(MEANS_NAMES[:3])} ...") from None
        raise _user_error(f"run function {code.name}", exc) from exc
    finally:
        setattr(module, attr, original)
    if len(pulled) != code.horizon:
        raise InvalidParameterError(
            f"{code.name} drew {len(pulled)} rewards through {attr}(); a run must draw "
            f"horizon={code.horizon}")
    _same_actions(code, out, pulled, attr)
    return np.array(pulled, dtype=np.int64)


def _same_actions(code: PolicyCode, out: Any, pulled: list[int], attr: str) -> None:
    """When a module-fed run function returns ``T`` integer actions, they must be the arms it
    drew rewards for (else the arms read off the reward function are not its actions)."""
    try:
        acts = np.asarray(out)
    except Exception:  # noqa: BLE001 - any other return value is not a list of actions
        return
    if acts.shape != (code.horizon,) or acts.dtype.kind not in "iu":
        return
    if not np.array_equal(acts, pulled):
        step = int(np.flatnonzero(acts != np.asarray(pulled))[0]) + 1
        raise InvalidParameterError(
            f"run function {code.name} returned actions that differ from the arms it drew "
            f"rewards for through {attr}() (first at step {step}: returned {int(acts[step - 1])}"
            f", drew for {pulled[step - 1]}): dpaudit cannot tell which are the actions")


def _short(x: Any) -> str:
    text = repr(x.tolist() if isinstance(x, np.ndarray) else x)
    return text if len(text) <= 40 else text[:37] + "..."


def _time_base(code: PolicyCode) -> int:
    """0 or 1: the first time base under which a short run (``2 K + 2`` steps of zero
    rewards) completes; 0 when neither does (the audit then reports the error, with the
    hint of ``--time-base 1``)."""
    if code.contextual:
        return 0
    short = dataclasses.replace(code, horizon=min(code.horizon, 2 * code.n_arms + 2))
    state, pystate = np.random.get_state(), random.getstate()
    try:
        for base in (0, 1):
            try:
                _play_roles(dataclasses.replace(short, time_base=base),
                            _build(short, np.random.SeedSequence(0)),
                            _ZeroRows(short.horizon, short.n_arms))
            except (InvalidParameterError, UserCodeError, Exception):  # noqa: BLE001
                continue
            return base
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
    return 0


def with_horizon(code: PolicyCode, horizon: int) -> PolicyCode:
    """``code`` run for ``horizon`` steps (the factory's horizon keyword follows)."""
    t = check_int("horizon", horizon, low=1)
    kwargs = {n: (t if n in _ALIASES["horizon"] else v) for n, v in code.kwargs.items()}
    return dataclasses.replace(code, horizon=t, kwargs=kwargs)


def _detect(probe: Any, methods: Sequence[str] | None, env: str | None = None) -> str:
    if methods:
        if len(methods) in (1, 2):
            if len(methods) == 1 and env is not None and methods[0] != "step":
                return "object-run"
            return "step" if len(methods) == 1 else "select-update"
        raise usage_error(lambda say: f"{say('methods', tuple(methods))} must name 1 or 2 "
                                      "methods")
    if find_methods(probe):
        return "select-update"
    if callable(getattr(probe, "step", None)):
        return "step"
    if env is not None and run_method(probe):
        return "object-run"
    raise usage_error(lambda say: (
        f"{type(probe).__name__} has neither select()/update(arm, reward) (or get_arm, "
        "choose, act ... / observe, receive ...) nor step(last_reward, last_arm): name its "
        f"methods with {say('methods', ('pick', 'learn'))} or use {say('interface', 'run')} "
        "for a whole-run function"))


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
        reseed_module_generators(code.module_rngs, seq)
    extra: dict[str, Any] = {}
    if code.pass_rng:
        extra["rng"] = np.random.Generator(np.random.PCG64(words[6:8]))
    if code.pass_seed:
        extra["seed"] = int(words[6]) << 32 | int(words[7])
    return extra


class _ZeroRows:
    """``T`` rows of ``K`` zero rewards without holding them (the probe instance's
    environment: a horizon of 1e9 must not allocate a ``T x K`` table to be looked at)."""

    def __init__(self, horizon: int, n_arms: int) -> None:
        self.horizon, self.row = horizon, [0.0] * n_arms

    def __len__(self) -> int:
        return self.horizon

    def __getitem__(self, s: int) -> list[float]:
        return self.row


def _env(code: PolicyCode, table: Any) -> RewardEnv:
    """The environment of one run: it serves ``table`` and reports the claim's parameters."""
    return RewardEnv(table, code.n_arms, code.horizon, epsilon=code.epsilon, delta=code.delta)


def _build(code: PolicyCode, seq: np.random.SeedSequence, table: Any = None) -> Any:
    extra = _seed_kwargs(code, seq)
    if code.env_param is not None:
        extra[code.env_param] = _env(
            code, _ZeroRows(code.horizon, code.n_arms) if table is None else table)
    try:
        return code.factory(**code.kwargs, **extra)
    except Exception as exc:
        why = (_bind_error(code.factory, (), {**code.kwargs, **extra})
               if isinstance(exc, TypeError) else None)
        if why is not None:
            raise _call_error(
                f"factory {code.name}", why,
                "it is passed n_arms, horizon, epsilon and delta (or their aliases) by name, "
                "the settings of --set and --config, rng or seed, and an environment to a "
                "parameter named env; give what it requires with --set KEY=VALUE") from None
        raise _user_error(f"factory {code.name}", exc) from exc


def _methods_call_error(code: PolicyCode, obj: Any) -> InvalidParameterError | None:
    """The usage error when a method call dpaudit builds for ``code`` does not fit the
    method's signature (``None``: every call fits; a ``TypeError`` came from inside)."""
    calls: list[tuple[str, tuple[Any, ...]]]
    if code.interface == "object-run":
        calls = [(code.methods[0], ())]
    elif code.interface == "step":
        calls = [(code.methods[0], (None, None))]
    else:
        dummy = {"t": 0, "context": None, "arm": 0, "reward": 0.0}
        calls = [(code.methods[0], tuple(dummy[r] for r in code.select_roles)),
                 (code.methods[1], tuple(dummy[r] for r in code.update_roles))]
    for name, args in calls:
        why = _bind_error(getattr(obj, name, None), args, {})
        if why is not None:
            return _call_error(
                f"{code.name}.{name}()", why,
                f"dpaudit called it as {code.interface} ({code.name}.{name} with "
                f"{len(args)} argument(s)); name the methods with --methods SELECT,UPDATE or "
                "choose the shape with --interface select-update|step|run|object-run")
    return None


def _method(obj: Any, name: str) -> Callable:
    fn = getattr(obj, name, None)
    if not callable(fn):
        raise usage_error(lambda say: (
            f"{type(obj).__name__} has no method {name!r}; name its methods with "
            f"{say('methods', ('pick', 'learn'))}"))
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


def play(code: PolicyCode, table: np.ndarray, seq: np.random.SeedSequence, *,
         contexts: np.ndarray | None = None) -> np.ndarray:
    """Actions ``(T,)`` of one run of the user's code on the reward table ``table`` (T, K)
    (and, for a contextual policy, the context stream ``contexts``, one row per step)."""
    if code.contextual and (contexts is None or len(contexts) < code.horizon):
        raise InvalidParameterError(
            f"{code.name} takes a context: give a context stream of at least "
            f"horizon={code.horizon} rows (--contexts FILE.npy|FILE.csv|gaussian:D)")
    if code.interface == "run":
        return _play_run(code, np.asarray(table, dtype=float), seq)
    horizon, k = code.horizon, code.n_arms
    rows = table.tolist() if isinstance(table, np.ndarray) else table
    actions: list[int] = []
    obj = _build(code, seq, rows)
    where = f"{code.name}.{code.methods[0]}()"
    t = 0
    try:
        if code.interface == "object-run":
            _method(obj, code.methods[0])()
            if code.env_param is None:  # adapt() builds object-run codes with an environment
                raise InvalidParameterError(f"{code.name}: an object-run policy needs the "
                                            "environment parameter it pulls arms from")
            return _pulled(code, getattr(obj, code.env_param))
        if code.interface == "select-update" and (
                code.select_roles, code.update_roles) != ((), ("arm", "reward")):
            return _play_roles(code, obj, rows, contexts)
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
            flip = code.step_roles == ("arm", "reward")
            for t in range(horizon):
                a = step(last_a, last_r) if flip else step(last_r, last_a)
                if type(a) is not int or not 0 <= a < k:
                    a = _arm(a, k, where)
                actions.append(a)
                last_r, last_a = rows[t][a], a
    except (InvalidParameterError, UserCodeError):
        raise
    except Exception as exc:
        wrong = _methods_call_error(code, obj) if isinstance(exc, TypeError) else None
        if wrong is not None:
            raise wrong from None
        raise _user_error(f"{code.name} at step {t + 1}", exc) from exc
    return np.array(actions, dtype=np.int64)


def _play_roles(code: PolicyCode, obj: Any, rows: Any, contexts: Any = None) -> np.ndarray:
    """A select/update loop whose methods take a time index (``get_arm(t)``,
    ``update(t, arm, reward)``) or their arguments in another order (by their names)."""
    select, update = (_method(obj, m) for m in code.methods)
    where = f"{code.name}.{code.methods[0]}()"
    actions = []
    hint = ("" if code.time_base or "t" not in code.select_roles + code.update_roles else
            f" ({code.name} takes a time index, passed from 0: if it counts t from 1, pass "
            "--time-base 1)")
    t = 0
    try:
        for t in range(code.horizon):
            given = {"t": t + code.time_base,
                     "context": None if contexts is None else contexts[t]}
            a = _arm(select(*(given[r] for r in code.select_roles)), code.n_arms, where)
            actions.append(a)
            given.update(arm=a, reward=rows[t][a])
            update(*(given[r] for r in code.update_roles))
    except InvalidParameterError as exc:
        if not hint:
            raise
        raise extend(exc, hint) from None
    except UserCodeError:
        raise
    except Exception as exc:
        wrong = _methods_call_error(code, obj) if isinstance(exc, TypeError) else None
        if wrong is not None:
            raise wrong from None
        raise _user_error(f"{code.name} at step {t + 1}{hint}", exc) from exc
    return np.array(actions, dtype=np.int64)


def _pulled(code: PolicyCode, env: RewardEnv) -> np.ndarray:
    if len(env.arms) != code.horizon:
        raise InvalidParameterError(
            f"{code.name} pulled {len(env.arms)} arms from its environment; a run must pull "
            f"horizon={code.horizon}")
    return np.array(env.arms, dtype=np.int64)


def _numba_error(code: PolicyCode, exc: Exception) -> InvalidParameterError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InvalidParameterError(
        f"numba-compiled {code.name} cannot be compiled for dpaudit's arguments (rewards: a "
        f"float64 array (T, K), horizon: int; {', '.join(code.kwargs) or 'no settings'}): "
        f"{first}. Fix: make it accept those types, or audit {code.name}.py_func (the Python "
        "function) instead")


def _play_run(code: PolicyCode, table: np.ndarray, seq: np.random.SeedSequence) -> np.ndarray:
    extra = _seed_kwargs(code, seq)
    if code.feed == "module":
        return _serve_module_rewards(code, table, extra)
    rewards: Any = table.copy()
    if code.feed == "reward-fn":
        def rewards(t: int, arm: int) -> float:
            return float(table[int(t) - 1, int(arm)])
    elif code.feed == "env":
        rewards = _env(code, table)
    try:
        out = code.factory(rewards, code.horizon, **code.kwargs, **extra)
    except InvalidParameterError:
        raise
    except Exception as exc:
        if code.numba and type(exc).__module__.startswith("numba"):
            raise _numba_error(code, exc) from exc
        why = (_bind_error(getattr(code.factory, "py_func", code.factory),
                           (rewards, code.horizon), {**code.kwargs, **extra})
               if isinstance(exc, TypeError) else None)
        if why is not None:
            raise _call_error(
                f"run function {code.name}", why,
                f"a whole-run function is called as {code.name}(rewards, horizon, ...) with "
                "the rewards as --feed says (table, reward-fn or env) and its settings from "
                "--set/--config; a function run(means, horizon, ...) that draws its rewards "
                "through a module-level function needs --reward-fn MODULE:NAME") from None
        raise _user_error(f"run function {code.name}", exc) from exc
    if code.feed == "env":
        return _pulled(code, rewards)
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
    if code.interface in ("run", "object-run"):
        raise usage_error(lambda say: (
            f"{say('interface', code.interface)} has no per-step next action: per-step DP "
            f"({say('notion', 'per-step')}) needs an object whose history can be set"))
    if code.contextual:
        raise InvalidParameterError(f"{code.name} takes a context: per-step DP of contextual "
                                    "policies is not audited here; use --notion global")
    if history_method is not None and code.interface != "select-update":
        raise usage_error(lambda say: (
            f"{say('history_method', history_method)} needs "
            f"{say('interface', 'select-update')} (the step interface is replayed)"))
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
            for i, (a, r) in enumerate(pairs):
                given = {"t": i + code.time_base, "arm": a, "reward": r}
                update(*(given[x] for x in code.update_roles))
            name = f"{code.name}.{code.methods[0]}()"
            now = len(arms) + code.time_base
            return _arm(_method(obj, code.methods[0])(*(now for _ in code.select_roles)),
                        code.n_arms, name)
        step = _method(obj, code.methods[0])
        flip = code.step_roles == ("arm", "reward")
        out = step(None, None)
        for a, r in pairs:
            out = step(a, r) if flip else step(r, a)
        return _arm(out, code.n_arms, name)
    except (InvalidParameterError, UserCodeError):
        raise
    except Exception as exc:
        wrong = _methods_call_error(code, obj) if isinstance(exc, TypeError) else None
        if wrong is not None:
            raise wrong from None
        raise _user_error(name, exc) from exc


def is_reproducible(code: PolicyCode, table: np.ndarray, *, runs: int = 2,
                    contexts: np.ndarray | None = None) -> bool:
    """Whether ``runs`` runs with the same seed give the same actions (a pilot check)."""
    state, pystate = np.random.get_state(), random.getstate()
    try:
        seq = np.random.SeedSequence(12345)

        def once() -> np.ndarray:
            if code.numba:  # numba's own generator, seeded per chunk in an audit
                numba_seed(12345)
            return play(code, table, np.random.SeedSequence(seq.entropy), contexts=contexts)
        first = once()
        return all(np.array_equal(first, once()) for _ in range(runs - 1))
    finally:
        np.random.set_state(state)
        random.setstate(pystate)
