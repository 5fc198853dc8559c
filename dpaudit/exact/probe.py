"""Read the law of a local report from the running code (gray-box, exact).

A local-DP report of the form ``report = g(data) + J z``, where ``z`` are the generator's
standard draws (``rng.standard_normal(shape)``, ``rng.normal(loc, scale, size)``,
``rng.laplace(loc, scale, size)``), has the law ``N(g, J J^T)`` when every draw is Gaussian,
and is a vector of independent Laplace coordinates when every draw is a Laplace draw that
feeds one coordinate. :func:`probe_report` recovers ``g`` and ``J`` from the code itself: it
calls the report once more per draw with a :class:`ProbeGenerator` (a
``numpy.random.Generator`` that serves chosen standard draws) -- all zeros (``g``), then each
unit vector (the columns of ``J``) -- and then verifies ``report(z) = g + J z`` exactly, up to
a floating-point bound, on ``verify`` draws ``z`` of the true law from a real generator. Every
call must make the same draws (methods, shapes, in order).

:func:`pair_loss` turns two probed reports (two user data, the same draws and the same ``J``)
into the exact privacy loss between them:

* **Gaussian**: a shift by ``s = g - g'`` under covariance ``Sigma = J J^T`` has the privacy
  curve of a unit Gaussian shift by the Mahalanobis norm ``mu = |s|_{Sigma^+}`` (the
  minimum-norm solution ``y`` of ``J y = s`` has ``|y| = mu``; Balle & Wang 2018, Thm 8, after
  whitening); a shift with a component outside ``range(J)`` (an unnoised coordinate, or noise
  shared by coordinates that the data move apart) puts the two laws on disjoint affine
  subspaces: the loss is infinite and ``delta = 1`` at every ``eps``.
* **Laplace**: each coordinate carries at most one draw and each draw feeds one coordinate;
  the loss is ``sum |s_i| / b_i`` (pure DP), the divergence exact for one moved coordinate
  (:func:`dpaudit.exact.divergence.laplace_hockey_stick`) and the lower bound of
  :func:`dpaudit.exact.loss.laplace_composition_delta` for several (zero, exactly, when the
  loss is within ``eps``).

Anything that does not verify -- a report not affine in its draws, draws that depend on the
data or on earlier draws, methods with another law (``rng.random``, ``rng.uniform``, ...), a
``J`` that depends on the data, Gaussian and Laplace draws mixed -- gives a
:class:`Unverified` with the reason; nothing is guessed.

**Error bounds.** ``g`` and the columns ``J e_i = report(e_i) - g`` are floating results; the
verification residual ``|report(z) - g - J z|`` on draws of the true law must lie within
``c u (|g| (1 + |z|_1) + |J| |z|)`` per coordinate (``u`` the unit roundoff, ``c = 64 + 4n``
for ``n`` draws: a generous multiple of the operations an affine report makes per coordinate),
and the same per-coordinate bound, at ``z = e_i``, is carried as the error of ``J``. The
Mahalanobis norm's error is then bounded to first order by
``|J^+| (|ds| + |dJ| |y|) + 8 n u cond(J) |y|`` and enters the divergence through its slope in
``mu`` (``phi(mu/2 - eps/mu)``, as in :func:`dpaudit.exact.divergence.gaussian_hockey_stick`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit.exact.divergence import (
    epsilon_for_delta,
    gaussian_hockey_stick,
    laplace_hockey_stick,
)
from dpaudit.exact.loss import UNIT_ROUNDOFF, Bounded, OutOfRangeError, laplace_composition_delta

__all__ = [
    "AffineReport",
    "PairLoss",
    "ProbeGenerator",
    "Unverified",
    "flatten_report",
    "pair_loss",
    "probe_report",
]

#: the largest number of standard draws one probed report may make (one call per draw)
MAX_DRAWS = 4096
#: the methods a probed report may call, and the law of their standard draw
LAWS = {"standard_normal": "normal", "normal": "normal", "laplace": "laplace"}


class ProbeError(RuntimeError):
    """The report did something the probe cannot read exactly (the message says what)."""


Call = tuple[str, tuple[int, ...]]


class ProbeGenerator(np.random.Generator):
    """A ``numpy.random.Generator`` that serves chosen standard draws.

    ``script`` holds the standard draws to serve, in order (missing ones are 0);
    ``standard_normal(size)`` returns them, ``normal(loc, scale, size)`` returns ``loc +
    scale * z`` and ``laplace(loc, scale, size)`` the same with ``z`` a standard Laplace
    draw. ``calls`` records each call's method and shape. Any other public method (or a
    ``dtype``/``out`` argument) raises :class:`ProbeError`: its law is not read.
    """

    _ALLOWED = frozenset({"standard_normal", "normal", "laplace"})

    def __init__(self, script: np.ndarray | None = None) -> None:
        super().__init__(np.random.PCG64(0))
        self._script = np.zeros(0) if script is None else np.asarray(script, float).ravel()
        self.used = 0
        self.calls: list[Call] = []
        self.kinds: list[str] = []
        self.on_take: Callable[[str, tuple[int, ...]], Any] | None = None

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("_") and name not in ProbeGenerator._ALLOWED and name not in {
                "used", "calls", "kinds", "on_take"}:
            raise ProbeError(f"the report calls rng.{name}, whose law the probe does not read "
                             "(only standard_normal, normal and laplace)")
        return object.__getattribute__(self, name)

    def _take(self, method: str, shape: tuple[int, ...]) -> np.ndarray:
        n = int(np.prod(shape)) if shape else 1
        start = self.used
        self.used += n
        self.calls.append((method, shape))
        self.kinds.extend([LAWS[method]] * n)
        if self.on_take is not None:
            self.on_take(method, shape)
        if self.used > MAX_DRAWS:
            raise ProbeError(f"the report makes more than {MAX_DRAWS} draws")
        part = self._script[start:self.used]
        if part.size < n:
            part = np.concatenate([part, np.zeros(n - part.size)])
        return part.reshape(shape)

    @staticmethod
    def _shape(size: Any, *params: Any) -> tuple[int, ...]:
        if size is None:
            return tuple(np.broadcast(*[np.asarray(p) for p in params]).shape) if params else ()
        if isinstance(size, int | np.integer):
            return (int(size),)
        return tuple(int(s) for s in size)

    @staticmethod
    def _out(z: np.ndarray, shape: tuple[int, ...]) -> Any:
        return float(z) if shape == () else z

    def standard_normal(self, size: Any = None, dtype: Any = np.float64,
                        out: Any = None) -> Any:
        if out is not None or np.dtype(dtype) != np.float64:
            raise ProbeError("rng.standard_normal with out= or a dtype other than float64")
        shape = self._shape(size)
        return self._out(self._take("standard_normal", shape), shape)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0,
               size: Any = None) -> Any:
        shape = self._shape(size, loc, scale)
        z = self._take("normal", shape)
        return self._out(np.asarray(loc, float) + np.asarray(scale, float) * z, shape)

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0,
                size: Any = None) -> Any:
        shape = self._shape(size, loc, scale)
        z = self._take("laplace", shape)
        return self._out(np.asarray(loc, float) + np.asarray(scale, float) * z, shape)


def flatten_report(out: Any) -> np.ndarray:
    """A report (a number, an array, or a tuple/list of them) as one float vector, in order."""
    if isinstance(out, tuple | list):
        parts = [flatten_report(o) for o in out]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.asarray(out, dtype=float).ravel()


@dataclass(frozen=True)
class Unverified:
    """The probe could not read the law exactly: ``reason`` says why (never a guess)."""

    reason: str


@dataclass(frozen=True)
class AffineReport:
    """``report = g + J z`` read from the code (module docstring).

    ``kinds`` gives the law of each standard draw (``"normal"`` or ``"laplace"``), ``calls``
    the generator calls in order; ``g_error`` and ``j_error`` bound the absolute errors of
    ``g`` and ``J`` entrywise; ``residual`` is the largest verification residual relative to
    its allowance (at most 1).
    """

    g: np.ndarray
    jac: np.ndarray
    kinds: tuple[str, ...]
    calls: tuple[Call, ...]
    g_error: np.ndarray
    j_error: np.ndarray
    residual: float
    verified: int = field(default=0)

    @property
    def law(self) -> str:
        kinds = set(self.kinds)
        if not kinds:
            return "none"
        return kinds.pop() if len(kinds) == 1 else "mixed"


def _run(report: Callable[[np.random.Generator], Any], script: np.ndarray | None
         ) -> tuple[np.ndarray, ProbeGenerator]:
    gen = ProbeGenerator(script)
    out = flatten_report(report(gen))
    return out, gen


def _allowance(g: np.ndarray, jac: np.ndarray, z: np.ndarray) -> np.ndarray:
    n = z.size
    c = (64.0 + 4.0 * n) * UNIT_ROUNDOFF
    out: np.ndarray = c * (np.abs(g) * (1.0 + np.sum(np.abs(z))) + np.abs(jac) @ np.abs(z)) \
        + 1e-300
    return out


def probe_report(report: Callable[[np.random.Generator], Any], *, verify: int = 4,
                 rng: np.random.Generator | None = None) -> AffineReport | Unverified:
    """Read ``report(rng) = g + J z`` from the code (module docstring).

    ``report`` builds ONE user's report from the generator it is given (the data are bound
    in it); ``verify`` draws of the true law (from ``rng``, a real generator; default seeded)
    check the affine form.
    """
    real = np.random.default_rng(0x5EED) if rng is None else rng
    try:
        g, gen0 = _run(report, None)
        n = gen0.used
        calls, kinds = tuple(gen0.calls), tuple(gen0.kinds)
        if not np.all(np.isfinite(g)):
            return Unverified("the report at zero draws is not finite")
        cols = []
        for i in range(n):
            e = np.zeros(n)
            e[i] = 1.0
            out, gen = _run(report, e)
            if tuple(gen.calls) != calls or out.shape != g.shape:
                return Unverified("the draws (methods, shapes) or the report's size change "
                                  "with the values drawn")
            cols.append(out - g)
        jac = np.stack(cols, axis=1) if cols else np.zeros((g.size, 0))
        j_error = np.stack([_allowance(g, jac, np.eye(n)[i]) for i in range(n)], axis=1) \
            if n else np.zeros((g.size, 0))
        worst = 0.0
        for _ in range(verify):
            z = np.array([real.standard_normal() if k == "normal" else real.laplace()
                          for k in kinds])
            out, gen = _run(report, z)
            if tuple(gen.calls) != calls or out.shape != g.shape:
                return Unverified("the draws (methods, shapes) or the report's size change "
                                  "with the values drawn")
            res = np.abs(out - g - jac @ z)
            allow = _allowance(g, jac, z) + np.abs(j_error) @ np.abs(z)
            if np.any(res > allow):
                i = int(np.argmax(res / allow))
                return Unverified(f"the report is not affine in its draws: coordinate {i} "
                                  f"misses g + J z by {res[i]:.3g} (allowed {allow[i]:.3g})")
            worst = max(worst, float(np.max(res / allow)) if res.size else 0.0)
    except ProbeError as exc:
        return Unverified(str(exc))
    return AffineReport(g=g, jac=jac, kinds=kinds, calls=calls, g_error=_allowance(
        g, jac, np.zeros(len(kinds))), j_error=j_error, residual=worst, verified=verify)


@dataclass(frozen=True)
class PairLoss:
    """The exact loss between two user data's reports at the claimed ``epsilon``/``delta``.

    ``delta`` (a :class:`Bounded`, both directions) at ``epsilon``; ``epsilon_at_delta`` the
    smallest eps meeting ``delta`` (``inf`` for an infinite loss; ``None`` where only a
    bound is known); ``mu`` the Mahalanobis distance (Gaussian; ``inf`` off ``range(J)``),
    ``pure`` the pure-DP loss (Laplace); ``exact`` false when ``delta`` is a lower bound.
    """

    law: str
    delta: Bounded
    epsilon_at_delta: float | None
    mu: float | None = None
    mu_error: float = 0.0
    pure: float | None = None
    exact: bool = True
    note: str = ""


def _same_draws(a: AffineReport, b: AffineReport) -> str:
    if a.calls != b.calls or a.kinds != b.kinds or a.g.shape != b.g.shape:
        return "the two data's reports make different draws (data-dependent draws)"
    if np.any(np.abs(a.jac - b.jac) > a.j_error + b.j_error):
        return ("the noise matrix J depends on the data (the noise is scaled by the data): "
                "the law is not a shifted Gaussian/Laplace vector")
    return ""


def gaussian_shift_delta(epsilon: float, mu: float, mu_error: float = 0.0) -> Bounded:
    """``delta(eps)`` of a unit Gaussian shift by ``mu`` with an error in ``mu`` carried
    through the curve's slope ``phi(mu/2 - eps/mu)``."""
    if mu == 0.0:
        return Bounded(0.0, 0.0, "no shift")
    b = gaussian_hockey_stick(epsilon, mu, 1.0)
    z = mu / 2.0 - epsilon / mu
    slope = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi) if abs(z) < 40.0 else 0.0
    return Bounded(float(b.value), float(b.error) + slope * mu_error, b.how)


