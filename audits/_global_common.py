"""Shared pieces of the global-DP audit files (adap_ucb, adap_klucb, dp_se, gdp_elim_new).

* :func:`release_claim`: the symbolic part. Every episodic global-DP algorithm releases one
  private statistic per (arm, episode) computed from that episode's rewards. Two
  obligations: (i) each release is ``eps``-DP in the rewards it uses (Laplace: sensitivity /
  scale <= eps, Theorem 1 of seed 000), and (ii) a changed reward enters ``J`` releases with
  ``J * eps_release <= eps`` (basic composition; ``J = 1`` is the one-episode-touched
  argument of seed 000 Thm 6 / Lemma 1). These are *sufficient* conditions: when one fails
  the claim is INCONCLUSIVE (never VIOLATED on its own), and the sampled claim decides.
* :func:`sampled_global_claim`: the empirical part over a list of neighbouring pairs, each a
  pair of samplers; ``alpha`` is split evenly over the pairs (Bonferroni).
* :func:`regret_result`: regret on an instance with the papers' bounds beside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from dpaudit.bandits import BernoulliRewards, TableRewards, checkpoint_grid
from dpaudit.engine import CheckContext, ClaimSpec
from dpaudit.global_dp import global_claim, global_epsilon_lower_bound
from dpaudit.regret import summarise_regret
from dpaudit.results import ClaimResult, Method, ProofStatus, RegretResult, Verdict
from dpaudit.symbolic import Domain, Obligation, prove

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


def release_claim(ctx: CheckContext, spec: ClaimSpec, model: ReleaseModel,
                  extra: Sequence[Obligation] = (), extra_domain: dict | None = None,
                  extra_assumptions: Sequence[str] = ()) -> ClaimResult:
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
    domain = {EPS: Domain(0.0, math.inf, (ctx.epsilon, 0.1)),
              N: Domain(0.0, math.inf, (1.0, 2.0, 64.0)),
              J: Domain(1.0, math.inf, (3.0, 5.0)), **(extra_domain or {})}
    assumptions = ("rewards in [0, 1]; epsilon > 0; N > 0 counts", model.description,
                   *extra_assumptions)
    proof = prove(obligations, domain, assumptions)
    verdict = Verdict.PROVED if proof.status is ProofStatus.PROVED else Verdict.INCONCLUSIVE
    details = []
    if proof.status is ProofStatus.DISPROVED:
        details.append(f"a sufficient condition fails (witness {proof.witness}); basic "
                       "composition is only an upper bound, so the sampled claim decides")
    elif proof.status is ProofStatus.UNKNOWN:
        details.append("a condition is outside the prover's reach; this is not a pass")
    return ClaimResult(
        id=spec.id, notion=spec.notion, epsilon=ctx.epsilon, delta=ctx.delta, verdict=verdict,
        method=Method.SYMBOLIC, statement=spec.statement, reference=spec.reference,
        details=tuple(details), proof=proof)


Sampler = Callable[[int, np.random.Generator], dict[str, np.ndarray]]


@dataclass(frozen=True)
class NeighbourPair:
    """Two inputs that differ at one step, as samplers of run summaries."""

    description: str
    sample_p: Sampler
    sample_q: Sampler


def sampled_global_claim(ctx: CheckContext, spec: ClaimSpec, pairs: Sequence[NeighbourPair],
                         summaries: Sequence[str], n_runs: int) -> ClaimResult:
    """Largest valid lower bound over the pairs (alpha split evenly; module docstring)."""
    best = None
    per_pair = ctx.alpha / len(pairs)
    results = []
    for i, pair in enumerate(pairs):
        audit = global_epsilon_lower_bound(
            pair.sample_p, pair.sample_q, summaries=summaries, epsilon=ctx.epsilon,
            delta=ctx.delta, alpha=per_pair, n_select=n_runs, n_measure=n_runs,
            rng_select=ctx.rng(spec.id, "pair", i, "select"),
            rng_measure=ctx.rng(spec.id, "pair", i, "measure"))
        results.append((pair, audit))
        if best is None or audit.best.epsilon_lower_bound > best[1].best.epsilon_lower_bound:
            best = (pair, audit)
    assert best is not None
    pair, audit = best
    details = [f"{p.description} -> bound {a.best.epsilon_lower_bound:.4g}"
               for p, a in results]
    details.append(f"alpha = {ctx.alpha} split evenly over {len(pairs)} neighbouring pairs; "
                   f"best pair: {pair.description.split(':')[0]}")
    from dataclasses import replace
    audit = replace(audit, alpha=ctx.alpha)
    res = global_claim(spec, ctx, audit, details=details,
                       data={"pairs": [p.description for p, _ in results]})
    return res


def summaries_of(result) -> dict[str, np.ndarray]:
    """Standard summaries of a :class:`~dpaudit.bandits.SimulationResult`: decisions (the
    whole action sequence) and the pull count of every arm."""
    out = {"action sequence": result.decisions}
    for a in range(result.counts.shape[1]):
        out[f"pulls of arm {a}"] = result.counts[:, a]
    return out


def table_sampler(alg, table: TableRewards, horizon: int) -> Sampler:
    def sample(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return summaries_of(alg.simulate(table, horizon, n, rng=rng))
    return sample


def regret_result(ctx: CheckContext, alg, means: Sequence[float], horizon: int, runs: int, *,
                  instance: str, bound: float | None, bound_name: str,
                  details: Sequence[str]) -> RegretResult:
    env = BernoulliRewards(means)
    cps = checkpoint_grid(horizon, 30)
    res = alg.simulate(env, horizon, runs, rng=ctx.rng("regret"), checkpoints=cps)
    return summarise_regret(
        res.regret, instance=instance, algorithm=alg.name, horizon=horizon, bound=bound,
        bound_name=bound_name, checkpoints=cps, curves=res.curve, details=details)
