"""The audit recipe shared by ``adap-ucb``, ``adap-ucb-faulty`` and ``adap-klucb`` (Azize & Basu
2022)."""

from __future__ import annotations

import sympy as sp

from dpaudit.algorithms.azize_basu_2022.bounds import thm2_minimax_lower, thm3_lower
from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_FIG2
from dpaudit.audits.recipes.global_dp import (
    EPS,
    J,
    N,
    ReleaseModel,
    global_dp_claim,
    release_evidence,
    table_sampler,
)
from dpaudit.audits.recipes.release_level import (
    ReleaseAttack,
    first_releases_view,
    release_claim,
)
from dpaudit.engine import Budget, CheckContext, ClaimSpec, FindingSpec
from dpaudit.sim.bandits import TableRewards
from dpaudit.stats.evidence import ProofEvidence
from dpaudit.stats.results import Finding, Notion
from dpaudit.stats.sampled import SamplerPair

PAPER = "Azize & Basu 2022 (NeurIPS)"

# The attack: K = 2 arms, T = 32, a fixed reward table (Azize & Basu 2022, Definition 2).
# Arm 0 earns 0 except its initial pull (step 1), arm 1 earns 1. Pair 1 changes step 1
# (arm 0's first reward, 1 -> 0): in the paper's algorithm it enters one release only (the
# initial one, noise Lap(2/eps), loss <= eps/2); in the all-rewards variant it enters every
# later release of arm 0. Pair 2 changes step 3 (the first episode's single pull, whichever
# arm plays it) to the opposite rewards: a release of one reward with noise Lap(1/eps), loss
# up to eps, the paper's worst case.
AUDIT_HORIZON = 32


def _table() -> TableRewards:
    import numpy as np

    tab = np.zeros((AUDIT_HORIZON, 2))
    tab[:, 1] = 1.0
    tab[0, 0] = 1.0
    return TableRewards(tab)


def neighbour_pairs(alg, summaries: tuple[str, ...] = ("action sequence",)
                    ) -> list[SamplerPair]:
    import numpy as np

    base = _table()
    one = base.changed(1, np.array([0.0, 1.0]))
    three = base.changed(3, np.array([1.0, 0.0]))
    return [
        SamplerPair("pair 1: K=2, T=32, arm 0 earns 0 and arm 1 earns 1; step 1 (arm 0's "
                    "initial reward) 1 vs 0", table_sampler(alg, base, AUDIT_HORIZON, summaries),
                    table_sampler(alg, one, AUDIT_HORIZON, summaries)),
        SamplerPair("pair 2: same table; step 3 (first episode's pull) rewards (0, 1) vs "
                    "(1, 0)", table_sampler(alg, base, AUDIT_HORIZON, summaries),
                    table_sampler(alg, three, AUDIT_HORIZON, summaries)),
    ]


def klucb_neighbour_pairs(alg, summaries: tuple[str, ...] = ("action sequence",)
                          ) -> list[SamplerPair]:
    """For AdaP-KLUCB: early KL-UCB indexes are clipped at 1 (the privacy shift
    alpha ln t / (eps N/2) exceeds 1 until N is about 6 ln t at eps = 1) and tie, so the data
    matter only once an arm has ~30 pulls. Pair 1: K=2, T=64, every reward 0; step 32 (inside
    the first long episode) becomes 1 for both arms. Pair 2 is adap-ucb's pair 2."""
    import numpy as np

    horizon = 64
    base = TableRewards(np.zeros((horizon, 2)))
    changed = base.changed(32, np.array([1.0, 1.0]))
    pairs = [SamplerPair("pair 1: K=2, T=64, every reward 0; step 32 rewards (0, 0) vs (1, 1)",
                         table_sampler(alg, base, horizon, summaries),
                         table_sampler(alg, changed, horizon, summaries))]
    return pairs + [neighbour_pairs(alg, summaries)[1]]


def release_model(alg) -> ReleaseModel:
    if alg.mean_window == "all":
        return ReleaseModel(1 / N, 2 / (EPS * N), J,
                            "a release averages all N rewards of the arm (sensitivity 1/N), "
                            "noise Lap(2/(eps N)); one reward enters every later release of "
                            "its arm: J = up to log2 N(T) releases")
    return ReleaseModel(1 / (N / 2), 2 / (EPS * N), sp.Integer(1),
                        "a release averages the last episode's N/2 rewards (sensitivity "
                        "2/N), noise Lap(2/(eps N)) (Sec. 4); episodes of one arm are "
                        "disjoint, so one reward enters one release (Lemma 1, Thm 6)")


