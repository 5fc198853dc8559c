"""DP-FTPL-Gauss and DP-FTPL-Beta (Wang & Zhu 2023, Algorithms 1 and 2, Theorems 11 and 13).

Both algorithms follow the same plan (Wang & Zhu 2023, Sec. 6.1-6.2):

1. **Start phase** (Algorithm 1/2, lines 2-7): ``for i = 1..N: while N_i < N_0: pull arm i``,
   i.e. arm 1 is pulled ``N_0`` times, then arm 2, and so on (``N_0 = ceil(N_G)`` or
   ``ceil(N_B)``). The next action does not depend on the observations here, so every step of
   the start phase is trivially private (the paper's remark after Algorithm 1).
2. **Perturbed leader** (lines 8-12): at every later step each arm draws an independent sample
   ``theta_i`` from a law that depends only on its own ``(R_i, N_i)`` and the arm with the
   largest sample is pulled.

* DP-FTPL-Gauss: ``theta_i ~ N(R_i / N_i, v / N_i)`` with ``v = 2`` (the variance is OCR-damaged;
  the reconstruction from the proof's density-ratio and total-variation lines is in
  :mod:`dpaudit.mechanisms.gauss_perturbation`; ``v`` is the named parameter
  ``variance_factor``). ``N_G = min{1/(4 pi delta^2), ln(e/(4 pi delta^2))/eps^2}``.
* DP-FTPL-Beta: ``theta_i ~ Beta(a_i + k_i, b_i + k_i)``, ``a_i = R_i + 1``,
  ``b_i = N_i - R_i + 1``, ``k_i = floor(N_i / 8) + 1`` (readable in the seed text);
  ``N_B`` reconstructed in :mod:`dpaudit.mechanisms.beta_perturbation`.

``start_phase`` chooses ``N_0``: ``"paper"`` (the printed formulas), ``"tight"`` (beyond the
paper: the exact smallest count from which Lemma 8 holds for every later count, computed by the
mechanism checks: 2 instead of 8 for Gauss at (1, 0.01), 32 instead of 827 for Beta), or an
explicit integer (``1`` is the broken twin "no start phase" of the audits).

Per-step DP (Definition 1) is about the law of the next action given a history summarised by
the per-arm reward sums and counts. :meth:`next_action_law` computes it exactly:
``P(i) = int f_i(x) prod_{j != i} F_j(x) dx`` (one-dimensional, composite Gauss-Legendre
between the arms' quantile breakpoints, with the error bound ``|Q_m - Q_2m|`` plus the mass
outside the integration window).
"""

from __future__ import annotations

import math
from functools import lru_cache, partial

import numpy as np
from scipy import special

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms.wang_zhu_2023._ftpl_engine import FTPLEngine
from dpaudit.algorithms.wang_zhu_2023._ftpl_kernels import ftpl_gauss_kernel
from dpaudit.algorithms.wang_zhu_2023.bounds import ftpl_no_bound
from dpaudit.algorithms.wang_zhu_2023.instances import WANG_ZHU_INSTANCE_1
from dpaudit.mechanisms.beta_perturbation import (
    DEFAULT_FLOOR,
    beta_parameters,
    beta_start_phase,
    beta_worst_delta,
)
from dpaudit.mechanisms.gauss_perturbation import gauss_smallest_count, gauss_start_phase
from dpaudit.sim.bandits import PolicyEntry
from dpaudit.validation import (
    InvalidParameterError,
    check_epsilon_delta,
    check_int,
    check_real,
)

__all__ = ["POLICIES", "DPFTPLBeta", "DPFTPLGauss", "beta_tight_start_phase",
           "resolve_start_phase", "start_phase_summary"]

TAIL_SD = 12.0  # Gaussian integration window: centre +- 12 sd (mass outside < 4e-33 per arm)


