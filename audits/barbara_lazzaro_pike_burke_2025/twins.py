"""Planted twins of ``ldp-tbp-fixed-budget`` and ``ldp-tbp-fixed-confidence``.

Each is the correct check on a twin of :mod:`dpaudit.algorithms.barbara_lazzaro_pike_burke_2025`
whose report path has one bug of a kind found in public code (the twin's docstring derives its
true loss, ``tests/test_twins_ldp.py`` recomputes it). All three exceed the claim ``eps = 1``:

* ``-tanh-slip``: PrivBern's bias computed with ``tanh(eps)`` (true loss ``2 eps``);
  caught by ``report-ldp-sampled`` and ``reports-sampled``;
* ``-first-pull-raw``: the warm-up pulls send the reward unnoised (infinite loss); only the
  reports recorded while the algorithm runs (``reports-sampled``) see it;
* ``-shared-uniform``: PrivBern's uniform drawn once per arm and reused by every user of that
  arm (infinite loss); again only ``reports-sampled`` sees it.

The twins keep the claims and drop the findings (which measure the correct algorithm's
error probability, and are slow).
"""

from __future__ import annotations

import math

from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025 import _twins as t
from dpaudit.audits.barbara_lazzaro_pike_burke_2025.ldp_tbp_fixed_budget import (
    AUDITS as BUDGET,
)
from dpaudit.audits.barbara_lazzaro_pike_burke_2025.ldp_tbp_fixed_confidence import (
    AUDITS as CONFIDENCE,
)

_EPS = 1.0  # both checks' default epsilon (delta = 0)


def _twins(spec, slip, raw, shared):
    return [spec.twin(slip, findings=[], bug="tanh-slip",
                      true_epsilon=t.tanh_slip_epsilon(_EPS)),
            spec.twin(raw, findings=[], bug="first-pull-raw", true_epsilon=math.inf),
            spec.twin(shared, findings=[], bug="shared-uniform", true_epsilon=math.inf)]


AUDITS = [*_twins(BUDGET[0], t.APTTanhSlip, t.APTFirstPullRaw, t.APTSharedUniform),
          *_twins(CONFIDENCE[0], t.LUCBTanhSlip, t.LUCBFirstPullRaw, t.LUCBSharedUniform)]
