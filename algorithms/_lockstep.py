"""Lockstep simulation of per-step index policies (UCB family of Tossou & Dimitrakakis 2016).

Every policy of this family acts at every step, so a run cannot be cut into episodes. What
*can* be shared across steps is the randomness: rewards are Bernoulli (``U < p``), ties are
broken by a second uniform ``V``, and the continual counters' noise does not depend on the
data. :func:`run_chunks` draws, for a chunk of ``C`` steps of every run at once, ``U`` and
``V`` of shape ``(runs, C)`` and the counters' fresh node noise ``Z`` of shape
``(runs, C, nz)`` (standard Laplace, as exponential magnitudes and sign bits) in one
vectorised pass each, and hands the chunk to a step function (the
numpy lockstep reference or the compiled kernel of :mod:`._kernels`); both consume the same
numbers, so they give the same results.

Reward sources are read as *rows* (:func:`probability_rows`): a ``(P, K)`` array and the row
of every step; a row holds Bernoulli means (an instance: one row, the reward is ``U < p``) or
fixed rewards (a revised step of Wang & Zhu 2023, Definition 3, or a fixed ``(T, K)`` table
of Azize & Basu 2022, Definition 2: the reward is the entry).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from dpaudit.interfaces import RewardSource
from dpaudit.sim.bandits import SimulationResult, check_simulation
from dpaudit.validation import InvalidParameterError

__all__ = ["CHUNK", "Chunk", "laplace_parts", "probability_rows", "run_chunks", "signed",
           "standard_laplace", "tie_break"]

#: steps per chunk of pre-drawn random numbers (part of the law's realisation: the numpy and
#: compiled paths use the same chunking, so they see the same numbers)
CHUNK = 2048


def probability_rows(source: RewardSource, horizon: int) -> tuple[np.ndarray, np.ndarray, Callable]:
    """``(rows, drawn, row_of)``: reward rows, whether each row holds Bernoulli means (drawn
    as ``U < p``) or fixed rewards (observed as they are), and ``steps (1-based) -> rows``.

    A :class:`~dpaudit.sim.bandits.BernoulliRewards` is one drawn row (plus a fixed row for its
    revised step); a :class:`~dpaudit.sim.bandits.TableRewards` is its own ``(T, K)`` fixed rows.
    """
    table = getattr(source, "table", None)
    if table is not None:
        tab = np.asarray(table, dtype=float)
        if tab.ndim == 1:
            tab = np.repeat(tab[:, None], int(source.n_arms), axis=1)
        return tab, np.zeros(tab.shape[0], dtype=bool), lambda t: np.asarray(t) - 1
    means = getattr(source, "means", None)
    if means is None:
        raise InvalidParameterError(f"source={source!r} must be a BernoulliRewards or "
                                    "TableRewards (dpaudit.sim.bandits)")
    mu = np.asarray(means, dtype=float)[None, :]
    step = getattr(source, "revision_step", None)
    if step is None:
        return mu, np.ones(1, dtype=bool), lambda t: np.zeros(np.shape(t), dtype=np.int64)
    value = getattr(source, "revision_value")  # noqa: B009 - a revising source has both
    rows = np.concatenate([mu, np.full_like(mu, float(value))])
    return rows, np.array([True, False]), lambda t: (np.asarray(t) == step).astype(np.int64)


def tie_break(index: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise argmax; among ``m`` tied maxima the ``floor(v m)``-th (``v`` uniform)."""
    top = index >= index.max(axis=1, keepdims=True)
    m = top.sum(axis=1)
    j = np.minimum((v * m).astype(np.int64), m - 1) + 1
    return np.argmax(top & (np.cumsum(top, axis=1) == j[:, None]), axis=1)


SIGN_BITS = 63  # random sign bits per int64 word


#: bit generators whose raw output is one 64-bit word per call, as ``integers`` consumes it
_RAW64 = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)


