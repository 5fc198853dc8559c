"""Planted twins of ``dp-ftpl-gauss``, ``-beta``, ``-new`` and ``gdp-elim-new`` (Wang & Zhu 2023).

Each is the correct check on a twin of :mod:`dpaudit.algorithms.wang_zhu_2023._twins`: one
noise draw shared by every arm (``-shared-noise``), or the first leader step ranked by the
unnoised centres (``-first-release-raw``). Both have an infinite true loss (derived in the
twins' docstrings, checked in ``tests/test_twins_ftpl.py``); the exact next-action claims
compute the declared law and cannot see them, the ``releases-sampled`` claim (the running
code's perturbed scores, through the recording hook) does. The twins keep the claims and drop
the findings (about the sound algorithm).
"""

from __future__ import annotations

import math

from dpaudit.algorithms.wang_zhu_2023 import _twins as t
from dpaudit.audits.wang_zhu_2023.dp_ftpl_beta import SPEC as BETA
from dpaudit.audits.wang_zhu_2023.dp_ftpl_gauss import SPEC as GAUSS
from dpaudit.audits.wang_zhu_2023.dp_ftpl_new import DP_FTPL_NEW
from dpaudit.audits.wang_zhu_2023.gdp_elim_new import AUDITS as GDP

AUDITS = [
    GAUSS.twin(t.GaussSharedNoise, findings=[], bug="shared-noise", true_epsilon=math.inf),
    GAUSS.twin(t.GaussFirstReleaseRaw, findings=[], bug="first-release-raw",
               true_epsilon=math.inf),
    BETA.twin(t.BetaSharedUniform, findings=[], bug="shared-uniform", true_epsilon=math.inf),
    BETA.twin(t.BetaFirstReleaseRaw, findings=[], bug="first-release-raw",
              true_epsilon=math.inf),
    DP_FTPL_NEW.twin(t.NewSharedNoise, findings=[], bug="shared-noise", true_epsilon=math.inf),
    DP_FTPL_NEW.twin(t.NewFirstReleaseRaw, findings=[], bug="first-release-raw",
                     true_epsilon=math.inf),
    GDP[0].twin(t.GDPSharedNoise, findings=[], bug="shared-noise", true_epsilon=math.inf),
    GDP[0].twin(t.GDPFirstReleaseRaw, findings=[], bug="first-release-raw",
                true_epsilon=math.inf),
]
