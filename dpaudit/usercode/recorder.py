"""Record and replay the noise draws of code dpaudit did not write (the gray-box instrument).

The gray-box stage (:mod:`dpaudit.usercode.graybox`) runs the user's code on the two inputs of
a neighbouring pair *with the same randomness* and compares what happened. This module is the
instrument: with no annotation in the user's code it intercepts every draw on the routes the
local-DP probe serves (:mod:`dpaudit.usercode.ldp_audit`) plus Python's ``random``:

* the global ``numpy.random`` functions (``laplace``, ``normal``, ``randn``, ``uniform``, ...),
  also where a user module imported them by name;
* ``numpy.random.default_rng`` and the classes ``numpy.random.Generator``, ``RandomState`` and
  ``random.Random`` built inside the run;
* every generator the object holds (attributes, nested objects, lists and dicts, to
  :data:`GENERATOR_DEPTH` levels) or its module holds at top level, and the ``rng`` it is
  passed;
* the functions of Python's ``random`` module (``gauss``, ``random``, ``expovariate``, ...).

**Same randomness, by call site.** Each draw is served from a stream keyed by its call site
(file and line) and the recorder's seed: the ``k``-th draw made at a line gets the ``k``-th
values of that line's stream, whatever happened elsewhere. Two runs on ``D`` and ``D'`` thus
share their randomness draw for draw where their paths agree, and a data-dependent number of
draws at one line does not shift the draws of another.

**Tracked noise.** Draws of a location-scale law whose coupling is a shift -- Laplace
(``laplace``) and Gaussian (``normal``, ``standard_normal``, ``randn``, ``random.gauss``,
``random.normalvariate``) -- return :class:`Noisy` values: a number that carries its affine
form ``base + sum_i c_i z_i`` in the standard draws ``z_i`` (one *column* per drawn value).
Affine arithmetic (``+``, ``-``, multiplication and division by a number) keeps the form; a
vector draw returns an object array of :class:`Noisy` values, so numpy's element-wise arithmetic
keeps it too. Everything else *consumes* the value (a comparison, ``float()``, ``math.sqrt``,
``bool``, formatting, a product of two noisy values, ``np.argmax`` over them): the recorder
logs an :class:`Event` with the call site and the forms consumed, and the code goes on with the
plain number. The consumed forms are the releases the code's output is built from; the replay
of :mod:`dpaudit.usercode.graybox` shifts the standard draws of ``D'`` (``z' = z + y``) until
every consumed value equals ``D``'s, which is the coupling a Laplace or Gaussian privacy proof
uses, and what is left over (a path that still diverges, a shift no noise covers) points at
the line that reads private data.

Draws of other laws (``uniform``, ``random``, ``integers``, ``exponential``, ...) are served
from the same per-site streams as plain values (common random numbers, not shifted) and
recorded with their arguments: a uniform threshold of randomized response cannot be aligned by
a shift, so a divergence after such a draw is only a pointer, never a finding about private
data.

**What it cannot read.** Draws inside compiled code (numba's ``np.random``, C extensions,
torch) never reach these routes; :mod:`dpaudit.usercode.graybox` detects them by running the
same recorded run twice (the outputs differ) and says so.

**Line trace.** :func:`tracing` records the lines executed in the user's files
(``sys.settrace``), so a path that diverges is reported at the last line both runs executed
in the same order.
"""

from __future__ import annotations

import math
import random
import sys
import sysconfig
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "GENERATOR_DEPTH",
    "Branch",
    "Equality",
    "Tainted",
    "PrimitiveCall",
    "active",
    "Columns",
    "Draw",
    "Event",
    "Form",
    "Noisy",
    "RecordOverflow",
    "Recorder",
    "Site",
    "generator_slots",
    "intercept",
    "is_user_file",
    "plain",
    "tracing",
    "user_site",
]

#: how deep :func:`generator_slots` looks into an object's attributes, lists and dicts
GENERATOR_DEPTH = 3
#: the most standard draws one run may track (a larger run stops being recorded)
MAX_TRACKED = 200_000
#: the most consumption events one run may log
MAX_EVENTS = 400_000
#: the most values one vector draw may track (a larger draw is served as plain numbers)
MAX_VECTOR = 65_536

#: sampling methods of ``numpy.random.Generator``
GENERATOR_DRAWS = (
    "beta", "binomial", "bytes", "chisquare", "choice", "dirichlet", "exponential", "f",
    "gamma", "geometric", "gumbel", "hypergeometric", "integers", "laplace", "logistic",
    "lognormal", "logseries", "multinomial", "multivariate_hypergeometric",
    "multivariate_normal", "negative_binomial", "noncentral_chisquare", "noncentral_f",
    "normal", "pareto", "permutation", "permuted", "poisson", "power", "random", "rayleigh",
    "shuffle", "standard_cauchy", "standard_exponential", "standard_gamma", "standard_normal",
    "standard_t", "triangular", "uniform", "vonmises", "wald", "weibull", "zipf")
#: sampling functions of the global ``numpy.random`` (and methods of ``RandomState``)
LEGACY_DRAWS = (
    "beta", "binomial", "bytes", "chisquare", "choice", "dirichlet", "exponential", "f",
    "gamma", "geometric", "gumbel", "hypergeometric", "laplace", "logistic", "lognormal",
    "logseries", "multinomial", "multivariate_normal", "negative_binomial",
    "noncentral_chisquare", "noncentral_f", "normal", "pareto", "permutation", "poisson",
    "power", "rand", "randint", "randn", "random", "random_integers", "random_sample", "ranf",
    "rayleigh", "sample", "shuffle", "standard_cauchy", "standard_exponential",
    "standard_gamma", "standard_normal", "standard_t", "triangular", "uniform", "vonmises",
    "wald", "weibull", "zipf")
#: sampling functions of Python's ``random`` module (and methods of ``random.Random``)
PYTHON_DRAWS = tuple(n for n in (
    "betavariate", "binomialvariate", "choice", "choices", "expovariate", "gammavariate",
    "gauss", "getrandbits", "lognormvariate", "normalvariate", "paretovariate", "randbytes",
    "randint", "random", "randrange", "sample", "shuffle", "triangular", "uniform",
    "vonmisesvariate", "weibullvariate") if hasattr(random, n))
#: methods whose draws are tracked, and their law
TRACKED_LAWS = {"laplace": "laplace", "normal": "normal", "standard_normal": "normal",
                "randn": "normal", "gauss": "normal", "normalvariate": "normal"}


