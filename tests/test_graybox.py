"""The gray-box stage: each finding kind on a small planted program, nothing false on the
correct twins, and the recorder's invariants.

Everything here is deterministic: the stage runs the user's code with its own seeded streams
(one per call site), so a finding either appears or not; no sampled bound is asserted except in
the two command-line tests at the end, whose broken targets leak with probability one (their
false-failure probability is that of a VIOLATED verdict on the correct twins, at most alpha).
"""

from __future__ import annotations

import importlib
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.cli import main
from dpaudit.usercode.adapters import adapt
from dpaudit.usercode.graybox_targets import graybox_mechanism, graybox_policy
from dpaudit.usercode.recorder import Noisy, Recorder, intercept
from dpaudit.usercode.replay import solve_shift

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _examples_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))


def _mech(path: str):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(f"examples.graybox.{module}"), name)()


def _stage(path: str):
    m = _mech(path)
    return graybox_mechanism(m, m.neighbours, epsilon=m.epsilon, delta=m.delta)


def _strong(result):
    return [f for f in result.findings if f.level in ("proof", "pointer")]


# -- the recorder ------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(coefs=st.lists(st.floats(-5, 5), min_size=1, max_size=4), const=st.floats(-10, 10),
       scale=st.floats(0.01, 10), seed=st.integers(0, 2**31))
def test_a_noisy_value_is_its_affine_form(coefs, const, scale, seed):
    """``value = base + sum_c coef_c z_c`` for any affine combination of tracked draws."""
    rec = Recorder(seed)
    gen = rec.generator()
    draws = [gen.laplace(1.5, scale) for _ in coefs] + [gen.normal(-2.0, scale)]
    z = {next(iter(d.coefs)): (d.value - d.base) / scale for d in draws}
    total = const
    for c, d in zip(coefs + [1.0], draws, strict=True):
        total = total + c * d
    assert isinstance(total, Noisy)
    recon = total.base + sum(v * z[col] for col, v in total.coefs.items())
    assert recon == pytest.approx(total.value, rel=1e-9, abs=1e-9)


def test_interception_restores_every_route():
    import examples.graybox.python_random as module

    saved = (np.random.laplace, np.random.default_rng, np.random.Generator, random.gauss,
             random.Random, np.random.RandomState)
    rec = Recorder(3)
    with intercept(rec, modules=[module]):
        assert np.random.laplace is not saved[0]
        x = np.random.laplace(0.0, 1.0)
        y = random.gauss(0.0, 1.0)
        g = np.random.default_rng(7)
        g.normal()
        np.random.Generator(np.random.PCG64(1)).uniform()
    assert (np.random.laplace, np.random.default_rng, np.random.Generator, random.gauss,
            random.Random, np.random.RandomState) == saved
    assert isinstance(x, Noisy) and isinstance(y, Noisy)
    assert [d.method for d in rec.draws] == ["laplace", "gauss", "normal", "uniform"]
    assert all("test_graybox.py" in d.site.file for d in rec.draws)


def test_draws_are_served_by_call_site():
    """The k-th draw at a line gets the same value in every run with the same seed, whatever
    other lines drew."""
    def run(extra: bool) -> list[float]:
        rec = Recorder(11)
        g = rec.generator()
        out = []
        for i in range(3):
            if extra and i == 1:
                g.uniform()  # another line draws in between
            out.append(float(g.laplace(0.0, 1.0)))
        return out
    assert run(False) == run(True)


def test_the_least_cost_shift_and_an_uncovered_one():
    laws = ["laplace", "laplace", "normal"]
    # one value built from two Laplace draws: the least sum |y| puts the shift on one draw
    sol = solve_shift([(((0, 1.0), (1, 1.0)), 2.0)], laws)
    assert sol.feasible and math.fsum(abs(v) for v in sol.shift.values()) == pytest.approx(2.0)
    # one draw feeding two values the data move apart: no shift matches both
    sol = solve_shift([(((0, 1.0),), 1.0), (((0, 1.0),), 0.0)], laws)
    assert not sol.feasible and sol.row == 1
    # a value with no noise that moves
    assert not solve_shift([((), 0.5)], laws).feasible


# -- each finding kind, on a planted mechanism and its correct twin ----------------------------
PLANTED = [
    # module:class, the kind, the level, the line it names (a piece of the site)
    ("unclipped_sum:UnclippedSum", "exact-loss", "proof", "unclipped_sum.py:28"),
    ("two_releases:TwiceReleasedCount", "exact-loss", "proof", "two_releases.py:27"),
    ("scale_from_len:LenScaledMean", "noise-scale", "pointer", "scale_from_len.py:29"),
    ("private_branch:BranchingSum", "control-flow", "pointer", "private_branch.py:27"),
    ("python_random:DoubledGaussSum", "exact-loss", "proof", "python_random.py:31"),
    ("class_counts:FoundClassCounts", "output-shape", "pointer", None),
    ("declared:WideClipSum", "declared-sensitivity", "proof", "declared.py:41"),
]
CORRECT = ["unclipped_sum:ClippedSum", "two_releases:NoisyCount", "scale_from_len:PublicSizeMean",
           "private_branch:NoisySum", "python_random:GaussSum", "class_counts:PublicClassCounts",
           "declared:DeclaredSum", "unreadable:UserRandomizedResponse",
           "unreadable:ExponentialsLaplace"]