def laplace_parts(rng: np.random.Generator, shape: tuple[int, ...],
                  out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Standard Laplace draws as ``(magnitudes, sign words)``: a standard exponential with a
    uniform random sign (the law of ``rng.laplace(0, 1)``, several times cheaper: the
    counters' noise dominates the random numbers DP-UCB consumes). Node ``a`` of the last
    axis takes bit ``a % 63`` of word ``a // 63``; a set bit means positive.

    The words are ``rng.integers(0, 2**63, dtype=int64)``. For a bit generator with 64-bit
    raw output (PCG64, PCG64DXSM, Philox, SFC64) NumPy's bounded-integer draw (Lemire's
    method with range ``2^63``: the threshold is 0, nothing is rejected) returns exactly
    ``raw >> 1``, so the words are taken from ``bit_generator.random_raw`` directly: the same
    numbers from the same stream (tested), at a third of the cost. ``out``: a contiguous
    float buffer of at least ``prod(shape)`` entries for the magnitudes (reused between
    chunks: no fresh pages per chunk)."""
    words = -(-shape[-1] // SIGN_BITS)
    size = int(np.prod(shape))
    if not shape[-1]:
        mag = np.zeros(shape)
    elif out is not None:
        mag = out[:size].reshape(shape)
        rng.standard_exponential(out=mag)
    else:
        mag = rng.standard_exponential(shape)
    wshape = (*shape[:-1], words)
    if words and isinstance(rng.bit_generator, _RAW64):
        raw = rng.bit_generator.random_raw(int(np.prod(wshape)))
        np.right_shift(raw, np.uint64(1), out=raw)
        bits = raw.view(np.int64).reshape(wshape)
    else:
        bits = rng.integers(0, 1 << SIGN_BITS, size=wshape, dtype=np.int64)
    return mag, bits


def signed(mag: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Apply the sign words of :func:`laplace_parts` to magnitudes ``(..., n)``."""
    a = np.arange(mag.shape[-1])
    on = (np.take(bits, a // SIGN_BITS, axis=-1) >> (a % SIGN_BITS)) & 1
    return np.where(on == 1, mag, -mag)


def standard_laplace(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Signed draws of :func:`laplace_parts` (what the benchmark times)."""
    return signed(*laplace_parts(rng, shape))


class Chunk:
    """The pre-drawn numbers and bookkeeping of steps ``t0 .. t0 + C - 1`` (1-based)."""

    __slots__ = ("cp_col", "drawn", "logt", "mag", "prob", "sbits", "t0", "u", "v")

    def __init__(self, t0: int, u: np.ndarray, v: np.ndarray, mag: np.ndarray,
                 sbits: np.ndarray, prob: np.ndarray, drawn: np.ndarray,
                 cp_col: np.ndarray) -> None:
        self.t0, self.u, self.v, self.prob, self.cp_col = t0, u, v, prob, cp_col
        self.mag, self.sbits, self.drawn = mag, sbits, drawn
        self.logt = np.log(np.arange(t0, t0 + u.shape[1], dtype=float))

    def noise(self, c: int) -> np.ndarray:
        """The signed standard Laplace node draws of step ``t0 + c``: ``(runs, nz)``."""
        return signed(self.mag[:, c, :], self.sbits[:, c, :])


def run_chunks(source: RewardSource, horizon: int, runs: int, *, rng: np.random.Generator,
               checkpoints: Sequence[int], record: bool, noise_per_step: int,
               step: Callable[[Chunk, np.ndarray, np.ndarray, np.ndarray | None], None],
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Drive ``step(chunk, regret, curve, actions)`` over the horizon.

    Returns ``(regret, curve, checkpoints, actions)``; the step function updates the arrays
    (and its own state) in place. ``noise_per_step``: standard Laplace draws per run and step.
    """
    horizon, runs, cps = check_simulation(source, horizon, runs, rng, checkpoints)
    k = int(source.n_arms)
    rows, drawn_rows, row_of = probability_rows(source, horizon)
    if rows.shape[1] != k:
        raise InvalidParameterError(f"reward rows have {rows.shape[1]} arms, expected {k}")
    regret = np.zeros(runs)
    curve = np.zeros((runs, cps.size))
    actions = np.zeros((runs, horizon), dtype=np.int16 if k > 127 else np.int8) if record \
        else None
    t0 = 1
    # buffers reused by every chunk (``out=`` draws the same numbers as a fresh array; fresh
    # multi-megabyte arrays cost page faults in every chunk)
    first = min(CHUNK, horizon)
    ubuf, vbuf = np.empty(runs * first), np.empty(runs * first)
    mbuf = np.empty(runs * first * noise_per_step)
    while t0 <= horizon:
        c = min(CHUNK, horizon - t0 + 1)
        u = ubuf[:runs * c].reshape(runs, c)
        v = vbuf[:runs * c].reshape(runs, c)
        rng.random(out=u)
        rng.random(out=v)
        mag, sbits = laplace_parts(rng, (runs, c, noise_per_step), out=mbuf)
        steps = np.arange(t0, t0 + c)
        r = row_of(steps)
        prob = np.ascontiguousarray(rows[r])
        step(Chunk(t0, u, v, mag, sbits, prob, drawn_rows[r], _checkpoint_columns(cps, steps)),
             regret, curve, actions)
        t0 += c
    return regret, curve, cps, actions


def _checkpoint_columns(cps: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Column of each step in the checkpoint curve, ``-1`` for a step that is none (per
    chunk, so memory does not grow with the horizon)."""
    if cps.size == 0:
        return np.full(steps.size, -1, dtype=np.int64)
    pos = np.searchsorted(cps, steps)
    hit = cps[np.minimum(pos, cps.size - 1)] == steps
    return np.where(hit, pos, -1).astype(np.int64)


def result(regret: np.ndarray, counts: np.ndarray, cps: np.ndarray, curve: np.ndarray,
           actions: np.ndarray | None) -> SimulationResult:
    return SimulationResult(regret=regret, counts=counts, checkpoints=cps, curve=curve,
                            actions=None if actions is None else actions.astype(np.int64))