#: the real generator classes (the interception replaces the names in ``numpy.random`` and
#: ``random`` during a run; the recorder's own streams must not be recorded)
_Generator = np.random.Generator
_RandomState = np.random.RandomState
_Random = random.Random
_PCG64 = np.random.PCG64
_MT19937 = np.random.MT19937


class RecordOverflow(RuntimeError):
    """A run draws or consumes more than the recorder keeps (the message says what)."""


# -- call sites --------------------------------------------------------------------------------
def _package_dirs() -> tuple[str, ...]:
    dirs = [Path(__file__).resolve().parents[1]]  # the dpaudit package
    for sub in ("algorithms", "audits", "mechanisms"):
        mod = sys.modules.get(f"dpaudit.{sub}")
        if mod is not None and getattr(mod, "__file__", None):
            dirs.append(Path(mod.__file__).resolve().parent)  # type: ignore[arg-type]
    dirs.append(Path(np.__file__).resolve().parent)
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.append(Path(path).resolve())
    return tuple(str(d) + "/" for d in dirs)


_NOT_USER: tuple[str, ...] | None = None
_USER_CACHE: dict[str, bool] = {}


def is_user_file(filename: str) -> bool:
    """Whether ``filename`` is the user's code: not dpaudit's, numpy's, the standard
    library's or an installed package's (an ``<frozen ...>``/``<string>`` name is not)."""
    hit = _USER_CACHE.get(filename)
    if hit is None:
        global _NOT_USER
        if _NOT_USER is None:
            _NOT_USER = _package_dirs()
        if filename.startswith("<"):
            hit = False
        else:
            try:
                path = str(Path(filename).resolve())
            except (OSError, RuntimeError):
                path = filename
            hit = not path.startswith(_NOT_USER)
        _USER_CACHE[filename] = hit
    return hit


@dataclass(frozen=True)
class Site:
    """Where a draw or a consumption happened in the user's code."""

    file: str
    line: int
    function: str
    #: the module's name (``__name__``): what keys the site's stream, so that the same code
    #: gets the same draws wherever its files lie
    module: str = field(default="", compare=False)

    def __str__(self) -> str:
        return f"{_short_path(self.file)}:{self.line} in {self.function}"

    def as_dict(self) -> dict[str, Any]:
        return {"file": _short_path(self.file), "line": self.line, "function": self.function}


def _short_path(path: str) -> str:
    try:
        rel = Path(path).resolve().relative_to(Path.cwd().resolve())
        return str(rel)
    except (ValueError, OSError):
        return path


_UNKNOWN = Site("<unknown>", 0, "?")
_RETURNED = Site("<returned value>", 0, "the code's output")


_USER_CODE: dict[Any, bool] = {}


def user_site() -> Site:
    """The innermost frame of the user's code on the stack (:func:`is_user_file`; the answer
    is kept per code object, since every consumption asks)."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        hit = _USER_CODE.get(code)
        if hit is None:
            hit = _USER_CODE[code] = is_user_file(code.co_filename)
        if hit:
            return Site(code.co_filename, frame.f_lineno, code.co_name,
                        str(frame.f_globals.get("__name__", "")))
        frame = frame.f_back  # type: ignore[assignment]
    return _UNKNOWN


# -- records -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Form:
    """A consumed value as an affine form ``base + sum c z`` (``coefs``: column, coefficient),
    and the value it had."""

    base: float
    coefs: tuple[tuple[int, float], ...]
    value: float
    #: still pure noise (a draw at location 0, only scaled since): no statistic in it yet
    pure: bool = False

    @property
    def support(self) -> tuple[int, ...]:
        return tuple(c for c, _ in self.coefs)


@dataclass(frozen=True)
class Event:
    """A consumption of noisy values: ``kind`` (``compare >``, ``float``, ``bool``, ...), its
    site, the step (the number of actions the run had taken, when known) and the forms."""

    site: Site
    kind: str
    step: int | None
    forms: tuple[Form, ...]
    #: the comparison's result (``None`` for other kinds)
    outcome: Any = None
    #: the position in the run's line trace when it happened (-1: not traced)
    at_line: int = -1
    #: what the replay matches events by (site, kind and noise columns), computed once
    match: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    def key(self) -> tuple[Any, ...]:
        return self.match or (self.site.file, self.site.line, self.kind,
                              tuple(f.support for f in self.forms))


@dataclass(frozen=True)
class Draw:
    """One call of a sampling method: where, through which route, its law (``laplace``,
    ``normal``, or ``None`` when not tracked), its location and scale (tracked laws), the
    shape of the values, the other arguments (``repr``), its index among the calls at that
    site, and the columns of its standard draws (tracked laws)."""

    site: Site
    route: str
    method: str
    law: str | None
    loc: np.ndarray | None
    scale: np.ndarray | None
    shape: tuple[int, ...]
    args: str
    index: int
    columns: tuple[int, ...] = ()
    #: how many consumption events the run had logged when it drew this
    at_event: int = 0
    #: the position in the run's line trace when it drew this (-1: not traced)
    at_line: int = -1

    def key(self) -> tuple[Any, ...]:
        return (self.site.file, self.site.line, self.index)


class Columns:
    """Column numbers of standard draws, shared by the runs that are compared: the ``i``-th
    value of the ``k``-th draw at a site is one column in every run."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, int, int, int], int] = {}
        self.law: list[str] = []
        self.site: list[Site] = []

    def __len__(self) -> int:
        return len(self._ids)

    def take(self, site: Site, index: int, n: int, law: str) -> list[int]:
        out = []
        for i in range(n):
            key = (site.file, site.line, index, i)
            col = self._ids.get(key)
            if col is None:
                col = len(self._ids)
                self._ids[key] = col
                self.law.append(law)
                self.site.append(site)
            out.append(col)
        return out


@dataclass(frozen=True)
class Branch:
    """A comparison (or truth test) of a value read from the private data with no noise added
    since (:class:`Tainted`): its site and index there, kind, result, the line where the
    value was last computed, and the position in the line trace."""

    site: Site
    index: int
    kind: str
    outcome: Any
    origin: Site
    step: int | None
    at_line: int = -1
    #: the other side is a draw the recorder served but does not shift (a uniform of
    #: randomized response): a randomised comparison, not a plain read of the data
    randomised: bool = False

    def key(self) -> tuple[str, int, int]:
        return (self.site.file, self.site.line, self.index)


