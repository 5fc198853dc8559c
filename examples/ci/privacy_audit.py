"""The audit file of the privacy gate: ``python -m dpaudit check privacy_audit``.

One claim of ``mechanism.ClippedLaplaceSum`` checked exactly (the Laplace loss of a shift of
1 at scale ``self.scale``, read from the object, so a changed scale is caught) and the same
claim attacked by sampling.
"""

import numpy as np
from mechanism import ClippedLaplaceSum

from dpaudit import AuditSpec, ClaimSpec, ExactEvidence, Notion, blackbox_evaluator


def exact_loss(ctx, spec) -> ExactEvidence:
    """Hockey-stick divergence at the claimed epsilon of Laplace laws one unit apart: zero
    when the scale is at least 1/epsilon, else positive (Dwork & Roth 2014, Thm 3.6)."""
    scale = ClippedLaplaceSum(ctx.epsilon).scale
    loss = 1.0 / scale  # the true epsilon of a sensitivity-1 shift
    delta = max(0.0, 1.0 - np.exp((ctx.epsilon - loss) / 2.0))
    return ExactEvidence(delta_at_epsilon=float(delta), error=1e-12)


AUDIT = AuditSpec(
    name="clipped-laplace-sum", description="clipped sum with Laplace noise",
    paper="Dwork & Roth 2014, Thm 3.6", default_epsilon=0.5, default_delta=0.0,
    mechanism=ClippedLaplaceSum,
    claims=[
        ClaimSpec("exact", Notion.LDP, "eps-DP: Laplace laws one unit apart", "Dwork & Roth 2014",
                  exact_loss),
        ClaimSpec("sampled", Notion.LDP, "eps-DP (black-box sampling audit)", "Dwork & Roth 2014",
                  blackbox_evaluator(ClippedLaplaceSum, samples=200_000, quick_samples=50_000)),
    ])