def pair_loss(a: AffineReport, b: AffineReport, epsilon: float, delta: float, *,
              with_epsilon: bool = True) -> PairLoss | Unverified:
    """The exact loss between the reports ``a`` and ``b`` of two data (module docstring).

    ``with_epsilon=False`` skips the root find for ``epsilon_at_delta`` (``None``)."""
    why = _same_draws(a, b)
    if why:
        return Unverified(why)
    law = a.law
    s = a.g - b.g
    s_err = a.g_error + b.g_error
    jac = a.jac
    if law == "mixed":
        return Unverified("Gaussian and Laplace draws mixed in one report: no exact loss here")
    if law in ("none", "normal"):
        return _gaussian_pair(s, s_err, jac, a.j_error + b.j_error, epsilon, delta,
                              with_epsilon)
    return _laplace_pair(s, s_err, jac, a.j_error + b.j_error, epsilon, delta, with_epsilon)


def _infinite(law: str, note: str) -> PairLoss:
    return PairLoss(law, Bounded(1.0, 0.0, note), math.inf, mu=math.inf if law == "normal"
                    else None, pure=math.inf if law == "laplace" else None, note=note)


def _gaussian_pair(s: np.ndarray, s_err: np.ndarray, jac: np.ndarray, j_err: np.ndarray,
                   epsilon: float, delta: float, with_epsilon: bool = True) -> PairLoss:
    m, n = jac.shape
    if not np.any(np.abs(s) > s_err):
        return PairLoss("normal", Bounded(0.0, 0.0, "no shift"), 0.0, mu=0.0)
    if n == 0:
        return _infinite("normal", "the report carries no noise and the data move it")
    u, sv, vt = np.linalg.svd(jac, full_matrices=False)
    jnorm_err = float(np.linalg.norm(j_err))
    tol = max(1e3 * max(m, n) * UNIT_ROUNDOFF * float(sv[0]) if sv.size else 0.0,
              10.0 * jnorm_err)
    rank = int(np.sum(sv > tol))
    ur, sr, vr = u[:, :rank], sv[:rank], vt[:rank]
    coef = ur.T @ s
    resid = s - ur @ coef
    # the residual allowed by the errors of s and J (J's error can tilt its range)
    allowed = float(np.linalg.norm(s_err)) + jnorm_err * float(np.linalg.norm(s)) / (
        float(sr[-1]) if rank else 1.0) + 1e3 * m * UNIT_ROUNDOFF * float(np.linalg.norm(s))
    if float(np.linalg.norm(resid)) > allowed:
        return _infinite("normal", f"the shift has a component {np.linalg.norm(resid):.3g} "
                         "outside the noise's range (an unnoised or shared-noise direction): "
                         "the two laws live on disjoint affine subspaces")
    y = vr.T @ (coef / sr)
    mu = float(np.linalg.norm(y))
    pinv_norm = 1.0 / float(sr[-1])
    cond = float(sr[0] / sr[-1])
    mu_err = pinv_norm * (float(np.linalg.norm(s_err)) + jnorm_err * mu) \
        + 8.0 * n * UNIT_ROUNDOFF * cond * mu
    try:
        d = gaussian_shift_delta(epsilon, mu, mu_err)
        e: float | None = (_gaussian_epsilon(delta, mu) if delta > 0 else math.inf) \
            if with_epsilon else None
    except OutOfRangeError as exc:
        return PairLoss("normal", Bounded(math.nan, math.nan, str(exc)), None, mu=mu,
                        mu_error=mu_err, note=str(exc))
    return PairLoss("normal", d, e, mu=mu, mu_error=mu_err)


