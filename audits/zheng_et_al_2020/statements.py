"""Zheng et al. 2020: the statements dpaudit tracks (``python -m dpaudit claims zheng``).

Declared as :mod:`dpaudit.reports.ledger` describes (location, how the paper states it, what
tests it by registered name); ``python -m dpaudit claims`` computes each status.
"""

from __future__ import annotations

from dpaudit.reports.ledger import KINDS, READINGS, Statement, claim, regret

__all__ = ["PAPER", "PAPER_KEYS", "STATEMENTS"]

PRIV, UPPER, LOWER, EXP = KINDS
SUF, NEC, FIG = READINGS

PAPER = ZHENG_2020 = "Zheng et al. 2020"
#: short keys accepted by ``python -m dpaudit claims PAPER`` (the first is the canonical one)
PAPER_KEYS = ("zheng-2020", "zheng", "ldp-contextual")


def _zheng(privacy_at: str, regret_at: str, what: str, bound: str, audit: str
           ) -> list[Statement]:
    """One Zheng et al. 2020 algorithm: its LDP claim and its regret statement."""
    return [
        Statement(ZHENG_2020, privacy_at, PRIV, SUF, f"{what} is (eps, delta)-LDP",
                  (claim(audit, "report-ldp-exact"), claim(audit, "report-ldp-sampled"),
                   claim(audit, "report-ldp-code-exact"))),
        Statement(ZHENG_2020, regret_at, UPPER, SUF, f"{what}: {bound}", (regret(audit),),
                  note="orders only (no constants): the regret is reported beside no bound"),
    ]


_ZH = [
    Statement(ZHENG_2020, "Sec. 2 (Gaussian mechanism)", PRIV, SUF,
              "Gaussian noise with the classical calibration is (eps, delta)-DP for eps < 1",
              (claim("gaussian", "classical-calibration-exact"),)),
    *_zheng("Alg. 1, Theorem 2", "Alg. 1, Theorem 2-3, Cor. 4",
            "one-point LDP bandit convex optimisation",
            "O~(T^(3/4)/eps) regret (O~(T^(2/3)/eps) when smooth)", "ldp-one-point"),
    *_zheng("Alg. 2, Theorem 5", "Alg. 2, Theorem 5-6", "two-point LDP bandit convex "
            "optimisation", "the stated regret order", "ldp-two-point-bco"),
    *_zheng("Alg. 5, Theorem 7", "Theorem 8", "LDP contextual linear bandits",
            "O~(T^(3/4)/eps) regret", "ldp-linear-bandit"),
    *_zheng("Alg. 3, Theorem 9", "Theorem 9-10", "LDP generalized linear bandits",
            "the stated regret order", "ldp-glm-bandit"),
]

STATEMENTS: tuple[Statement, ...] = tuple(_ZH)
