"""Exact law of a bandit policy's whole action sequence at small horizons.

A *trajectory policy* states, for every history, the law of its next action: ``action_law(h)``
returns ``P(A_t = a | history)`` for a batch of histories (and an L1 error bound per row when
the law is itself computed numerically, e.g. by quadrature). Given a fixed ``(T, K)`` reward
table, every reward is observed as a bit whose probability of being 1 is
``observe_probability(r)`` (the identity for a Bernoulli draw of a reward in ``[0, 1]``, the
trick of Agrawal & Goyal that Wang & Zhu 2023 use in Sec. 3.1; PrivBern's
``(r (e^eps - 1) + 1) / (e^eps + 1)`` for Barbara, Lazzaro & Pike-Burke 2025). The law of the
action sequence ``(A_1, ..., A_T)`` is then computed by a dynamic programme over steps:

* a *node* is one reachable history (an action prefix and its observations) with its
  probability; step ``t`` asks the policy for the next-action law of every node at once
  (numpy, no loop over nodes), splits each node into its ``K`` actions and, where the
  observation is random, into its two observations;
* a *Markov* policy (``markov = True``: the law depends only on ``t`` and the per-arm sums and
  counts) has nodes with equal action prefix and equal sums merged, so a prefix carries at
  most ``prod_a (N_a + 1)`` nodes; a non-Markov policy keeps its observation sequences (on
  reward tables in ``{0, 1}`` with the identity observation there is one per prefix);
* at the end the node probabilities are summed per action sequence (code
  ``sum_t A_t K^(T - t)``): a vector of ``K^T`` probabilities (65536 for ``K = 2, T = 16``).

**Error bound.** If every row's law has L1 error at most ``e_t`` at step ``t``, the computed
sequence law has L1 error at most ``sum_t e_t`` (a step mixes the previous law with kernels of
error ``e_t``; mixing does not increase L1 distance), plus floating-point rounding: each
probability is a product of ``2T`` factors and a sum of at most ``2^T`` merged nodes, so at
most ``(4T + 2) u`` relative (``u`` the unit roundoff), i.e. ``(4T + 2) u`` in L1.

The privacy curve of a pair of laws is :func:`sequence_loss` (both directions, closed form
after sorting the log-ratios); the search over neighbouring tables is in
:mod:`dpaudit.exact.trajectory_search`.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from dpaudit.exact.loss import UNIT_ROUNDOFF, Bounded, OutOfRangeError
from dpaudit.validation import InvalidParameterError, check_int

__all__ = [
    "Histories",
    "Prefixes",
    "SequenceLaw",
    "StatisticPolicy",
    "TrajectoryPolicy",
    "epsilon_at_delta",
    "hockey_stick_both",
    "sequence_law",
    "sequence_loss",
]

#: nodes a dynamic programme may hold at once (about 60 MB of node state at K = 2)
MAX_NODES = 1 << 23


@dataclass(frozen=True)
class Histories:
    """A batch of ``m`` histories before step ``t`` (1-based): ``actions`` and
    ``observations`` are ``(m, t - 1)``, ``sums`` and ``counts`` ``(m, K)``."""

    t: int
    actions: np.ndarray
    observations: np.ndarray
    sums: np.ndarray
    counts: np.ndarray


@runtime_checkable
class TrajectoryPolicy(Protocol):
    """What :func:`sequence_law` needs from a policy (see the module docstring)."""

    n_arms: int
    markov: bool

    def observe_probability(self, rewards: np.ndarray) -> np.ndarray: ...

    def action_law(self, h: Histories) -> tuple[np.ndarray, np.ndarray]: ...


def bernoulli_observation(rewards: np.ndarray) -> np.ndarray:
    """``P(observation = 1 | reward r) = r`` (a Bernoulli draw of a reward in ``[0, 1]``)."""
    return np.asarray(rewards, dtype=float)


class StatisticPolicy:
    """A Markov trajectory policy from a per-history law of ``(sums, counts)``.

    Parameters
    ----------
    n_arms:
        ``K``.
    law:
        ``law(sums, counts) -> (probabilities, l1_error)`` for one history (1-d arrays), e.g.
        an algorithm's exact ``next_action_law``. Called once per distinct history (cached
        for the life of this object, across tables).
    round_robin:
        Steps ``1..K`` pull arm ``t - 1`` (the initialisation of DP-FTPL-New, Thompson and
        APT), so ``law`` is only asked about histories with every count at least 1.
    observe:
        ``P(observation = 1 | reward)``, vectorised; default :func:`bernoulli_observation`.
    initial:
        ``(sums, counts)`` already observed before step 1 (default none): the trajectory
        is then the next ``T`` actions after that history (``T = 1`` is the per-step law).
    cache:
        A dict shared by several policies with the same ``law`` (keyed by the history), so
        that each distinct history is computed once; default a private one.
    """

    markov = True

    def __init__(self, n_arms: int, law: Callable[[np.ndarray, np.ndarray],
                                                  tuple[np.ndarray, float]], *,
                 round_robin: bool = False,
                 observe: Callable[[np.ndarray], np.ndarray] = bernoulli_observation,
                 initial: tuple[np.ndarray, np.ndarray] | None = None,
                 cache: dict[bytes, tuple[np.ndarray, float]] | None = None) -> None:
        self.n_arms = check_int("n_arms", n_arms, low=2)
        self.law = law
        self.round_robin = bool(round_robin)
        self.observe = observe
        k = self.n_arms
        if initial is None:
            self.initial = (np.zeros(k), np.zeros(k))
        else:
            s, n = (np.asarray(v, dtype=float) for v in initial)
            if s.shape != (k,) or n.shape != (k,) or np.any(n < 0) or np.any(s < 0) \
                    or np.any(s > n):
                raise InvalidParameterError(f"initial={initial!r} must be (sums, counts) of "
                                            f"{k} arms with 0 <= sums <= counts")
            self.initial = (s, n)
        self._cache: dict[bytes, tuple[np.ndarray, float]] = {} if cache is None else cache

    def observe_probability(self, rewards: np.ndarray) -> np.ndarray:
        return self.observe(rewards)

    def _one(self, s: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, float]:
        key = np.concatenate([s, n]).tobytes()
        hit = self._cache.get(key)
        if hit is None:
            p, e = self.law(s, n)
            hit = (np.asarray(p, dtype=float), float(e))
            self._cache[key] = hit
        return hit

    def action_law(self, h: Histories) -> tuple[np.ndarray, np.ndarray]:
        m, k = h.sums.shape
        if self.round_robin and h.t <= k:
            p = np.zeros((m, k))
            p[:, h.t - 1] = 1.0
            return p, np.zeros(m)
        s0, n0 = self.initial
        sums, counts = h.sums + s0, h.counts + n0
        rows, inverse = unique_rows(np.hstack([sums, counts]))
        laws = [self._one(r[:k], r[k:]) for r in rows]
        p = np.array([law[0] for law in laws])
        e = np.array([law[1] for law in laws])
        return p[inverse], e[inverse]


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)`` for a 2-D numeric array: the distinct
    rows in lexicographic order and each row's index among them, by one ``np.lexsort`` of the
    columns. NumPy sorts the rows as opaque records instead, which is about 8x slower on this
    programme's (node, sums) tables (20000 x 5: 35 ms against 4.4 ms) and took a quarter of
    ``check dp-ftpl-new``. (:func:`dpaudit.stats.families._lex_codes` does the same on packed
    integer words.)"""
    order = np.lexsort(rows.T[::-1])
    ranked = rows[order]
    new = np.concatenate([[True], np.any(ranked[1:] != ranked[:-1], axis=1)])
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ranked[new], inverse