@pytest.mark.parametrize("target,kind,level,line", PLANTED)
def test_each_planted_mechanism_is_named_at_its_line(target, kind, level, line):
    result = _stage(target)
    found = [f for f in result.findings if f.kind == kind]
    assert found, [f.line() for f in result.findings]
    assert found[0].level == level
    if line is not None:
        assert line in (found[0].site or ""), found[0].site


@pytest.mark.parametrize("target", CORRECT)
def test_correct_mechanisms_get_no_pointer_and_no_proof(target):
    result = _stage(target)
    assert _strong(result) == [], [f.line() for f in result.findings]
    assert result.unread == ()


def test_exact_losses_are_the_planted_ones():
    """Unclipped sum: the declared neighbours move the sum by 4.6 against Lap(1); twice
    released: two Laplace coordinates each moved by one scale; doubled Gaussian: the shift 2
    against sigma 3.7307 (a Mahalanobis distance of 0.5361)."""
    assert _stage("unclipped_sum:UnclippedSum").exact.epsilon_at_delta == pytest.approx(4.6)
    assert _stage("two_releases:TwiceReleasedCount").exact.data["pure_loss"] == pytest.approx(2)
    assert _stage("python_random:DoubledGaussSum").exact.data["mu"] == pytest.approx(
        2.0 / 3.7307, rel=1e-9)
    assert _stage("unclipped_sum:ClippedSum").exact.epsilon_at_delta == pytest.approx(0.6)


def test_a_nan_on_one_input_only_is_found_under_the_same_randomness():
    class EmptyGroupMean:
        """A mean of the records above 0.5, NaN when there are none (np.mean of empty)."""
        epsilon, delta = 1.0, 0.0
        neighbours = [((0.9, 0.2), (0.1, 0.2))]

        def sample(self, data, size, rng):
            x = np.asarray(data, dtype=float)
            with np.errstate(invalid="ignore"):
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    m = x[x > 0.5].mean() if np.any(x > 0.5) else np.nan
            return m + rng.laplace(0.0, 1.0, size)

    m = EmptyGroupMean()
    result = graybox_mechanism(m, m.neighbours, epsilon=1.0, delta=0.0)
    assert [f.kind for f in result.findings if f.kind == "non-finite"] == ["non-finite"]


def test_an_exact_reading_is_not_taken_when_other_draws_may_branch():
    """A local report that returns NaN with probability 0.1 above reward 1/2 (a branch on an
    ``np.random.random`` draw the exact readings do not serve): its law is not taken as
    read from the Laplace draws alone; the sampled audit sees the NaN atom."""
    from dpaudit.usercode.ldp_audit import find_release
    from dpaudit.usercode.policy_audit import audit_policy

    class RareNaN:
        def __init__(self, epsilon, n_arms=2):
            self.eps = epsilon

        def privatize(self, reward):
            if reward > 0.5 and np.random.random() < 0.1:
                return float("nan")
            return reward + np.random.laplace(0.0, 1.0 / self.eps)

    code = adapt(RareNaN, n_arms=2, horizon=8, epsilon=1.0, release_only=True)
    assert find_release(code).hook == "privatize"
    audit = audit_policy(code, epsilon=1.0, notion="ldp", samples=4000, seed=5)
    assert audit.exact is None and audit.graybox is not None and audit.graybox.other_draws
    assert audit.result is not None and "NaN" in audit.result.event


def test_a_value_declared_equal_that_differs_is_named():
    from dpaudit import equal_on_neighbours

    class CountsPresent:
        epsilon, delta = 1.0, 0.0
        neighbours = [((1, 1, 2), (1, 1, 1))]

        def sample(self, data, size, rng):
            equal_on_neighbours(len(set(data)), "number of distinct values")
            return float(len(data)) + rng.laplace(0.0, 1.0, size)

    m = CountsPresent()
    result = graybox_mechanism(m, m.neighbours, epsilon=1.0, delta=0.0)
    found = [f for f in result.findings if f.kind == "not-equal"]
    assert found and found[0].level == "proof" and "test_graybox.py" in found[0].site


@settings(max_examples=12, deadline=None)
@given(eps=st.floats(0.05, 8.0))
def test_the_exact_route_never_violates_a_correct_mechanism(eps):
    """Over the claim's domain: the clipped sum with Lap(1/eps) is within the claim at every
    epsilon, its unclipped twin above it exactly when 4.6 eps > eps (always)."""
    from dpaudit.stats.evidence import decide  # the one place evidence becomes a verdict
    from dpaudit.usercode.ldp_audit import exact_claim

    for name, violated in (("ClippedSum", False), ("UnclippedSum", True)):
        m = getattr(importlib.import_module("examples.graybox.unclipped_sum"), name)()
        m.epsilon = eps
        ev = graybox_mechanism(m, m.neighbours, epsilon=eps, delta=0.0).exact
        claim = exact_claim(ev, id="c", notion="global", statement="s", reference="r",
                            epsilon=eps, delta=0.0)
        assert (claim.verdict.value == "VIOLATED") is violated, (name, eps, claim.details)
    assert decide is not None


