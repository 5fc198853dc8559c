"""Adaptors from bandit policies to the black-box protocol, one per privacy notion.

The auditor (:mod:`dpaudit.stats.blackbox`) only needs ``sample(data, size, rng)``, a claim and
neighbouring inputs. These adaptors supply them for the three notions (local, per-step,
global DP), with heuristic neighbour pairs; they know no algorithm by name (they use the protocols
of :mod:`dpaudit.interfaces`).

* **Global DP** (Azize & Basu 2022 Definition 2; Wang & Zhu 2023 Definition 3). Data is a ``(T, K)``
reward
  table; the output is the whole action sequence (a learned score or the given ``features``
  picks the event). Azize & Basu 2022 compares two fixed reward sequences that differ at one step;
  Wang & Zhu 2023's expectation form draws rewards from an instance and applies a data-revision
  rule.
  With the rule "the reward at step ``t`` is set to ``v``" (``p_t(1 | a) = 1`` for every
  ``a``, expected number of revisions exactly 1 <= 1) both sides are represented by tables of
  Bernoulli *means* (:func:`revision_table`): row ``t`` is ``v`` on the revised side, so a
  policy that draws non-binary entries per run realises ``E_r pi(a | r)`` versus
  ``E_r pi(a | r (+) R)`` exactly.
* **Per-step DP** (Wang & Zhu 2023 Definition 1, Mishra & Thakurta): data is a history summary
  ``(sums, counts)``; neighbours change one observation, i.e. one arm's sum by at most 1; the
  output is the next action (a small discrete law, so subsets are searched).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dpaudit.interfaces import NextActionPolicy, Policy
from dpaudit.sim.bandits import TableRewards
from dpaudit.validation import (
    InvalidParameterError,
    check_epsilon_delta,
    check_int,
    check_means,
    check_real,
)

__all__ = [
    "GlobalDPTarget",
    "PerStepTarget",
    "global_neighbour_pairs",
    "per_step_neighbour_pairs",
    "random_history_domain",
    "revision_table",
]


def revision_table(means: object, horizon: int, step: int | None = None,
                   value: float = 0.0) -> np.ndarray:
    """``(T, K)`` table of Bernoulli means whose 1-based ``step`` (row ``step - 1``) is ``value``.

    ``value`` must be 0 or 1 so the forced reward is deterministic. ``step=None``: no revision.
    """
    mu = check_means(means)
    horizon = check_int("horizon", horizon, low=mu.size)
    table = np.tile(mu, (horizon, 1))
    if step is not None:
        step = check_int("step", step, low=1, high=horizon)
        v = check_real("value", value, low=0.0, high=1.0)
        if v not in (0.0, 1.0):
            raise InvalidParameterError(f"value={value!r} must be 0 or 1 (a forced reward)")
        table[step - 1, :] = v
    return table


def global_neighbour_pairs(horizon: int, n_arms: int, *, means: object = None,
                           steps: Sequence[int] | None = None,
                           values: Sequence[float] = (0.0, 1.0)) -> list[tuple[np.ndarray,
                                                                             np.ndarray]]:
    """Heuristic global-DP pairs: the changed step early, extreme rewards.

    Steps (1-based) default to ``K + 1`` (the first adaptive step after one pull of each arm),
    ``1`` and ``2K + 1``: a change early in the run has the most time to propagate. With
    ``means`` the pairs are (instance, instance revised at ``t`` to ``v``) (Wang & Zhu 2023 Def. 3);
    without, they are the fixed extreme sequences all-``1 - v`` versus the same with step
    ``t`` set to ``v`` (Azize & Basu 2022 Def. 2).
    """
    horizon = check_int("horizon", horizon, low=1)
    k = check_int("n_arms", n_arms, low=1)
    chosen = [k + 1, 1, 2 * k + 1] if steps is None else list(steps)
    chosen = list(dict.fromkeys(s for s in chosen if 1 <= s <= horizon))
    pairs = []
    for t in chosen:
        for v in values:
            if means is not None:
                pairs.append((revision_table(means, horizon), revision_table(means, horizon,
                                                                             t, v)))
            else:
                base = np.full((horizon, k), 1.0 - v)
                changed = base.copy()
                changed[t - 1, :] = v
                pairs.append((base, changed))
    return pairs


class GlobalDPTarget:
    """A :class:`~dpaudit.interfaces.Policy` seen as an auditable mechanism.

    ``sample(table, size, rng)`` returns the ``(size, T)`` actions of
    ``policy.simulate(TableRewards(table), T, size, rng=rng, record=True)`` on the ``(T, K)``
    table (entries are rewards; a policy that observes Bernoulli draws of rewards in [0, 1]
    reads a table of means as the Bernoulli instance).
    """

    notion = "global"

    def __init__(self, policy: Policy, *, epsilon: float, delta: float,
                 neighbours: Sequence[tuple[Any, Any]],
                 features: Callable[[np.ndarray], np.ndarray] | None = None,
                 search_domain: Any = None) -> None:
        if not callable(getattr(policy, "simulate", None)):
            raise InvalidParameterError(
                f"policy={policy!r} must have simulate(source, horizon, runs, *, rng, "
                "checkpoints=(), record=False)")
        self.policy = policy
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
        self.neighbours = list(neighbours)
        if features is not None:
            self.features = features
        if search_domain is not None:
            self.search_domain = search_domain

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        source = TableRewards(np.asarray(data, float))
        result = self.policy.simulate(source, source.length, size, rng=rng, record=True)
        return np.asarray(result.actions)


def per_step_neighbour_pairs(n_arms: int, *, counts: Sequence[int] = (1, 2, 8)
                             ) -> list[tuple[tuple[np.ndarray, np.ndarray],
                                             tuple[np.ndarray, np.ndarray]]]:
    """Heuristic per-step pairs: small counts, arms with close (equal) means.

    For each count ``c`` every arm has ``c`` pulls and the same sum (so all means are
    equal, the most sensitive case for an argmax), and the neighbour changes one observation
    of arm 0 from 0 to 1 (its sum goes up by one).
    """
    k = check_int("n_arms", n_arms, low=2)
    pairs = []
    for c in counts:
        c = check_int("count", c, low=1)
        n = np.full(k, float(c))
        s = np.full(k, float(c // 2))
        s_prime = s.copy()
        if s[0] + 1 <= c:
            s_prime[0] += 1.0
        else:
            s_prime[0] -= 1.0
        pairs.append(((s, n), (s_prime, n.copy())))
    return pairs


def random_history_domain(n_arms: int, max_count: int) -> Callable[[np.random.Generator, int],
                                                                    list[Any]]:
    """A search domain proposing random histories with one arm's observation changed."""
    k = check_int("n_arms", n_arms, low=2)
    top = check_int("max_count", max_count, low=1)

    def propose(rng: np.random.Generator, n: int) -> list[Any]:
        pairs = []
        for _ in range(n):
            counts = rng.integers(1, top + 1, size=k).astype(float)
            sums = np.floor(rng.random(k) * (counts + 1))
            arm = int(rng.integers(k))
            changed = sums.copy()
            changed[arm] += 1.0 if sums[arm] + 1 <= counts[arm] else -1.0
            pairs.append(((sums, counts), (changed, counts.copy())))
        return pairs

    return propose


class PerStepTarget:
    """A :class:`~dpaudit.interfaces.NextActionPolicy` seen as an auditable mechanism.

    ``sample((sums, counts), size, rng)`` draws ``size`` next actions (integers in [0, K)).
    """

    notion = "per-step"

    def __init__(self, policy: NextActionPolicy, *, epsilon: float, delta: float, n_arms: int,
                 neighbours: Sequence[tuple[Any, Any]] | None = None,
                 search_domain: Any = None) -> None:
        if not callable(getattr(policy, "sample_next_actions", None)):
            raise InvalidParameterError(
                f"policy={policy!r} must have sample_next_actions(sums, counts, size, rng)")
        self.policy = policy
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, allow_zero_epsilon=True)
        self.n_outcomes = check_int("n_arms", n_arms, low=2)
        self.neighbours = list(per_step_neighbour_pairs(n_arms) if neighbours is None
                               else neighbours)
        if search_domain is not None:
            self.search_domain = search_domain

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        sums, counts = data
        return np.asarray(self.policy.sample_next_actions(sums, counts, size, rng))
