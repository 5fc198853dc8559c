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

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms import _step_kernels as sk
from dpaudit.interfaces import RewardSource
from dpaudit.sim.bandits import (
    BernoulliRewards,
    RegretTracker,
    SimulationResult,
    bernoulli_observation,
    check_simulation,
    result_from_actions,
)
from dpaudit.validation import check_history, check_int

__all__ = ["FTPLEngine"]

BLOCK_VALUES = 1 << 20  # noise values drawn per vectorised call (about 8 MB of float64)


@lru_cache(maxsize=8)
def _legendre(m: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(m)


class FTPLEngine:
    """Base of the start-phase FTPL policies; see the module docstring."""

    name = "FTPL"
    start_phase = 1
    horizon = 2

    # the hooks of Algorithms 1 and 2 (the subclasses), declared for the type checker only:
    # not defined here, since ``hasattr`` reads ``draw_block`` (optional: the blocked draw)
    # and ``law_pieces`` (the exact law)
    init_state: Callable[[np.ndarray, np.ndarray], Any]
    update_state: Callable[[Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]
    draw: Callable[[Any, np.random.Generator], np.ndarray]
    draw_block: Callable[[tuple[int, ...], np.random.Generator], np.ndarray]
    from_block: Callable[[Any, np.ndarray], np.ndarray]
    law_pieces: Callable[[np.ndarray, np.ndarray], tuple[Any, ...]]

    # -- the start phase ---------------------------------------------------------------
    def start_arm(self, counts: np.ndarray) -> int | None:
        """The arm the start phase pulls next, or ``None`` when it is over."""
        below = np.flatnonzero(counts < self.start_phase)
        return int(below[0]) if below.size else None

    def history(self, sums: Sequence[float], counts: Sequence[int]) -> tuple[np.ndarray,
                                                                            np.ndarray]:
        """Validated ``(sums, counts)`` of one history (1-d, equal length >= 2)."""
        return check_history(sums, counts, min_count=0)

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
    def kernel(self) -> tuple | None:
        """``(compiled kernel, parameters)`` of :mod:`._step_kernels`, or ``None`` (no kernel:
        the numpy lockstep loop is the fast path)."""
        return None

    def simulate(self, source: RewardSource, horizon: int | None = None, runs: int = 1, *,
                 rng: np.random.Generator, checkpoints: Sequence[int] = (),
                 record: bool = False, backend: str = "auto", releases=None
                 ) -> SimulationResult:
        """``runs`` runs on ``source`` for ``horizon`` steps (default ``T``).

        With a compiled kernel (:meth:`kernel`; ``backend`` ``"auto"`` or ``"numba"``) each
        run is simulated step by step in compiled code. Otherwise (``"numpy"``) in lockstep:
        the start phase costs one reward-sum draw per arm and run; every later step draws the
        ``runs x K`` perturbations in one vectorised call (the Gaussian's noise for many steps
        at once). Observations are ``source.rewards`` (0/1 for Bernoulli arms). Both paths
        have the same law. ``releases`` (the recording hook, :mod:`dpaudit.sim.releases`)
        receives every perturbed score ``theta`` (``(runs, K)``, label ``"theta"``), the value
        Lemma 8 is about; it is served by the numpy path.
        """
        kernel = self.kernel()
        compiled = kernel is not None and kern.use_compiled(backend) and releases is None
        horizon, runs, cps = check_simulation(
            source, self.horizon if horizon is None else horizon, runs, rng, checkpoints)
        if compiled and kernel is not None:
            return sk.run_kernel(kernel[0], source, horizon, runs, rng=rng, cps=cps,
                                 record=record, params=kernel[1])[0]
        k = int(source.n_arms)
        track = RegretTracker(runs, source.gaps, cps, horizon=horizon, record=record)
        sums, counts = np.zeros((runs, k)), np.zeros((runs, k))
        t = 0  # steps done
        for a in range(k):  # start phase: one block per arm (Algorithms 1-2, lines 2-7)
            length = min(self.start_phase, horizon - t)
            if length <= 0:
                break
            arm = np.full(runs, a)
            sums[:, a] = self._block_observations(source, arm, t + 1, length, rng)
            counts[:, a] = length
            track.add(arm, t + 1, length)
            t += length
        if t < horizon:
            self._leader_loop(source, t, horizon, rng, sums, counts, track, releases)
        return track.result()

    @staticmethod
    def _block_observations(source, arm: np.ndarray, first: int, length: int,
                            rng: np.random.Generator) -> np.ndarray:
        """Sum of the observations of ``arm`` over a start-phase block, per run.

        Bernoulli arms: one ``Binomial(length, mu)`` draw (``source.block_sums``). Any other
        source: step by step, each reward in ``[0, 1]`` observed as a Bernoulli draw of it
        (the trick of Agrawal & Goyal that Wang & Zhu 2023 use, Sec. 3.1), as the per-step
        reference does.
        """
        runs = arm.size
        if isinstance(source, BernoulliRewards):
            return source.block_sums(arm, np.full(runs, first), np.full(runs, length), rng)
        total = np.zeros(runs)
        for t in range(first, first + length):
            total += bernoulli_observation(source.rewards(t, arm, rng), rng)
        return total

    def _leader_loop(self, source, done, horizon, rng, sums, counts, track,
                     releases=None) -> None:
        state = self.init_state(sums, counts)
        runs, k = sums.shape
        rows = np.arange(runs)
        blocked = hasattr(self, "draw_block")
        block, pos = None, 0
        for t in range(done + 1, horizon + 1):
            if blocked:
                if block is None or pos == block.shape[0]:
                    steps = max(1, min(horizon - t + 1, BLOCK_VALUES // (runs * k)))
                    block, pos = self.draw_block((steps, runs, k), rng), 0
                theta = self.from_block(state, block[pos])
                pos += 1
            else:
                theta = self.draw(state, rng)
            if releases is not None:
                releases.record(theta, step=t, label="theta")
            arm = np.argmax(theta, axis=1)
            sums[rows, arm] += bernoulli_observation(source.rewards(t, arm, rng), rng)
            counts[rows, arm] += 1.0
            self.update_state(state, rows, arm, sums, counts)
            track.step(arm, t)

    def simulate_per_step(self, source: RewardSource, horizon: int | None = None, runs: int = 1, *,
                          rng: np.random.Generator, checkpoints: Sequence[int] = (),
                          record: bool = False) -> SimulationResult:
        """The plain reference: one run at a time, one step at a time, as Algorithms 1-2 read.

        Same law as :meth:`simulate` (not the same random stream).
        """
        horizon, runs, cps = check_simulation(
            source, self.horizon if horizon is None else horizon, runs, rng, checkpoints)
        k = int(source.n_arms)
        actions = np.zeros((runs, horizon), dtype=np.int64)
        one = np.zeros(1, dtype=np.int64)
        for r in range(runs):
            sums, counts = np.zeros(k), np.zeros(k)
            for t in range(1, horizon + 1):
                arm = self.start_arm(counts)
                if arm is None:
                    state = self.init_state(sums[None, :], counts[None, :])
                    arm = int(np.argmax(self.draw(state, rng)[0]))
                one[0] = arm
                sums[arm] += float(bernoulli_observation(source.rewards(t, one, rng), rng)[0])
                counts[arm] += 1
                actions[r, t - 1] = arm
        return result_from_actions(actions, source.gaps, cps, record=record)