# -- policies ---------------------------------------------------------------------------------
def _policy(module: str, name: str, horizon: int, **kw):
    factory = getattr(importlib.import_module(f"examples.{module}"), name)
    code = adapt(factory, n_arms=2, horizon=horizon, epsilon=1.0, time_base=None, **kw)
    return graybox_policy(code, epsilon=1.0, delta=0.0)


def test_a_shared_draw_is_named_at_its_line_and_steers_the_sampled_audit():
    result = _policy("gallery.dpse", "SharedNoiseDPSE", 64)
    kinds = {f.kind: f for f in result.findings}
    assert "dpse.py:72" in kinds["uncovered-shift"].summary  # the draw shared by the arms
    assert "dpse.py:57" in kinds["noise-cancels"].site  # the comparison it cancels in
    assert result.steer is not None and result.steer.positions


@pytest.mark.parametrize("name,kind,line", [
    ("EarlyStopUCB", "control-flow", "broken.py"),
    ("CumulativeMeanUCB", "release-loss", None),
    ("SharedNoiseUCB", "uncovered-shift", "ucb.py"),
    ("RawInitialMeansUCB", "control-flow", "ucb.py:54"),
])
def test_each_planted_policy_is_named(name, kind, line):
    result = _policy("privbandits.broken", name, 32)
    found = [f for f in result.findings if f.kind == kind and f.level == "pointer"]
    assert found, [f.line() for f in result.findings]
    if line is not None:
        assert line in (found[0].site or "")
    assert result.steer is not None


@pytest.mark.parametrize("module,name,horizon", [
    ("gallery.dpse", "DPSE", 64), ("privbandits.ucb", "EpisodeLaplaceUCB", 32),
])
def test_correct_policies_get_no_pointer(module, name, horizon):
    result = _policy(module, name, horizon)
    assert _strong(result) == [] and result.steer is None
    loss = [f for f in result.findings if f.kind == "release-loss"]
    assert loss and loss[0].numbers["pure_epsilon"] <= 1.0 + 1e-9


def test_noise_stored_as_plain_numbers_is_followed_or_said_to_be_lost():
    """Noise stored in a float array and then added to a reward-built mean is followed (the
    correct policy aligns, the shared draw is named); computed entirely in float arrays it is
    lost, and the stage says so without a pointer."""
    assert _strong(_policy("graybox.stored_noise", "StoredNoiseSE", 64)) == []
    shared = _policy("graybox.stored_noise", "SharedStoredNoiseSE", 64)
    assert "uncovered-shift" in {f.kind for f in _strong(shared)}
    lost = _policy("graybox.stored_noise", "ArrayNoiseSE", 64)
    assert _strong(lost) == [] and lost.steer is None
    assert any("out of the stage's sight" in f.summary for f in lost.findings)


def test_a_numba_function_is_read_through_its_python_function():
    result = _policy("gallery.numba_run", "play_two_pulls_sum", 16)
    loss = [f for f in result.findings if f.kind == "release-loss"]
    assert loss and loss[0].level == "pointer" and "numba_run.py:69" in loss[0].details[0]
    assert any(".py_func" in n for n in result.notes)
    assert _strong(_policy("gallery.numba_run", "play_two_pulls", 16)) == []


# -- end to end ---------------------------------------------------------------------------------
def test_audit_names_the_line_and_decides_exactly(tmp_path):
    out = tmp_path / "r.json"
    code = main(["audit", "examples.graybox.unclipped_sum:UnclippedSum", "--no-state",
                 "--json", str(out)])
    doc = json.loads(out.read_text())
    claim = doc["claims"][0]
    assert code == 1 and claim["verdict"] == "VIOLATED" and claim["method"] == "exact"
    assert claim["data"]["graybox"]["exact"] is True
    assert any("unclipped_sum.py:28" in (f["data"].get("site") or "") for f in doc["findings"])
    _valid(doc)


@pytest.mark.statistical
def test_audit_policy_is_steered_to_the_shared_draw(tmp_path):
    """False failure: the broken target leaks with probability one on the steered pair (2000
    draws per side bound it above 5 at alpha / 2); nothing here can pass by chance."""
    out = tmp_path / "r.json"
    code = main(["audit-policy", "examples.gallery.dpse:SharedNoiseDPSE", "--arms", "2",
                 "--horizon", "64", "--epsilon", "1", "--seed", "3", "--no-state",
                 "--json", str(out)])
    doc = json.loads(out.read_text())
    claim = doc["claims"][0]
    assert code == 1 and claim["data"]["graybox"]["steered"] is True
    assert claim["alpha"] == pytest.approx(0.025)
    assert any("dpse.py:57" in (f["data"].get("site") or "") for f in doc["findings"])
    _valid(doc)


def _valid(doc: dict) -> None:
    """The report keeps the JSON contract (dpaudit/schema/report-v1.json)."""
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.schema import load_schema

    jsonschema.validate(doc, load_schema())
