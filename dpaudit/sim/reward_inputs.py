"""One run's rewards from a reward source, for code run one run at a time (adapters)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.validation import InvalidParameterError

__all__ = ["realise_rewards"]


def realise_rewards(source: Any, horizon: int, rng: np.random.Generator | None) -> np.ndarray:
    """One run's ``(T, K)`` rewards from a reward source (what each arm pays at each step).

    A fixed table (Azize & Basu 2022, Definition 2) is returned as it is; an instance of
    Bernoulli arms draws every entry independently and applies its revision rule (Wang &
    Zhu 2023, Definition 3: the reward at the revised step is the revised value whichever arm
    is pulled). Only the entry of the pulled arm is ever read, so drawing all ``K`` entries of
    a step gives each run the law of the source. Other sources are asked step by step.
    ``rng`` may be ``None`` only for a fixed table (nothing is drawn).
    """
    k = int(source.n_arms)
    table = getattr(source, "table", None)
    if table is not None:
        arr = np.asarray(table, dtype=float)
        if arr.ndim == 1:
            arr = np.repeat(arr[:, None], k, axis=1)
        if arr.shape[0] < horizon:
            raise InvalidParameterError(
                f"horizon={horizon} must be at most the reward table's {arr.shape[0]} steps")
        return np.array(arr[:horizon], dtype=float)
    if rng is None:
        raise InvalidParameterError(f"source={source!r} draws its rewards: rng must be a "
                                    "numpy.random.Generator")
    means = getattr(source, "means", None)
    if means is not None and hasattr(source, "revision_step"):
        out = (rng.random((horizon, k)) < np.asarray(means)).astype(float)
        step = source.revision_step
        if step is not None and step <= horizon:
            out[step - 1, :] = source.revision_value
        return out
    arms = np.arange(k)
    return np.stack([np.asarray(source.rewards(t, arms, rng), dtype=float)
                     for t in range(1, horizon + 1)])
