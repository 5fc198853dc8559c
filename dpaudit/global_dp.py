"""Global-DP auditing: neighbouring reward inputs, whole action sequences, honest lower bounds.

The notion (shared/DESIGN.md, notion 3): a bandit algorithm maps a reward input to an action
sequence ``a^T``. Seed 000, Definition 2 compares ``pi(a^T | r^T)`` and ``pi(a^T | r'^T)`` for
two reward sequences that differ at one step; seed 003, Definition 3 compares the same in
expectation over rewards drawn from an instance, the neighbour being obtained by a
data-revision rule (e.g. "set the reward at step ``t`` to 0"). Either way an audit supplies
two *samplers* ``sample(n, rng) -> dict[str, ndarray]`` that simulate ``n`` independent runs
on each input and return *summaries* of each run's action sequence: integer arrays of shape
``(n,)`` or ``(n, L)``, e.g. the arm chosen in each episode (which determines the whole action
sequence of an episodic algorithm), the pull counts, the exploitation arm and phase.

The statistics (:func:`global_epsilon_lower_bound`):

1. a *selection* sample of ``n_select`` runs per input and a fresh *measurement* sample of
   ``n_measure`` runs per input;
2. for every summary, its distinct values are the outcome categories (coded jointly over the
   four samples so the codes agree; a value unseen in the selection sample has zero
   selection counts and is never chosen); an event (a set of categories) is chosen on the
   selection sample in both directions with :func:`dpaudit.empirical.select_discrete_event`;
3. each chosen event is measured once on the measurement sample with exact Clopper-Pearson
   limits; ``alpha`` is divided over the ``2 m`` (summary, direction) pairs (Bonferroni), so
   the largest bound holds with probability ``>= 1 - alpha``.

The engine knows no algorithm: summaries are named by the audit file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .empirical import (
    EventBound,
    detectable_epsilon,
    epsilon_from_counts,
    select_discrete_event,
)
from .events import cp_lower, cp_upper, log_ratio_bound
from .results import ClaimResult, Method, Verdict
from .validation import InvalidParameterError, check_alpha, check_delta, check_int

__all__ = [
    "GlobalAudit",
    "code_outcomes",
    "select_event",
    "global_claim",
    "global_epsilon_lower_bound",
]

Sampler = Callable[[int, np.random.Generator], dict[str, np.ndarray]]


@dataclass(frozen=True)
class GlobalAudit:
    """The result of :func:`global_epsilon_lower_bound`.

    ``best`` is the event with the largest bound; ``bounds`` every measured (summary,
    direction) pair; ``alpha`` the family-wise level; ``p_event`` the selected event's
    probability estimate on the selection sample (used for ``detectable_epsilon``).
    """

    best: EventBound
    bounds: tuple[EventBound, ...]
    alpha: float
    n_select: int
    n_measure: int
    detectable_epsilon: float


def code_outcomes(*arrays: np.ndarray) -> tuple[list[np.ndarray], int]:
    """Code rows of several arrays into shared integer categories ``0..n-1``.

    Arrays of shape ``(n_i,)`` or ``(n_i, L)`` (rows compare as whole rows; shorter rows are
    padded with -1). Small non-negative-offset integer rows are packed into one int64 key
    (base ``max - min + 1``) before ``np.unique``; otherwise rows are compared directly.
    Returns the code arrays (one per input) and the number of categories.
    """
    mats = [np.asarray(a).reshape(len(a), -1) for a in arrays]
    width = max(m.shape[1] for m in mats)
    mats = [np.pad(m, ((0, 0), (0, width - m.shape[1])), constant_values=-1)
            if m.shape[1] < width else m for m in mats]
    allrows = np.concatenate(mats, axis=0)
    keys = None
    if np.issubdtype(allrows.dtype, np.integer) and allrows.size:
        lo, hi = int(allrows.min()), int(allrows.max())
        base = hi - lo + 1
        if width * np.log2(base) < 62:
            keys = np.zeros(len(allrows), dtype=np.int64)
            for j in range(width):
                keys = keys * base + (allrows[:, j].astype(np.int64) - lo)
    if keys is None:
        _, inverse = np.unique(allrows, axis=0, return_inverse=True)
    else:
        _, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.reshape(-1)
    out, pos = [], 0
    for m in mats:
        out.append(inverse[pos:pos + len(m)])
        pos += len(m)
    return out, int(inverse.max()) + 1 if inverse.size else 0


def select_event(codes_a: np.ndarray, codes_b: np.ndarray, n_cat: int, *, epsilon: float,
                 delta: float, alpha: float) -> np.ndarray:
    """Choose a set of categories on a selection sample by its *conservative* bound.

    Candidates: every single category, and the nested sets ``{p_hat > e^c q_hat}`` for ``c``
    on a grid around the claim; each is scored by the Clopper-Pearson bound it would give
    on this sample at the measurement's level ``alpha`` (so rare categories whose plug-in
    ratio is noise are not preferred), and the best one is returned as a boolean mask.
    Selection only; the reported bound is measured on a fresh sample.
    """
    na, nb = len(codes_a), len(codes_b)
    ca = np.bincount(codes_a, minlength=n_cat).astype(float)
    cb = np.bincount(codes_b, minlength=n_cat).astype(float)
    pa, pb = ca / na, cb / nb
    masks = []
    ratio = (pa + 1e-300) / np.maximum(pb, 0.5 / nb)
    for c in np.linspace(0.0, 2.0 * epsilon + 1.0, 13):
        m = (pa > 0) & (ratio > np.exp(c))
        if m.any():
            masks.append(m)
    cand_cats = np.flatnonzero(ca >= 1)
    singles = cand_cats[np.argsort(-ratio[cand_cats])[:200]]
    for i in singles:
        m = np.zeros(n_cat, dtype=bool)
        m[i] = True
        masks.append(m)
    if not masks:
        return select_discrete_event(codes_a, codes_b, n_cat, epsilon=epsilon, delta=delta)
    sa = np.array([ca[m].sum() for m in masks])
    sb = np.array([cb[m].sum() for m in masks])
    score = log_ratio_bound(cp_lower(sa, na, alpha / 2), cp_upper(sb, nb, alpha / 2), delta)
    return masks[int(np.argmax(score))]


def _describe(summary: str, mask: np.ndarray, codes_rows: np.ndarray | None) -> str:
    k = int(mask.sum())
    return f"{summary} in a set of {k} value(s) chosen on the selection sample"


def global_epsilon_lower_bound(
    sample_p: Sampler,
    sample_q: Sampler,
    *,
    summaries: Sequence[str],
    epsilon: float,
    delta: float,
    alpha: float,
    n_select: int,
    n_measure: int,
    rng_select: np.random.Generator,
    rng_measure: np.random.Generator,
) -> GlobalAudit:
    """Epsilon lower bound over events on summaries of the action sequence (module docstring).

    ``sample_p`` simulates runs on the input ``D`` (e.g. ``r``), ``sample_q`` on ``D'``.
    """
    check_alpha(alpha)
    check_delta(delta)
    check_int("n_select", n_select, low=1)
    check_int("n_measure", n_measure, low=1)
    if not summaries:
        raise InvalidParameterError("summaries=() must name at least one summary")
    sel_p, sel_q = sample_p(n_select, rng_select), sample_q(n_select, rng_select)
    meas_p, meas_q = sample_p(n_measure, rng_measure), sample_q(n_measure, rng_measure)
    per_test = alpha / (2 * len(summaries))
    bounds: list[EventBound] = []
    p_sel_best = 0.0
    for name in summaries:
        for key_sample in (sel_p, sel_q, meas_p, meas_q):
            if name not in key_sample:
                raise InvalidParameterError(f"summary {name!r} is not produced by the sampler")
        (cs_p, cs_q, cm_p, cm_q), n_cat = code_outcomes(
            sel_p[name], sel_q[name], meas_p[name], meas_q[name])
        cnt_p = np.bincount(cm_p, minlength=n_cat)
        cnt_q = np.bincount(cm_q, minlength=n_cat)
        for direction, sa, sb, ma, mb in (("D vs D'", cs_p, cs_q, cnt_p, cnt_q),
                                           ("D' vs D", cs_q, cs_p, cnt_q, cnt_p)):
            mask = select_event(sa, sb, n_cat, epsilon=epsilon, delta=delta, alpha=per_test)
            ca, cb = int(ma[mask].sum()), int(mb[mask].sum())
            bound, p_lo, q_hi = epsilon_from_counts(
                ca, n_measure, cb, n_measure, delta=delta, alpha=per_test)
            eb = EventBound(_describe(name, mask, None), direction, ca, n_measure, cb,
                            n_measure, p_lo, q_hi, bound, per_test)
            bounds.append(eb)
            if not bounds or eb.epsilon_lower_bound >= max(b.epsilon_lower_bound for b in bounds):
                p_sel_best = float(np.isin(sa, np.flatnonzero(mask)).mean())
    best = max(bounds, key=lambda b: b.epsilon_lower_bound)
    detect = detectable_epsilon(max(p_sel_best, 1.0 / n_measure), n_measure, epsilon=epsilon,
                                delta=delta, alpha=alpha, tests=len(summaries) * 2)
    return GlobalAudit(best, tuple(bounds), alpha, n_select, n_measure, detect)


def global_claim(
    spec: object, ctx: object, audit: GlobalAudit, *, details: Sequence[str] = (),
    data: dict | None = None,
) -> ClaimResult:
    """A sampled claim verdict: VIOLATED if the bound exceeds the claimed epsilon, else CONSISTENT.

    ``spec`` is the :class:`~dpaudit.engine.ClaimSpec`, ``ctx`` the
    :class:`~dpaudit.engine.CheckContext`.
    """
    b = audit.best
    verdict = Verdict.VIOLATED if b.epsilon_lower_bound > ctx.epsilon else Verdict.CONSISTENT
    lines = list(details) + [
        f"best event: {b.description} ({b.direction}); counts {b.count_p}/{b.n_p} vs "
        f"{b.count_q}/{b.n_q}; p_lo={b.p_lo:.4g}, q_hi={b.q_hi:.4g}",
        f"{len(audit.bounds)} (summary, direction) events chosen on {audit.n_select} runs per "
        f"input, measured on {audit.n_measure} fresh runs per input; Bonferroni alpha/"
        f"{len(audit.bounds)} each",
    ]
    payload = {"events": [
        {"event": e.description, "direction": e.direction, "count_p": e.count_p,
         "count_q": e.count_q, "n": e.n_p, "epsilon_lower_bound": e.epsilon_lower_bound}
        for e in audit.bounds]}
    payload.update(data or {})
    return ClaimResult(
        id=spec.id, notion=spec.notion, epsilon=ctx.epsilon, delta=ctx.delta, verdict=verdict,
        method=Method.SAMPLED, statement=spec.statement, reference=spec.reference,
        epsilon_lower_bound=b.epsilon_lower_bound,
        detectable_epsilon=None if verdict is Verdict.VIOLATED else audit.detectable_epsilon,
        alpha=audit.alpha, details=tuple(lines), data=payload,
    )
