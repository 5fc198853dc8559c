"""The parameter-domain battery (issue 9): verdicts to trust at every parameter a check accepts.

Driven by the registry, so a new name is covered without new test code:

* every **correct** name (not ``-faulty``), at ``(epsilon, delta)`` drawn from the domain its
  check accepts -- epsilon log-uniform on ``[1e-3, 50]``, delta 0 or log-uniform on
  ``[1e-12, 0.5]`` (or ``epsilon = 0`` where the check allows it), plus the extremes and the
  papers' own settings as explicit examples -- is never VIOLATED, raises nothing but the one
  usage error (``InvalidParameterError``: the check does not accept that point, exit 2), and
  writes a report that serialises to strict JSON (no NaN or infinity);
* every **broken twin** is VIOLATED at the parameters where its defect applies: the audit's
  ``defect_parameters`` when it declares them, else its default parameters (where the defect
  is shown today);
* every run finishes inside its stated hang guard (:data:`QUICK_BUDGET` with ``--quick``,
  :data:`FULL_BUDGET` without). These are guards against hangs, not speed claims.

Default suite: the *mechanism* checks (families without a regret experiment: exact and
symbolic claims, about a second each) broadly, with ``--quick``. Bandit checks (a regret
experiment in the family: sampled claims, 10-60 s each with ``--quick``) run at the extremes and
the papers' settings only in the ``slow`` sweep, which also runs every mechanism check without
``--quick`` on a wider sample.

False-failure probability of the sampled part: every run uses ``alpha = ALPHA = 1e-4`` for
its whole check (the engine splits it over the check's sampled claims, Bonferroni), so a
correct name comes out VIOLATED by chance with probability at most ``1e-4`` per run; the
default suite makes at most ``N_default`` runs, the bound is ``N_default * 1e-4`` (printed by
:func:`test_battery_size`), and seeds are fixed, so a pass is reproducible.
"""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dpaudit.engine import run_check
from dpaudit.registry import all_aliases, all_audits
from dpaudit.reports.text import to_json
from dpaudit.stats.results import Verdict
from dpaudit.validation import InvalidParameterError

ALPHA = 1e-4
QUICK_BUDGET = 120.0  # seconds, hang guard for one --quick run on a loaded 2-core machine
FULL_BUDGET = 900.0  # seconds, hang guard for one full run
SEED = 20261123

#: the papers' own settings: Azize & Basu 2022 (eps = 1, pure DP), Wang & Zhu 2023
#: ((1, 0.01), (1, e^-10), pure DP at eps 1 and 0.1), Zheng et al. 2020 / Balle & Wang 2018
#: ((1, 1e-5)), and the domain's corners
PAPER_SETTINGS = [(1.0, 0.01), (1.0, math.exp(-10)), (1.0, 0.0), (0.1, 0.0), (1.0, 1e-5)]
CORNERS = [(1e-3, 0.0), (1e-3, 0.5), (50.0, 0.0), (50.0, 0.5), (1e-3, 1e-12), (50.0, 1e-12)]
#: the default suite's explicit points: each corner of the box by one of its edges, and the
#: two settings most papers use (the rest run in the slow sweep)
DEFAULT_POINTS = [(1e-3, 1e-12), (1e-3, 0.5), (50.0, 0.0), (50.0, 0.5), (1.0, 0.01), (0.1, 0.0)]
RANDOM_EXAMPLES = 2

AUDITS = all_audits()


def _family_has_regret(name: str) -> bool:
    base = AUDITS.get(AUDITS[name].original, AUDITS[name])  # a twin NAME-<bug>: NAME's family
    return base.regret is not None or AUDITS[name].regret is not None


CORRECT = sorted(n for n, s in AUDITS.items() if not s.faulty)
#: an alias (``all_aliases``: every field but its name is its target's object) checks exactly
#: what its target does, so the twins are run once, under the target's name
TWINS = sorted(n for n, s in AUDITS.items() if s.faulty and n not in all_aliases())
MECHANISMS = [n for n in CORRECT if not _family_has_regret(n)]
BANDITS = [n for n in CORRECT if _family_has_regret(n)]

epsilons = st.floats(-3.0, math.log10(50.0)).map(lambda x: 10.0**x)
deltas = st.one_of(st.just(0.0), st.floats(-12.0, math.log10(0.5)).map(lambda x: 10.0**x))


def run(name: str, eps: float, delta: float, *, quick: bool = True):
    """One check; ``None`` when the check does not accept ``(eps, delta)`` (usage error)."""
    spec = AUDITS[name]
    if eps == 0.0 and not spec.allow_zero_epsilon:
        return None
    start = time.perf_counter()
    try:
        report = run_check(spec, epsilon=eps, delta=delta, seed=SEED, alpha=ALPHA,
                           quick=quick, regret=False)
    except InvalidParameterError:
        return None  # outside the domain this check accepts: exit 2, one line, no traceback
    elapsed = time.perf_counter() - start
    budget = QUICK_BUDGET if quick else FULL_BUDGET
    assert elapsed <= budget, f"{name} at ({eps}, {delta}) took {elapsed:.0f} s > {budget} s"
    to_json(report)  # strict JSON: raises on NaN or infinity anywhere in the report
    return report


