"""Regret harness: summarise per-run pseudo-regret into a :class:`RegretResult`.

Pseudo-regret of a run is ``sum_t (mu* - mu_{a_t})``; the mean over runs gets a Student-t
confidence interval (runs are independent). The bound is whatever the paper's theorem gives
at the same horizon, computed by the audit file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

from dpaudit.stats.results import RegretResult

__all__ = ["summarise_regret"]


def summarise_regret(
    regrets: np.ndarray,
    *,
    instance: str,
    algorithm: str,
    horizon: int,
    bound: float | None,
    bound_name: str,
    confidence: float = 0.95,
    checkpoints: Sequence[int] = (),
    curves: np.ndarray | None = None,
    details: Sequence[str] = (),
) -> RegretResult:
    """``regrets``: final pseudo-regret per run; ``curves``: runs x checkpoints (optional)."""
    regrets = np.asarray(regrets, dtype=float)
    runs = regrets.size
    mean = float(regrets.mean())
    if runs > 1 and regrets.std(ddof=1) > 0:
        half = float(stats.t.ppf(0.5 + confidence / 2, runs - 1) * regrets.std(ddof=1)
                     / math.sqrt(runs))
    else:
        half = 0.0
    within = None if bound is None else bool(mean <= bound)
    mean_curve = () if curves is None else tuple(float(v) for v in np.mean(curves, axis=0))
    return RegretResult(
        instance=instance, algorithm=algorithm, horizon=int(horizon), runs=runs, mean=mean,
        ci_low=mean - half, ci_high=mean + half, confidence=confidence, bound=bound,
        bound_name=bound_name, within_bound=within, checkpoints=tuple(int(c) for c in checkpoints),
        mean_curve=mean_curve, details=tuple(details),
    )
