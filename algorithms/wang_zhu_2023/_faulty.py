"""Deliberately broken twins of Wang & Zhu 2023's algorithms, kept beside the correct ones.

(DP-FTPL-Gauss's twin without a start phase and DP-FTPL-New's double-rate twin moved to
:mod:`._twins` as ``dp-ftpl-gauss-no-start-phase`` and ``dp-ftpl-new-double-rate``, with
their true losses; ``dp-ftpl-gauss-faulty`` and ``dp-ftpl-new-faulty`` are their aliases.)

Each twin is a subclass of the correct algorithm that overrides exactly the part that is
wrong; its docstring says what is wrong and why the paper's proof no longer applies. Each is
registered in ``POLICIES`` with ``faulty=True`` (the conformance suite checks it like any
policy: a broken algorithm still has to be simulated faithfully) and audited under a
``-faulty`` name that must come out VIOLATED.
"""

from __future__ import annotations

from functools import partial

from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import POLICIES as _GB_POLICIES
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta

__all__ = ["POLICIES", "DPFTPLBetaUnpadded"]


class DPFTPLBetaUnpadded(DPFTPLBeta):
    """DP-FTPL-Beta without the padding ``k = floor(N/8) + 1``: Thompson sampling. BROKEN.

    Everything else is Wang & Zhu 2023's Algorithm 2, start phase ``N_B`` included.
    What is wrong: Theorem 13's proof needs ``(a + k)(b + k) >= 0.09 (a + b + 2k)^2``; without
    ``k`` an arm with few successes has ``Beta(1, N + 1)`` vs ``Beta(2, N)`` and the exact
    divergence stays near ``0.16`` at ``eps = 1`` for every ``N`` (Fig. 2 d-f).
    """

    name = "DP-FTPL-Beta (no padding, faulty)"

    def __init__(self, epsilon: float, delta: float, **kwargs) -> None:
        super().__init__(epsilon, delta, **kwargs)
        self.padding = False  # BROKEN: Beta(a, b) instead of Beta(a + k, b + k)


POLICIES = {
    "dp-ftpl-beta-faulty": _GB_POLICIES["dp-ftpl-beta"].twin(
        partial(DPFTPLBetaUnpadded, epsilon=1.0, delta=0.01, horizon=10**5),
        "Wang & Zhu 2023, Algorithm 2 without the padding k (broken)",
        small_overrides={"start_phase": 1}),
}
