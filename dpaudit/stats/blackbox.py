"""Black-box auditor: a valid epsilon lower bound for any sampler on neighbouring inputs.

Protocol (:class:`dpaudit.interfaces.AuditableMechanism`): an object with a vectorised
``sample(data, size, rng)`` (an array whose first axis has length ``size``), the claim
``epsilon`` and ``delta``, and ``neighbours`` (pairs ``(data, data_prime)`` to try).
Optional: ``search_domain`` (a sequence of further pairs, or a callable ``(rng, n) -> pairs``
proposing ``n`` of them), ``features`` (``outputs -> statistic`` of shape ``(size,)`` or
``(size, d)``), ``n_outcomes`` (for small discrete outputs) and ``notion``.

This module only adapts the protocol: every pair becomes a
:class:`~dpaudit.stats.sampled.SamplerPair` and the one sampled-bound engine
(:func:`dpaudit.stats.sampled.sampled_audit`: rank pairs on fresh samples, choose one event and
direction on a fresh selection sample, measure it once on fresh samples) returns the evidence;
:func:`dpaudit.stats.evidence.decide` turns it into the verdict. See :mod:`dpaudit.stats.sampled`
for why
the bound is valid at ``1 - alpha``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dpaudit.interfaces import Mechanism
from dpaudit.stats.evidence import SampledEvidence, decide
from dpaudit.stats.results import ClaimResult, Notion
from dpaudit.stats.rng import DEFAULT_SEED, generator
from dpaudit.stats.sampled import TAIL_DRAWS, AuditBudget, SamplerPair, sampled_audit
from dpaudit.validation import InvalidParameterError, check_alpha, check_epsilon_delta, check_int

if TYPE_CHECKING:  # the engine imports this module's users; only the types are needed here
    from dpaudit.engine import CheckContext, ClaimSpec

__all__ = [
    "AuditBudget",
    "BlackBoxResult",
    "audit_mechanism",
    "blackbox_evaluator",
    "candidate_pairs",
    "mechanism_label",
    "mechanism_notion",
    "mechanism_pairs",
    "pair_text",
    "same_input",
    "to_claim_result",
]


@dataclass(frozen=True)
class _Subject:
    """What :func:`~dpaudit.stats.evidence.decide` needs of a claim and its context."""

    id: str
    notion: Notion
    statement: str
    reference: str
    epsilon: float
    delta: float
    alpha: float


@dataclass(frozen=True)
class BlackBoxResult:
    """What one black-box audit found: the evidence and the verdict ``decide`` gives it."""

    evidence: SampledEvidence
    claim: ClaimResult
    data: Any
    data_prime: Any

    epsilon = property(lambda self: self.claim.epsilon)
    delta = property(lambda self: self.claim.delta)
    alpha = property(lambda self: self.claim.alpha)
    verdict = property(lambda self: self.claim.verdict)
    epsilon_lower_bound = property(lambda self: float(self.claim.epsilon_lower_bound or 0.0))
    event = property(lambda self: self.evidence.event)
    direction = property(lambda self: self.evidence.direction)
    count_p = property(lambda self: self.evidence.count_p)
    count_q = property(lambda self: self.evidence.count_q)
    n_measure = property(lambda self: self.evidence.n_p)
    n_select = property(lambda self: self.evidence.n_select)
    output_kind = property(lambda self: self.evidence.data["output_kind"])
    pairs_tried = property(lambda self: self.evidence.data["pairs_tried"])
    ranking = property(lambda self: tuple(self.evidence.data["ranking"]))
    p_lo = property(lambda self: self.claim.data["p_lo"])
    q_hi = property(lambda self: self.claim.data["q_hi"])

    @property
    def detectable_epsilon(self) -> float:
        """Smallest true epsilon caught with 80% power (``inf``: none is detectable)."""
        return float(self.claim.data["detectable_at_power"])

    def details(self) -> tuple[str, ...]:
        return self.claim.details


def pair_text(data: object, data_prime: object) -> str:
    """``D = .., D' = ..``; for equal-shape arrays, where they differ."""
    a: np.ndarray | None
    b: np.ndarray | None
    try:
        a, b = np.asarray(data, dtype=float), np.asarray(data_prime, dtype=float)
    except (TypeError, ValueError):
        a = b = None
    if a is not None and b is not None and a.shape == b.shape and a.size > 4:
        diff = np.argwhere(a != b)
        where = ", ".join(str(tuple(int(i) for i in d)) for d in diff[:4])
        more = f" and {len(diff) - 4} more" if len(diff) > 4 else ""
        vals = ", ".join(f"{a[tuple(d)]:g}->{b[tuple(d)]:g}" for d in diff[:4])
        return (f"D and D' of shape {a.shape} differing at {where}{more} ({vals})"
                if len(diff) else f"D = D' (shape {a.shape})")
    return f"D = {_short(data)}, D' = {_short(data_prime)}"


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars as Python numbers, inside tuples, lists and dicts too, so
    that a report prints ``(0.5, 1)`` and never ``(np.float64(0.5), np.int64(1))``."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | list):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


