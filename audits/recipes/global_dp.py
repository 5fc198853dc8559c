"""Shared pieces of the global-DP audit files (adap_ucb, adap_klucb, dp_se, gdp_elim_new).

* :func:`release_evidence`: the symbolic part. Every episodic global-DP algorithm releases one
  private statistic per (arm, episode) computed from that episode's rewards. Two
  obligations: (i) each release is ``eps``-DP in the rewards it uses (Laplace: sensitivity /
  scale <= eps, Azize & Basu 2022, Theorem 1), and (ii) a changed reward enters ``J`` releases
  with ``J * eps_release <= eps`` (basic composition; ``J = 1`` is the one-episode-touched
  argument of Azize & Basu 2022, Theorem 6 / Lemma 1). These are *sufficient* conditions:
  when one fails the claim is INCONCLUSIVE (never VIOLATED on its own), and the sampled claim
  decides.
* :func:`global_dp_claim`: the sampled part, through the one sampled-bound engine
  (:func:`dpaudit.stats.sampled.sampled_audit`) over neighbouring reward inputs, each a pair of
  samplers of run summaries (the decisions that determine the action sequence, and the pull
  count of every arm).
* :func:`regret_result`: regret on an instance with the papers' bounds beside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import sympy as sp

from dpaudit.engine import Budget, CheckContext, ClaimSpec
from dpaudit.exact.symbolic import Domain, Obligation, prove
from dpaudit.runtime.parallel import chunk_runs, map_chunks
from dpaudit.sim.bandits import BernoulliRewards, checkpoint_grid
from dpaudit.sim.regret import summarise_regret
from dpaudit.stats.evidence import ProofEvidence, SampledEvidence
from dpaudit.stats.results import RegretResult
from dpaudit.stats.sampled import AuditBudget, SamplerPair, sampled_audit

EPS = sp.Symbol("epsilon", positive=True)
N = sp.Symbol("N", positive=True)
J = sp.Symbol("J", positive=True)


@dataclass(frozen=True)
class ReleaseModel:
    """How an algorithm releases: sensitivity and noise scale of one release (sympy in
    ``N`` and ``epsilon``), and how many releases one reward enters (an int or ``J``)."""

    sensitivity: sp.Expr
    scale: sp.Expr
    touched: sp.Expr
    description: str


def release_evidence(ctx: CheckContext, model: ReleaseModel,
                     extra: Sequence[Obligation] = (), extra_domain: dict | None = None,
                     extra_assumptions: Sequence[str] = ()) -> ProofEvidence:
    """Prove the per-release condition and the touched-releases composition (see module)."""
    per_release = sp.simplify(model.sensitivity / model.scale)
    obligations = [
        Obligation("release_is_eps_dp", per_release - EPS, "<=",
                   reason="Laplace mechanism: loss = sensitivity / scale",
                   display=f"sensitivity/scale = {sp.sstr(per_release)} <= epsilon"),
        Obligation("one_reward_composes_to_eps", model.touched * per_release - EPS, "<=",
                   reason="basic composition over the releases one reward enters",
                   display=f"{sp.sstr(model.touched)} * {sp.sstr(per_release)} <= epsilon"),
        *extra,
    ]
    domain = {EPS: Domain(0.0, math.inf, (ctx.epsilon, 0.1), "claimed privacy loss"),
              N: Domain(0.0, math.inf, (1.0, 2.0, 64.0), "number of rewards one release "
                        "averages"),
              J: Domain(1.0, math.inf, (3.0, 5.0), "number of releases one reward enters"),
              **(extra_domain or {})}
    assumptions = ("rewards in [0, 1]; epsilon > 0; N > 0 counts", model.description,
                   *extra_assumptions)
    # sufficient: basic composition is only an upper bound, so the sampled claim decides
    return ProofEvidence(prove(obligations, domain, assumptions))


Summaries = Callable[[int, np.random.Generator], dict[str, np.ndarray]]


def global_dp_claim(pairs: Callable[[CheckContext], Sequence[SamplerPair]],
                    runs: Budget) -> Callable[[CheckContext, ClaimSpec], SampledEvidence]:
    """``evaluate`` of a sampled global-DP claim: ``runs`` simulated runs per input (selection
    and measurement; ranking of several pairs on its own fresh runs), one engine."""
    def evaluate(ctx: CheckContext, spec: ClaimSpec) -> SampledEvidence:
        return sampled_audit(pairs(ctx), delta=ctx.delta, alpha=ctx.alpha,
                             budget=AuditBudget(samples=ctx.size(runs), tail_draws=None),
                             seed=ctx.seed,
                             key=f"claim:{spec.id}", who="simulate",
                             workers=ctx.workers)
    return evaluate


def summaries_of(result) -> dict[str, np.ndarray]:
    """Standard summaries of a :class:`~dpaudit.sim.bandits.SimulationResult`: decisions (the
    whole action sequence) and the pull count of every arm."""
    out = {"action sequence": result.decisions}
    for a in range(result.counts.shape[1]):
        out[f"pulls of arm {a}"] = result.counts[:, a]
    return out


def table_sampler(alg, rewards, horizon: int,
                  summaries: Sequence[str] | None = None) -> Summaries:
    """Runs of ``alg`` on ``rewards`` (a table or an instance), as named summaries (all, or
    only those listed)."""
    def sample(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        out = summaries_of(alg.simulate(rewards, horizon, n, rng=rng))
        return out if summaries is None else {k: out[k] for k in summaries}
    return sample


def _regret_chunk(alg, means: tuple[float, ...], horizon: int, cps: np.ndarray, size: int,
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    res = alg.simulate(BernoulliRewards(means), horizon, size, rng=rng, checkpoints=cps)
    return res.regret, res.curve


def regret_result(ctx: CheckContext, alg, means: Sequence[float], horizon: int, runs: int, *,
                  instance: str, bound: float | None, bound_name: str,
                  details: Sequence[str]) -> RegretResult:
    """Regret of ``runs`` runs in fixed seeded chunks (:func:`dpaudit.runtime.parallel.map_chunks`):
    the same numbers for any ``--workers`` or a Dask scheduler."""
    cps = checkpoint_grid(horizon, 30)
    parts = map_chunks(partial(_regret_chunk, alg, tuple(means), horizon, cps), runs,
                       seed=ctx.seed, key="regret", chunk=chunk_runs(runs), workers=ctx.workers)
    return summarise_regret(
        np.concatenate([p[0] for p in parts]), instance=instance, algorithm=alg.name,
        horizon=horizon, bound=bound, bound_name=bound_name,
        checkpoints=[int(c) for c in cps],
        curves=np.concatenate([p[1] for p in parts]), details=details, means=means)
