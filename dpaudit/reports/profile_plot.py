"""Drawing of a sampled claim's privacy profile (:mod:`dpaudit.stats.profile`): the trade-off
plane (type I against type II error; Dong, Roth & Su 2022) with the claimed curve, the
analysis's Gaussian DP curve where the check states one, and the empirical trade-off points;
and the valid epsilon lower bounds against delta. Used by the HTML report and by
``python -m dpaudit plot profile``; the figure shows the report's own numbers only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["draw_profile"]


def draw_profile(fig: Any, profile: Mapping[str, Any], title: str, *,
                 epsilon: float | None = None, delta: float | None = None) -> None:
    """Two panels on ``fig`` (a matplotlib figure): trade-off plane, epsilon against delta.

    ``epsilon`` (and ``delta``): the claim, drawn on the second panel as a line at the
    claimed epsilon (and one at the claimed delta when it is above 0), so a lower bound above
    the claim shows as points above the line."""
    ax_t, ax_e = fig.subplots(1, 2)
    claimed = profile["claimed_curve"]
    ax_t.plot(claimed["type_i"], claimed["type_ii"], color="black", lw=1.4,
              label=claimed["kind"])
    exact = profile.get("exact_curve")
    if exact:
        ax_t.plot(exact["type_i"], exact["type_ii"], color="tab:blue", ls="--", lw=1.2,
                  label=exact["kind"])
    pts = profile["tradeoff_points"]
    ax_t.scatter([p["type_i"] for p in pts], [p["type_ii"] for p in pts], color="tab:red",
                 s=18, zorder=3, label=f"empirical points ({profile['confidence']:.3g}, "
                 "simultaneous): the curve passes on or below each")
    ax_t.set_xlabel("type I error")
    ax_t.set_ylabel("type II error")
    ax_t.set_xlim(-0.02, 1.02)
    ax_t.set_ylim(-0.02, 1.02)
    ax_t.legend(fontsize=6, loc="upper right")
    ax_t.set_title(f"{title}: trade-off", fontsize=8)
    ladder = profile["epsilon_at_delta"]
    ax_e.semilogx([b["delta"] for b in ladder], [b["epsilon_lower_bound"] for b in ladder],
                  marker="o", color="tab:red", label="epsilon lower bound")
    if epsilon is not None:
        ax_e.axhline(epsilon, color="black", lw=1.2, ls="--",
                     label=f"claimed epsilon = {epsilon:g}")
    if delta:
        ax_e.axvline(delta, color="grey", lw=0.8, ls=":", label=f"claimed delta = {delta:g}")
    ax_e.set_xlabel("delta")
    ax_e.set_ylabel("epsilon")
    mu = profile["mu_lower_bound"]
    extra = f"; analysis {profile['analysis_mu']:.3g}" if "analysis_mu" in profile else ""
    ax_e.set_title(f"privacy profile (GDP mu >= {mu:.3g}{extra})", fontsize=8)
    ax_e.legend(fontsize=6)
