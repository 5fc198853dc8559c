"""Azize & Basu 2022: the statements dpaudit tracks (``python -m dpaudit claims azize``).

Declared as :mod:`dpaudit.reports.ledger` describes (location, how the paper states it, what
tests it by registered name); ``python -m dpaudit claims`` computes each status.
"""

from __future__ import annotations

from dpaudit.algorithms.azize_basu_2022.instances import AZIZE_BASU_2022
from dpaudit.reports.ledger import KINDS, READINGS, Statement, claim, experiment, regret

__all__ = ["PAPER", "PAPER_KEYS", "STATEMENTS"]

PRIV, UPPER, LOWER, EXP = KINDS
SUF, NEC, FIG = READINGS

PAPER = AZIZE_BASU_2022
#: short keys accepted by ``python -m dpaudit claims PAPER`` (the first is the canonical one)
PAPER_KEYS = ("azize-basu-2022", "azize", "adap")

_AB = [
    Statement(AZIZE_BASU_2022, "Lemma 1", PRIV, SUF,
              "Laplace noise Lap(1/(eps m)) on the mean of m rewards in [0, 1] is eps-DP",
              (claim("laplace", "lemma1-ratio-symbolic"), claim("laplace", "lemma1-exact-loss"))),
    Statement(AZIZE_BASU_2022, "Theorem 6", PRIV, SUF,
              "AdaP-UCB and AdaP-KLUCB are eps-global DP (one reward enters one release)",
              (claim("adap-ucb", "episode-release"), claim("adap-ucb", "global-dp"),
               claim("adap-klucb", "episode-release"), claim("adap-klucb", "global-dp"))),
    Statement(AZIZE_BASU_2022, "Theorem 2", LOWER, NEC,
              "minimax regret of any eps-global DP policy is >= max(sqrt(T(K-1))/27, "
              "(K-1)/(131 eps)) for T >= K-1", (experiment("azize-basu-thm2"),),
              note="minimax (some environment of the family makes each policy pay it): a "
                   "tested instance can witness it for a policy, never contradict it; the "
                   "main text does not name the family"),
    Statement(AZIZE_BASU_2022, "Theorem 3", LOWER, NEC,
              "problem-dependent lower bound: liminf Reg_T / ln T >= sum_a Delta_a / "
              "min(d_inf, 6 eps t_inf) for consistent eps-global DP policies",
              (experiment("azize-basu-thm3"),),
              note="asymptotic: a finite-T regret cannot contradict it; the experiment reports "
                   "Reg_T / (rate x ln T) at T/100 and T (also drawn beside Fig. 3)"),
    Statement(AZIZE_BASU_2022, "Theorem 7, Eq. (7)", UPPER, SUF,
              "AdaP-UCB's regret <= sum_a 16 alpha / min(Delta_a, eps) ln T + 3 alpha/(alpha-3)",
              (regret("adap-ucb"), experiment("adap-ucb-index-thm7"),
               experiment("adap-ucb-index-exact")),
              note="fails at small eps with Eq. (7) as printed (privacy term under the root); "
                   "holds on the grid with the term outside the root (docs/findings.md)"),
    Statement(AZIZE_BASU_2022, "Theorem 8, Eq. (8)", UPPER, SUF,
              "AdaP-KLUCB's regret is O(sum_a Delta_a ln T / min(d_inf, C eps t_inf)) "
              "(constants not given)", (regret("adap-klucb"),)),
    Statement(AZIZE_BASU_2022, "Fig. 2", EXP, FIG,
              "AdaP-KLUCB < AdaP-UCB, both about 10x lower regret than DP-SE and DP-UCB",
              (experiment("azize-basu-fig2"), experiment("azize-basu-fig2-ratio"),
               experiment("azize-basu-fig2-intervals")),
              note="DP-SE (beta = 1/T) measures about 2x AdaP-KLUCB, not 10x; against "
                   "Mishra & Thakurta's DP-UCB (gamma = 0.1, which the paper's description "
                   "points to) the 10x holds; against Tossou & Dimitrakakis's it does not"),
    Statement(AZIZE_BASU_2022, "Algorithm 1 (initial release)", EXP, FIG,
              "dpaudit's own finding: the unspecified initial release, extrapolated as "
              "Lap(2/eps), causes AdaP-UCB's heavy regret tail on Fig. 2's instance",
              (experiment("azize-basu-initial-release-cause"),),
              note="a cause test, not a paper statement: the initial noise is one cause, the "
                   "printed index's small first-episode bonus the other"),
    Statement(AZIZE_BASU_2022, "Fig. 3", EXP, FIG,
              "AdaP-KLUCB's regret depends on eps below about 0.3 and not above",
              (experiment("azize-basu-fig3"), experiment("azize-basu-fig3-variants")),
              note="0.3 matches Theorem 3's regime change d_inf/(6 t_inf) = 0.273, a property "
                   "of the lower bound, not of Eq. (8)"),
]

STATEMENTS: tuple[Statement, ...] = tuple(_AB)