def assert_not_violated(name: str, eps: float, delta: float, *, quick: bool = True) -> None:
    """Never VIOLATED, except where the audit declares the paper's own statement false
    (``AuditSpec.paper_claim_false``, decided exactly): there VIOLATED is expected."""
    report = run(name, eps, delta, quick=quick)
    if report is None:
        return
    known_false = AUDITS[name].paper_claim_false
    if known_false is not None and known_false(eps, delta):
        assert report.verdict is Verdict.VIOLATED, (
            f"{name}: the paper's claim is false at eps={eps!r}, delta={delta!r}, yet "
            f"{[(c.id, c.verdict) for c in report.claims]}")
        return
    bad = [(c.id, c.details) for c in report.claims if c.verdict is Verdict.VIOLATED]
    assert not bad, f"correct {name} VIOLATED at eps={eps!r}, delta={delta!r}: {bad}"


def _points(points):
    def deco(f):
        for eps, delta in reversed(points):
            f = example(eps=eps, delta=delta)(f)
        return f
    return deco


@pytest.mark.parametrize("name", MECHANISMS)
@settings(max_examples=RANDOM_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@_points(DEFAULT_POINTS)
@given(eps=epsilons, delta=deltas)
def test_correct_mechanism_never_violated(name, eps, delta):
    assert_not_violated(name, eps, delta)


@pytest.mark.parametrize("name", [n for n in MECHANISMS if AUDITS[n].allow_zero_epsilon])
def test_zero_epsilon_limit_is_not_violated(name):
    # epsilon = 0 with delta > 0 (the uniform limits of Wang & Zhu's Remark 17)
    for delta in (1e-3, 0.1, 0.5):
        assert_not_violated(name, 0.0, delta)


def _defect_points(name: str) -> list[tuple[float, float]]:
    spec = AUDITS[name]
    declared = getattr(spec, "defect_parameters", None)
    return list(declared) if declared else [(spec.default_epsilon, spec.default_delta)]


def _caught_at_quick(name: str) -> bool:
    """A twin the quick budget must already catch: its true loss unknown (the older twins) or
    at least twice the claim; a twin just above the claim is caught at the default budget
    (measured over seeds, as ``test_registry`` says), a benign one must not be VIOLATED."""
    spec = AUDITS[name]
    return spec.true_epsilon is None or spec.true_epsilon >= 2 * spec.default_epsilon


@pytest.mark.parametrize("name", [n for n in TWINS if not _family_has_regret(n)])
def test_broken_mechanism_twin_violated_where_its_defect_applies(name):
    for eps, delta in _defect_points(name):
        report = run(name, eps, delta)
        assert report is not None, f"{name} refuses its own defect parameters ({eps}, {delta})"
        if not AUDITS[name].expect_violated:
            assert report.verdict is not Verdict.VIOLATED, name
        elif _caught_at_quick(name):
            assert report.verdict is Verdict.VIOLATED, (
                name, eps, delta, [(c.id, c.verdict, c.details) for c in report.claims])


def test_battery_size():
    """The registry covers something in each role; the sizes are in the module docstring."""
    assert MECHANISMS and BANDITS and TWINS
    per_mechanism = len(DEFAULT_POINTS) + RANDOM_EXAMPLES + 3  # + the epsilon = 0 limits
    runs = len(MECHANISMS) * per_mechanism + len(TWINS)
    assert runs * ALPHA <= 0.05  # the default suite's false-failure bound (union bound)


# -- the wide sweep (slow) ------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", MECHANISMS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eps=epsilons, delta=deltas)
def test_wide_correct_mechanism_never_violated(name, eps, delta):
    assert_not_violated(name, eps, delta)


@pytest.mark.slow
@pytest.mark.parametrize("name", MECHANISMS)
@pytest.mark.parametrize("point", CORNERS + PAPER_SETTINGS)
def test_wide_correct_mechanism_at_every_corner(name, point):
    assert_not_violated(name, *point)


@pytest.mark.slow
@pytest.mark.parametrize("name", MECHANISMS)
@pytest.mark.parametrize("point", CORNERS + PAPER_SETTINGS)
def test_wide_correct_mechanism_full_budget(name, point):
    assert_not_violated(name, *point, quick=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", BANDITS)
@pytest.mark.parametrize("point", [(1e-3, 0.0), (50.0, 0.0), (50.0, 0.5), (1.0, 0.01)])
def test_wide_correct_bandit_never_violated(name, point):
    assert_not_violated(name, *point)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in TWINS if _family_has_regret(n)])
def test_wide_broken_bandit_twin_violated(name):
    for eps, delta in _defect_points(name):
        report = run(name, eps, delta)
        assert report is not None, name
        if not AUDITS[name].expect_violated:  # a benign twin: its true loss is within the claim
            assert report.verdict is not Verdict.VIOLATED, name
        else:
            assert report.verdict is Verdict.VIOLATED, name
