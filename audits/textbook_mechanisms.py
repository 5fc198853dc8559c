"""Textbook mechanisms checked by black-box sampling, each with a broken twin.

``check NAME`` and ``audit NAME`` run the same sampled claim on the same object: the auditor of
:mod:`dpaudit.blackbox` attacks the mechanism's own neighbouring inputs and reports an epsilon
lower bound valid at ``1 - alpha``. Each ``-faulty`` twin has a true loss above its claim
(exact values in ``tests/test_references.py``) and must come out VIOLATED.

* ``randomized-response``: binary randomized response (Warner 1965), ``eps``-LDP and tight;
  twin: 4-ary randomized response with the binary keep probability (true loss
  ``eps + log 3``; Kairouz, Oh & Viswanath 2014 give the k-ary calibration).
* ``gaussian-analytic``: the analytic Gaussian calibration (Balle & Wang 2018, Thm 8), tight;
  twin: sigma halved.
* ``laplace-sensitivity``: the Laplace mechanism for a query of sensitivity 3 (Dwork, McSherry,
  Nissim & Smith 2006), neighbours 3 apart; twin: noise calibrated as if the sensitivity were
  1 (true loss ``3 eps``).
* ``gaussian-sensitivity``: the analytic Gaussian for L2 sensitivity 3; twin: sigma calibrated
  for sensitivity 1.

(``laplace``, ``gaussian`` and ``privbern`` are in their own files, where the exact and
symbolic claims are made; their ``mechanism`` field gives ``audit`` the same object.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dpaudit.blackbox import blackbox_evaluator
from dpaudit.engine import AuditSpec, ClaimSpec
from dpaudit.mechanisms import Gaussian, Laplace, RandomizedResponse
from dpaudit.mechanisms import _faulty as faulty
from dpaudit.results import Notion

_DR = "Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Thm 3.6"
_BW = "Balle & Wang 2018, Thm 8 (analytic calibration)"
_RR = "Warner 1965; Kairouz, Oh & Viswanath 2014 (k-ary direct encoding)"


def _spec(name: str, description: str, paper: str, build: Callable[[float, float], Any],
          delta: float, *, is_faulty: bool = False) -> AuditSpec:
    claim = ClaimSpec(
        "dp-claim-sampled", Notion.LDP,
        f"{description} is (eps, delta)-DP on its neighbouring inputs (black-box sampling "
        "audit)", paper, blackbox_evaluator(build))
    return AuditSpec(name=name, description=description, paper=paper, claims=[claim],
                     default_epsilon=1.0, default_delta=delta, faulty=is_faulty,
                     mechanism=build)


AUDITS = [
    _spec("randomized-response", "binary randomized response", _RR,
          lambda e, d: RandomizedResponse(e, k=2), 0.0),
    _spec("randomized-response-faulty",
          "BROKEN: 4-ary randomized response with the binary keep probability (true eps + "
          "log 3)", _RR, lambda e, d: faulty.FaultyRandomizedResponseMislabelled(e), 0.0,
          is_faulty=True),
    _spec("gaussian-analytic", "Gaussian mechanism, analytic calibration (tight), sensitivity 1",
          _BW, lambda e, d: Gaussian(e, d, calibration="analytic"), 1e-5),
    _spec("gaussian-analytic-faulty", "BROKEN: analytic Gaussian with sigma halved", _BW,
          lambda e, d: faulty.FaultyGaussianHalfSigma(e, d), 1e-5, is_faulty=True),
    _spec("laplace-sensitivity", "Laplace mechanism for a query of sensitivity 3", _DR,
          lambda e, d: Laplace(e, sensitivity=3.0), 0.0),
    _spec("laplace-sensitivity-faulty",
          "BROKEN: Laplace forgetting the sensitivity (query of sensitivity 3, scale 1/eps)",
          _DR, lambda e, d: faulty.FaultyLaplaceNoSensitivity(e), 0.0, is_faulty=True),
    _spec("gaussian-sensitivity", "analytic Gaussian mechanism for L2 sensitivity 3", _BW,
          lambda e, d: Gaussian(e, d, sensitivity=3.0), 1e-5),
    _spec("gaussian-sensitivity-faulty",
          "BROKEN: Gaussian forgetting the sensitivity (L2 sensitivity 3, sigma for 1)", _BW,
          lambda e, d: faulty.FaultyGaussianNoSensitivity(e, d), 1e-5, is_faulty=True),
]
