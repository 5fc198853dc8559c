"""Azize, Wu, Honda, Orabona, Ito & Basu 2025: the statements dpaudit tracks (``python -m dpaudit
claims azize-et-al-2025``).

Declared as :mod:`dpaudit.reports.ledger` describes (location, how the paper states it, what
tests it by registered name); ``python -m dpaudit claims`` computes each status.
"""

from __future__ import annotations

from dpaudit.algorithms.azize_et_al_2025.instances import AZIZE_ET_AL_2025
from dpaudit.reports.ledger import KINDS, READINGS, Statement, claim, experiment, regret

__all__ = ["PAPER", "PAPER_KEYS", "STATEMENTS"]

PRIV, UPPER, LOWER, EXP = KINDS
SUF, NEC, FIG = READINGS

PAPER = AZIZE_ET_AL_2025
#: short keys accepted by ``python -m dpaudit claims PAPER`` (the first is the canonical one)
PAPER_KEYS = ("azize-et-al-2025", "dp-klucb", "dp-imed")

_CLAIMS = ("phase-release", "phase-release-sampled", "global-dp")

STATEMENTS: tuple[Statement, ...] = (
    Statement(PAPER, "Proposition 2", PRIV, SUF,
              "DP-KLUCB and DP-IMED are eps-global DP (Laplace(1/eps) on each phase's reward "
              "sum; disjoint phases compose in parallel; the rest is post-processing)",
              tuple(claim(name, c) for name in ("dp-klucb", "dp-imed") for c in _CLAIMS)),
    Statement(PAPER, "Theorem 1", LOWER, NEC,
              "every consistent eps-global DP policy has liminf Reg_T / log T >= sum_a Delta_a "
              "/ d_eps(mu_a, mu*), d_eps(x, y) = inf_z eps |z - x| + kl(z, y); it improves on "
              "the earlier problem-dependent lower bound for every eps",
              (experiment("azize-et-al-2025-thm1"),),
              note="asymptotic: a finite-T regret cannot contradict it; the experiment checks "
                   "the improvement over Azize & Basu 2022's Theorem 3 exactly (equal in the "
                   "low-privacy regime, larger below it)"),
    Statement(PAPER, "Theorem 2", UPPER, SUF,
              "DP-KLUCB's and DP-IMED's regret is at most sum_a alpha Delta_a log T / "
              "d_eps(mu_a, mu*) + o(log T) for any alpha > 1",
              (regret("dp-klucb"), regret("dp-imed")),
              note="asymptotic, the o(log T) not given: the checks print the leading term "
                   "beside the measured regret and compare with no number (INCONCLUSIVE)"),
    Statement(PAPER, "Experiments", EXP, FIG,
              "DP-KLUCB and DP-IMED achieve lower regret than the existing eps-global DP "
              "algorithms (here AdaP-UCB, AdaP-KLUCB and DP-SE)",
              (experiment("azize-et-al-2025-regret"),),
              note="the paper's Lazy-DP-TS and non-private IMED are not registered; alpha = 2 "
                   "is dpaudit's default, not a value read from the paper"),
)
