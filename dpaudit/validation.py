"""One place for argument validation, one error type, one message format.

Every public constructor and engine entry point validates here, so bad input gets
``InvalidParameterError: epsilon=-1.0 must be a finite number in (0, inf)`` rather than a
traceback deep inside numpy or a NaN in a report. Booleans are rejected explicitly (``True``
is an ``int`` to Python, never a privacy parameter to us), and so are NaN and infinities.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

__all__ = [
    "EPSILON_MAX",
    "InvalidParameterError",
    "check_alpha",
    "check_choice",
    "check_delta",
    "check_epsilon",
    "check_epsilon_delta",
    "check_history",
    "check_horizon",
    "check_int",
    "check_means",
    "check_probability",
    "check_real",
    "check_rewards",
]


class InvalidParameterError(ValueError):
    """A parameter is outside its documented domain. The message names it and its domain."""


def _fail(name: str, value: object, domain: str) -> InvalidParameterError:
    return InvalidParameterError(f"{name}={value!r} must be {domain}")


def check_real(
    name: str,
    value: object,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a finite float in the stated interval, or raise.

    The interval is ``[low, high]`` with either end made open by ``low_open``/``high_open``.
    """
    lb = "(" if low_open or math.isinf(low) else "["  # a finite number never reaches +-inf
    rb = ")" if high_open or math.isinf(high) else "]"
    domain = f"a finite number in {lb}{_fmt(low)}, {_fmt(high)}{rb}"
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise _fail(name, value, domain)
    x = float(value)
    if not math.isfinite(x):
        raise _fail(name, value, domain)
    if x < low or (low_open and x == low) or x > high or (high_open and x == high):
        raise _fail(name, value, domain)
    return x


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(float(x)) if x != int(x) else str(int(x))


def check_int(name: str, value: object, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int in ``[low, high]``; floats with integral value are refused."""
    lo = "(-inf" if low is None else f"[{low}"
    hi = "inf)" if high is None else f"{high}]"
    domain = f"an integer in {lo}, {hi}"
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise _fail(name, value, domain)
    v = int(value)
    if (low is not None and v < low) or (high is not None and v > high):
        raise _fail(name, value, domain)
    return v


# e^epsilon is the likelihood ratio a claim allows, and the commands' exact losses, start
# phases and noise scales compute it (times densities, horizons, counts) in float64, which ends
# at e^709.78. The commands (``check``, ``simulate``, ``audit``) accept epsilon up to 700:
# e^700 ~ 1e304 leaves four decades for those factors (the continuous hockey-stick divergence
# has refused eps > 700 for that reason), and an epsilon that large promises nothing anyway.
# Library functions that work in log space keep their own wider domain.
EPSILON_MAX = 700.0


def check_epsilon(value: object, *, allow_zero: bool = False, name: str = "epsilon",
                  finite_exp: bool = False) -> float:
    """Privacy loss parameter: ``(0, inf)``, or ``[0, inf)`` where the mechanism allows 0;
    with ``finite_exp`` at most :data:`EPSILON_MAX` (``e^epsilon`` finite in float64)."""
    eps = check_real(name, value, low=0.0, low_open=not allow_zero)
    if finite_exp and eps > EPSILON_MAX:
        raise InvalidParameterError(
            f"{name}={eps!r} must be at most {EPSILON_MAX:g}: e^{name} is then within four "
            "decades of float64's largest number, beyond which the exact losses overflow "
            f"(accepted range {'[' if allow_zero else '('}0, {EPSILON_MAX:g}])")
    return eps


def check_delta(value: object, *, name: str = "delta") -> float:
    """Failure probability of approximate DP: ``[0, 1)``."""
    return check_real(name, value, low=0.0, high=1.0, high_open=True)


def check_epsilon_delta(
    epsilon: object, delta: object, *, allow_zero_epsilon: bool = False,
    finite_exp: bool = False,
) -> tuple[float, float]:
    """Validate a pair; when ``epsilon = 0`` is allowed, ``delta`` must then be positive.
    ``finite_exp``: the commands' range, see :func:`check_epsilon`."""
    eps = check_epsilon(epsilon, allow_zero=allow_zero_epsilon, finite_exp=finite_exp)
    dlt = check_delta(delta)
    if eps == 0.0 and dlt == 0.0:
        raise InvalidParameterError(
            "epsilon=0.0 and delta=0.0 together must not both be zero (no mechanism is (0, 0)-DP "
            "unless its output ignores the data)"
        )
    return eps, dlt


def check_alpha(value: object, *, name: str = "alpha") -> float:
    """Significance level of a statistical statement: ``(0, 1)``."""
    return check_real(name, value, low=0.0, high=1.0, low_open=True, high_open=True)


def check_probability(name: str, value: object) -> float:
    return check_real(name, value, low=0.0, high=1.0)


def check_horizon(horizon: object, n_arms: int, *, name: str = "horizon") -> int:
    """A horizon must let every arm be pulled at least once: ``horizon >= n_arms``."""
    return check_int(name, horizon, low=n_arms)


def check_means(means: object, *, name: str = "means") -> np.ndarray:
    """Arm means of a bandit instance: a non-empty 1-d sequence of numbers in ``[0, 1]``."""
    try:
        arr = np.asarray(means, dtype=float)
    except (TypeError, ValueError):
        raise _fail(name, means, "a sequence of numbers in [0, 1]") from None
    if arr.ndim != 1 or arr.size < 1:
        raise _fail(name, means, "a non-empty 1-d sequence of numbers in [0, 1]")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise _fail(name, means, "a sequence of finite numbers in [0, 1]")
    return arr


def check_rewards(rewards: object, *, name: str = "rewards") -> np.ndarray:
    """Observed rewards: an array of finite numbers in ``[0, 1]``."""
    try:
        arr = np.asarray(rewards, dtype=float)
    except (TypeError, ValueError):
        raise _fail(name, rewards, "an array of numbers in [0, 1]") from None
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise _fail(name, _short(rewards), "an array of finite numbers in [0, 1]")
    return arr


def check_choice(name: str, value: object, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise _fail(name, value, "one of " + ", ".join(repr(c) for c in choices))
    return value


def _short(value: object) -> object:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


def check_history(sums: object, counts: object, *, min_count: int = 0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """A per-step history ``(sums, counts)`` of ``K >= 2`` arms (Wang & Zhu 2023, Definition 1).

    Both 1-d of equal length; counts integers ``>= min_count``; sums finite in ``[0, counts]``.
    Returns them as float arrays.
    """
    try:
        s = np.asarray(sums, dtype=float)
        n = np.asarray(counts, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"sums={_short(sums)} and counts={_short(counts)} must be arrays of numbers"
        ) from None
    if s.ndim != 1 or s.shape != n.shape or n.size < 2:
        raise InvalidParameterError(
            f"sums={sums!r} and counts={counts!r} must be 1-d of equal length >= 2")
    if np.any(~np.isfinite(n)) or np.any(n < min_count) or np.any(n != np.round(n)):
        raise InvalidParameterError(f"counts={counts!r} must be integers >= {min_count}")
    if np.any(~np.isfinite(s)) or np.any(s < 0) or np.any(s > n):
        raise InvalidParameterError(f"sums={sums!r} must lie in [0, counts]")
    return s, n
