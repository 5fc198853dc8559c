"""Deliberately broken twins of the algorithms, kept beside the correct ones.

Every twin is a subclass of the correct algorithm that overrides exactly the part that is
wrong; its docstring says what is wrong and why the paper's proof no longer applies. Each is
registered in ``POLICIES`` with ``faulty=True`` (the conformance suite checks it like any
policy: a broken algorithm still has to be simulated faithfully) and audited under a
``-faulty`` name that must come out VIOLATED.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from dpaudit.algorithms.azize_basu_2022.adap import POLICIES as _ADAP_POLICIES
from dpaudit.algorithms.azize_basu_2022.adap import AdaPUCB
from dpaudit.algorithms.baselines.private_ucb import POLICIES as _PRIVATE_UCB_POLICIES
from dpaudit.algorithms.baselines.private_ucb import PrivateUCB
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import POLICIES as _INT_POLICIES
from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import DPUCBInt, policy_factory
from dpaudit.algorithms.wang_zhu_2023.ftpl import POLICIES as _FTPL_POLICIES
from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import POLICIES as _GB_POLICIES
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta, DPFTPLGauss
from dpaudit.mechanisms._faulty import FaultyLemma15Perturbation
from dpaudit.sim.bandits import PolicyEntry

__all__ = ["POLICIES", "AdaPUCBAllRewards", "DPFTPLBetaUnpadded", "DPFTPLGaussNoStartPhase",
           "DPFTPLNewFaultyPerturbation", "DPUCBIntEveryPull", "PrivateUCBOneLevelShort"]


class AdaPUCBAllRewards(AdaPUCB):
    """AdaP-UCB whose private mean averages *all* past rewards of the arm. BROKEN.

    Everything else is Azize & Basu 2022's Algorithm 1 with Eq. (7), including the noise
    ``Lap(2/(eps N_a))``. What is wrong: Theorem 6 needs each release to use only the last
    episode's rewards, so a changed reward touches one release. Here one reward (say the
    arm's initial pull) enters every later release of that arm; each release is
    ``eps/2``-DP in it (sensitivity ``1/N_a``, scale ``2/(eps N_a)``), and the ``~log2 T``
    releases compose to about ``(eps/2) log2 N_a(T)``, not ``eps``.
    """

    name = "AdaP-UCB (all-rewards mean, faulty)"
    mean_window = "all"

    def release_mean(self, total: np.ndarray, episode_sum: np.ndarray,
                     episode_length: np.ndarray, count: np.ndarray) -> np.ndarray:
        return total / count  # BROKEN: every past reward of the arm enters the release


class DPFTPLNewFaultyPerturbation(DPFTPLNew):
    """DP-FTPL-New drawing from a Lemma-15 law that decays at rate ``2 N eps``. BROKEN.

    Everything else is Wang & Zhu 2023's Algorithm 3. What is wrong: the perturbation
    (:class:`~dpaudit.mechanisms._faulty.FaultyLemma15Perturbation`) has the support and decay
    of a count ``2N`` while one changed observation still shifts the centre by up to ``1/N``,
    so Lemma 15's conditions (10)-(11) fail: the density ratio reaches ``e^(2 eps)`` and the
    next action is not ``(eps, delta)``-DP (Definition 1) on neighbouring histories.
    """

    name = "DP-FTPL-New (rate 2 N eps perturbation, faulty)"

    def make_perturbation(self) -> FaultyLemma15Perturbation:
        return FaultyLemma15Perturbation(self.epsilon, self.delta)


class DPFTPLGaussNoStartPhase(DPFTPLGauss):
    """DP-FTPL-Gauss without its start phase (every arm pulled once, then N(R/N, 2/N)). BROKEN.

    Everything else is Wang & Zhu 2023's Algorithm 1. What is wrong: Lemma 8 needs
    ``N >= N_G`` before the first perturbed step; at ``N = 1`` the Gaussian shift ``1/N`` with
    standard deviation ``sqrt(2)`` has exact ``delta(1) = 0.0396 > 0.01``, and with ten other
    arms at count 1 the next action itself is not (1, 0.01)-DP (Definition 1).
    """

    name = "DP-FTPL-Gauss (no start phase, faulty)"

    def __init__(self, epsilon: float, delta: float, **kwargs) -> None:
        super().__init__(epsilon, delta, **kwargs)
        self.start_phase = 1  # BROKEN: the start phase N_G is skipped


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
class DPUCBIntEveryPull(DPUCBInt):
    """DP-UCB-Int releasing a fresh noisy mean at every pull. BROKEN.

    Everything else is Tossou & Dimitrakakis 2016's Algorithm 3. What is wrong: the pulled
    arm's mean is released (``Lap(n^(v/2 - 1))``, Lemma 3.1) after *every* pull, while the
    interval ``f`` and the claimed target of Theorem 3.4 are kept: the budget is not
    recomputed for ``f`` times more releases. The release at ``n = 1`` alone (sensitivity 1,
    scale 1) is 1-DP, so every target below the composition is exceeded.
    """

    name = "DP-UCB-Int (fresh mean every pull, faulty)"
    _every_pull = True


class PrivateUCBOneLevelShort(PrivateUCB):
    """Private-UCB whose tree noise uses ``L = ceil(log2 T)`` levels. BROKEN.

    Everything else is Mishra & Thakurta 2015's Private-UCB. What is wrong: at ``T = 2^k``
    element 1 lies in ``k + 1`` released nodes (one per level ``0..k``) but each carries
    ``Lap(k/eps)``: the counter, hence the algorithm, is only ``(k + 1)/k eps``-DP.
    """

    name = "Private-UCB (ceil(log2 T) levels, faulty)"

    def __init__(self, epsilon: float, *, horizon: int, gamma: float = 0.1) -> None:
        super().__init__(epsilon, horizon=horizon, gamma=gamma, levels="ceil_log2")


def _twin(base: PolicyEntry, factory, paper: str, **changes) -> PolicyEntry:
    """A broken twin's entry: checked on its correct policy's instances, with the same
    invalid parameter sets unless ``changes`` says otherwise."""
    fields = {"small_instance": base.small_instance, "small_horizon": base.small_horizon,
              "invalid": base.invalid, **changes}
    return PolicyEntry(factory, base.instance, paper, faulty=True, **fields)


_INT = _INT_POLICIES["dp-ucb-int"]
_PRIVATE = _PRIVATE_UCB_POLICIES["private-ucb"]
POLICIES = {
    "dp-ucb-int-faulty": _twin(
        _INT, policy_factory(DPUCBIntEveryPull),
        "Tossou & Dimitrakakis 2016, Algorithm 3 releasing at every pull (broken)",
        small_overrides=_INT.small_overrides),
    "private-ucb-faulty": _twin(
        _PRIVATE, partial(PrivateUCBOneLevelShort, epsilon=1.0, horizon=1024),
        "Mishra & Thakurta 2015, Private-UCB with ceil(log2 T) tree levels (broken)",
        invalid=tuple(kw for kw in _PRIVATE.invalid if "levels" not in kw)),
    "adap-ucb-faulty": _twin(
        _ADAP_POLICIES["adap-ucb"], partial(AdaPUCBAllRewards, epsilon=1.0),
        "Azize & Basu 2022, Algorithm 1 with Eq. (7), release over all rewards (broken)"),
    "dp-ftpl-new-faulty": _twin(
        _FTPL_POLICIES["dp-ftpl-new"],
        partial(DPFTPLNewFaultyPerturbation, epsilon=1.0, delta=0.01, horizon=10**5),
        "Wang & Zhu 2023, Algorithm 3 with a Lemma-15 law of twice the rate (broken)"),
    "dp-ftpl-gauss-faulty": _twin(
        _GB_POLICIES["dp-ftpl-gauss"],
        partial(DPFTPLGaussNoStartPhase, epsilon=1.0, delta=0.01, horizon=10**5),
        "Wang & Zhu 2023, Algorithm 1 without its start phase (broken)"),
    "dp-ftpl-beta-faulty": _twin(
        _GB_POLICIES["dp-ftpl-beta"],
        partial(DPFTPLBetaUnpadded, epsilon=1.0, delta=0.01, horizon=10**5),
        "Wang & Zhu 2023, Algorithm 2 without the padding k (broken)",
        small_overrides={"start_phase": 1}),
}
