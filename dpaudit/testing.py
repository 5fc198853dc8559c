"""The CI gate: ``assert_private`` fails a pytest test when a privacy claim is VIOLATED.

::

    from dpaudit.testing import assert_private

    def test_my_mechanism_is_private():
        assert_private(MyMechanism(epsilon=1.0), epsilon=1.0, delta=0.0, samples=200_000)

A target is a black-box mechanism object (``sample(data, size, rng)``, ``epsilon``, ``delta``,
``neighbours``; see :mod:`dpaudit.stats.blackbox`), a plain function ``fn(data, size, rng)``
(then ``epsilon=`` and ``neighbours=`` are given to ``assert_private``), an
:class:`~dpaudit.engine.AuditSpec`, or the name of a registered audit or user audit module
(``"laplace"``, ``"my_pkg.my_audit"``). A mechanism is attacked with ``samples`` draws per
input; an audit runs every claim of ``check NAME`` (its own budgets: ``--quick``'s when the
sample scale is below 1).

A failure reads like a pytest assertion about the caller's code: dpaudit's own frames are
hidden (``__tracebackhide__``), so the traceback ends at the ``assert_private`` line of the
test. INCONCLUSIVE (the samples could not decide anything, e.g. a claim of eps = 50) fails too
unless the test says ``allow_inconclusive=True``: a gate that passes on no evidence is no gate.

The sample budget is multiplied by the CI scale: ``pytest --dpaudit-scale 0.1``, the
``DPAUDIT_SAMPLE_SCALE`` environment variable, or ``@pytest.mark.dpaudit(scale=0.1)`` on a
test (the plugin :mod:`dpaudit.pytest_plugin` is registered as a ``pytest11`` entry point).
A smaller budget never makes a correct mechanism fail (the bound stays valid at ``1 - alpha``);
it only makes smaller violations undetectable, which the failure and the result state.
"""

from __future__ import annotations

import math
import os
from typing import Any

from dpaudit.engine import AuditSpec, run_check
from dpaudit.registry import get_audit
from dpaudit.reports.text import witness_text
from dpaudit.stats.blackbox import AuditBudget, audit_mechanism
from dpaudit.stats.results import Verdict
from dpaudit.stats.rng import DEFAULT_SEED
from dpaudit.validation import InvalidParameterError, check_alpha, check_int, check_real

__all__ = ["PrivacyAssertionError", "assert_private", "sample_scale", "set_sample_scale"]

ENV_VAR = "DPAUDIT_SAMPLE_SCALE"
_scale: float | None = None  # set by the pytest plugin (option or marker)


class PrivacyAssertionError(AssertionError):
    """A claim came out VIOLATED (or INCONCLUSIVE with ``allow_inconclusive=False``)."""


def set_sample_scale(scale: float | None) -> None:
    """Set the sample scale (``None``: fall back to ``DPAUDIT_SAMPLE_SCALE``, else 1)."""
    global _scale
    _scale = None if scale is None else check_real("scale", scale, low=0.0, low_open=True)


def sample_scale() -> float:
    """The current sample scale: the plugin's, else ``DPAUDIT_SAMPLE_SCALE``, else 1."""
    if _scale is not None:
        return _scale
    text = os.environ.get(ENV_VAR)
    if text is None or not text.strip():
        return 1.0
    try:
        value = float(text)
    except ValueError:
        raise InvalidParameterError(f"{ENV_VAR}={text!r} must be a finite number in "
                                    "(0, inf)") from None
    return check_real(ENV_VAR, value, low=0.0, low_open=True)


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    return "inf" if math.isinf(x) else f"{x:.4g}"


def _claim_message(name: str, c: Any) -> str:
    lines = [f"{name}: claim {c.id!r} is {c.verdict.value} at (eps={c.epsilon:g}, "
             f"delta={c.delta:g})", f"  claim: {c.statement}", f"  paper: {c.reference}"]
    if c.epsilon_lower_bound is not None:
        conf = "" if c.alpha is None else f" at confidence {1 - c.alpha:.3g}"
        lines.append(f"  bound: epsilon >= {_fmt(c.epsilon_lower_bound)}{conf}")
    if c.proof is not None and c.proof.witness:
        lines.append("  witness: " + witness_text(c.proof.witness))
    lines += [f"  {d}" for d in c.details]
    return "\n".join(lines)


class _FunctionMechanism:
    """A plain function ``fn(data, size, rng)`` seen as a black-box mechanism."""

    def __init__(self, fn: Any, epsilon: float, delta: float,
                 neighbours: list[tuple[Any, Any]]) -> None:
        self.fn, self.epsilon, self.delta, self.neighbours = fn, epsilon, delta, neighbours
        self.__name__ = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))

    def sample(self, data: Any, size: int, rng: Any) -> Any:
        return self.fn(data, size, rng)


def _as_mechanism(target: Any, epsilon: float | None, delta: float | None,
                  neighbours: Any) -> Any:
    """A plain function becomes a mechanism; it needs ``epsilon`` and ``neighbours``."""
    if epsilon is None or neighbours is None:
        given = (("epsilon", epsilon), ("neighbours", neighbours))
        missing = " and ".join(f"{n}=" for n, v in given if v is None)
        raise InvalidParameterError(
            f"assert_private({getattr(target, '__name__', 'fn')}, ...) of a plain function "
            f"fn(data, size, rng) needs {missing} (e.g. epsilon=1.0, "
            "neighbours=[(data, data_prime)])")
    return _FunctionMechanism(target, epsilon, 0.0 if delta is None else delta,
                              list(neighbours))