@dataclass(frozen=True)
class PrimitiveCall:
    """A call of a declared noise primitive (:func:`dpaudit.usercode.annotate.noise_primitive`):
    its site and index there, name, input (a float vector), declared sensitivity and norm,
    declared law and scale when given, and what it returned."""

    site: Site
    index: int
    name: str
    value: np.ndarray
    sensitivity: float
    norm: str
    law: str | None
    scale: float | None
    output: Any = field(compare=False, repr=False)

    def key(self) -> tuple[str, int, int]:
        return (self.site.file, self.site.line, self.index)


@dataclass(frozen=True)
class Equality:
    """A value the code asserts is equal on neighbouring inputs
    (:func:`dpaudit.usercode.annotate.equal_on_neighbours`)."""

    site: Site
    index: int
    name: str
    value: np.ndarray

    def key(self) -> tuple[str, int, int]:
        return (self.site.file, self.site.line, self.index)


def _as_vector(value: Any) -> np.ndarray:
    try:
        return np.asarray(plain(value, "declared"), dtype=float).ravel()
    except (TypeError, ValueError):
        return np.array([float(hash(repr(value)) % 2**31)])


# -- tracked values ------------------------------------------------------------------------------
def _real(x: Any) -> bool:
    return isinstance(x, int | float | np.integer | np.floating | np.bool_)


def _merge(a: dict[int, float], b: dict[int, float], sign: float) -> dict[int, float]:
    out = dict(a)
    for c, v in b.items():
        out[c] = out.get(c, 0.0) + sign * v
    return out


def _scaled(a: dict[int, float], k: float) -> dict[int, float]:
    return {c: v * k for c, v in a.items()}


def _clean(coefs: dict[int, float], scale: float) -> dict[int, float]:
    """Coefficients that are zero up to rounding (noise that cancelled) removed."""
    tol = 1e-12 * max(scale, 1e-300)
    return {c: v for c, v in coefs.items() if abs(v) > tol}