def _short(value: Any) -> str:
    text = np.array2string(np.asarray(value), threshold=12, precision=4) if isinstance(
        value, np.ndarray) else repr(_plain(value))
    return text if len(text) < 80 else text[:77] + "..."


# -- neighbour candidates ------------------------------------------------------------------
def candidate_pairs(mech: Mechanism, budget: AuditBudget, seed: int | np.random.SeedSequence,
                    key: str, neighbours: Sequence[tuple[Any, Any]] | None = None
                    ) -> list[tuple[Any, Any]]:
    """Heuristic pairs (``neighbours``) followed by pairs from ``search_domain``.

    A declared pair whose two inputs are equal is a usage error: the two output laws are then
    the same, so no attack can find anything and a CONSISTENT verdict (with a power statement)
    would be evidence about nothing. Equal pairs proposed by a callable search domain are
    dropped (a random proposal may repeat an input).
    """
    declared = list(getattr(mech, "neighbours", ()) if neighbours is None else neighbours)
    domain = getattr(mech, "search_domain", None)
    searched: list[Any] = []
    if callable(domain) and budget.search_budget > 0:
        searched = list(domain(generator(seed, key, "search"), budget.search_budget))
    elif domain is not None and not callable(domain):
        declared += list(domain)
    for i, pair in enumerate(declared + searched):
        if not (isinstance(pair, tuple | list) and len(pair) == 2):
            raise InvalidParameterError(
                f"neighbours[{i}]={_short(pair)} must be a pair (data, data_prime)")
    for i, pair in enumerate(declared):
        if same_input(pair[0], pair[1]):
            raise InvalidParameterError(
                f"neighbours[{i}]=({_short(pair[0])}, {_short(pair[1])}) are equal inputs: a "
                "neighbouring pair must differ, or the audit can only find nothing")
    pairs = declared + [p for p in searched if not same_input(p[0], p[1])]
    if not pairs:
        raise InvalidParameterError(
            f"{type(mech).__name__}.neighbours must contain at least one (data, data_prime) "
            "pair (or declare a search_domain, with a search budget above 0)")
    return [tuple(p) for p in pairs]


def mechanism_label(mech: Any) -> str:
    """How reports name ``mech``: its own ``__name__`` (a wrapped function), else its class's."""
    own = vars(mech).get("__name__") if hasattr(mech, "__dict__") else None
    return own if isinstance(own, str) else type(mech).__name__


def mechanism_notion(mech: Any, default: Notion = Notion.GLOBAL) -> Notion:
    """The notion ``mech`` declares (its ``notion``: ``"ldp"``, ``"per-step"`` or
    ``"global"``), else ``default``.

    A mechanism that declares none is a mechanism on neighbouring *inputs*, i.e. central DP
    (what the verdicts call global: two inputs differing in one record, the law of the
    whole output), not local DP: a local randomiser says ``notion = "ldp"``. A declared value
    outside the three is an error (exit 2), not silently relabelled.
    """
    value = getattr(mech, "notion", None)
    if value is None:
        return default
    if isinstance(value, Notion):
        return value
    try:
        return Notion(str(value))
    except ValueError:
        raise InvalidParameterError(
            f"{mechanism_label(mech)}.notion={value!r} must be one of "
            f"{', '.join(repr(n.value) for n in Notion)}") from None


def same_input(a: Any, b: Any) -> bool:
    """Whether two inputs are equal (arrays elementwise, anything else by ``==``)."""
    if a is b:
        return True
    try:
        x, y = np.asarray(a), np.asarray(b)
        if x.dtype != object and y.dtype != object:
            return bool(x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind in
                                                              "fc" and y.dtype.kind in "fc"))
    except (TypeError, ValueError):
        pass
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an input without a usable ==: cannot tell, assume not
        return False


# -- the audit -----------------------------------------------------------------------------
def mechanism_pairs(mech: Mechanism, pairs: Sequence[tuple[Any, Any]]) -> list[SamplerPair]:
    """Each ``(data, data_prime)`` as a pair of samplers of ``mech.sample``."""
    def sampler(data: Any) -> Callable[[int, np.random.Generator], np.ndarray]:
        return lambda n, rng: mech.sample(data, n, rng)
    return [SamplerPair(pair_text(d, dp), sampler(d), sampler(dp), d, dp) for d, dp in pairs]