@dataclass(frozen=True)
class SequenceLaw:
    """``P(A_1..A_T = sequence)`` for every code ``sum_t A_t K^(T-t)``, its L1 error bound,
    and the largest number of nodes the programme held."""

    probabilities: np.ndarray
    error: float
    horizon: int
    n_arms: int
    nodes: int


def _check_table(table: object, k: int) -> np.ndarray:
    tab = np.asarray(table, dtype=float)
    if tab.ndim != 2 or tab.shape[1] != k or tab.shape[0] < 1:
        raise InvalidParameterError(f"table of shape {tab.shape} must be (T, {k}) with T >= 1")
    if not np.all(np.isfinite(tab)) or np.any(tab < 0) or np.any(tab > 1):
        raise InvalidParameterError("table entries must be rewards in [0, 1]")
    return tab


def _nbytes(state: tuple[Any, ...]) -> int:
    return sum(v.nbytes for v in state if isinstance(v, np.ndarray))


class Prefixes:
    """The programme's state after the first ``t`` steps of tables already computed, keyed by
    those ``t`` rows, for one policy: :func:`sequence_law` resumes a table from its longest
    known prefix instead of step 1. A search's tables share long prefixes (a structured
    pair's tables agree before the changed step; the exhaustive enumeration is
    lexicographic), so about half of its steps are skipped. The state after ``t`` steps reads
    only the first ``t`` rows, and resuming repeats the same arithmetic, so every law is the
    one computed from step 1, bit for bit. Oldest states are dropped past ``max_bytes``. The
    states are those of the first policy it is used with: another policy is refused."""

    def __init__(self, max_bytes: int = 64 << 20) -> None:
        self.max_bytes = check_int("max_bytes", max_bytes, low=0)
        self._states: OrderedDict[bytes, tuple[Any, ...]] = OrderedDict()
        self._bytes = 0
        self._policy: object | None = None

    def bind(self, policy: object) -> None:
        """Check that ``policy`` is the one whose states these are (the first one seen). The
        policy itself is kept, not its ``id``: a policy freed after its first table could
        leave its address to another, which would then have been taken for it."""
        if self._policy is None:
            self._policy = policy
        elif self._policy is not policy:
            raise InvalidParameterError("a Prefixes holds the states of one policy: give each "
                                        "policy its own")

    def longest(self, tab: np.ndarray) -> tuple[int, tuple[Any, ...] | None]:
        """``(t, state)`` for the longest known proper prefix of ``tab`` (``(0, None)``)."""
        for t in range(tab.shape[0] - 1, 0, -1):
            key = tab[:t].tobytes()
            state = self._states.get(key)
            if state is not None:
                self._states.move_to_end(key)
                return t, state
        return 0, None

    def keep(self, prefix: np.ndarray, state: tuple[Any, ...]) -> None:
        key = prefix.tobytes()
        if key in self._states:
            return
        size = _nbytes(state)
        if size > self.max_bytes:
            return
        self._states[key] = state
        self._bytes += size
        while self._bytes > self.max_bytes:
            _, old = self._states.popitem(last=False)
            self._bytes -= _nbytes(old)

    def __getstate__(self) -> dict[str, int]:
        # sent to another process (a Dask task) empty: the states are a cache, not data
        return {"max_bytes": self.max_bytes}

    def __setstate__(self, state: dict[str, int]) -> None:
        self.__init__(state["max_bytes"])  # type: ignore[misc]


