"""Textbook mechanisms checked by black-box sampling, each with a broken twin.

``check NAME`` and ``audit NAME`` run the same sampled claim on the same object: the auditor of
:mod:`dpaudit.stats.blackbox` attacks the mechanism's own neighbouring inputs and reports an epsilon
lower bound valid at ``1 - alpha``. Each broken twin ``NAME-<bug>`` (first registered as
``NAME-faulty``, an alias kept) has a true loss above its claim, derived in its class's
docstring (recomputed in ``tests/test_references.py``), and must come out VIOLATED.

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

import math
from dataclasses import dataclass, replace
from typing import Any

from dpaudit.engine import AuditSpec, CheckContext, ClaimSpec
from dpaudit.mechanisms import Gaussian, Laplace, RandomizedResponse
from dpaudit.mechanisms import _twins as twins
from dpaudit.stats.blackbox import blackbox_evaluator
from dpaudit.stats.evidence import SampledEvidence
from dpaudit.stats.results import Notion

_DR = "Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Thm 3.6"
_BW = "Balle & Wang 2018, Thm 8 (analytic calibration)"
_RR = "Warner 1965; Kairouz, Oh & Viswanath 2014 (k-ary direct encoding)"


@dataclass(frozen=True)
class Built:
    """``cls(epsilon[, delta], **kwargs)``; its docstring is the class's (what is wrong, for
    the broken classes of ``dpaudit.mechanisms._twins``)."""

    cls: type
    kwargs: tuple[tuple[str, Any], ...] = ()
    with_delta: bool = False

    def __call__(self, epsilon: float, delta: float) -> Any:
        args = (epsilon, delta) if self.with_delta else (epsilon,)
        return self.cls(*args, **dict(self.kwargs))

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.cls.__doc__


def _sampled(ctx: CheckContext, spec: ClaimSpec) -> SampledEvidence:
    return blackbox_evaluator(ctx.variant)(ctx, spec)


def _pair(name: str, description: str, paper: str, correct: Built, broken: Built,
          delta: float, bug: str, true_epsilon: float) -> list[AuditSpec]:
    claim = ClaimSpec(
        "dp-claim-sampled", Notion.LDP,
        f"{description} is (eps, delta)-DP on its neighbouring inputs (black-box sampling "
        "audit)", paper, _sampled)
    spec = AuditSpec(name=name, description=description, paper=paper, claims=[claim],
                     default_epsilon=1.0, default_delta=delta, variant=correct,
                     mechanism=correct)
    twin = spec.twin(broken, mechanism=broken, bug=bug, true_epsilon=true_epsilon)
    # NAME-faulty: the twin's first name (README, docs, benchmark results), an alias
    return [spec, twin, replace(twin, name=f"{name}-faulty")]


#: the twins' true losses at their defaults (eps = 1), derived in the docstrings of
#: :mod:`dpaudit.mechanisms._twins`'s classes
TRUE_EPSILON = {"randomized-response-binary-keep": 1.0 + math.log(3.0),
                "gaussian-analytic-half-sigma": 2.1546766576664043,
                "laplace-sensitivity-unit-scale": 3.0,
                "gaussian-sensitivity-unit-sigma": 3.4070164546158166}


AUDITS = [
    *_pair("randomized-response", "binary randomized response", _RR,
           Built(RandomizedResponse, (("k", 2),)),
           Built(twins.FaultyRandomizedResponseMislabelled), 0.0, "binary-keep",
           TRUE_EPSILON["randomized-response-binary-keep"]),
    *_pair("gaussian-analytic", "Gaussian mechanism, analytic calibration (tight), sensitivity 1",
           _BW, Built(Gaussian, (("calibration", "analytic"),), with_delta=True),
           Built(twins.FaultyGaussianHalfSigma, with_delta=True), 1e-5, "half-sigma",
           TRUE_EPSILON["gaussian-analytic-half-sigma"]),
    *_pair("laplace-sensitivity", "Laplace mechanism for a query of sensitivity 3", _DR,
           Built(Laplace, (("sensitivity", 3.0),)), Built(twins.FaultyLaplaceNoSensitivity),
           0.0, "unit-scale", TRUE_EPSILON["laplace-sensitivity-unit-scale"]),
    *_pair("gaussian-sensitivity", "analytic Gaussian mechanism for L2 sensitivity 3", _BW,
           Built(Gaussian, (("sensitivity", 3.0),), with_delta=True),
           Built(twins.FaultyGaussianNoSensitivity, with_delta=True), 1e-5, "unit-sigma",
           TRUE_EPSILON["gaussian-sensitivity-unit-sigma"]),
]
