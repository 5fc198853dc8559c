"""Built-in reference mechanisms for ``python -m dpaudit audit NAME`` (issue 3).

The table lives here, beside the audit files, because it names mechanisms (the engine in
``dpaudit/`` must not); the leading underscore keeps it out of the ``check`` registry, whose
``laplace``/``gaussian``/``privbern`` names are the exact/symbolic audits of issue 4. The
names here are a separate namespace: black-box sampling audits of the same classes. Names
ending in ``-faulty`` build deliberately broken variants (``dpaudit.mechanisms._faulty``) and
must come out VIOLATED at the default sample budget; a registered name never changes meaning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dpaudit.mechanisms import Gaussian, Laplace, PrivBern, RandomizedResponse
from dpaudit.mechanisms import _faulty as faulty

__all__ = ["REFERENCES", "Reference"]


@dataclass(frozen=True)
class Reference:
    """A named reference mechanism: how to build it for a claim, and its defaults."""

    name: str
    description: str
    paper: str
    build: Callable[[float, float], Any]
    default_epsilon: float
    default_delta: float
    faulty: bool = False


_DR = "Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014"
_BW = "Balle & Wang 2018, Thm 8 (analytic calibration); seed 004 (Gaussian LDP)"
_PB = "seed 002, Def. 2.1 / Lemma 2.1 (after Ren et al. 2020, Lemma 5)"
_RR = "Warner 1965; Kairouz, Oh & Viswanath 2014 (k-ary direct encoding)"

REFERENCES: dict[str, Reference] = {r.name: r for r in (
    Reference("laplace", "Laplace mechanism x + Lap(1/eps), sensitivity 1", _DR,
              lambda e, d: Laplace(e), 1.0, 0.0),
    Reference("gaussian", "Gaussian mechanism, analytic calibration (tight), sensitivity 1",
              _BW, lambda e, d: Gaussian(e, d, calibration="analytic"), 1.0, 1e-5),
    Reference("gaussian-classical",
              "Gaussian mechanism, classical calibration sqrt(2 ln(1.25/delta))/eps (eps <= 1)",
              _DR, lambda e, d: Gaussian(e, d, calibration="classical"), 1.0, 1e-5),
    Reference("privbern", "PrivBern: Bernoulli((r(e^eps-1)+1)/(e^eps+1)) for r in [0, 1]", _PB,
              lambda e, d: PrivBern(e), 1.0, 0.0),
    Reference("randomized-response", "binary randomized response (Warner)", _RR,
              lambda e, d: RandomizedResponse(e, k=2), 1.0, 0.0),
    Reference("laplace-faulty", "BROKEN: Laplace with the noise scale halved", _DR,
              lambda e, d: faulty.FaultyLaplaceHalfScale(e), 1.0, 0.0, True),
    Reference("laplace-sensitivity-faulty",
              "BROKEN: Laplace forgetting the sensitivity (query of sensitivity 3, scale 1/eps)",
              _DR, lambda e, d: faulty.FaultyLaplaceNoSensitivity(e), 1.0, 0.0, True),
    Reference("gaussian-faulty", "BROKEN: analytic Gaussian with sigma halved", _BW,
              lambda e, d: faulty.FaultyGaussianHalfSigma(e, d), 1.0, 1e-5, True),
    Reference("gaussian-sensitivity-faulty",
              "BROKEN: Gaussian forgetting the sensitivity (L2 sensitivity 3, sigma for 1)", _BW,
              lambda e, d: faulty.FaultyGaussianNoSensitivity(e, d), 1.0, 1e-5, True),
    Reference("privbern-faulty", "BROKEN: PrivBern labelled eps but spending 2 eps", _PB,
              lambda e, d: faulty.FaultyPrivBernMislabelled(e), 1.0, 0.0, True),
    Reference("randomized-response-faulty",
              "BROKEN: 4-ary randomized response with the binary keep probability "
              "(true eps + log 3)", _RR,
              lambda e, d: faulty.FaultyRandomizedResponseMislabelled(e), 1.0, 0.0, True),
)}
