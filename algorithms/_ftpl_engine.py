"""Shared machinery of the start-phase FTPL policies (DP-FTPL-Gauss, DP-FTPL-Beta).

A subclass supplies the perturbation in four small pieces: ``init_state(sums, counts)`` (the
per-arm law parameters as ``(runs, K)`` arrays), ``update_state(state, rows, arm, sums,
counts)`` (refresh only the pulled arm of each run), ``draw(state, rng)`` (one ``theta`` per run
and arm) and ``law_pieces(sums, counts)`` (pdf/cdf and breakpoints for the exact law). A
subclass whose noise does not depend on the state (the Gaussian) may add ``draw_block`` /
``from_block`` so that the noise of many steps is drawn in one vectorised call.

Everything else is here, once: the start phase (Algorithms 1-2, lines 2-7: arm 1 is pulled
``N_0`` times, then arm 2, ...; the reward sum of a whole block is one draw per run), the
lockstep perturbed-leader loop, the plain per-step reference, and the exact and sampled next
action given a history (Definition 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from dpaudit.validation import InvalidParameterError, check_int

from ._episodic import EpisodicResult

__all__ = ["FTPLEngine", "block_rewards", "step_rewards"]

BLOCK_VALUES = 1 << 20  # noise values drawn per vectorised call (about 8 MB of float64)


def step_rewards(source: object, step: int, arm: np.ndarray,
                 rng: np.random.Generator) -> np.ndarray:
    """Reward each run observes for ``arm`` at 1-based ``step`` (protocol ``rewards``).

    Reward sources without ``rewards`` (the pre-consolidation ``_episodic`` classes) are read
    through ``block_sums`` with a 0-based start and length 1.
    """
    if hasattr(source, "rewards"):
        return np.asarray(source.rewards(step, arm, rng), dtype=float)
    return np.asarray(source.block_sums(arm, np.full(arm.shape, step - 1),
                                        np.ones(arm.shape, dtype=np.int64), rng), dtype=float)


def block_rewards(source: object, arm: np.ndarray, first: int, length: int,
                  rng: np.random.Generator) -> np.ndarray:
    """Sum of ``arm``'s rewards over 1-based steps ``first .. first + length - 1``, per run."""
    lengths = np.full(arm.shape, length, dtype=np.int64)
    if hasattr(source, "rewards"):
        return np.asarray(source.block_sums(arm, np.full(arm.shape, first), lengths, rng),
                          dtype=float)
    return np.asarray(source.block_sums(arm, np.full(arm.shape, first - 1), lengths, rng),
                      dtype=float)


