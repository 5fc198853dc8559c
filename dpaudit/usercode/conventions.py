"""Calling conventions of bandit code found from names and signatures, so no glue is needed.

Used by :mod:`dpaudit.usercode.adapters`. Each helper reads the user's code (method names,
parameter names, module attributes) and says how to call it; none runs it.

* **Methods** (:func:`find_methods`): the select method is the first of ``select``,
  ``get_arm``, ``select_arm``, ``choose``, ``choose_arm``, ``act``, ``get_action``,
  ``next_arm`` the object has; the update method the first of ``update``, ``observe``,
  ``receive``, ``update_arm``, ``feedback``, ``give_reward``.
* **Arguments** (:func:`roles`): a method's parameters are matched to ``context``
  (``context``, ``ctx``, ``x_t``, ``features``, ``context_vector``, ``covariates``: the row
  of the context stream at this step), ``t`` (the time index:
  ``t``, ``time``, ``step``, ``round``, ``timestep``, ``time_step``, ``rnd``), ``arm``
  (``arm``, ``a``, ``action``, ``chosen``, ``chosen_arm``, ``arm_idx``, ``i``, ``k``, ``idx``)
  and ``reward`` (``reward``, ``r``, ``x``, ``rew``, ``payoff``, ``y``, ``obs``, ``value``,
  ``feedback``); unnamed ones take the roles left in the order ``t, arm, reward`` for three
  parameters, ``arm, reward`` for two and ``t`` for one (a ``get_arm(t)``).
  ``t`` is passed 0-based (``for t in range(T)``) unless ``time_base=1``.
* **Environments** (:class:`RewardEnv`): a constructor or whole-run function with a
  parameter ``env`` (``environment``, ``bandit``, ``problem``) gets an object that serves the
  run's rewards: ``pull(arm)`` (also ``sample``, ``get_reward``, ``play``, ``draw``) returns
  the reward of ``arm`` at the next step and records the arm, and ``n_arms`` (``K``, ``k``,
  ``num_arms``, ``n_actions``) and ``horizon`` (``T``) are attributes. Code that draws its
  own rewards this way is audited on dpaudit's reward inputs, and its actions are the arms it
  pulled.
* **Settings** (:func:`parse_settings`): ``key=value`` strings (values read as TOML: ``0.5``,
  ``true``, ``"text"``; a bare word is a string) or a TOML file's top-level table; a
  parameter ``params`` (``config``, ``settings``, ``cfg``, ``hparams``, ``args``) receives
  them as one dict, with ``epsilon``, ``delta``, ``n_arms`` and ``horizon`` added when absent;
  a setting named like another constructor parameter goes to that parameter instead
  (``DPSE(env, n, params)`` with ``--set n=1000``).
* **Module-level generators** (:func:`module_generators`): ``numpy.random.Generator``,
  ``numpy.random.RandomState`` and ``random.Random`` objects held as attributes of the
  factory's module are reseeded before every run (each from its own child of the run's seed).
* **numba** (:func:`numba_dispatcher`): a ``numba.njit`` function is called as it is with the
  reward table (a float64 ``(T, K)`` array); numba's own generator is seeded per run through
  a compiled ``np.random.seed``; an error while compiling for dpaudit's arguments is a usage
  error naming the fix.
"""

from __future__ import annotations

import inspect
import random
import sys
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit.usercode.wording import usage_error
from dpaudit.validation import InvalidParameterError

__all__ = ["ENV_NAMES", "PARAMS_NAMES", "RewardEnv", "find_methods", "load_contexts",
           "module_generators", "numba_dispatcher", "numba_seed", "parse_settings",
           "reseed_module_generators", "roles"]

SELECT_NAMES = ("select", "get_arm", "select_arm", "choose", "choose_arm", "act",
                "get_action", "next_arm")
UPDATE_NAMES = ("update", "observe", "receive", "update_arm", "feedback", "give_reward")
RUN_METHODS = ("run", "play", "simulate", "main")
ENV_NAMES = ("env", "environment", "bandit", "problem")
PARAMS_NAMES = ("params", "config", "settings", "cfg", "hparams", "args")
_ALIASES = {
    "n_arms": ("n_arms", "k", "K", "arms", "num_arms", "n_actions"),
    "horizon": ("horizon", "T", "n_steps"),
    "epsilon": ("epsilon", "eps"),
    "delta": ("delta",),
}
_ROLE_NAMES = {
    "context": ("context", "ctx", "x_t", "features", "context_vector", "covariates",
                "contexts"),
    "t": ("t", "time", "step", "round", "timestep", "time_step", "rnd"),
    "arm": ("arm", "a", "action", "chosen", "chosen_arm", "arm_idx", "i", "k", "idx"),
    "reward": ("reward", "r", "x", "rew", "payoff", "y", "obs", "value", "feedback"),
}
_DEFAULT_ROLES = {1: ("t",), 2: ("arm", "reward"), 3: ("t", "arm", "reward")}


