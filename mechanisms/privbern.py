"""PrivBern: epsilon-LDP release of one reward in [0, 1] as a single bit (Barbara, Lazzaro &
Pike-Burke 2025).

Barbara, Lazzaro & Pike-Burke 2025 ("Locally Differentially Private Thresholding Bandits"),
Definition 2.1 and
Lemma 2.1, after Ren et al. (2020, Lemma 5); REFERENCE 4.6. The seed's display is stripped by
OCR; the reconstruction (from the App. A proof, which needs ``E[Y] = mu_eps`` affine in
``mu`` and a likelihood ratio of at most ``e^eps``) is::

    Y ~ Bernoulli(p(r)),   p(r) = (r (e^eps - 1) + 1) / (e^eps + 1)

equivalently: draw ``B ~ Bernoulli(r)`` and keep it with probability ``e^eps / (1 + e^eps)``
(flip otherwise). ``p`` ranges over ``[1/(e^eps + 1), e^eps/(e^eps + 1)]``, so for any
``r, r'`` both ``p(r)/p(r')`` and ``(1 - p(r))/(1 - p(r'))`` are at most ``e^eps``, with
equality at ``(r, r') = (1, 0)`` (the extreme neighbour pair): eps-LDP is tight there.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import special

from dpaudit.mechanisms._additive import check_generator
from dpaudit.validation import check_epsilon, check_int, check_rewards

__all__ = ["PrivBern"]


class PrivBern:
    """PrivBern(epsilon): ``Y ~ Bernoulli((r (e^eps - 1) + 1) / (e^eps + 1))`` for ``r in [0, 1]``.

    Output: integers 0/1 of shape ``(size, *shape(r))``. ``delta`` is 0.
    """

    notion = "ldp"
    n_outcomes = 2

    def __init__(self, epsilon: float) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self._log_ratio = self._calibrated_log_ratio()

    def _calibrated_log_ratio(self) -> float:
        """The exponent ``eps`` in ``p(r)`` (what a mislabelled variant gets wrong)."""
        return self.epsilon

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon!r})"

    @property
    def neighbours(self) -> tuple[tuple[float, float], ...]:
        """The extreme rewards ``(1, 0)``: the loss is exactly ``epsilon`` there."""
        return ((1.0, 0.0),)

    def prob_one(self, r: object) -> np.ndarray:
        """``P[Y = 1 | r] = (r (e^eps - 1) + 1) / (e^eps + 1)``.

        Written as ``r expit(eps) + (1 - r) expit(-eps)`` (the same number), which no epsilon
        overflows (``e^1000`` is not a double; ``expit(1000)`` is 1).
        """
        r = check_rewards(r, name="r")
        return r * special.expit(self._log_ratio) + (1.0 - r) * special.expit(-self._log_ratio)

    def output_probabilities(self, r: object) -> np.ndarray:
        """``[P(Y=0), P(Y=1)]`` along a new last axis."""
        return np.exp(self.log_output_probabilities(r))

    def log_output_probabilities(self, r: object) -> np.ndarray:
        """``[log P(Y=0), log P(Y=1)]`` along a new last axis, accurate for any epsilon.

        ``log P(Y=1) = logaddexp(log r + log expit(eps), log(1 - r) + log expit(-eps))`` and
        ``P(Y=0 | r) = P(Y=1 | 1 - r)``.
        """
        r = check_rewards(r, name="r")
        c = self._log_ratio
        with np.errstate(divide="ignore"):
            lr, l1r = np.log(r), np.log1p(-r)
        one = np.logaddexp(lr + special.log_expit(c), l1r + special.log_expit(-c))
        zero = np.logaddexp(l1r + special.log_expit(c), lr + special.log_expit(-c))
        return np.stack([zero, one], axis=-1)

    def sample(self, data: object, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent bits for reward(s) ``data``; shape ``(size, *shape(data))``."""
        p1 = self.prob_one(data)
        size = check_int("size", size, low=1)
        rng = check_generator(rng)
        return (rng.random(size=(size, *p1.shape)) < p1).astype(np.int64)

    def epsilon_between(self, data: object, data_prime: object) -> float:
        """Exact pure-DP loss between two rewards (max over both outputs, summed over coords),
        from the log-probabilities, so it is finite for any epsilon."""
        lp = self.log_output_probabilities(data)
        lq = self.log_output_probabilities(data_prime)
        return float(np.abs(lp - lq).max(axis=-1).sum())

    def sympy_prob_one(self, r: sp.Symbol | None = None,
                       eps: sp.Symbol | None = None) -> sp.Expr:
        """``(r (e^eps - 1) + 1)/(e^eps + 1)`` in sympy symbols ``r`` and ``epsilon``."""
        r = sp.Symbol("r", nonnegative=True) if r is None else r
        eps = sp.Symbol("epsilon", positive=True) if eps is None else eps
        return (r * (sp.exp(eps) - 1) + 1) / (sp.exp(eps) + 1)