class Noisy:
    """A number built affinely from tracked standard draws (module docstring).

    ``value`` is the number the code sees, ``base`` its value at ``z = 0`` and ``coefs`` its
    coefficient on each column. Affine arithmetic returns :class:`Noisy`; anything else logs a
    consumption :class:`Event` on the recorder and returns plain numbers.
    """

    __slots__ = ("value", "base", "coefs", "rec", "pure")
    __array_priority__ = 1000

    def __init__(self, value: float, base: float, coefs: dict[int, float], rec: Recorder,
                 pure: bool = False) -> None:
        self.value, self.base, self.coefs, self.rec = value, base, coefs, rec
        #: drawn at location exactly 0 and only scaled since: the noise alone, no statistic
        self.pure = pure

    # -- affine arithmetic
    def _make(self, value: float, base: float, coefs: dict[int, float],
              other: dict[int, float]) -> Noisy:
        """A sum's result: coefficients that cancelled (zero up to rounding, against the
        largest coefficient of the two operands) are dropped."""
        scale = max(max((abs(v) for v in self.coefs.values()), default=0.0),
                    max((abs(v) for v in other.values()), default=0.0))
        return Noisy(value, base, _clean(coefs, scale), self.rec)

    def _other(self, o: Any) -> tuple[float, float, dict[int, float]] | None:
        if isinstance(o, Noisy):
            return o.value, o.base, o.coefs
        if _real(o):
            v = float(o)
            return v, v, {}
        return None

    def _elementwise(self, o: np.ndarray, op: Callable[[Any, Any], Any]) -> np.ndarray:
        return _over(o, lambda x: op(self, x))

    def __add__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return self._elementwise(o, lambda a, b: a + b)
        r = self._other(o)
        if r is None:
            return NotImplemented
        return self._make(self.value + r[0], self.base + r[1], _merge(self.coefs, r[2], 1.0), r[2])

    def __radd__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return self._elementwise(o, lambda a, b: b + a)
        r = self._other(o)
        if r is None:
            return NotImplemented
        return self._make(r[0] + self.value, r[1] + self.base, _merge(r[2], self.coefs, 1.0), r[2])

    def __sub__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return self._elementwise(o, lambda a, b: a - b)
        r = self._other(o)
        if r is None:
            return NotImplemented
        return self._make(self.value - r[0], self.base - r[1], _merge(self.coefs, r[2], -1.0), r[2])

    def __rsub__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return self._elementwise(o, lambda a, b: b - a)
        r = self._other(o)
        if r is None:
            return NotImplemented
        return self._make(r[0] - self.value, r[1] - self.base, _merge(r[2], self.coefs, -1.0), r[2])

    def __mul__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return self._elementwise(o, lambda a, b: a * b)
        if isinstance(o, Noisy):
            self.rec.consume("product", (self, o))
            return self.value * o.value
        if not _real(o):
            return NotImplemented
        k = float(o)
        return Noisy(self.value * k, self.base * k, _scaled(self.coefs, k), self.rec, self.pure)

    def __rmul__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return self._elementwise(o, lambda a, b: b * a)
        if not _real(o):
            return NotImplemented
        k = float(o)
        return Noisy(k * self.value, k * self.base, _scaled(self.coefs, k), self.rec, self.pure)

    def __truediv__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return self._elementwise(o, lambda a, b: a / b)
        if isinstance(o, Noisy):
            self.rec.consume("quotient", (self, o))
            return self.value / o.value
        if not _real(o):
            return NotImplemented
        k = float(o)
        if k == 0.0:
            self.rec.consume("division by zero", (self,))
            return self.value / k  # raises as a float division would
        return Noisy(self.value / k, self.base / k, _scaled(self.coefs, 1.0 / k), self.rec,
                     self.pure)

    def __rtruediv__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return self._elementwise(o, lambda a, b: b / a)
        if not _real(o):
            return NotImplemented
        self.rec.consume("quotient", (self,))
        return float(o) / self.value

    def __neg__(self) -> Noisy:
        return Noisy(-self.value, -self.base, _scaled(self.coefs, -1.0), self.rec, self.pure)

    def __pos__(self) -> Noisy:
        return self

    # -- consumption
    def _use(self, kind: str) -> float:
        self.rec.consume(kind, (self,))
        if kind in ESCAPES and self.pure and self.value != 0.0:
            self.rec.escaped[self.value] = self
        return self.value

    def _compare(self, o: Any, op: str, fn: Callable[[float, float], bool]) -> Any:
        if isinstance(o, np.ndarray):
            return self._elementwise(o, lambda a, b: a._compare(b, op, fn))
        if isinstance(o, Noisy):
            result = fn(self.value, o.value)
            self.rec.consume(f"compare {op}", (self, o), result)
            return result
        if not _real(o):
            return NotImplemented
        result = fn(self.value, float(o))
        self.rec.consume(f"compare {op}", (self,), result)
        return result

    def __lt__(self, o: Any) -> Any:
        return self._compare(o, "<", lambda a, b: a < b)

    def __le__(self, o: Any) -> Any:
        return self._compare(o, "<=", lambda a, b: a <= b)

    def __gt__(self, o: Any) -> Any:
        return self._compare(o, ">", lambda a, b: a > b)

    def __ge__(self, o: Any) -> Any:
        return self._compare(o, ">=", lambda a, b: a >= b)

    def __eq__(self, o: Any) -> Any:
        return self._compare(o, "==", lambda a, b: a == b)

    def __ne__(self, o: Any) -> Any:
        return self._compare(o, "!=", lambda a, b: a != b)

    def __hash__(self) -> int:
        return hash(self._use("hash"))

    def __float__(self) -> float:
        return self._use("float")

    def __int__(self) -> int:
        return int(self._use("int"))

    def __bool__(self) -> bool:
        return bool(self._use("bool"))

    def __abs__(self) -> float:
        return abs(self._use("abs"))

    def __round__(self, ndigits: int | None = None) -> Any:
        return round(self._use("round"), ndigits)

    def __trunc__(self) -> int:
        return math.trunc(self._use("trunc"))

    def __floor__(self) -> int:
        return math.floor(self._use("floor"))

    def __ceil__(self) -> int:
        return math.ceil(self._use("ceil"))

    def __pow__(self, o: Any) -> Any:
        return self._use("power") ** (o.__float__() if isinstance(o, Noisy) else o)

    def __rpow__(self, o: Any) -> Any:
        return o ** self._use("power")

    def __floordiv__(self, o: Any) -> Any:
        return self._use("floor division") // (float(o) if isinstance(o, Noisy) else o)

    def __rfloordiv__(self, o: Any) -> Any:
        return o // self._use("floor division")

    def __mod__(self, o: Any) -> Any:
        return self._use("modulo") % (float(o) if isinstance(o, Noisy) else o)

    def __rmod__(self, o: Any) -> Any:
        return o % self._use("modulo")

    def __format__(self, spec: str) -> str:
        return format(self._use("format"), spec)

    def __repr__(self) -> str:
        return repr(self._use("repr"))

    def __str__(self) -> str:
        return str(self._use("str"))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy's functions on a noisy number: the affine ones (``add``, ``subtract``,
        ``multiply`` and ``true_divide`` by numbers, ``negative``) keep the form (element-wise
        over an array operand); any other consumes the noisy operands."""
        if method == "__call__" and not kwargs and ufunc.__name__ in _AFFINE_UFUNCS:
            op = _AFFINE_UFUNCS[ufunc.__name__]
            if len(inputs) == 1:
                return op(inputs[0])
            a, b = inputs
            if isinstance(a, np.ndarray) and a.dtype != object:
                return _over(a, lambda x: op(x, b))
            if isinstance(b, np.ndarray) and b.dtype != object:
                return _over(b, lambda x: op(a, x))
            return op(a, b)
        args = [plain(x, ufunc.__name__) for x in inputs]
        return getattr(ufunc, method)(*args, **{k: plain(v, ufunc.__name__)
                                                for k, v in kwargs.items()})

    def item(self) -> float:
        return self._use("item")

    # numpy's element-wise functions on object arrays call these methods
    def sqrt(self) -> float:
        return math.sqrt(self._use("sqrt"))

    def exp(self) -> float:
        return math.exp(self._use("exp"))

    def log(self) -> float:
        return math.log(self._use("log"))

    def log1p(self) -> float:
        return math.log1p(self._use("log1p"))

    def expm1(self) -> float:
        return math.expm1(self._use("expm1"))

    def tanh(self) -> float:
        return math.tanh(self._use("tanh"))

    def arctan(self) -> float:
        return math.atan(self._use("arctan"))

    def rint(self) -> float:
        return float(np.rint(self._use("rint")))

    def conjugate(self) -> Noisy:
        return self


_FLOAT_CMP = {"<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__", "==": "__eq__",
              "!=": "__ne__"}

#: conversions after which a noisy value goes on as a plain float (stored in a float array,
#: passed through ``float()``): the recorder remembers the number, so that a marked reward
#: later added to it is seen as noised (:class:`Tainted`)
ESCAPES = frozenset({"float", "array", "item"})


class Tainted(float):
    """A number read from the private data (a reward the driver passes), and what plain
    arithmetic builds from it: comparisons and truth tests of it are logged as
    :class:`Branch` records (a branch on private data); adding noise (a :class:`Noisy`
    operand) ends the taint, as does any conversion (``float()``, ``math``, numpy), which only
    means fewer branches seen, never a wrong one. ``origin`` is the line that last computed
    it (for a reward: the step it was read at)."""

    __slots__ = ("rec", "origin")
    rec: Recorder
    origin: Site

    def __new__(cls, value: float, rec: Recorder, origin: Site) -> Tainted:
        obj = float.__new__(cls, value)
        obj.rec = rec
        obj.origin = origin
        return obj

    def _wrap(self, result: Any) -> Any:
        if result is NotImplemented or not isinstance(result, float):
            return result
        return Tainted(result, self.rec, user_site())

    def _branch(self, kind: str, result: Any) -> Any:
        if isinstance(result, bool):
            self.rec.branch(kind, result, self.origin)
        return result

    def _noise(self, o: Any) -> Noisy | None:
        """``o`` as the noisy value it was before the code turned it into a plain float
        (:data:`ESCAPES`), else ``None``."""
        if isinstance(o, Noisy):
            return o
        if type(o) in (float, np.float64) and o != 0.0:
            return self.rec.escaped.get(float(o))
        return None

    def __add__(self, o: Any) -> Any:
        n = self._noise(o)
        return self._wrap(float.__add__(self, o)) if n is None else n.__radd__(self)

    def __radd__(self, o: Any) -> Any:
        n = self._noise(o)
        return self._wrap(float.__radd__(self, o)) if n is None else n.__add__(self)

    def __sub__(self, o: Any) -> Any:
        n = self._noise(o)
        return self._wrap(float.__sub__(self, o)) if n is None else n.__rsub__(self)

    def __rsub__(self, o: Any) -> Any:
        n = self._noise(o)
        return self._wrap(float.__rsub__(self, o)) if n is None else n.__sub__(self)

    def __mul__(self, o: Any) -> Any:
        n = self._noise(o)
        return self._wrap(float.__mul__(self, o)) if n is None else n.__rmul__(self)

    def __rmul__(self, o: Any) -> Any:
        n = self._noise(o)
        return self._wrap(float.__rmul__(self, o)) if n is None else n.__mul__(self)

    def __truediv__(self, o: Any) -> Any:
        n = self._noise(o)
        return self._wrap(float.__truediv__(self, o)) if n is None else n.__rtruediv__(self)

    def __rtruediv__(self, o: Any) -> Any:
        n = self._noise(o)
        return self._wrap(float.__rtruediv__(self, o)) if n is None else n.__truediv__(self)

    def __neg__(self) -> Any:
        return self._wrap(float.__neg__(self))

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return self._wrap(float.__abs__(self))

    def _cmp(self, o: Any, op: str, mirrored: str) -> Any:
        n = self._noise(o)
        if n is not None:  # a comparison with noise: the noisy value's own (mirrored) test
            return getattr(n, mirrored)(self)
        result = getattr(float, _FLOAT_CMP[op])(self, o)
        if isinstance(result, bool):
            self.rec.branch(op, result, self.origin,
                            randomised=_real(o) and float(o) in self.rec.untracked_values)
        return result

    def __lt__(self, o: Any) -> Any:
        return self._cmp(o, "<", "__gt__")

    def __le__(self, o: Any) -> Any:
        return self._cmp(o, "<=", "__ge__")

    def __gt__(self, o: Any) -> Any:
        return self._cmp(o, ">", "__lt__")

    def __ge__(self, o: Any) -> Any:
        return self._cmp(o, ">=", "__le__")

    def __eq__(self, o: Any) -> Any:
        return self._cmp(o, "==", "__eq__")

    def __ne__(self, o: Any) -> Any:
        return self._cmp(o, "!=", "__ne__")

    def __bool__(self) -> bool:
        return bool(self._branch("truth", float(self) != 0.0))

    __hash__ = float.__hash__

    def __reduce__(self) -> Any:
        return (float, (float(self),))


def _binary(name: str) -> Callable[[Any, Any], Any]:
    """The affine ufunc ``name`` on a :class:`Noisy` and a number, by the noisy operand's own
    method (calling ``a + b`` here would send a numpy scalar operand back to numpy, and
    numpy back here)."""
    def op(a: Any, b: Any) -> Any:
        if isinstance(a, Noisy):
            return getattr(a, f"__{name}__")(b.item() if isinstance(b, np.generic) else b)
        return getattr(b, f"__r{name}__")(a.item() if isinstance(a, np.generic) else a)
    return op


_AFFINE_UFUNCS: dict[str, Callable[..., Any]] = {
    "add": _binary("add"), "subtract": _binary("sub"), "multiply": _binary("mul"),
    "divide": _binary("truediv"), "true_divide": _binary("truediv"),
    "negative": lambda a: a.__neg__(), "positive": lambda a: a}


def _over(arr: np.ndarray, fn: Callable[[Any], Any]) -> np.ndarray:
    out = np.empty(arr.shape, dtype=object)
    for idx, x in np.ndenumerate(arr):
        out[idx] = fn(x.item() if isinstance(x, np.generic) else x)
    return out


def plain(x: Any, kind: str = "output") -> Any:
    """``x`` with :class:`Noisy` values (also inside object arrays, lists and tuples) as plain
    floats, each logged as consumed (``kind``)."""
    if isinstance(x, Noisy):
        return x._use(kind)
    if isinstance(x, np.ndarray) and x.dtype == object:
        if not any(isinstance(v, Noisy) for v in x.ravel()):
            return x
        flat = [plain(v, kind) for v in x.ravel()]
        try:
            return np.array(flat, dtype=float).reshape(x.shape)
        except (TypeError, ValueError):
            return np.array(flat, dtype=object).reshape(x.shape)
    if isinstance(x, list | tuple):
        return type(x)(plain(v, kind) for v in x)
    return x


# -- the recorder ----------------------------------------------------------------------------
def _shape_any(x: Any) -> tuple[int, ...]:
    """The shape of a parameter without reading its values (a :class:`Noisy` is a scalar)."""
    if isinstance(x, Noisy):
        return ()
    return tuple(np.shape(np.asarray(x, dtype=object) if _has_noisy(x) else x))


def _shape_of(size: Any, *params: Any) -> tuple[int, ...]:
    if size is None:
        return tuple(np.broadcast_shapes(*[_shape_any(p) for p in params])) if params else ()
    if isinstance(size, int | np.integer):
        return (int(size),)
    return tuple(int(s) for s in size)


def _site_seed(seed: int, site: Site) -> list[int]:
    """The words seeding a site's stream: the recorder's seed and the site's module and line
    (not its path: a copy of the code elsewhere gets the same draws)."""
    where = site.module or Path(site.file).name
    return [seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF,
            zlib.crc32(f"{where}:{site.line}".encode())]


_ARG_NAMES = {"laplace": ("loc", "scale", "size"), "normal": ("loc", "scale", "size"),
              "standard_normal": ("size", "dtype", "out"), "gauss": ("mu", "sigma"),
              "normalvariate": ("mu", "sigma")}
_DEFAULTS = {"loc": 0.0, "scale": 1.0, "mu": 0.0, "sigma": 1.0, "size": None}


class Recorder:
    """Serves and records the draws of one run (module docstring).

    ``seed`` keys the per-site streams; ``columns`` (shared by the runs compared) numbers the
    standard draws; ``shift`` adds ``y[col]`` to the standard draw of each column (the replay's
    coupling ``z' = z + y``). ``draws`` and ``events`` are what the run did; ``step`` is set by
    the driver (the number of actions taken so far).
    """

    def __init__(self, seed: int, columns: Columns | None = None,
                 shift: dict[int, float] | None = None, *, track: bool = True,
                 passthrough: bool = False) -> None:
        self.seed = int(seed)
        #: route nothing: :func:`intercept` leaves numpy's and Python's names as they are
        #: (the warm-up run before any recorded one)
        self.passthrough = passthrough
        self.columns = Columns() if columns is None else columns
        self.shift = dict(shift or {})
        self.track = track
        self.draws: list[Draw] = []
        self.events: list[Event] = []
        self.branches: list[Branch] = []
        self.step: int | None = None
        #: the run's line trace (set by the driver when it traces)
        self.trace: LineTrace | None = None
        self.tracked = 0
        self.untracked: list[Draw] = []
        self._calls: dict[tuple[str, int], int] = {}
        self._streams: dict[tuple[str, int, str], Any] = {}
        #: declared primitives and equalities (:mod:`dpaudit.usercode.annotate`)
        self.primitives: list[PrimitiveCall] = []
        self.equalities: list[Equality] = []
        #: outputs of ``D``'s primitive calls, served on ``D'`` (frozen), by call key
        self.frozen: dict[tuple[str, int, int], Any] | None = None
        #: noisy values the code turned into plain floats, by their number (:data:`ESCAPES`)
        self.escaped: dict[float, Noisy] = {}
        #: numbers served by draws the recorder does not shift (uniforms, integers, ...)
        self.untracked_values: set[float] = set()

    # the per-site streams ---------------------------------------------------------------
    def _stream(self, site: Site, kind: str) -> Any:
        key = (site.file, site.line, kind)
        gen = self._streams.get(key)
        if gen is None:
            words = _site_seed(self.seed, site)
            if kind == "numpy":
                gen = _Generator(_PCG64(words))
            elif kind == "legacy":
                gen = _RandomState(_MT19937(np.random.SeedSequence(words)))
            else:
                gen = _Random(int(np.random.SeedSequence(words).generate_state(2,
                                  np.uint64)[0]))
            self._streams[key] = gen
        return gen

    # draws -------------------------------------------------------------------------------
    def draw(self, route: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
             ) -> Any:
        """Serve and record one call ``method(*args, **kwargs)`` made through ``route``
        (``numpy.random``, ``Generator``, ``RandomState`` or ``random``)."""
        site = user_site()
        index = self._calls.get((site.file, site.line), 0)
        self._calls[(site.file, site.line)] = index + 1
        law = TRACKED_LAWS.get(method) if self.track else None
        parsed = self._parse(method, args, kwargs) if law is not None else None
        if parsed is None:
            kind = "python" if route == "random" else (
                "legacy" if route in ("numpy.random", "RandomState") else "numpy")
            value = getattr(self._stream(site, kind), method)(
                *[plain(a, "argument") for a in args],
                **{k: plain(v, "argument") for k, v in kwargs.items()})
            rec = Draw(site, route, method, None, None, None,
                       tuple(np.shape(value)) if isinstance(value, np.ndarray) else (),
                       _args_text(args, kwargs), index, at_event=len(self.events),
                       at_line=self.position())
            self.draws.append(rec)
            self.untracked.append(rec)
            flat = np.ravel(value) if isinstance(value, np.ndarray) and value.size <= 64 else (
                [value] if _real(value) else [])
            self.untracked_values.update(float(v) for v in flat if _real(v))
            return value
        loc, scale, shape = parsed
        assert law is not None
        n = int(np.prod(shape)) if shape else 1
        kind = "python" if route == "random" else "numpy"
        gen = self._stream(site, kind)
        if kind == "python":
            z = np.array([gen.gauss(0.0, 1.0) for _ in range(n)])
        elif law == "laplace":
            z = gen.laplace(0.0, 1.0, n)
        else:
            z = gen.standard_normal(n)
        loc_a = np.broadcast_to(np.asarray(_base_values(loc), dtype=float), shape)
        scale_a = np.broadcast_to(np.asarray(plain(scale), dtype=float), shape)
        if n > MAX_VECTOR:  # too large to track: plain values of the same law
            value = np.asarray(plain(loc, "argument"), dtype=float) + scale_a * z.reshape(shape)
            rec = Draw(site, route, method, None, loc_a.copy(), scale_a.copy(), shape,
                       _args_text(args, kwargs), index, at_event=len(self.events),
                       at_line=self.position())
            self.draws.append(rec)
            self.untracked.append(rec)
            return value
        cols = self.columns.take(site, index, n, law)
        self.tracked += n
        if self.tracked > MAX_TRACKED:
            raise RecordOverflow(f"the run makes more than {MAX_TRACKED} Laplace/Gaussian "
                                 "draws")
        self.draws.append(Draw(site, route, method, law, loc_a.copy(), scale_a.copy(), shape,
                               _args_text(args, kwargs), index, tuple(cols),
                               at_event=len(self.events), at_line=self.position()))
        zs = z + np.array([self.shift.get(c, 0.0) for c in cols])
        locs = _flat_objects(loc, shape)
        out = np.empty(n, dtype=object)
        for i in range(n):
            b = float(scale_a.flat[i])
            noise = Noisy(b * float(zs[i]), 0.0, {cols[i]: b} if b != 0.0 else {}, self)
            loc_i = locs[i]
            out[i] = loc_i + noise if isinstance(loc_i, Noisy) else Noisy(
                float(loc_i) + noise.value, float(loc_i), noise.coefs, self,
                pure=float(loc_i) == 0.0 and not isinstance(loc_i, Tainted))
        if shape == () and size_none(method, args, kwargs):
            return out[0]
        return out.reshape(shape)

    def _parse(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[Any, Any, tuple[int, ...]] | None:
        """``(loc, scale, shape)`` of a tracked call, or ``None`` when its arguments are not
        read (a ``dtype`` or ``out``, a noisy scale)."""
        if method == "randn":
            if kwargs:
                return None
            return 0.0, 1.0, tuple(int(a) for a in args)
        names = _ARG_NAMES[method]
        if len(args) > len(names) or set(kwargs) - set(names):
            return None
        bound = dict(zip(names, args, strict=False))
        bound.update(kwargs)
        if bound.get("dtype") not in (None, float, np.float64, "float64", "d") or \
                bound.get("out") is not None:
            return None
        loc = bound.get("loc", bound.get("mu", 0.0))
        scale = bound.get("scale", bound.get("sigma", 1.0))
        if _has_noisy(scale):
            if isinstance(scale, Noisy):
                scale._use("scale")
            return None
        try:
            scale_v = np.asarray(scale, dtype=float)
            if np.any(~np.isfinite(scale_v)) or np.any(scale_v < 0):
                return None  # let the real method raise its own error
            shape = _shape_of(bound.get("size"), loc, scale)
        except (TypeError, ValueError):
            return None
        return loc, scale, shape

    # declared primitives and equalities ---------------------------------------------------
    def primitive(self, name: str, value: Any, sensitivity: float, norm: str,
                  law: str | None, scale: float | None, call: Callable[[], Any]) -> Any:
        """A call of a declared noise primitive on ``value``: run (``D``) or served from the
        frozen outputs of ``D`` (``D'``), recorded either way."""
        site = user_site()
        index = self._calls.get((site.file, site.line), 0)
        self._calls[(site.file, site.line)] = index + 1
        key = (site.file, site.line, index)
        if self.frozen is not None and key in self.frozen:
            out = self.frozen[key]
        else:
            if self.trace is not None:
                self.trace.paused += 1
            try:
                out = call()
            finally:
                if self.trace is not None:
                    self.trace.paused -= 1
        self.primitives.append(PrimitiveCall(site, index, name, _as_vector(value),
                                             float(sensitivity), norm, law, scale, out))
        return out

    def equality(self, name: str, value: Any) -> None:
        site = user_site()
        index = self._calls.get((site.file, site.line), 0)
        self._calls[(site.file, site.line)] = index + 1
        self.equalities.append(Equality(site, index, name, _as_vector(value)))

    # consumption ---------------------------------------------------------------------------
    def position(self) -> int:
        """The current position in the run's line trace (-1: not traced)."""
        return -1 if self.trace is None else len(self.trace.lines)

    def consume(self, kind: str, values: Sequence[Noisy], outcome: Any = None) -> None:
        if len(self.events) >= MAX_EVENTS:
            raise RecordOverflow(f"the run consumes noisy values more than {MAX_EVENTS} "
                                 "times")
        forms = []
        supports = []
        for v in values:  # plain loops: this runs for every use of a noisy value
            items = tuple(v.coefs.items())
            if len(items) > 1:
                items = tuple(sorted(items))
            forms.append(Form(v.base, items, v.value, v.pure))
            supports.append(tuple([c for c, _ in items]))
        site = user_site()
        if site is _UNKNOWN:  # read by dpaudit itself: the value the code returned
            site = _RETURNED
        self.events.append(Event(site, kind, self.step, tuple(forms), outcome,
                                 self.position(),
                                 (site.file, site.line, kind, tuple(supports))))

    def branch(self, kind: str, outcome: Any, origin: Site, *, randomised: bool = False
               ) -> None:
        if len(self.branches) >= MAX_EVENTS:
            return  # the first ones are what the replay needs
        site = user_site()
        index = self._calls.get((site.file, -site.line), 0)
        self._calls[(site.file, -site.line)] = index + 1
        self.branches.append(Branch(site, index, kind, outcome, origin, self.step,
                                    self.position(), randomised))

    def taint(self, value: float, origin: Site) -> Tainted:
        """``value`` read from the private data (a reward), as a :class:`Tainted` number."""
        return Tainted(float(value), self, origin)

    # generators handed to the code ------------------------------------------------------------
    def generator(self, route: str = "Generator") -> Any:
        """A generator whose draws this recorder serves: a ``numpy.random.Generator`` (route
        ``Generator``), a ``RandomState`` or a ``random.Random``."""
        if route == "RandomState":
            return _RecordingRandomState(self)
        if route == "random":
            return _RecordingRandom(self)
        return _RecordingGenerator(self)


def size_none(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a tracked call asked for a scalar (no ``size``, scalar parameters)."""
    if method in ("gauss", "normalvariate"):
        return True
    if method == "randn":
        return not args
    names = _ARG_NAMES[method]
    bound = dict(zip(names, args, strict=False))
    bound.update(kwargs)
    if bound.get("size") is not None:
        return False
    params = [bound.get(n) for n in ("loc", "scale") if n in bound]
    return all(len(_shape_any(p)) == 0 for p in params)


def _has_noisy(x: Any) -> bool:
    if isinstance(x, Noisy):
        return True
    if isinstance(x, np.ndarray) and x.dtype == object:
        return any(isinstance(v, Noisy) for v in x.ravel())
    if isinstance(x, list | tuple):
        return any(_has_noisy(v) for v in x)
    return False


def _base_values(x: Any) -> Any:
    if isinstance(x, Noisy):
        return x.base
    if isinstance(x, np.ndarray) and x.dtype == object:
        return np.array([_base_values(v) for v in x.ravel()], dtype=float).reshape(x.shape)
    if isinstance(x, list | tuple):
        return [_base_values(v) for v in x]
    return x


def _flat_objects(x: Any, shape: tuple[int, ...]) -> list[Any]:
    if isinstance(x, Noisy):
        return [x] * (int(np.prod(shape)) if shape else 1)
    arr = np.asarray(x, dtype=object) if _has_noisy(x) else np.asarray(x, dtype=float)
    return list(np.broadcast_to(arr, shape).ravel()) if shape else [arr.reshape(()).item()]


def _args_text(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    def short(v: Any) -> str:
        if isinstance(v, Noisy):
            return "<noisy>"
        if isinstance(v, np.ndarray):
            return f"array{v.shape}"
        text = repr(v)
        return text if len(text) < 40 else text[:37] + "..."
    parts = [short(a) for a in args] + [f"{k}={short(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _route_method(route: str, name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self._recorder.draw(route, name, args, kwargs)
    method.__name__ = name
    return method


class _RecordingGenerator(_Generator):
    """A ``numpy.random.Generator`` whose draws a :class:`Recorder` serves."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(_PCG64(0))
        self._recorder = recorder


for _name in GENERATOR_DRAWS:
    setattr(_RecordingGenerator, _name, _route_method("Generator", _name))


class _RecordingRandomState(_RandomState):
    """A ``numpy.random.RandomState`` whose draws a :class:`Recorder` serves."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(0)
        self._recorder = recorder


for _name in LEGACY_DRAWS:
    setattr(_RecordingRandomState, _name, _route_method("RandomState", _name))


class _RecordingRandom(_Random):
    """A ``random.Random`` whose draws a :class:`Recorder` serves."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(0)
        self._recorder = recorder


for _name in PYTHON_DRAWS:
    setattr(_RecordingRandom, _name, _route_method("random", _name))

_RECORDING_TYPES = (_RecordingGenerator, _RecordingRandomState, _RecordingRandom)
_ROUTE_OF: dict[type, str] = {_Generator: "Generator", _RandomState: "RandomState",
                              _Random: "random"}


# -- where the generators are ---------------------------------------------------------------
def generator_slots(obj: Any, depth: int = GENERATOR_DEPTH,
                    types: tuple[type, ...] = (np.random.Generator,)
                    ) -> list[tuple[Any, Any]]:
    """``(holder, key)`` of every generator of ``types`` that ``obj`` holds: in its
    attributes, and in theirs, or in the items of a list or dict, to ``depth`` levels."""
    out: list[tuple[Any, Any]] = []
    seen: set[int] = set()

    def walk(holder: Any, level: int) -> None:
        if level > depth or id(holder) in seen:
            return
        seen.add(id(holder))
        if isinstance(holder, dict):
            items: Any = list(holder.items())
        elif isinstance(holder, list):
            items = list(enumerate(holder))
        else:
            items = list(getattr(holder, "__dict__", {}).items()) \
                if not isinstance(holder, type) else []
        for key, value in items:
            if isinstance(value, types):
                out.append((holder, key))
            elif isinstance(value, dict | list) or (
                    hasattr(value, "__dict__") and not isinstance(value, type)
                    and not callable(value) and type(value).__module__ != "numpy"):
                walk(value, level + 1)
    walk(obj, 1)
    return out


def swap(holder: Any, key: Any, value: Any) -> None:
    """Put ``value`` at ``holder[key]`` (a dict or list) or ``holder.key``."""
    if isinstance(holder, dict | list):
        holder[key] = value
    else:
        setattr(holder, key, value)


def swap_generators(obj: Any, recorder: Recorder) -> list[tuple[Any, Any, Any]]:
    """Replace every generator ``obj`` holds by one the recorder serves (same kind); returns
    ``(holder, key, original)`` of each, to put them back."""
    slots = generator_slots(obj, types=(_Generator, _RandomState, _Random))
    done = []
    for holder, key in slots:
        value = holder[key] if isinstance(holder, dict | list) else getattr(holder, key)
        if isinstance(value, _RECORDING_TYPES):
            continue
        route = next(r for t, r in _ROUTE_OF.items() if isinstance(value, t))
        swap(holder, key, recorder.generator(route))
        done.append((holder, key, value))
    return done


# -- the interception -----------------------------------------------------------------------
_ACTIVE: list[Recorder] = []


def _global_function(route: str, name: str) -> Callable[..., Any]:
    def fn(*args: Any, **kwargs: Any) -> Any:
        return _ACTIVE[-1].draw(route, name, args, kwargs)
    fn.__name__ = name
    fn.__qualname__ = name
    return fn


def _bound_class(base: type, route: str) -> type:
    """A subclass of ``base`` whose instances, built by the user's code during a recorded run,
    draw through the active recorder (their own seed is ignored: the recorder keys its
    streams by call site)."""
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if base is _Random:
            _Random.__init__(self)
        elif base is _Generator:
            _Generator.__init__(self, _PCG64(0))
        else:
            _RandomState.__init__(self, 0)
        self._recorder = _ACTIVE[-1]
    names = {"Generator": GENERATOR_DRAWS, "RandomState": LEGACY_DRAWS,
             "random": PYTHON_DRAWS}[route]
    body: dict[str, Any] = {"__init__": __init__, "__module__": base.__module__}
    body.update({n: _route_method(route, n) for n in names})
    if base is _Random:  # random.Random.__init__ calls seed(); the recorder ignores it
        body["seed"] = lambda self, *a, **k: None
    return type(base.__name__, (base,), body)


@contextmanager
def intercept(recorder: Recorder, *, holders: Sequence[Any] = (),
              modules: Sequence[Any] = ()) -> Iterator[Recorder]:
    """Route every draw of the run to ``recorder`` (module docstring): the global functions of
    ``numpy.random`` and ``random``, ``default_rng`` and the generator classes, the same names
    imported into ``modules``, the generators those modules hold at top level and those the
    objects in ``holders`` hold. Everything is restored on exit."""
    if recorder.passthrough:
        yield recorder
        return
    saved: list[tuple[Any, str, Any]] = []

    def patch(space: Any, name: str, value: Any) -> None:
        saved.append((space, name, getattr(space, name)))
        setattr(space, name, value)

    originals: dict[int, Any] = {}
    swapped: list[tuple[Any, Any, Any]] = []
    _ACTIVE.append(recorder)
    try:
        for name in LEGACY_DRAWS:
            if hasattr(np.random, name):
                originals[id(getattr(np.random, name))] = _global_function("numpy.random", name)
                patch(np.random, name, originals[id(getattr(np.random, name))])
        for name in PYTHON_DRAWS:
            originals[id(getattr(random, name))] = _global_function("random", name)
            patch(random, name, originals[id(getattr(random, name))])
        originals[id(np.random.default_rng)] = lambda *a, **k: _ACTIVE[-1].generator()
        patch(np.random, "default_rng", originals[id(np.random.default_rng)])
        for cls, route in ((_Generator, "Generator"), (_RandomState, "RandomState")):
            bound = _bound_class(cls, route)
            originals[id(cls)] = bound
            patch(np.random, cls.__name__, bound)
        bound_random = _bound_class(_Random, "random")
        originals[id(_Random)] = bound_random
        patch(random, "Random", bound_random)
        for module in modules:
            for attr, value in list(vars(module).items()):
                if attr.startswith("__"):
                    continue
                if isinstance(value, _Generator | _RandomState | _Random) \
                        and not isinstance(value, _RECORDING_TYPES):
                    route = next(r for t, r in _ROUTE_OF.items() if isinstance(value, t))
                    patch(module, attr, recorder.generator(route))
                elif id(value) in originals and value is not np.random and value is not random:
                    patch(module, attr, originals[id(value)])
        for obj in holders:
            swapped += swap_generators(obj, recorder)
        yield recorder
    finally:
        _ACTIVE.pop()
        for space, name, value in reversed(saved):
            setattr(space, name, value)
        for holder, key, value in reversed(swapped):
            swap(holder, key, value)


def active() -> Recorder | None:
    """The recorder of the run in progress (``None`` outside a recorded run)."""
    return _ACTIVE[-1] if _ACTIVE else None


# -- the line trace --------------------------------------------------------------------------
@dataclass
class LineTrace:
    """The lines executed in the user's files, in order (``(file, line)``)."""

    lines: list[tuple[str, int]] = field(default_factory=list)
    limit: int = 2_000_000
    cut: bool = False
    #: above 0 while a declared primitive runs (its lines run on ``D`` only: not traced)
    paused: int = 0


@contextmanager
def tracing(trace: LineTrace | None) -> Iterator[LineTrace | None]:
    """Record the lines executed in the user's files into ``trace`` (``None``: no trace)."""
    if trace is None:
        yield None
        return
    lines = trace.lines
    user_codes: dict[Any, bool] = {}

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and not trace.paused:
            if len(lines) < trace.limit:
                lines.append((frame.f_code.co_filename, frame.f_lineno))
            else:
                trace.cut = True
        return local

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        hit = user_codes.get(code)
        if hit is None:
            hit = user_codes[code] = is_user_file(code.co_filename)
        return local if hit else None

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield trace
    finally:
        sys.settrace(old)