def find_methods(obj: Any) -> tuple[str, ...] | None:
    """``(select, update)`` method names the object has, or ``None``."""
    sel = next((n for n in SELECT_NAMES if callable(getattr(obj, n, None))), None)
    upd = next((n for n in UPDATE_NAMES if callable(getattr(obj, n, None))), None)
    return (sel, upd) if sel and upd else None


def run_method(obj: Any) -> str | None:
    """The whole-run method of an object built with an environment (``run``, ``play``...)."""
    return next((n for n in RUN_METHODS if callable(getattr(obj, n, None))), None)


def roles(fn: Callable, *, default: Sequence[str] | None = None) -> tuple[str, ...]:
    """The role (``t``, ``arm`` or ``reward``) of each required positional parameter."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return tuple(default or ())
    names = [n for n, p in sig.parameters.items()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
             and p.default is p.empty]
    if not names:
        return ()
    if len(names) > 4:
        raise InvalidParameterError(
            f"{getattr(fn, '__qualname__', fn)} takes {len(names)} arguments "
            f"({', '.join(names)}); dpaudit can pass a time index, a context, an arm and a "
            "reward")
    found: list[str | None] = []
    for n in names:
        role = next((r for r, alias in _ROLE_NAMES.items() if n.lower() in alias), None)
        if role is None:  # last_reward, chosen_action, time_index ...
            role = next((r for r, part in (("reward", "reward"), ("arm", "arm"),
                                            ("arm", "action"), ("t", "time"))
                         if part in n.lower()), None)
        found.append(role if role not in found else None)
    left = [r for r in (default or _DEFAULT_ROLES.get(len(names), ())) if r not in found]
    left += [r for r in ("t", "arm", "reward", "context") if r not in found and r not in left]
    return tuple(r if r is not None else left.pop(0) for r in found)


class RewardEnv:
    """The environment handed to code that draws its own rewards (see the module docstring).

    Serves ``table[s, arm]`` at its ``s``-th pull and records the arms pulled (``arms``).
    The claim's parameters are attributes too (``epsilon``/``eps``, ``delta``; ``None`` when
    not given), for code that reads them from its environment.
    """

    def __init__(self, table: Any, n_arms: int, horizon: int, *,
                 epsilon: float | None = None, delta: float | None = None) -> None:
        self._rows = table.tolist() if isinstance(table, np.ndarray) else table
        self.n_arms = self.K = self.k = self.num_arms = self.n_actions = int(n_arms)
        self.horizon = self.T = self.n_steps = int(horizon)
        self.epsilon = self.eps = None if epsilon is None else float(epsilon)
        self.delta = None if delta is None else float(delta)
        self.arms: list[int] = []

    def pull(self, arm: Any) -> float:
        s = len(self.arms)
        if s >= self.horizon:
            raise InvalidParameterError(
                f"the code pulled an arm more than horizon={self.horizon} times")
        a = int(arm)
        if not 0 <= a < self.n_arms:
            raise InvalidParameterError(
                f"the code pulled arm={arm!r}; it must be an integer in [0, {self.n_arms})")
        self.arms.append(a)
        r = self._rows[s][a]
        return r if isinstance(r, float) else float(r)  # a float subclass (a marked reward) kept

    sample = get_reward = play = draw = pull


def parse_settings(pairs: Sequence[str] = (), path: str | None = None) -> dict[str, Any]:
    """Settings from a TOML file's top level, then ``key=value`` strings (which win)."""
    out: dict[str, Any] = {}
    if path is not None:
        try:
            with Path(path).open("rb") as fh:
                out.update(tomllib.load(fh))
        except OSError as exc:
            why = exc.strerror
            raise usage_error(lambda say: f"{say('config', path)} cannot be read: "
                                          f"{why}") from None
        except tomllib.TOMLDecodeError as exc:
            why = str(exc)
            raise usage_error(lambda say: f"{say('config', path)} is not TOML: {why}") \
                from None
    for text in pairs:
        key, sep, raw = text.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise usage_error(lambda say: f"{say('set', text)} must be "  # noqa: B023
                                          "KEY=VALUE (e.g. alpha=3.1)")
        try:
            out[key] = tomllib.loads(f"v = {raw.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            out[key] = raw.strip()
    return out


_GENERATOR_TYPES = (np.random.Generator, np.random.RandomState, random.Random)


def module_generators(factory: Callable) -> tuple[tuple[str, str], ...]:
    """``(module, attribute)`` of the generators held at the factory module's top level."""
    name = getattr(factory, "__module__", None) or getattr(
        getattr(factory, "py_func", None), "__module__", None)
    module = sys.modules.get(name or "")
    if module is None:
        return ()
    return tuple((module.__name__, attr) for attr, value in sorted(vars(module).items())
                 if isinstance(value, _GENERATOR_TYPES) and not attr.startswith("__"))


def reseed_module_generators(found: Sequence[tuple[str, str]],
                             seq: np.random.SeedSequence) -> None:
    """Reseed each generator of :func:`module_generators` from its child of ``seq``."""
    for i, (mod, attr) in enumerate(found):
        gen = getattr(sys.modules[mod], attr, None)
        words = np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, 1 << 20, i)
                                       ).generate_state(4)
        if isinstance(gen, np.random.Generator):
            gen.bit_generator.state = type(gen.bit_generator)(words).state
        elif isinstance(gen, np.random.RandomState):
            gen.seed(words)
        elif isinstance(gen, random.Random):
            gen.seed(int(words[0]) << 32 | int(words[1]))