# simulated runs per input of the audited pair (selection + measurement); with the ranking
# runs this costs what the former engine spent (2 pairs x 4 samples of 400k / 150k runs)
RUNS = Budget(full=1_600_000, quick=600_000)


def audited(ctx: CheckContext):
    """The audited variant (``AuditSpec.variant``: an AdaP class) at the claimed epsilon."""
    return ctx.variant(ctx.epsilon)


def claims(pairs=neighbour_pairs,
           summaries: tuple[str, ...] = ("action sequence",),
           runs: Budget = RUNS) -> list[ClaimSpec]:
    """The two claims of an AdaP audit; ``runs``: simulated runs per input of the audited
    pair (selection and measurement, :func:`dpaudit.stats.sampled.sampled_audit`)."""
    def symbolic(ctx: CheckContext, spec: ClaimSpec) -> ProofEvidence:
        return release_evidence(ctx, release_model(audited(ctx)))

    sampled = global_dp_claim(lambda ctx: pairs(audited(ctx), summaries), runs)

    return [
        ClaimSpec("episode-release", Notion.GLOBAL,
                  "each private mean is eps-DP (Laplace, sensitivity of a last-episode mean) "
                  "and a changed reward enters one release only",
                  "Azize & Basu 2022, Lemma 1, Theorem 1 and Theorem 6 (Sec. 4, Eq. 7-8)",
                  symbolic),
        release_level_claim(),
        ClaimSpec("global-dp", Notion.GLOBAL,
                  "the action sequence is eps-global DP: pi(a^T|r^T) <= e^eps pi(a^T|r'^T) for "
                  "reward sequences differing at one step",
                  "Azize & Basu 2022, Definition 2 and Theorems 6-8", sampled,
                  observes="actions"),
    ]


#: simulated runs per input of the release-level claim (K = 2, T = 8: cheap)
RELEASE_RUNS = Budget(full=1_000_000, quick=100_000)
RELEASE_HORIZON = 8


def release_attacks(ctx: CheckContext, alg) -> list[ReleaseAttack]:
    """The canary where a release is most sensitive: step K + 1 = 3 is the first episode of
    whichever arm wins the first index, of length 1 (``N_a`` doubles from 1 to 2), so its
    reward is the whole of a release's mean (weight ``1/(N_a/2) = 1``) with noise
    ``Lap(2/(eps N_a)) = Lap(1/eps)``: exact loss ``eps`` (Lemma 1). The other releases do
    not contain it (Theorem 6), so the transcript's exact loss on this pair is ``eps``
    (:func:`episode_exact_loss` computes it from the code, so a twin's is its own).
    Observed: the first three releases (two initial means, then this one). A second pair
    changes step 1, arm 0's initial one-reward release (``Lap(2/eps)`` by default, loss
    ``eps/2``; the pairs are ranked on fresh runs, one engine)."""
    import numpy as np

    base = TableRewards(np.zeros((RELEASE_HORIZON, 2)))
    initial = alg._initial_scale()
    return [ReleaseAttack(
        f"K=2, T={RELEASE_HORIZON}, every reward 0; step 3 (the first episode, one pull) "
        "rewards (0, 0) vs (1, 1)", base, base.changed(3, np.array([1.0, 1.0])),
        RELEASE_HORIZON, first_releases_view(3), exact_loss=episode_exact_loss(alg)),
        # the initial one-reward release (Alg. 1, line 3): 1 / its Laplace scale
        ReleaseAttack(
            f"K=2, T={RELEASE_HORIZON}, every reward 0; step 1 (arm 0's initial pull) "
            "rewards (0, 0) vs (1, 1)", base, base.changed(1, np.array([1.0, 1.0])),
            RELEASE_HORIZON, first_releases_view(3),
            exact_loss=1.0 / initial if initial > 0 else float("inf"))]