def resolve_start_phase(start_phase: object, paper: float, tight: int) -> int:
    """``N_0`` from ``"paper"`` (``ceil`` of the printed real), ``"tight"`` or an int >= 1."""
    if isinstance(start_phase, str):
        if start_phase == "paper":
            return max(1, math.ceil(paper))
        if start_phase == "tight":
            return max(1, tight)
        raise InvalidParameterError(
            f"start_phase={start_phase!r} must be 'paper', 'tight' or an integer >= 1")
    return check_int("start_phase", start_phase, low=1)


#: the exact scan of :func:`beta_tight_start_phase` visits every count up to ``N_B`` (each an
#: O(N) pass over R); beyond this many counts (small eps or tiny delta: N_B = 38456 at
#: (0.05, 0.01)) it would take minutes to hours, so it is refused rather than left to hang
TIGHT_SCAN_LIMIT = 3000


@lru_cache(maxsize=64)
def beta_tight_start_phase(epsilon: float, delta: float, *, padding: bool = True,
                           floor: float = DEFAULT_FLOOR) -> int:
    """Smallest ``n0`` such that every ``N`` in ``n0 .. ceil(N_B)`` passes Lemma 8 exactly.

    The exact worst-case divergence over every ``R`` (:func:`beta_worst_delta`) is not monotone
    in ``N`` (``k = floor(N/8) + 1`` jumps), so every count up to the paper's ``N_B`` is scanned
    and the answer is one above the largest count not certainly passing (its divergence plus
    its error bound above delta). Counts above ``N_B`` are the
    paper's own claim (checked on a grid by ``check beta-perturbation``).
    """
    eps, dl = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
    top = math.ceil(beta_start_phase(eps, dl, floor=floor))
    if top > TIGHT_SCAN_LIMIT:
        raise InvalidParameterError(
            f"start_phase='tight' at (epsilon={eps!r}, delta={dl!r}) must scan every count up "
            f"to N_B = {top}, more than the exact scan's limit of {TIGHT_SCAN_LIMIT} counts; "
            "give the start phase as an integer instead")
    fails = [n for n in range(1, top + 1)
             if beta_worst_delta(eps, n, padding=padding)[0].upper > dl]
    return max(fails) + 1 if fails else 1