def _gaussian_epsilon(delta: float, mu: float) -> float:
    b = epsilon_for_delta(lambda e: gaussian_hockey_stick(e, mu, 1.0), delta, eps_max=1e4,
                          xtol=1e-12)
    return float(b.value)


def _laplace_pair(s: np.ndarray, s_err: np.ndarray, jac: np.ndarray, j_err: np.ndarray,
                  epsilon: float, delta: float, with_epsilon: bool = True
                  ) -> PairLoss | Unverified:
    nz = np.abs(jac) > j_err
    if np.any(nz.sum(axis=0) > 1) or np.any(nz.sum(axis=1) > 1):
        return Unverified("a Laplace draw feeds several coordinates, or a coordinate sums "
                          "several Laplace draws: not a vector of independent Laplace "
                          "coordinates")
    moved = np.abs(s) > s_err
    noise = np.where(nz.any(axis=1), np.abs(jac).max(axis=1, initial=0.0), 0.0)
    if np.any(moved & (noise == 0.0)):
        return _infinite("laplace", "a coordinate the data move carries no Laplace noise")
    idx = np.flatnonzero(moved)
    if idx.size == 0:
        return PairLoss("laplace", Bounded(0.0, 0.0, "no shift"), 0.0, pure=0.0)
    pure = float(np.sum(np.abs(s[idx]) / noise[idx]))
    if idx.size == 1:
        i = int(idx[0])
        sh, b = float(abs(s[i])), float(noise[i])
        d = laplace_hockey_stick(epsilon, sh, b)
        e: float | None = float(epsilon_for_delta(
            lambda x: laplace_hockey_stick(x, sh, b), delta, eps_max=max(2.0 * pure, 1.0)
        ).value) if delta > 0 else pure
        return PairLoss("laplace", Bounded(float(d.value), float(d.error), d.how),
                        e if with_epsilon else None, pure=pure)
    d = laplace_composition_delta(pure, int(idx.size), epsilon)
    return PairLoss("laplace", Bounded(float(d.value), float(d.error), d.how),
                    pure if delta == 0 else None, pure=pure, exact=pure <= epsilon,
                    note=f"{idx.size} Laplace coordinates moved: delta is exact (0) within "
                    "the pure loss, else a lower bound")


def worst_pair(reports: Sequence[AffineReport], pairs: Sequence[tuple[int, int]],
               epsilon: float, delta: float
               ) -> tuple[tuple[int, int] | None, PairLoss | None, list[str]]:
    """The pair with the largest ``delta`` at ``epsilon`` (ties: the larger ``mu``) among
    ``pairs`` of indices into ``reports``, and the reasons of the pairs that did not
    verify."""
    best: tuple[int, int] | None = None
    loss: PairLoss | None = None
    skipped: list[str] = []
    for i, j in pairs:
        r = pair_loss(reports[i], reports[j], epsilon, delta, with_epsilon=False)
        if isinstance(r, Unverified):
            skipped.append(f"pair {i}-{j}: {r.reason}")
            continue
        key = (float(r.delta.value), r.mu if r.mu is not None else (r.pure or 0.0))
        if loss is None or key > (float(loss.delta.value), loss.mu if loss.mu is not None
                                  else (loss.pure or 0.0)):
            best, loss = (i, j), r
    if best is not None:
        full = pair_loss(reports[best[0]], reports[best[1]], epsilon, delta)
        loss = full if isinstance(full, PairLoss) else loss
    return best, loss, skipped