def numba_dispatcher(fn: Any) -> bool:
    """Whether ``fn`` is a numba-compiled function (a ``Dispatcher``)."""
    return type(fn).__module__.startswith("numba") and hasattr(fn, "py_func")


_NUMBA_SEED: Any = None


def numba_seed(seed: int) -> None:
    """Seed numba's own generator (what ``np.random`` means inside compiled code)."""
    global _NUMBA_SEED
    if _NUMBA_SEED is None:
        import numba

        @numba.njit(cache=False)
        def _seed(s: int) -> None:  # pragma: no cover - compiled
            np.random.seed(s)

        _NUMBA_SEED = _seed
    _NUMBA_SEED(int(seed) & 0xFFFFFFFF)


# -- factory keywords ------------------------------------------------------------------------
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
        name = getattr(factory, '__qualname__', factory)
        raise usage_error(lambda say: (
            f"{say('factory')} {name!r} must accept its arguments by name among n_arms, "
            f"horizon, epsilon, delta (and rng or seed); it requires {', '.join(missing)}: "
            f"give {'it' if len(missing) == 1 else 'them'} with "
            f"{say('factory_kwargs', f'{missing[0]}=VALUE')} or wrap it in a function"))


def _settings_kwargs(factory: Callable, sig: inspect.Signature | None,
                     values: dict[str, Any], settings: dict[str, Any]
                     ) -> tuple[dict[str, Any], str | None]:
    """Settings as keywords, or as one dict for a ``params``-like parameter; the env name."""
    params = {} if sig is None else sig.parameters
    env = next((n for n in ENV_NAMES if n in params), None)
    holder = next((n for n in PARAMS_NAMES if n in params), None)
    if holder is not None:  # settings naming another parameter go to it, the rest to the dict
        own = {k: v for k, v in settings.items() if k in params and k != holder}
        rest = {k: v for k, v in settings.items() if k not in own}
        return {**own, holder: {**values, **rest}}, env
    open_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    unknown = [k for k in settings if sig is not None and k not in params and not open_kw]
    if unknown:
        raise InvalidParameterError(
            f"setting(s) {', '.join(unknown)} are not parameters of "
            f"{getattr(factory, '__qualname__', factory)} (it takes {', '.join(params)})")
    return dict(settings), env


def load_contexts(spec: str, horizon: int, *, seed: int = 0) -> np.ndarray:
    """A context stream ``(T, d)``: a ``.npy`` file, a text/CSV file (one row per step), or
    ``gaussian:D`` (standard normal vectors of dimension ``D`` divided by ``sqrt(D)``, drawn
    from a generator keyed by ``seed``: the same stream for the same seed)."""
    if spec.startswith("gaussian:"):
        try:
            d = int(spec.partition(":")[2])
        except ValueError:
            d = 0
        if d < 1:
            raise usage_error(lambda say: f"{say('contexts', spec)} must be gaussian:D with "
                                          "D >= 1")
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0xC0_47E7]))
        return rng.standard_normal((horizon, d)) / np.sqrt(d)
    try:
        arr = (np.load(spec) if spec.endswith(".npy")
               else np.loadtxt(spec, delimiter="," if spec.endswith(".csv") else None, ndmin=2))
    except (OSError, ValueError) as exc:
        why = str(exc)
        raise usage_error(lambda say: f"{say('contexts', spec)} cannot be read: {why}") \
            from None
    arr = np.asarray(arr, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or len(arr) < horizon or not np.isfinite(arr).all():
        raise usage_error(lambda say: (
            f"{say('contexts', spec)} must hold at least {say('horizon', horizon)} finite "
            f"rows (it has shape {arr.shape})"))
    return arr[:horizon]