def _name(mech: Any) -> str:
    return mech.__name__ if isinstance(mech, _FunctionMechanism) else type(mech).__name__


def _assert_mechanism(mech: Any, epsilon: float | None, delta: float | None, samples: int,
                      alpha: float, seed: int, allow_inconclusive: bool,
                      neighbours: Any = None) -> Any:
    __tracebackhide__ = True  # pytest shows the caller's assert_private line, not dpaudit's
    budget = AuditBudget(samples=samples, tail_draws=None)  # the test's budget, as given
    result = audit_mechanism(mech, epsilon=epsilon, delta=delta, alpha=alpha, budget=budget,
                             seed=seed, key="assert_private",
                             neighbours=None if neighbours is None else list(neighbours))
    bad = result.verdict is Verdict.VIOLATED or (
        result.verdict is Verdict.INCONCLUSIVE and not allow_inconclusive)
    if bad:
        msg = _claim_message(_name(mech), result.claim)
        raise PrivacyAssertionError(
            f"{msg}\n  witness: inputs {result.data!r} vs {result.data_prime!r}, event "
            f"{result.event!r} ({result.direction}); counts {result.count_p} vs "
            f"{result.count_q} of {result.n_measure} draws each\n  samples={samples} per "
            f"input (scale {sample_scale():g}), alpha={alpha:g}, seed={seed}"
            + _inconclusive_hint(result.claim.verdict))
    return result


def _inconclusive_hint(verdict: Any) -> str:
    if verdict is not Verdict.INCONCLUSIVE:
        return ""
    return ("\n  INCONCLUSIVE fails by default: the samples could not catch a violation of any "
            "size; add samples, or pass allow_inconclusive=True to accept that")


def assert_private(target: Any, *, epsilon: float | None = None, delta: float | None = None,
                   neighbours: Any = None, samples: int = 1_000_000, alpha: float = 0.05,
                   seed: int | None = None, allow_inconclusive: bool = False) -> Any:
    """Fail (``PrivacyAssertionError``) when ``target``'s privacy claim is VIOLATED, or
    INCONCLUSIVE unless ``allow_inconclusive``.

    Parameters
    ----------
    target:
        A black-box mechanism object, a plain function ``fn(data, size, rng)`` returning
        ``size`` outputs, an ``AuditSpec``, or a registered or importable audit name (see the
        module docstring).
    epsilon, delta:
        The claim under test (default: the mechanism's own, or the audit's defaults; a plain
        function needs ``epsilon``, and ``delta`` defaults to 0).
    neighbours:
        Pairs ``(data, data_prime)`` to attack (default: the mechanism's ``neighbours``;
        required for a plain function). Two equal inputs are refused: they cannot differ.
    samples:
        Draws per input for a mechanism, before the CI scale (at least 200 after scaling).
    alpha:
        The test fails a correct mechanism with probability at most ``alpha``.
    seed:
        Root seed (default: dpaudit's).
    allow_inconclusive:
        ``True`` lets INCONCLUSIVE pass (not enough samples to decide anything); by default it
        fails, with what would settle it.

    Returns
    -------
    The :class:`~dpaudit.stats.blackbox.BlackBoxResult` (mechanism) or
    :class:`~dpaudit.stats.results.CheckReport` (audit).
    """
    __tracebackhide__ = True  # a failure points at the caller's line (pytest convention)
    check_int("samples", samples, low=1)
    alpha = check_alpha(alpha)
    seed = DEFAULT_SEED if seed is None else check_int("seed", seed, low=0)
    scale = sample_scale()
    scaled = max(200, int(round(samples * scale)))
    if hasattr(target, "sample") and not isinstance(target, AuditSpec | str):
        return _assert_mechanism(target, epsilon, delta, scaled, alpha, seed,
                                 allow_inconclusive, neighbours)
    if callable(target) and not isinstance(target, type | AuditSpec):
        mech = _as_mechanism(target, epsilon, delta, neighbours)
        return _assert_mechanism(mech, None, None, scaled, alpha, seed, allow_inconclusive)
    if neighbours is not None:
        raise InvalidParameterError("neighbours= applies to a mechanism or a plain function, "
                                    "not to an audit (its claims name their own inputs)")
    if isinstance(target, str):
        target = get_audit(target)
    if not isinstance(target, AuditSpec):
        raise InvalidParameterError(
            f"target={type(target).__name__} must be a mechanism (with sample, epsilon, delta, "
            "neighbours), a function fn(data, size, rng), an AuditSpec or an audit name")
    report = run_check(target, epsilon=epsilon, delta=delta, seed=seed, alpha=alpha,
                       quick=scale < 1.0, regret=False)
    failing = [c for c in report.claims if c.verdict is Verdict.VIOLATED or (
        c.verdict is Verdict.INCONCLUSIVE and not allow_inconclusive)]
    if failing:
        raise PrivacyAssertionError("\n".join(
            _claim_message(target.name, c) + _inconclusive_hint(c.verdict) for c in failing))
    return report