def episode_exact_loss(alg) -> float:
    """The exact loss of the first episode's release on the step-3 pair, read from the code
    itself rather than from the claim: the release's sensitivity to the canary (the code's
    ``release_mean`` at ``N_a = 2`` after one-pull episode, the canary being that episode's
    one reward; a mean over all the arm's rewards has half of it) over the code's noise scale
    at ``N_a = 2``. Azize & Basu 2022's Algorithm 1 gives ``1 / (1/eps) = eps``; a broken twin
    gets its own value (``2 eps`` with half the scale, ``eps/2`` when the release averages all
    rewards), so the report's reach is against what this code leaks, never against the claim."""
    import numpy as np

    sens = abs(float(alg.release_mean(1.0, 1.0, 1.0, 2.0))
               - float(alg.release_mean(0.0, 0.0, 1.0, 2.0)))
    scale = float(np.asarray(alg._noise_scale(np.array([2.0])), dtype=float).ravel()[0])
    return sens / scale if scale > 0 else float("inf")


def release_level_claim() -> ClaimSpec:
    return release_claim(
        audited, release_attacks, RELEASE_RUNS, id="episode-release-sampled",
        statement="each private episode mean is eps-DP in the rewards it averages, observed "
                  "on the released means of the running code (the canary is the first "
                  "episode's single reward)",
        reference="Azize & Basu 2022, Lemma 1 and Theorem 6 (Sec. 4)")


def lower_bound_details(ctx: CheckContext, horizon: int) -> list[str]:
    k = AZIZE_BASU_FIG2.n_arms
    return [
        f"Theorem 2 minimax lower bound (K={k}, T={horizon}): "
        f"{thm2_minimax_lower(k, horizon, ctx.epsilon):.4g}",
        f"Theorem 3 problem-dependent lower bound (asymptotic rate x ln T, Bernoulli: "
        f"d_inf = kl(mu_a, mu*), t_inf = Delta_a): "
        f"{thm3_lower(AZIZE_BASU_FIG2.means, horizon, ctx.epsilon):.4g}",
    ]


TOUCHED_RUNS = Budget(full=20_000, quick=2_000)  # coupled runs per changed step
REGRET_HORIZON = Budget(full=AZIZE_BASU_FIG2.horizon, quick=10**5)


def touched_releases_finding() -> FindingSpec:
    """Count, on the code itself, how many releases one changed reward touches.

    Both neighbouring tables of each pair are simulated with the *same* generator state;
    runs whose decisions agree on both inputs drew identical noise, so a release whose
    pre-noise statistic differs between them was touched by the changed reward. Theorem 6's
    premise is "exactly one"; the all-rewards variant touches every later release of the arm.
    Information only (a finding): it checks the premise of the symbolic claim on the code.
    """
    import numpy as np

    def evaluate(ctx: CheckContext) -> Finding:
        alg = audited(ctx)
        base = _table()
        lines, worst = [], 0
        for label, changed in (("step 1", base.changed(1, np.array([0.0, 1.0]))),
                               ("step 3", base.changed(3, np.array([1.0, 0.0])))):
            runs = ctx.size(TOUCHED_RUNS)
            a = alg.simulate(base, AUDIT_HORIZON, runs, rng=ctx.rng("touched", label),
                             record_releases=True)
            b = alg.simulate(changed, AUDIT_HORIZON, runs, rng=ctx.rng("touched", label),
                             record_releases=True)
            same = np.all(a.decisions == b.decisions, axis=1)
            diff = ~np.isclose(a.extra["releases"], b.extra["releases"], rtol=0, atol=1e-12,
                               equal_nan=True)
            touched = diff[same].sum(axis=1)
            hist = np.bincount(touched)
            worst = max(worst, int(touched.max(initial=0)))
            lines.append(f"{label} changed: {int(same.sum())} of {runs} coupled runs kept the "
                         f"same decisions; releases touched -> runs: "
                         + ", ".join(f"{j}: {c}" for j, c in enumerate(hist) if c))
        return Finding(
            "releases-touched",
            f"one changed reward touched at most {worst} release(s) on coupled runs "
            f"(Theorem 6's premise: exactly 1)", Notion.GLOBAL, details=tuple(lines),
            data={"max_touched": worst})

    return FindingSpec("releases-touched", evaluate, observes="releases")
