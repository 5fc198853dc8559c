"""Every statement of the five papers that dpaudit tracks, declared once (``claims`` command).

Each :class:`~dpaudit.reports.ledger.Statement` names its paper, its location (theorem, equation,
figure), whether the paper states it as a sufficient guarantee, a necessary condition (a lower
bound) or as figure narration, and what tests it, by registered name: a claim of an audit, an
audit's regret experiment or a figure reproduction. Names that are not registered yet (DP-UCB
and its family, the LDP thresholding and contextual algorithms) are listed anyway: the ledger
reports them as "not yet implemented" until an audit or experiment with that name lands, then
runs it, without any change here. Status is never written here; ``python -m dpaudit claims``
computes it.
"""

from __future__ import annotations

from dpaudit.algorithms.papers import AZIZE_BASU_2022, TOSSOU_DIMITRAKAKIS_2016, WANG_ZHU_2023
from dpaudit.reports.ledger import Statement, claim, experiment, regret

__all__ = ["PAPERS", "STATEMENTS"]

BARBARA_2025 = "Barbara, Lazzaro & Pike-Burke 2025"
ZHENG_2020 = "Zheng et al. 2020"
SUF, NEC, FIG = "sufficient (theorem)", "necessary (theorem)", "figure narration"
PRIV, UPPER, LOWER, EXP = "privacy", "regret upper bound", "lower bound", "experiment"

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
              (regret("adap-ucb"), experiment("adap-ucb-index-thm7")),
              note="fails at small eps with Eq. (7) as printed (privacy term under the root); "
                   "holds on the grid with the term outside the root (docs/findings.md, F1)"),
    Statement(AZIZE_BASU_2022, "Theorem 8, Eq. (8)", UPPER, SUF,
              "AdaP-KLUCB's regret is O(sum_a Delta_a ln T / min(d_inf, C eps t_inf)) "
              "(constants not given)", (regret("adap-klucb"),)),
    Statement(AZIZE_BASU_2022, "Fig. 2", EXP, FIG,
              "AdaP-KLUCB < AdaP-UCB, both about 10x lower regret than DP-SE and DP-UCB",
              (experiment("azize-basu-fig2"), experiment("azize-basu-fig2-ratio")),
              note="DP-SE (beta = 1/T) measures about 2x AdaP-KLUCB, not 10x (F2)"),
    Statement(AZIZE_BASU_2022, "Fig. 3", EXP, FIG,
              "AdaP-KLUCB's regret depends on eps below about 0.3 and not above",
              (experiment("azize-basu-fig3"), experiment("azize-basu-fig3-variants")),
              note="0.3 matches Theorem 3's regime change d_inf/(6 t_inf) = 0.273, a property "
                   "of the lower bound, not of Eq. (8) (F4)"),
]

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
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Theorem 3.5", UPPER, SUF,
              "regret bound of DP-UCB-Int", (regret("dp-ucb-int"),)),
    Statement(TOSSOU_DIMITRAKAKIS_2016, "Fig. 6", EXP, FIG,
              "best-minus-worst regret over 100 runs < 664.5 (2 arms) for DP-UCB-* and UCB; "
              "much larger for Private-UCB", (experiment("tossou-fig6"),)),
]

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
]

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
                   "Lemma-8 threshold (F3)"),
    Statement(WANG_ZHU_2023, "Theorem 11", UPPER, SUF, "regret bound of DP-FTPL-Gauss",
              (regret("dp-ftpl-gauss"),)),
    Statement(WANG_ZHU_2023, "Theorem 13, Fig. 2", PRIV, SUF,
              "DP-FTPL-Beta (Alg. 2) is (eps, delta)-DP after its start phase",
              (claim("beta-perturbation", "start-phase-exact"),),
              note="sufficient and holds; conservative by about 26x at (1, 0.01) relative to the "
                   "exact Lemma-8 threshold (Remark 14 concedes a large constant; F3)"),
    Statement(WANG_ZHU_2023, "Sec. 6.1-6.2, Fig. 1-2 (a)-(b)", EXP, FIG,
              "at (eps, delta) = (1, 0.01), F' is outside Lemma 8's feasible region below N_G "
              "(N_B) and begins to lie in it at N = N_G (N_B)",
              (experiment("wang-zhu-start-phases"),),
              note="the exact Lemma-8 threshold is 2 (Gauss) and 32 (Beta), not 8 and 827 "
                   "(F3); Sec. 6.3 itself notes a large gap at Fig. 1(b) and 2(b)"),
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
    Statement(WANG_ZHU_2023, "Fig. 6-7", EXP, FIG,
              "with eps = 0, Gauss regret grows like 1/delta^2 and New like 1/delta",
              (experiment("wang-zhu-fig6"),)),
]

def _zheng(privacy_at: str, regret_at: str, what: str, bound: str, audit: str
           ) -> list[Statement]:
    """One Zheng et al. 2020 algorithm: its LDP claim and its regret statement."""
    return [
        Statement(ZHENG_2020, privacy_at, PRIV, SUF, f"{what} is (eps, delta)-LDP",
                  (claim(audit, "report-ldp-exact"), claim(audit, "report-ldp-sampled"))),
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

STATEMENTS: tuple[Statement, ...] = (*_AB, *_TD, *_BLP, *_WZ, *_ZH)
#: paper name -> short keys accepted by ``python -m dpaudit claims PAPER``
PAPERS = {
    AZIZE_BASU_2022: ("azize-basu-2022", "azize", "adap"),
    TOSSOU_DIMITRAKAKIS_2016: ("tossou-dimitrakakis-2016", "tossou", "dp-ucb"),
    BARBARA_2025: ("barbara-lazzaro-pike-burke-2025", "barbara", "ldp-thresholding"),
    WANG_ZHU_2023: ("wang-zhu-2023", "wang-zhu", "ftpl"),
    ZHENG_2020: ("zheng-2020", "zheng", "ldp-contextual"),
}
