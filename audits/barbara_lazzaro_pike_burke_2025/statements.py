"""Barbara, Lazzaro & Pike-Burke 2025: the statements dpaudit tracks (``claims barbara``).

Declared as :mod:`dpaudit.reports.ledger` describes (location, how the paper states it, what
tests it by registered name); ``python -m dpaudit claims`` computes each status.
"""

from __future__ import annotations

from dpaudit.reports.ledger import KINDS, READINGS, Statement, claim, experiment

__all__ = ["PAPER", "PAPER_KEYS", "STATEMENTS"]

PRIV, UPPER, LOWER, EXP = KINDS
SUF, NEC, FIG = READINGS

PAPER = BARBARA_2025 = "Barbara, Lazzaro & Pike-Burke 2025"
#: short keys accepted by ``python -m dpaudit claims PAPER`` (the first is the canonical one)
PAPER_KEYS = ("barbara-lazzaro-pike-burke-2025", "barbara", "ldp-thresholding")

_BLP = [
    Statement(BARBARA_2025, "Def. 2.1, Lemma 2.1", PRIV, SUF,
              "the PrivBern reward privatiser is eps-LDP",
              (claim("privbern", "likelihood-ratio-symbolic"), claim("privbern", "exact-loss"))),
    Statement(BARBARA_2025, "Alg. 1, Lemma 2.1", PRIV, SUF,
              "fixed-budget LDP thresholding (Alg. 1) is eps-LDP",
              (claim("ldp-tbp-fixed-budget", "report-ldp-exact"),
               claim("ldp-tbp-fixed-budget", "report-ldp-sampled"))),
    Statement(BARBARA_2025, "Theorem 3.1", UPPER, SUF,
              "fixed-budget LDP thresholding (Alg. 1): expected loss decreases exponentially "
              "in the budget", (experiment("ldp-thresholding"),)),
    Statement(BARBARA_2025, "Theorem 3.2", LOWER, NEC,
              "fixed-budget lower bound for every eps-LDP algorithm: max over B^0..B^K of "
              "E[L] >= (1/4) exp(-c' (e^eps - 1)^2 T / H)",
              (experiment("ldp-thresholding-thm32"),),
              note="constant c' = 16 rebuilt from Appendix C; Algorithm 1 is run on every "
                   "environment of the theorem's family, so a measurement can contradict it"),
    Statement(BARBARA_2025, "Theorem 4.1", PRIV, SUF,
              "fixed-confidence LDP thresholding (Alg. 2) is eps-LDP",
              (claim("ldp-tbp-fixed-confidence", "report-ldp-exact"),
               claim("ldp-tbp-fixed-confidence", "report-ldp-sampled"))),
    Statement(BARBARA_2025, "Theorem 4.1", UPPER, SUF,
              "Alg. 2 returns the correct set with probability 1 - delta within a "
              "sample-complexity bound", (experiment("ldp-thresholding"),)),
    Statement(BARBARA_2025, "Theorem 4.2", LOWER, NEC,
              "fixed-confidence lower bound on the stopping time of every eps-LDP algorithm",
              (experiment("ldp-thresholding"),),
              note="drawn beside Alg. 2's stopping time; the figure is dpaudit's own (the "
                   "paper has none)"),
    Statement(BARBARA_2025, "Sec. 3-4 (after Theorems 3.2 and 4.2)", EXP, FIG,
              "the upper bounds match the lower bounds up to constants",
              (experiment("ldp-thresholding-exponents"),),
              note="the fixed-budget rates differ by c c' (e^eps + 1)^2: constant for eps of "
                   "order 1, growing like e^(2 eps) beyond"),
]

STATEMENTS: tuple[Statement, ...] = tuple(_BLP)