def sequence_law(policy: TrajectoryPolicy, table: object, *,
                 prefixes: Prefixes | None = None) -> SequenceLaw:
    """The exact law of the ``T`` actions of ``policy`` on the ``(T, K)`` reward ``table``.

    See the module docstring for the programme and its error bound. ``prefixes`` (one per
    policy): states of earlier tables to resume from and to add to (:class:`Prefixes`).
    """
    k = check_int("n_arms", policy.n_arms, low=2)
    tab = _check_table(table, k)
    horizon = tab.shape[0]
    markov = bool(policy.markov)
    code: np.ndarray = np.zeros(1, dtype=np.int64)
    weight: np.ndarray = np.ones(1)
    sums = np.zeros((1, k))
    counts = np.zeros((1, k))
    actions = np.zeros((1, 0), dtype=np.int64)
    obs = np.zeros((1, 0))
    law_error, most = 0.0, 1
    done = 0
    if prefixes is not None:
        prefixes.bind(policy)
        done, state = prefixes.longest(tab)
        if state is not None:
            code, weight, sums, counts, actions, obs, law_error, most = state
    for t in range(done + 1, horizon + 1):
        h = Histories(t, actions, obs, sums, counts)
        p, e = policy.action_law(h)
        p = np.asarray(p, dtype=float)
        e = np.broadcast_to(np.asarray(e, dtype=float), (code.size,))
        if p.shape != (code.size, k) or not np.all(np.isfinite(p)) or np.any(p < 0):
            raise InvalidParameterError(
                f"{type(policy).__name__}.action_law returned an invalid law of shape "
                f"{p.shape} at step {t} (expected ({code.size}, {k}), finite, >= 0)")
        law_error += float(e.max()) if e.size else 0.0
        one = np.clip(np.asarray(policy.observe_probability(tab[t - 1]), dtype=float), 0, 1)
        # children: every node x every arm x (observation 1, observation 0)
        arm = np.tile(np.arange(k), code.size)
        parent = np.repeat(np.arange(code.size), k)
        w = weight[parent] * p.ravel()
        p1 = one[arm]
        branch = [(1.0, p1), (0.0, 1.0 - p1)]
        keep_c, keep_w, keep_s, keep_n, keep_a, keep_o = [], [], [], [], [], []
        for value, prob in branch:
            cw = w * prob
            live = cw > 0
            par, ar = parent[live], arm[live]
            s = sums[par].copy()
            s[np.arange(par.size), ar] += value
            n = counts[par].copy()
            n[np.arange(par.size), ar] += 1.0
            keep_c.append(code[par] * k + ar)
            keep_w.append(cw[live])
            keep_s.append(s)
            keep_n.append(n)
            if not markov:
                keep_a.append(np.hstack([actions[par], ar[:, None]]))
                keep_o.append(np.hstack([obs[par], np.full((par.size, 1), value)]))
        code = np.concatenate(keep_c)
        weight = np.concatenate(keep_w)
        sums = np.vstack(keep_s)
        counts = np.vstack(keep_n)
        if markov:
            # merge equal (prefix, sums): the counts follow from the prefix
            key = np.hstack([code[:, None].astype(float), sums])
            uniq, inv = unique_rows(key)
            weight = np.bincount(inv, weights=weight, minlength=uniq.shape[0])
            first = np.zeros(uniq.shape[0], dtype=np.int64)
            first[inv[::-1]] = np.arange(inv.size)[::-1]
            code, sums, counts = code[first], sums[first], counts[first]
            actions = np.zeros((code.size, 0), dtype=np.int64)
            obs = np.zeros((code.size, 0))
        else:
            actions, obs = np.vstack(keep_a), np.vstack(keep_o)
        most = max(most, code.size)
        if code.size > MAX_NODES:
            raise OutOfRangeError(f"the trajectory programme needs {code.size} nodes at step "
                                  f"{t} (limit {MAX_NODES}): use a shorter horizon")
        if prefixes is not None and t < horizon:
            prefixes.keep(tab[:t], (code, weight, sums, counts, actions, obs, law_error, most))
    probs = np.bincount(code, weights=weight, minlength=k ** horizon)
    error = law_error + (4 * horizon + 2) * UNIT_ROUNDOFF
    return SequenceLaw(probs, error, horizon, k, most)


