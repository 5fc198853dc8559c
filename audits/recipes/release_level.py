"""Release-level (gray-box) claims: audit what a policy releases, not only what it does.

The papers' privacy proofs are about released statistics (a private mean per episode, the
nodes of a continual counter, an interval release); the actions are post-processing. A claim
built here runs the policy on two neighbouring reward tables with the recording hook on
(:mod:`dpaudit.sim.releases`) and hands the recorded releases to the one sampled-bound engine
(:func:`dpaudit.stats.sampled.sampled_audit`). The tables differ where the release is most
sensitive (the canary of the tight DP-SGD audits): a reward that enters a release with the
largest weight, or a counter element that enters the most nodes.

Each :class:`ReleaseAttack` names its neighbouring tables, a *view* of the transcript (a
function of the recorded releases alone: which release comes next is itself decided by
earlier releases, so any view is post-processing and the lower bound it gives is a valid
lower bound for the whole release transcript), and the exact privacy loss of that transcript
on that pair (the reference a tightness table divides by; derived in the audit's docstring).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from dpaudit.engine import Budget, CheckContext, ClaimSpec
from dpaudit.sim.releases import ReleaseRecorder, release_sampler
from dpaudit.stats.evidence import InconclusiveEvidence, SampledEvidence
from dpaudit.stats.results import Method, Notion
from dpaudit.stats.sampled import AuditBudget, SamplerPair, sampled_audit

__all__ = ["ReleaseAttack", "counter_arms_view", "counter_node_view", "differences_view",
           "first_release_above_view", "first_releases_view", "release_claim"]

View = Callable[[ReleaseRecorder], dict[str, np.ndarray]]


@dataclass(frozen=True)
class ReleaseAttack:
    """Two neighbouring reward sources, the horizon, the view, and the exact loss.

    ``exact_loss`` is the privacy loss of the release transcript on this pair at the claimed
    epsilon (a number, or ``None`` where it is not known in closed form).
    """

    description: str
    source: Any
    source_prime: Any
    horizon: int
    view: View
    exact_loss: float | None = None


def first_releases_view(width: int) -> View:
    """Each of the first ``width`` released numbers as a named summary."""
    def view(rec: ReleaseRecorder) -> dict[str, np.ndarray]:
        first = rec.first(width)
        return {f"release {i + 1}": first[:, i] for i in range(width)}
    return view


def first_release_above_view(threshold: float, name: str) -> View:
    """The indicator ``{first release >= threshold}`` as the only summary (0/1 per run).

    For a release whose law under the *claimed* algorithm is known in closed form, the
    threshold is fixed from that law before any run is drawn (the likelihood-ratio event of
    the exact release law, at the threshold where the event's probability is largest among
    those of the largest ratio). The sampled engine then only chooses the direction, on a
    small selection sample, and every other run measures it: no draws are spent searching
    thresholds whose noise would also pick a worse one. The indicator is a function of the
    released value alone, so the bound stays a bound on the whole transcript."""
    def view(rec: ReleaseRecorder) -> dict[str, np.ndarray]:
        return {name: (rec.first(1)[:, 0] >= threshold).astype(np.int8)}
    return view


def differences_view(width: int) -> View:
    """Differences of consecutive releases among the first ``width`` (``release i - release
    i+1``): independent noises leave them noisy; noise shared between two releases cancels,
    and the difference is then an exact function of the data."""
    def view(rec: ReleaseRecorder) -> dict[str, np.ndarray]:
        first = rec.first(width)
        return {f"release {i + 1} - release {i + 2}": first[:, i] - first[:, i + 1]
                for i in range(width - 1)}
    return view


def counter_arms_view(label: str, positions: Sequence[int], *, arm_of_step: int) -> View:
    """Every arm's counter read at once (``(runs, K)`` releases): at each position, the
    played arm's output minus each other arm's (independent counters keep it noisy; a noise
    draw shared across arms cancels)."""
    def view(rec: ReleaseRecorder) -> dict[str, np.ndarray]:
        rel = [r for r in rec.releases if r.label == label]
        which = next(r.arm for r in rel if int(r.step[0]) == arm_of_step)
        rows = np.arange(which.size)
        out = {}
        for p in positions:
            values = rel[p - 1].values
            for b in range(values.shape[1]):
                out[f"y_played({p}) - y_arm{b}({p})"] = values[rows, which] - values[:, b]
        return out
    return view


def counter_node_view(label: str, plus: Sequence[int], minus: Sequence[int], *,
                      arm: int = 0, arm_of_step: int | None = None) -> View:
    """Node estimates of one continual counter from its released prefix sums.

    The counter's releases (``label``) are ``y(1), y(2), ...`` (``y(0) = 0``); a ``(runs, K)``
    release (every arm's counter at once) is read at column ``arm``, or, with
    ``arm_of_step``, at the arm recorded at that step (the arm whose reward the canary is; a
    function of earlier releases). ``y(plus[i]) - y(minus[i])`` is a sum of rewards plus
    noise nodes that all contain the canary element, so each difference is shifted by the
    canary, with independent noise. Summaries: each difference and their minimum (``{min >=
    c}`` is the likelihood-ratio event of a vector Laplace shift when the nodes share a
    scale).
    """
    def view(rec: ReleaseRecorder) -> dict[str, np.ndarray]:
        rel = [r for r in rec.releases if r.label == label]
        if arm_of_step is None:
            cols = [r.values[:, min(arm, r.values.shape[1] - 1)] for r in rel]
        else:
            which = next(r.arm for r in rel if int(r.step[0]) == arm_of_step)
            rows = np.arange(which.size)
            cols = [r.values[rows, which] if r.values.shape[1] > 1 else r.values[:, 0]
                    for r in rel]
        y = np.stack(cols, axis=1)
        diffs = [y[:, p - 1] - (y[:, m - 1] if m > 0 else 0.0)
                 for p, m in zip(plus, minus, strict=True)]
        out = {f"y({p}) - y({m})": d for p, m, d in zip(plus, minus, diffs, strict=True)}
        out["min of the node differences"] = np.min(np.stack(diffs, axis=1), axis=1)
        return out
    return view




def release_claim(make: Callable[[CheckContext], Any],
                  attacks: Callable[[CheckContext, Any], Sequence[ReleaseAttack]],
                  runs: Budget | Callable[[CheckContext, Sequence[ReleaseAttack]], int], *,
                  id: str, statement: str, reference: str,
                  max_steps: int | None = None, max_select: int | None = 200_000,
                  min_runs: Budget | None = None) -> ClaimSpec:
    """A sampled claim observing ``releases`` of ``make(ctx)`` (the audited policy): the
    attacks ``attacks(ctx, policy)`` ranked on fresh runs, one event chosen on a selection
    sample, measured on fresh runs (one engine).

    ``max_steps``: for a policy simulated step by step, the most runs x horizon steps one side
    may simulate; an attack beyond it is INCONCLUSIVE with the size it would need (e.g.
    DP-UCB-Int's first release at small eps comes after ~1e5 pulls). Episodic policies, whose
    cost does not grow with the steps, leave it ``None``. ``min_runs``: with ``max_steps``,
    the claim runs ``min(runs, max_steps // horizon)`` per side when that is at least
    ``min_runs`` (fewer runs, less power, the same validity: the size is fixed before any run
    is drawn) and is INCONCLUSIVE below it; without ``min_runs`` it needs all of ``runs``.
    ``runs`` may be sized by the claim: ``runs(ctx, attacks)`` then gives the runs per side
    (from the attacks' exact losses, before any run is drawn).
    ``max_select``: at most this many
    runs per side choose the event (:class:`~dpaudit.stats.sampled.AuditBudget`), the rest
    measure it; a claim whose view is already the one event to measure (e.g.
    :func:`first_release_above_view`) spends few runs on the choice."""
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> SampledEvidence | InconclusiveEvidence:
        alg = make(ctx)
        found = list(attacks(ctx, alg))
        n = int(runs(ctx, found)) if callable(runs) else ctx.size(runs)
        longest = max(a.horizon for a in found)
        if max_steps is not None and min_runs is not None and n * longest > max_steps:
            n = max(min(n, max_steps // longest), 1)
            if n < ctx.size(min_runs):
                n = ctx.size(min_runs)
        if max_steps is not None and n * longest > max_steps:
            return InconclusiveEvidence(
                f"the release the canary enters comes after {longest} steps; {n} runs per side "
                f"would simulate {n * longest:.3g} steps (budget {max_steps:.0e}): at this "
                "epsilon the release level is out of reach here (a claim that accounts the "
                "releases exactly still decides them)", method=Method.SAMPLED)
        pairs = [SamplerPair(a.description,
                             release_sampler(alg, a.source, a.horizon, view=a.view),
                             release_sampler(alg, a.source_prime, a.horizon, view=a.view))
                 for a in found]
        ev = sampled_audit(pairs, delta=ctx.delta, alpha=ctx.alpha,
                           budget=AuditBudget(samples=n, max_select=max_select,
                                              tail_draws=None),
                           seed=ctx.seed,
                           key=f"claim:{spec.id}", who="simulate (releases)",
                           workers=ctx.workers)
        exact = found[ev.data["pair"]].exact_loss
        lines: tuple[str, ...] = (
            "observes the recorded releases (dpaudit.sim.releases), not the actions",)
        if exact is not None:
            lines += (f"exact privacy loss of the release transcript on this pair: "
                      f"{exact:.6g}",)
        return replace(ev, details=(*ev.details, *lines),
                       data={**ev.data, "exact_release_loss": exact})
    return ClaimSpec(id, Notion.GLOBAL, statement, reference, evaluate, observes="releases")
