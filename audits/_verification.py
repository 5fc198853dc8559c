"""Shared helpers of the symbolic/exact verification audits; not a registered name."""

from __future__ import annotations

from collections.abc import Callable

from dpaudit.results import Finding, Notion


def curve_finding(fid: str, summary: str, delta_of: Callable[[float], float],
                  epsilon: float, notion: Notion | None = None) -> Finding:
    """The privacy curve ``delta(eps')`` at ``eps' = 0, eps/4, .., 2 eps`` (information only)."""
    grid = [epsilon * f for f in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)] if epsilon > 0 else \
        [0.0, 0.25, 0.5, 1.0, 2.0]
    values = [float(delta_of(e)) for e in grid]
    rows = tuple(f"eps'={e:.4g}: delta={d:.6g}" for e, d in zip(grid, values, strict=True))
    return Finding(fid, summary, notion, details=rows,
                   data={"epsilon": grid, "delta": values})
