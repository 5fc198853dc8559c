"""Tossou & Dimitrakakis 2016: the statements dpaudit tracks (``python -m dpaudit claims tossou``).

Declared as :mod:`dpaudit.reports.ledger` describes (location, how the paper states it, what
tests it by registered name); ``python -m dpaudit claims`` computes each status.
"""

from __future__ import annotations

from dpaudit.algorithms.tossou_dimitrakakis_2016.instances import TOSSOU_DIMITRAKAKIS_2016
from dpaudit.reports.ledger import KINDS, READINGS, Statement, claim, experiment, regret

__all__ = ["PAPER", "PAPER_KEYS", "STATEMENTS"]

PRIV, UPPER, LOWER, EXP = KINDS
SUF, NEC, FIG = READINGS

PAPER = TOSSOU_DIMITRAKAKIS_2016
#: short keys accepted by ``python -m dpaudit claims PAPER`` (the first is the canonical one)
PAPER_KEYS = ("tossou-dimitrakakis-2016", "tossou", "dp-ucb")

_TD = [
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Sec. 2.3 (hybrid mechanism)", PRIV, SUF,
              "the hybrid continual counter (Chan, Shi & Song 2011) is eps-DP",
              (claim("hybrid-counter", "node-count-exact"),
               claim("hybrid-counter", "composition-symbolic"))),
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Theorem 3.1", PRIV, SUF,
              "DP-UCB-Bound (Alg. 1) is eps-DP after any number of plays",
              (claim("dp-ucb-bound", "global-dp"),)),
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Theorem 3.2", UPPER, SUF,
              "regret bound of DP-UCB-Bound", (regret("dp-ucb-bound"),),
              note="formula stripped; reconstructed from App. A.1's steps (UCB1 decomposition, "
                   "Eq. 2.2 error at gamma = t^-4, W_-1 step), x at its minimiser; measured "
                   "regret 0.07-0.19 of it at eps 0.1-8 (docs/tossou_dimitrakakis.md)"),
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Theorem 3.3", UPPER, SUF,
              "regret bound of DP-UCB (Alg. 2)", (regret("dp-ucb"),),
              note="formula stripped; reconstructed as Theorem 3.2's decomposition with the "
                   "counter error of a length-t stream; the step for the best arm's first "
                   "pulls is not covered for DP-UCB's unwidened index (docs)"),
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Theorem 3.4, Cor. 3.1-3.2", PRIV, SUF,
              "DP-UCB-Int (Alg. 3) is (eps, delta)-DP with the stated input epsilon",
              (claim("dp-ucb-int", "global-dp"),)),
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Sec. 4, Fig. 6 (calibration)", PRIV, SUF,
              "DP-UCB-Int with v = 1.1 and input rates 0.00396431694945 / 0.000253053596336 "
              "is (1, delta')- / (0.1, delta')-DP (Corollary 3.2; delta' stripped)",
              (experiment("tossou-dp-ucb-int-horizon"),),
              note="release-level brackets over 1e4..1e8 pulls and the limit at three delta': "
                   "target 0.1 fails at delta' = 1e-10 from 1e6 pulls; the rest hold or are "
                   "undecided"),
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Theorem 3.5", UPPER, SUF,
              "regret bound of DP-UCB-Int", (regret("dp-ucb-int"),)),
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Fig. 6", EXP, FIG,
              "best-minus-worst regret over 100 runs < 664.5 (2 arms) for DP-UCB-* and UCB; "
              "much larger for Private-UCB", (experiment("tossou-fig6"),)),
]

STATEMENTS: tuple[Statement, ...] = tuple(_TD)
