"""Shared helpers of the symbolic/exact verification audits; not a registered name."""

from __future__ import annotations

import math
from collections.abc import Callable

from dpaudit.exact.loss import Bounded, OutOfRangeError
from dpaudit.stats.evidence import InconclusiveEvidence
from dpaudit.stats.results import Finding, Notion


def curve_finding(fid: str, summary: str, delta_of: Callable[[float], Bounded | float],
                  epsilon: float, notion: Notion | None = None) -> Finding:
    """The privacy curve ``delta(eps')`` at ``eps' = 0, eps/4, .., 2 eps`` (information only).

    A point double precision cannot evaluate (:class:`~dpaudit.exact.loss.OutOfRangeError`) is
    listed with the reason instead of a number.
    """
    grid = [epsilon * f for f in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)] if epsilon > 0 else \
        [0.0, 0.25, 0.5, 1.0, 2.0]
    grid = [e for e in grid if math.isfinite(e)]  # 2 eps overflows for eps near 1e308
    values: list[float | None] = []
    rows = []
    for e in grid:
        try:
            r = delta_of(e)
        except OutOfRangeError as exc:
            values.append(None)
            rows.append(f"eps'={e:.4g}: not computable in double precision ({exc})")
            continue
        d = float(r.value) if isinstance(r, Bounded) else float(r)
        values.append(d)
        bound = f" (+- {float(r.error):.1g})" if isinstance(r, Bounded) else ""
        rows.append(f"eps'={e:.4g}: delta={d:.6g}{bound}")
    return Finding(fid, summary, notion, details=tuple(rows),
                   data={"epsilon": grid, "delta": values})


def out_of_range(exc: OutOfRangeError) -> InconclusiveEvidence:
    """An exact claim that double precision cannot decide at these parameters: INCONCLUSIVE,
    with the reason, never a crash (issue 9: extreme parameters)."""
    return InconclusiveEvidence(
        f"not computable in double precision at these parameters: {exc}; the symbolic claim "
        "(if any) covers them")