class DPFTPLGauss(FTPLEngine):
    """DP-FTPL-Gauss (Wang & Zhu 2023, Algorithm 1, Theorem 11).

    Parameters
    ----------
    epsilon, delta:
        Per-step DP target (Definition 1); ``epsilon >= 0``, ``0 < delta < 1`` (the Gaussian
        has no ``(eps, 0)`` guarantee: its start phase would be infinite).
    horizon:
        ``T`` (the algorithm does not use it; it is the default length of :meth:`simulate`).
    variance_factor:
        ``v`` in ``theta ~ N(R/N, v/N)``; the reconstructed paper value is 2.
    start_phase:
        ``"paper"`` (``ceil(N_G)``), ``"tight"`` or an integer ``N_0 >= 1``.
    """

    name = "DP-FTPL-Gauss"

    def __init__(self, epsilon: float, delta: float, *, horizon: int,
                 variance_factor: float = 2.0, start_phase: object = "paper") -> None:
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
        if self.delta == 0.0:
            raise InvalidParameterError("delta=0.0 must be in (0, 1): DP-FTPL-Gauss has no "
                                        "(eps, 0) guarantee")
        self.horizon = check_int("horizon", horizon, low=2)
        self.variance_factor = check_real("variance_factor", variance_factor, low=0.0,
                                          low_open=True)
        self.paper_start_phase = gauss_start_phase(self.epsilon, self.delta)
        tight = (gauss_smallest_count(self.epsilon, self.delta,
                                      variance_numerator=self.variance_factor)
                 if start_phase == "tight" else 1)
        self.start_phase = resolve_start_phase(start_phase, self.paper_start_phase, tight)

    # -- the perturbation, in the engine's vocabulary ----------------------------------
    def kernel(self) -> tuple | None:
        """The compiled step of Algorithm 1 (:func:`._ftpl_kernels.ftpl_gauss_kernel`), or
        ``None`` for a subclass that replaces the perturbation code the kernel re-implements
        (a planted twin: its bug must run, so the numpy path does)."""
        if kern.overrides(self, DPFTPLGauss, ("init_state", "update_state", "draw",
                                               "draw_block", "from_block")):
            return None
        return ftpl_gauss_kernel, (int(self.start_phase), float(self.variance_factor))

    def init_state(self, sums: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return sums / counts, np.sqrt(self.variance_factor / counts)  # proof: shift 1/N

    def update_state(self, state, rows, arm, sums, counts) -> None:
        mean, sd = state
        s, n = sums[rows, arm], counts[rows, arm]
        mean[rows, arm] = s / n
        sd[rows, arm] = np.sqrt(self.variance_factor / n)

    def draw(self, state, rng: np.random.Generator) -> np.ndarray:
        mean, sd = state
        return mean + sd * rng.standard_normal(mean.shape)

    def draw_block(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        return rng.standard_normal(shape)

    def from_block(self, state, noise: np.ndarray) -> np.ndarray:
        mean, sd = state
        return mean + sd * noise

    def theta_moments(self, sums: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray,
                                                                          np.ndarray]:
        """Mean and standard deviation of ``theta`` per arm."""
        return sums / counts, np.sqrt(self.variance_factor / counts)

    def law_pieces(self, sums: np.ndarray, counts: np.ndarray):
        mean, sd = self.theta_moments(sums, counts)
        lo, hi = float(np.min(mean - TAIL_SD * sd)), float(np.max(mean + TAIL_SD * sd))
        cuts = (mean[:, None] + sd[:, None] * np.array([-6, -3, -1.5, 0, 1.5, 3, 6])).ravel()
        tail = float(mean.size * special.ndtr(-TAIL_SD))

        def pdf_cdf(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            z = (x[None, :] - mean[:, None]) / sd[:, None]
            return np.exp(-0.5 * z * z) / (sd[:, None] * math.sqrt(2 * math.pi)), special.ndtr(z)

        return lo, hi, cuts, tail, pdf_cdf

    def __repr__(self) -> str:
        return (f"DPFTPLGauss(epsilon={self.epsilon}, delta={self.delta}, horizon={self.horizon},"
                f" variance_factor={self.variance_factor}, start_phase={self.start_phase})")


class DPFTPLBeta(FTPLEngine):
    """DP-FTPL-Beta (Wang & Zhu 2023, Algorithm 2, Theorem 13).

    Parameters
    ----------
    epsilon, delta:
        Per-step DP target; ``epsilon >= 0``, ``0 < delta < 1``.
    horizon:
        ``T`` (default length of :meth:`simulate`).
    start_phase:
        ``"paper"`` (``ceil(N_B)``), ``"tight"`` (:func:`beta_tight_start_phase`) or an int.
    padding:
        ``True`` adds ``k = floor(N/8) + 1`` to both parameters (the paper); ``False`` is the
        broken twin (plain Thompson sampling after the start phase, Fig. 2 d-f).
    floor:
        The OCR-unreadable floor ``C`` of ``N_B`` (reconstructed as ``1000 e / (9 pi)``).
    """

    name = "DP-FTPL-Beta"

    def __init__(self, epsilon: float, delta: float, *, horizon: int,
                 start_phase: object = "paper", padding: bool = True,
                 floor: float = DEFAULT_FLOOR) -> None:
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
        if self.delta == 0.0:
            raise InvalidParameterError("delta=0.0 must be in (0, 1): DP-FTPL-Beta has no "
                                        "(eps, 0) guarantee")
        self.horizon = check_int("horizon", horizon, low=2)
        if not isinstance(padding, bool):
            raise InvalidParameterError(f"padding={padding!r} must be True or False")
        self.padding = padding
        self.floor = check_real("floor", floor, low=0.0)
        self.paper_start_phase = beta_start_phase(self.epsilon, self.delta, floor=self.floor)
        tight = (beta_tight_start_phase(self.epsilon, self.delta, floor=self.floor)
                 if start_phase == "tight" else 1)
        self.start_phase = resolve_start_phase(start_phase, self.paper_start_phase, tight)

    def init_state(self, sums: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = beta_parameters(counts, sums, padding=self.padding)
        return np.array(a, dtype=float), np.array(b, dtype=float)

    def update_state(self, state, rows, arm, sums, counts) -> None:
        a, b = state
        a[rows, arm], b[rows, arm] = beta_parameters(counts[rows, arm], sums[rows, arm],
                                                     padding=self.padding)

    def draw(self, state, rng: np.random.Generator) -> np.ndarray:
        a, b = state
        return rng.beta(a, b)

    def theta_moments(self, sums: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray,
                                                                          np.ndarray]:
        """Mean and standard deviation of ``theta`` per arm."""
        a, b = beta_parameters(counts, sums, padding=self.padding)
        return a / (a + b), np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))

    def law_pieces(self, sums: np.ndarray, counts: np.ndarray):
        a, b = beta_parameters(counts, sums, padding=self.padding)
        mean, sd = self.theta_moments(sums, counts)
        cuts = np.clip((mean[:, None] + sd[:, None] * np.array(
            [-12, -6, -3, -1.5, 0, 1.5, 3, 6, 12])).ravel(), 0.0, 1.0)

        def pdf_cdf(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            aa, bb, xx = a[:, None], b[:, None], x[None, :]
            logpdf = (special.xlogy(aa - 1, xx) + special.xlog1py(bb - 1, -xx)
                      - special.betaln(aa, bb))
            return np.exp(logpdf), special.betainc(aa, bb, xx)

        return 0.0, 1.0, cuts, 0.0, pdf_cdf

    def __repr__(self) -> str:
        return (f"DPFTPLBeta(epsilon={self.epsilon}, delta={self.delta}, horizon={self.horizon},"
                f" start_phase={self.start_phase}, padding={self.padding})")


def start_phase_summary(epsilon: float, delta: float) -> dict[str, int]:
    """Paper's and tight start phases of both algorithms at ``(epsilon, delta)``."""
    g_p = DPFTPLGauss(epsilon, delta, horizon=2)
    b_p = DPFTPLBeta(epsilon, delta, horizon=2)
    return {"gauss_paper": g_p.start_phase,
            "gauss_tight": DPFTPLGauss(epsilon, delta, horizon=2, start_phase="tight").start_phase,
            "beta_paper": b_p.start_phase,
            "beta_tight": DPFTPLBeta(epsilon, delta, horizon=2, start_phase="tight").start_phase}



_BAD = ({"epsilon": -1.0}, {"delta": 0.0}, {"delta": 1.0}, {"epsilon": True},
        {"start_phase": 0}, {"start_phase": "short"}, {"horizon": 1})

POLICIES = {
    "dp-ftpl-gauss": PolicyEntry(
        partial(DPFTPLGauss, epsilon=1.0, delta=0.01, horizon=WANG_ZHU_INSTANCE_1.horizon),
        WANG_ZHU_INSTANCE_1, "Wang & Zhu 2023, Algorithm 1 (Theorem 11)",
        small_instance=(0.7, 0.5, 0.3), small_horizon=40, small_overrides={"start_phase": 1},
        invalid=_BAD + ({"variance_factor": 0.0},), no_bound_reason=ftpl_no_bound("Theorem 11")),
    "dp-ftpl-beta": PolicyEntry(
        partial(DPFTPLBeta, epsilon=1.0, delta=0.01, horizon=WANG_ZHU_INSTANCE_1.horizon),
        WANG_ZHU_INSTANCE_1, "Wang & Zhu 2023, Algorithm 2 (Theorem 13)",
        small_instance=(0.7, 0.5, 0.3), small_horizon=40, small_overrides={"start_phase": 1},
        invalid=_BAD + ({"padding": 1},), no_bound_reason=ftpl_no_bound("Theorem 13")),
}