@lru_cache(maxsize=8)
def _legendre(m: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(m)


def _marks(checkpoints: Sequence[int], horizon: int) -> np.ndarray:
    marks = np.asarray(list(checkpoints), dtype=np.int64)
    if marks.size and (marks.min() < 1 or marks.max() > horizon):
        raise InvalidParameterError(
            f"checkpoints={list(checkpoints)!r} must lie in 1..horizon={horizon}")
    return np.unique(marks)


class FTPLEngine:
    """Base of the start-phase FTPL policies; see the module docstring."""

    name = "FTPL"
    start_phase = 1
    horizon = 2

    # -- the start phase ---------------------------------------------------------------
    def start_arm(self, counts: np.ndarray) -> int | None:
        """The arm the start phase pulls next, or ``None`` when it is over."""
        below = np.flatnonzero(counts < self.start_phase)
        return int(below[0]) if below.size else None

    def history(self, sums: Sequence[float], counts: Sequence[int]) -> tuple[np.ndarray,
                                                                            np.ndarray]:
        """Validated ``(sums, counts)`` of one history (1-d, equal length >= 2)."""
        s = np.asarray(sums, dtype=float)
        n = np.asarray(counts, dtype=float)
        if s.ndim != 1 or s.shape != n.shape or n.size < 2:
            raise InvalidParameterError(
                f"sums={sums!r} and counts={counts!r} must be 1-d of equal length >= 2")
        if np.any(n < 0) or np.any(n != np.round(n)):
            raise InvalidParameterError(f"counts={counts!r} must be integers >= 0")
        if np.any(~np.isfinite(s)) or np.any(s < 0) or np.any(s > n):
            raise InvalidParameterError(f"sums={sums!r} must lie in [0, counts]")
        return s, n

    # -- per-step DP: the next action given a history -------------------------------------
    def next_action_law(self, sums: Sequence[float], counts: Sequence[int], *,
                        nodes: int = 48) -> tuple[np.ndarray, float]:
        """Exact ``P(next action = i)`` for one history, and its numerical error bound.

        Inside the start phase the next arm is fixed (a point mass, error 0). After it,
        ``P(i) = int f_i(x) prod_{j != i} F_j(x) dx`` by composite Gauss-Legendre between the
        arms' quantile breakpoints; the error bound is ``|Q_m - Q_2m|`` summed over arms, plus
        the mass outside the window, plus ``|sum_i P(i) - 1|``.
        """
        s, n = self.history(sums, counts)
        k = n.size
        arm = self.start_arm(n)
        if arm is not None:
            p = np.zeros(k)
            p[arm] = 1.0
            return p, 0.0
        lo, hi, cuts, tail, pdf_cdf = self.law_pieces(s, n)
        pts = np.unique(np.clip(np.concatenate([[lo, hi], cuts]), lo, hi))

        def rule(m: int) -> np.ndarray:
            x, w = _legendre(m)
            a, b = pts[:-1, None], pts[1:, None]
            xs = (0.5 * (b - a) * x[None, :] + 0.5 * (a + b)).ravel()
            ws = (0.5 * (b - a) * w[None, :]).ravel()
            f, cdf = pdf_cdf(xs)
            # leave-one-out products of the other arms' CDFs (prefix and suffix products)
            ones = np.ones((1, xs.size))
            before = np.cumprod(np.vstack([ones, cdf[:-1]]), axis=0)
            after = np.cumprod(np.vstack([ones, cdf[::-1][:-1]]), axis=0)[::-1]
            return (f * before * after) @ ws

        coarse, fine = rule(nodes), rule(2 * nodes)
        err = float(np.abs(fine - coarse).sum()) + tail + abs(float(fine.sum()) - 1.0)
        return np.clip(fine, 0.0, 1.0), err

    def sample_next_actions(self, sums: Sequence[float], counts: Sequence[int], size: int,
                            rng: np.random.Generator) -> np.ndarray:
        """``size`` independent draws of the next action for one history."""
        s, n = self.history(sums, counts)
        size = check_int("size", size, low=1)
        arm = self.start_arm(n)
        if arm is not None:
            return np.full(size, arm, dtype=np.int64)
        out = np.empty(size, dtype=np.int64)
        step = max(1, BLOCK_VALUES // n.size)
        for lo in range(0, size, step):
            m = min(step, size - lo)
            state = self.init_state(np.broadcast_to(s, (m, n.size)).copy(),
                                    np.broadcast_to(n, (m, n.size)).copy())
            out[lo:lo + m] = np.argmax(self.draw(state, rng), axis=1)
        return out

    # -- simulation --------------------------------------------------------------------
    def simulate(self, source: object, horizon: int | None = None, runs: int = 1, *,
                 rng: np.random.Generator, checkpoints: Sequence[int] = (),
                 record: bool = False) -> EpisodicResult:
        """``runs`` runs in lockstep on ``source`` for ``horizon`` steps (default ``T``).

        The start phase costs one reward-sum draw per arm and run; every later step draws the
        ``runs x K`` perturbations in one vectorised call (the Gaussian's noise for many steps
        at once). With ``record=True`` ``decisions`` holds the ``(runs, T)`` actions.
        """
        k = int(source.n_arms)
        horizon = check_int("horizon", self.horizon if horizon is None else horizon, low=k)
        runs = check_int("runs", runs, low=1)
        marks = _marks(checkpoints, horizon)
        gaps = np.asarray(source.gaps, dtype=float)
        sums, counts = np.zeros((runs, k)), np.zeros((runs, k))
        regret, curve = np.zeros(runs), np.zeros((runs, marks.size))
        actions = np.zeros((runs, horizon if record else 0), dtype=np.int16 if k < 2**15
                           else np.int64)
        rows = np.arange(runs)
        t = 0  # steps done
        for a in range(k):  # start phase: one block per arm
            length = min(self.start_phase, horizon - t)
            if length <= 0:
                break
            arm = np.full(runs, a)
            sums[:, a] = block_rewards(source, arm, t + 1, length, rng)
            counts[:, a] = length
            inside = (marks > t) & (marks <= t + length)
            curve[:, inside] = regret[:, None] + gaps[a] * (marks[inside] - t)
            regret += gaps[a] * length
            if record:
                actions[:, t:t + length] = a
            t += length
        if t < horizon:
            self._leader_loop(source, t, horizon, rng, sums, counts, regret, curve, marks,
                              actions if record else None, gaps, rows)
        decisions = actions if record else np.zeros((runs, 0), dtype=np.int64)
        return EpisodicResult(regret, counts.astype(np.int64), decisions,
                              np.zeros(runs, dtype=np.int64), marks, curve)

    def _leader_loop(self, source, done, horizon, rng, sums, counts, regret, curve, marks,
                     actions, gaps, rows) -> None:
        state = self.init_state(sums, counts)
        runs, k = sums.shape
        blocked = hasattr(self, "draw_block")
        block, pos = None, 0
        mark_at = {int(m): j for j, m in enumerate(marks)}
        for t in range(done + 1, horizon + 1):
            if blocked:
                if block is None or pos == block.shape[0]:
                    steps = max(1, min(horizon - t + 1, BLOCK_VALUES // (runs * k)))
                    block, pos = self.draw_block((steps, runs, k), rng), 0
                theta = self.from_block(state, block[pos])
                pos += 1
            else:
                theta = self.draw(state, rng)
            arm = np.argmax(theta, axis=1)
            sums[rows, arm] += step_rewards(source, t, arm, rng)
            counts[rows, arm] += 1.0
            self.update_state(state, rows, arm, sums, counts)
            regret += gaps[arm]
            if actions is not None:
                actions[:, t - 1] = arm
            j = mark_at.get(t)
            if j is not None:
                curve[:, j] = regret

    def simulate_per_step(self, source: object, horizon: int | None = None, runs: int = 1, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> EpisodicResult:
        """The plain reference: one run at a time, one step at a time, as Algorithms 1-2 read.

        Same law as :meth:`simulate` (not the same random stream).
        """
        k = int(source.n_arms)
        horizon = check_int("horizon", self.horizon if horizon is None else horizon, low=k)
        runs = check_int("runs", runs, low=1)
        marks = _marks(checkpoints, horizon)
        gaps = np.asarray(source.gaps, dtype=float)
        regret, curve = np.zeros(runs), np.zeros((runs, marks.size))
        all_counts = np.zeros((runs, k), dtype=np.int64)
        actions = np.zeros((runs, horizon if record else 0), dtype=np.int64)
        one = np.zeros(1, dtype=np.int64)
        for r in range(runs):
            sums, counts = np.zeros(k), np.zeros(k)
            for t in range(1, horizon + 1):
                arm = self.start_arm(counts)
                if arm is None:
                    state = self.init_state(sums[None, :], counts[None, :])
                    arm = int(np.argmax(self.draw(state, rng)[0]))
                one[0] = arm
                sums[arm] += step_rewards(source, t, one, rng)[0]
                counts[arm] += 1
                regret[r] += gaps[arm]
                if record:
                    actions[r, t - 1] = arm
                curve[r, marks == t] = regret[r]
            all_counts[r] = counts
        return EpisodicResult(regret, all_counts, actions, np.zeros(runs, dtype=np.int64),
                              marks, curve)
