"""Exact loss of the release each release/report-level claim attacks, at the defaults.

The reference column of the tightness table in ``benchmarks/results/twins-ldp-ftpl.md``: for
the perturbed-leader checks the first perturbed score of arm 0 after the start phase (count
``N_0``, sum ``N_0`` against ``N_0 - 1``), whose law is the declared perturbation (the other
arm's score is identical under both sources); for the LDP checks one user's report at the
worst pair. ``eps(delta)`` is the smallest ``eps`` whose hockey-stick divergence (both
directions, by :func:`dpaudit.exact.divergence.continuous_hockey_stick`, or Balle & Wang's
closed form for Gaussians) is at most ``delta``, found with ``scipy.optimize.brentq``.

    python benchmarks/release_exact.py
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats
from scipy.optimize import brentq

from dpaudit.algorithms.wang_zhu_2023.ftpl import DPFTPLNew
from dpaudit.algorithms.wang_zhu_2023.ftpl_gauss_beta import DPFTPLBeta, DPFTPLGauss
from dpaudit.audits.recipes.ldp import gaussian_epsilon
from dpaudit.exact.divergence import continuous_hockey_stick
from dpaudit.mechanisms.beta_perturbation import beta_parameters


def _eps_at(delta: float, hs) -> float:
    """Smallest eps with max(H(P||Q), H(Q||P)) <= delta (``hs(eps)`` gives that max)."""
    if hs(0.0) <= delta:
        return 0.0
    hi = 1.0
    while hs(hi) > delta:
        hi *= 2.0
    return brentq(lambda e: hs(e) - delta, 0.0, hi, xtol=1e-9)


def ftpl_new(eps=1.0, delta=0.01, *, law_delta=None) -> float:
    """Lemma 15 at ``(eps, law_delta or delta)``, shift 1 at count 1 (the law is
    ``x0 + D(1, 0)/N``, so every count gives the same curve), ``eps`` at ``delta``."""
    alg = DPFTPLNew(eps, delta if law_delta is None else law_delta, 1000)
    p = alg.perturbation
    a = float(p.half_width(1.0))
    x0 = 0.0

    def pdf(c):
        return lambda x: p.pdf(x, c, 1.0)

    def hs(e):
        kw = {"support": (-a - 1.5, a + 1.5), "breakpoints": (-a, 0.0, a, -a - 1, -1.0, a - 1)}
        return max(continuous_hockey_stick(pdf(x0), pdf(x0 - 1.0), e, **kw).value,
                   continuous_hockey_stick(pdf(x0 - 1.0), pdf(x0), e, **kw).value)
    return _eps_at(delta, hs)


def ftpl_gauss(eps=1.0, delta=0.01) -> tuple[float, int]:
    alg = DPFTPLGauss(eps, delta, horizon=1000)
    n0 = alg.start_phase
    mu = (1.0 / n0) / math.sqrt(alg.variance_factor / n0)
    return gaussian_epsilon(delta, mu), n0


def ftpl_beta(eps=1.0, delta=0.01) -> tuple[float, int]:
    alg = DPFTPLBeta(eps, delta, horizon=1000)
    n0 = alg.start_phase
    (a1, a2), (b1, b2) = beta_parameters(np.array([n0, n0]), np.array([n0, n0 - 1.0]),
                                         padding=True)

    def pdf(a, b):
        return lambda x: stats.beta.pdf(x, a, b)
    lo = min(stats.beta.ppf(1e-15, a2, b2), stats.beta.ppf(1e-15, a1, b1))

    def hs(e):
        kw = {"support": (lo, 1.0), "grid": 20001}
        return max(continuous_hockey_stick(pdf(a1, b1), pdf(a2, b2), e, **kw).value,
                   continuous_hockey_stick(pdf(a2, b2), pdf(a1, b1), e, **kw).value)
    return _eps_at(delta, hs), n0


def main() -> None:
    print(f"dp-ftpl-new   first release, N_0 = 1: eps(0.01) = {ftpl_new():.4f}")
    g, n = ftpl_gauss()
    print(f"dp-ftpl-gauss first release, N_0 = {n}: eps(0.01) = {g:.4f}")
    b, n = ftpl_beta()
    print(f"dp-ftpl-beta  first release, N_0 = {n}: eps(0.01) = {b:.4f}")
    print(f"gdp-elim-new  phase 1 (Lemma 15 at (1, 0.005)): eps(0.01) = "
          f"{ftpl_new(law_delta=0.005):.4f}")
    print(f"PrivBern report (both thresholding checks): eps = 1 (log(expit(1)/expit(-1)) = "
          f"{math.log(special.expit(1.0) / special.expit(-1.0)):.4f})")


if __name__ == "__main__":
    main()
