"""DP-UCB-Int's calibration points (Tossou & Dimitrakakis 2016, Sec. 4 and Fig. 6) as a finding.

The paper runs DP-UCB-Int with v = 1.1 and input privacy 0.00396431694945 for target 1 and
0.000253053596336 for target 0.1, "such that the overall privacy is (eps, delta)-DP as defined
in Corollary 3.2"; its delta' is stripped in the extracted text. This finding (i) evaluates our
Corollary 3.2 (:mod:`dpaudit.mechanisms.interval_release`) at natural delta', (ii) solves for
the delta' each printed point would need under Corollary 3.1 (for c = 1, e - 1 and 2), and
(iii) accounts the printed inputs exactly with dp-accounting's PLD accountant (one arm pulled
``T`` times, a changed reward in every release), giving their true (epsilon, delta).
"""

from __future__ import annotations

import math

from scipy import optimize

from dpaudit.engine import Budget, CheckContext
from dpaudit.mechanisms.interval_release import (
    C_TIGHT,
    corollary_3_1,
    corollary_3_2,
    pld_bracket,
)
from dpaudit.stats.results import Finding, Notion

#: the paper's printed (target epsilon -> input epsilon) pairs at v = 1.1 (Fig. 6 legends)
PAPER_POINTS = {1.0: 0.00396431694945, 0.1: 0.000253053596336}
V = 1.1
#: pulls of the one arm whose releases are accounted exactly (full run, --quick); also used
#: by the pld-exact claim of dp-ucb-int
PULLS = Budget(full=10**5, quick=10**4)


def implied_log_inv_delta(target: float, input_epsilon: float, c: float) -> float:
    """``ln(1/delta')`` at which Corollary 3.1 maps ``input_epsilon`` to ``target``."""
    def gap(lg: float) -> float:
        return corollary_3_1(input_epsilon, math.exp(-lg), v=V, c=c) - target
    if gap(1e-9) > 0:
        return 0.0
    return float(optimize.brentq(gap, 1e-9, 700.0, xtol=1e-12))


def calibration_finding(ctx: CheckContext) -> Finding:
    pulls = ctx.size(PULLS)
    lines, data = [], {}
    for target, printed in PAPER_POINTS.items():
        ours = {d: corollary_3_2(target, d, v=V) for d in (1e-5, math.exp(-10), 1e-10)}
        implied = {c: implied_log_inv_delta(target, printed, c) for c in (1.0, C_TIGHT, 2.0)}
        lo, hi = pld_bracket(printed, v=V, pulls=pulls)
        eps5 = (lo.get_epsilon_for_delta(1e-5), hi.get_epsilon_for_delta(1e-5))
        eps10 = (lo.get_epsilon_for_delta(1e-10), hi.get_epsilon_for_delta(1e-10))
        d_at = hi.get_delta_for_epsilon(target)
        lines += [
            f"target {target:g}: paper's input {printed:.12g}; Cor. 3.2 (c = e - 1) gives "
            + ", ".join(f"{v:.6g} at delta'={d:.3g}" for d, v in ours.items()),
            "  delta' the printed input needs under Cor. 3.1: ln(1/delta') = "
            + ", ".join(f"{v:.3f} (c = {c:.3g})" for c, v in implied.items()),
            f"  exact (PLD, one arm, {pulls} pulls): eps in [{eps5[0]:.4g}, {eps5[1]:.4g}] at "
            f"delta 1e-5, [{eps10[0]:.4g}, {eps10[1]:.4g}] at 1e-10; delta(eps = {target:g}) "
            f"<= {d_at:.3g}",
        ]
        data[str(target)] = {"printed": printed, "corollary_3_2": ours,
                             "implied_log_inv_delta": {str(c): v for c, v in implied.items()},
                             "pld_eps_at_1e-5": eps5, "pld_eps_at_1e-10": eps10,
                             "pld_delta_at_target_upper": d_at}
    lg1 = data["1.0"]["implied_log_inv_delta"][str(C_TIGHT)]
    lg01 = data["0.1"]["implied_log_inv_delta"][str(C_TIGHT)]
    e1, e01 = data["1.0"]["pld_eps_at_1e-10"][1], data["0.1"]["pld_eps_at_1e-10"][1]
    summary = (f"the printed inputs do not follow from Corollary 3.2 with one delta' (they need "
               f"ln(1/delta') = {lg1:.1f} for target 1 and {lg01:.1f} for target 0.1); "
               f"accounted with the PLD bracket at {pulls} pulls of one arm they are within "
               f"their targets (epsilon at delta' = 1e-10 at most {e1:.3g} and {e01:.3g}); "
               "this says nothing of longer horizons: `reproduce tossou-dp-ucb-int-horizon` "
               "finds target 0.1 exceeded at delta' = 1e-10 from 10^6 pulls")
    return Finding("calibration", summary, Notion.GLOBAL, details=tuple(lines), data=data)
