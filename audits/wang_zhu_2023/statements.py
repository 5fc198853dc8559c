"""Wang & Zhu 2023: the statements dpaudit tracks (``python -m dpaudit claims wang-zhu``).

Declared as :mod:`dpaudit.reports.ledger` describes (location, how the paper states it, what
tests it by registered name); ``python -m dpaudit claims`` computes each status.
"""

from __future__ import annotations

from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_2023
from dpaudit.reports.ledger import KINDS, READINGS, Statement, claim, experiment, regret

__all__ = ["PAPER", "PAPER_KEYS", "STATEMENTS"]

PRIV, UPPER, LOWER, EXP = KINDS
SUF, NEC, FIG = READINGS

PAPER = WANG_ZHU_2023
#: short keys accepted by ``python -m dpaudit claims PAPER`` (the first is the canonical one)
PAPER_KEYS = ("wang-zhu-2023", "wang-zhu", "ftpl")

_WZ = [
    Statement(WANG_ZHU_2023, "Lemma 8", PRIV, SUF,
              "a CDF condition on the perturbation suffices for per-step (eps, delta)-DP",
              (claim("gauss-perturbation", "lemma8-generic"),
               claim("beta-perturbation", "lemma8-generic"),
               claim("lemma15-perturbation", "lemma8-generic"))),
    Statement(WANG_ZHU_2023, "Lemma 9", PRIV, SUF,
              "a CDF condition suffices for global DP under data revision",
              (claim("lemma15-perturbation", "lemma9-generic"),)),
    Statement(WANG_ZHU_2023, "Theorem 4", LOWER, NEC,
              "regret lower bound for (eps, delta)-global DP algorithms (two arms)",
              (experiment("wang-zhu-thm4"),),
              note="display OCR-damaged, constants rebuilt from the proof; evaluated with "
                   "GDP-Elim-New's own regret on I2 (upper 95% limit) and compared with its "
                   "regret on I1 (lower 95% limit)"),
    Statement(WANG_ZHU_2023, "Theorem 11, Fig. 1", PRIV, SUF,
              "DP-FTPL-Gauss (Alg. 1) is (eps, delta)-DP after its start phase",
              (claim("gauss-perturbation", "start-phase-exact"),),
              note="sufficient and holds; conservative by 4x at (1, 0.01) relative to the exact "
                   "Lemma-8 threshold"),
    Statement(WANG_ZHU_2023, "Theorem 11", UPPER, SUF, "regret bound of DP-FTPL-Gauss",
              (regret("dp-ftpl-gauss"),)),
    Statement(WANG_ZHU_2023, "Theorem 13, Fig. 2", PRIV, SUF,
              "DP-FTPL-Beta (Alg. 2) is (eps, delta)-DP after its start phase",
              (claim("beta-perturbation", "start-phase-exact"),),
              note="sufficient and holds; conservative by about 26x at (1, 0.01) relative to the "
                   "exact Lemma-8 threshold (Remark 14 concedes a large constant)"),
    Statement(WANG_ZHU_2023, "Sec. 6.1-6.2, Fig. 1-2 (a)-(b)", EXP, FIG,
              "at (eps, delta) = (1, 0.01), F' is outside Lemma 8's feasible region below N_G "
              "(N_B) and begins to lie in it at N = N_G (N_B)",
              (experiment("wang-zhu-start-phases"),
               experiment("wang-zhu-start-phase-constants")),
              note="the exact Lemma-8 threshold is 2 (Gauss) and 32 (Beta), not 8 and 827 "
                   "; Sec. 6.3 itself notes a large gap at Fig. 1(b) and 2(b)"),
    Statement(WANG_ZHU_2023, "Theorem 13", UPPER, SUF, "regret bound of DP-FTPL-Beta",
              (regret("dp-ftpl-beta"),)),
    Statement(WANG_ZHU_2023, "Lemma 15, Theorem 16", PRIV, SUF,
              "DP-FTPL-New (Alg. 3) with the Lemma-15 perturbation is per-step (eps, delta)-DP",
              (claim("lemma15-perturbation", "lemma15-symbolic"),
               claim("lemma15-perturbation", "exact-divergence"),
               claim("dp-ftpl-new", "lemma15-conditions"),
               claim("dp-ftpl-new", "next-action-exact"),
               claim("dp-ftpl-new", "next-action-sampled"))),
    Statement(WANG_ZHU_2023, "Theorem 16", UPPER, SUF, "regret bound of DP-FTPL-New",
              (regret("dp-ftpl-new"),)),
    Statement(WANG_ZHU_2023, "Theorem 18", PRIV, SUF,
              "GDP-Elim-New (Alg. 4) is (eps, delta)-global DP",
              (claim("gdp-elim-new", "phase-release"), claim("gdp-elim-new", "global-dp"))),
    Statement(WANG_ZHU_2023, "Theorem 18", UPPER, SUF, "regret bound of GDP-Elim-New",
              (regret("gdp-elim-new"),)),
    Statement(WANG_ZHU_2023, "Fig. 4-5", EXP, FIG,
              "DP-FTPL-New has the lowest regret; DP-FTPL-Beta is flat after a long start phase",
              (experiment("wang-zhu-fig4"),)),
    Statement(WANG_ZHU_2023, "Sec. 8, Fig. 4", EXP, FIG,
              "DP-FTPL-New outperforms DP-UCB-INT significantly",
              (experiment("wang-zhu-fig4-narration"),),
              note="judged per panel: the ratio's 95% interval (panels sharing alpha) above 1"),
    Statement(WANG_ZHU_2023, "Fig. 6-7", EXP, FIG,
              "with eps = 0, Gauss regret grows like 1/delta^2 and New like 1/delta",
              (experiment("wang-zhu-fig6"),)),
]

STATEMENTS: tuple[Statement, ...] = tuple(_WZ)