def hockey_stick_both(p: np.ndarray, q: np.ndarray, epsilon: np.ndarray | float
                      ) -> np.ndarray:
    """``max(H_eps(p||q), H_eps(q||p))`` for one or many epsilons (vectorised; no error term:
    see :func:`sequence_loss` for the bound)."""
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    out = np.zeros(eps.shape)
    for a, b in ((p, q), (q, p)):
        with np.errstate(divide="ignore", invalid="ignore"):
            lr = np.log(a) - np.log(b)
        order = np.argsort(-lr, kind="stable")
        lr_s, a_s, b_s = lr[order], a[order], b[order]
        ca, cb = np.cumsum(a_s), np.cumsum(b_s)
        # number of outcomes with log-ratio above eps (lr_s is descending; NaN where a=b=0)
        lr_clean = np.where(np.isnan(lr_s), -np.inf, lr_s)
        m = np.searchsorted(-lr_clean, -eps, side="left")
        pa = np.where(m > 0, ca[np.maximum(m - 1, 0)], 0.0)
        pb = np.where(m > 0, cb[np.maximum(m - 1, 0)], 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            val = pa - np.exp(np.minimum(eps, 700.0)) * pb
        out = np.maximum(out, np.where(m > 0, val, 0.0))
    return np.maximum(out, 0.0)


def epsilon_at_delta(p: np.ndarray, q: np.ndarray, delta: float) -> float:
    """Smallest ``eps >= 0`` with ``max(H_eps(p||q), H_eps(q||p)) <= delta``, in closed form.

    Sort the outcomes by log-ratio ``L`` (descending); between consecutive ratios
    ``H_eps = P_k - e^eps Q_k`` with ``P_k, Q_k`` the masses of the ``k`` outcomes above, so the
    root on that piece is ``log((P_k - delta) / Q_k)``; the answer is the largest root over
    pieces and directions (``inf`` if mass above ``delta`` sits where the other law has none).
    """
    if delta == 0.0:
        best = 0.0
        for a, b in ((p, q), (q, p)):
            mask = (a > 0)
            a_m, b_m = a[mask], b[mask]
            if np.any(b_m == 0):
                return math.inf
            if a_m.size:
                best = max(best, float(np.max(np.log(a_m) - np.log(b_m))))
        return best
    return _epsilon_from_sorted(_sorted_sides(p, q), delta)


def _sorted_sides(p: np.ndarray, q: np.ndarray
                  ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
    """For each direction ``(a, b)`` of ``(p, q)``: the log-ratios of the outcomes with ``a >
    0`` sorted descending and the two laws' masses summed down that order, what
    :func:`epsilon_at_delta` reads for any ``delta > 0`` (sorted once for several deltas)."""
    sides = []
    for a, b in ((p, q), (q, p)):
        mask = (a > 0)
        a_m, b_m = a[mask], b[mask]
        with np.errstate(divide="ignore"):
            lr = np.log(a_m) - np.log(b_m)
        order = np.argsort(-lr, kind="stable")
        sides.append((lr[order], np.cumsum(a_m[order]), np.cumsum(b_m[order])))
    return tuple(sides)


def _epsilon_from_sorted(sides: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...],
                         delta: float) -> float:
    best = 0.0
    for lr_s, ca, cb in sides:
        # on the piece where exactly the first k outcomes lie above eps, eps = log((P_k-d)/Q_k)
        with np.errstate(divide="ignore", invalid="ignore"):
            roots = np.log(np.maximum(ca - delta, 0.0)) - np.log(cb)
        # mass above delta with no counterpart: no finite epsilon
        if np.any((ca > delta) & (cb == 0)):
            return math.inf
        upper = lr_s  # the piece of k outcomes covers eps < L_k
        lower = np.append(lr_s[1:], -np.inf)  # and eps >= L_{k+1}
        ok = (ca > delta) & (roots < upper) & (roots >= lower) & np.isfinite(roots)
        if ok.any():
            best = max(best, float(roots[ok].max()))
    return max(best, 0.0)


def _log_ratio_bound(a: np.ndarray, b: np.ndarray, *, low: bool) -> float:
    """``max log(a / b)`` over outcomes: for the lower end only where ``a > 0`` (else 0),
    for the upper end ``inf`` as soon as some ``a > 0`` meets ``b <= 0``."""
    if low:
        ok = (a > 0) & (b > 0)
        return float(np.max(np.log(a[ok]) - np.log(b[ok]), initial=0.0))
    live = a > 0
    if np.any(live & (b <= 0)):
        return math.inf
    return float(np.max(np.log(a[live]) - np.log(b[live]), initial=0.0))


@dataclass(frozen=True)
class SequenceLoss:
    """The exact privacy loss of one pair of sequence laws.

    ``delta_at_epsilon``: ``max(H_eps(P||Q), H_eps(Q||P))`` at the claim's epsilon with its
    error bound; ``epsilon_at_delta``: the smallest epsilon meeting ``delta``, with the
    interval that the laws' error bounds allow (``epsilon_low``, ``epsilon_high``)."""

    delta_at_epsilon: Bounded
    epsilon_at_delta: float
    epsilon_low: float
    epsilon_high: float


def sequence_loss(p: SequenceLaw, q: SequenceLaw, *, epsilon: float, delta: float
                  ) -> SequenceLoss:
    """Exact ``delta(eps)`` and ``eps(delta)`` of two sequence laws, with error bounds.

    ``|H_eps(p~||q~) - H_eps(p||q)| <= e_p + e^eps e_q`` for laws with L1 errors ``e_p, e_q``
    (either direction), plus the floating sum's ``(n + 3) u (1 + e^eps)``. The epsilon interval
    is the closed-form root at ``delta`` moved by that error (``eps(delta)`` is monotone).
    """
    pa, qa = p.probabilities, q.probabilities
    n = pa.size

    def err_at(e: float) -> float:
        g = math.exp(min(e, 700.0))
        return max(p.error + g * q.error, q.error + g * p.error) + \
            (n + 3) * UNIT_ROUNDOFF * (1.0 + g)

    div = float(hockey_stick_both(pa, qa, epsilon)[0])
    sides = _sorted_sides(pa, qa) if delta > 0.0 else None
    eps = epsilon_at_delta(pa, qa, delta) if sides is None else _epsilon_from_sorted(sides, delta)
    if not math.isfinite(eps):
        return SequenceLoss(Bounded(div, err_at(epsilon), "exact sequence law"), eps, eps, eps)
    slack = err_at(eps + 1.0)
    exact = max(p.error, q.error) <= (4 * p.horizon + 2) * UNIT_ROUNDOFF
    if delta == 0.0:
        # a pure loss: log-ratios of laws exact to rounding are exact to a few units of it;
        # otherwise every outcome's probability is within its law's L1 error
        lo = hi = eps
        if not exact:
            lo = max(_log_ratio_bound(pa - p.error, qa + q.error, low=True),
                     _log_ratio_bound(qa - q.error, pa + p.error, low=True))
            hi = max(_log_ratio_bound(pa + p.error, qa - q.error, low=False),
                     _log_ratio_bound(qa + q.error, pa - p.error, low=False))
    else:
        assert sides is not None
        lo = _epsilon_from_sorted(sides, delta + slack)
        hi = _epsilon_from_sorted(sides, delta - slack) if delta > slack else math.inf
    return SequenceLoss(Bounded(div, err_at(epsilon), "exact sequence law"), eps, lo, hi)