def audit_mechanism(
    mech: Mechanism,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    alpha: float = 0.05,
    budget: AuditBudget | None = None,
    seed: int | np.random.SeedSequence = DEFAULT_SEED,
    key: str = "blackbox",
    neighbours: Sequence[tuple[Any, Any]] | None = None,
    workers: int = 1,
    scheduler: object = None,
) -> BlackBoxResult:
    """Audit ``mech`` against its claim (or the given ``epsilon``/``delta``) at ``alpha``.

    The evidence comes from :func:`dpaudit.stats.sampled.sampled_audit`; the verdict from
    :func:`dpaudit.stats.evidence.decide` (the whole ``alpha`` goes to this one
    claim).
    ``workers``/``scheduler`` place the measurement chunks
    (:func:`dpaudit.runtime.parallel.map_chunks`);
    the result does not depend on them.
    """
    for attr in ("sample", "epsilon", "delta"):
        if not hasattr(mech, attr):
            raise InvalidParameterError(
                f"{type(mech).__name__} has no attribute {attr!r}: an audited object needs "
                "sample(data, size, rng), epsilon, delta and neighbours")
    if not callable(mech.sample):
        raise InvalidParameterError(f"{type(mech).__name__}.sample must be callable")
    eps, dlt = check_epsilon_delta(mech.epsilon if epsilon is None else epsilon,
                                   mech.delta if delta is None else delta,
                                   allow_zero_epsilon=True)
    alpha = check_alpha(alpha)
    budget = AuditBudget() if budget is None else budget
    if not hasattr(mech, "neighbours") and neighbours is None and getattr(
            mech, "search_domain", None) is None:
        raise InvalidParameterError(
            f"{type(mech).__name__} has no attribute 'neighbours' (a sequence of "
            "(data, data_prime) pairs to try) and no search_domain")
    n_outcomes = getattr(mech, "n_outcomes", None)
    if n_outcomes is not None:  # fewer than two outcomes: no event can tell inputs apart
        check_int(f"{mechanism_label(mech)}.n_outcomes", n_outcomes, low=2)
    pairs = mechanism_pairs(mech, candidate_pairs(mech, budget, seed, key, neighbours))
    evidence = sampled_audit(pairs, delta=dlt, alpha=alpha, budget=budget, seed=seed, key=key,
                             features=getattr(mech, "features", None),
                             n_outcomes=getattr(mech, "n_outcomes", None),
                             who=f"{type(mech).__name__}.sample", workers=workers,
                             scheduler=scheduler, analysis_mu=_analysis_mu(mech))
    notion = mechanism_notion(mech)
    subject = _Subject("dp-claim", notion, f"{mechanism_label(mech)} is ({eps:g}, {dlt:g})-DP on "
                       "its neighbouring inputs (black-box sampling audit)", "user mechanism",
                       eps, dlt, alpha)
    chosen = pairs[evidence.data["pair"]]
    return BlackBoxResult(evidence, decide(subject, subject, evidence, alpha=alpha),
                          chosen.data, chosen.data_prime)


def _analysis_mu(mech: Any) -> float | None:
    """The mechanism's ``gdp_mu`` (the Gaussian DP parameter its analysis implies), when it
    declares a positive finite one."""
    mu = getattr(mech, "gdp_mu", None)
    try:
        mu = None if mu is None else float(mu)
    except (TypeError, ValueError):
        return None
    return mu if mu is not None and 0.0 < mu < float("inf") else None


def to_claim_result(result: BlackBoxResult, *, id: str, statement: str, reference: str,
                    notion: Notion = Notion.LDP) -> ClaimResult:
    """The audit's verdict as a claim with the given id, statement and reference."""
    subject = _Subject(id, notion, statement, reference, result.epsilon, result.delta,
                       result.alpha)
    return decide(subject, subject, result.evidence, alpha=result.alpha)


def blackbox_evaluator(build: Callable[[float, float], Mechanism], *,
                       samples: int = 1_000_000, quick_samples: int = 100_000,
                       selection_fraction: float = 0.2
                       ) -> Callable[[CheckContext, ClaimSpec], SampledEvidence]:
    """An ``evaluate(ctx, spec)`` for a :class:`~dpaudit.engine.ClaimSpec` of an audit file.

    ``build(epsilon, delta)`` makes the mechanism for the claim under test; the evidence is
    gathered with ``ctx.seed`` (keyed by the claim id) and ``quick_samples`` under
    ``--quick``; the engine decides it at the claim's share of ``ctx.alpha``.
    """
    check_int("samples", samples, low=200)
    check_int("quick_samples", quick_samples, low=200)

    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> SampledEvidence:
        mech = build(ctx.epsilon, ctx.delta)
        budget = AuditBudget(samples=quick_samples if ctx.quick else samples,
                             selection_fraction=selection_fraction,
                             tail_draws=None if ctx.quick else TAIL_DRAWS)
        return audit_mechanism(mech, epsilon=ctx.epsilon, delta=ctx.delta, alpha=ctx.alpha,
                               budget=budget, seed=ctx.seed, key=f"claim:{spec.id}",
                               workers=ctx.workers).evidence

    return evaluate
