"""A complete minimal audit: ``python -m dpaudit check minimal_audit`` (from this folder).

A mechanism (binary randomized response), its claim (eps-DP), one exact and one sampled check.
"""

import numpy as np

from dpaudit import AuditSpec, ClaimSpec, ExactEvidence, Notion, blackbox_evaluator


class RandomizedResponse:
    """Report the bit x with probability e^eps / (1 + e^eps), else its flip."""

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        self.epsilon, self.delta = epsilon, delta
        self.keep = np.exp(epsilon) / (1.0 + np.exp(epsilon))
        self.neighbours = [(0, 1)]  # the inputs an attacker compares

    def sample(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        flip = rng.random(size) >= self.keep
        return np.where(flip, 1 - data, data)


def exact_loss(ctx, spec) -> ExactEvidence:
    """Hockey-stick divergence of the two output laws at the claimed epsilon."""
    keep = RandomizedResponse(ctx.epsilon).keep
    p, q = np.array([keep, 1 - keep]), np.array([1 - keep, keep])  # laws of outputs 0, 1
    return ExactEvidence(delta_at_epsilon=float(np.maximum(p - np.exp(ctx.epsilon) * q, 0).sum()),
                         error=1e-12)


AUDIT = AuditSpec(
    name="my-randomized-response", description="binary randomized response",
    paper="Warner 1965", default_epsilon=1.0, default_delta=0.0,
    mechanism=RandomizedResponse,
    claims=[
        ClaimSpec("exact", Notion.LDP, "eps-DP: the output laws differ by at most e^eps",
                  "Warner 1965", exact_loss),
        ClaimSpec("sampled", Notion.LDP, "eps-DP (black-box sampling audit)", "Warner 1965",
                  blackbox_evaluator(RandomizedResponse, samples=200_000,
                                     quick_samples=50_000)),
    ])
