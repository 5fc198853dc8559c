"""Non-finite and variable-length outputs are outcomes of the law, not usage errors.

The planted programs of ``examples/outcomes`` (Cebere, Erb, Desfontaines, Bellet & Fitzsimons
2026: NaN injection, domain inference, overflow) are VIOLATED with a decoded witness and their
twins CONSISTENT; a correct mechanism that emits NaN equally on both inputs raises no false
alarm; the read of outputs is the identity on finite fixed-shape outputs, and the counts do not
depend on chunk boundaries or workers; unreadable outputs still exit 2.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dpaudit.cli import main
from dpaudit.stats.blackbox import AuditBudget, audit_mechanism
from dpaudit.stats.outputs import Ragged, fit_rows, merge, read, row_features
from dpaudit.stats.results import Verdict
from dpaudit.stats.sampled import _concat, _Counter, _draw_chunk, _fit, draw
from dpaudit.validation import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]

#: (planted object, witness event, correct twin) of ``examples/outcomes``
PLANTED = [
    ("clipped_sum:NaNClippedSum", "output is NaN", "clipped_sum:ClippedSum"),
    ("empty_mean:EmptyGroupMean", "output is NaN", "empty_mean:GroupMean"),
    ("per_class:CountsOfClassesFound", "output length in {2}", "per_class:PublicClassCounts"),
    ("per_class:NaNPaddedCounts", "coordinate 2 is NaN", "per_class:PublicClassCounts"),
    ("overflow:ProductGeometricMean", "output is +inf", "overflow:LogGeometricMean"),
]


@pytest.fixture(autouse=True)
def _examples_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))


def _cli(tmp_path: Path, target: str, *args: str) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    code = main(["audit", target, "--samples", "20000", "--no-state", "--json", str(out),
                 *args])
    doc = json.loads(out.read_text())
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.schema import load_schema

    jsonschema.validate(doc, load_schema())  # the JSON contract holds for these reports too
    return code, doc["claims"][0]


# -- the planted programs, from the command line ---------------------------------------------
@pytest.mark.parametrize("planted,witness,twin", PLANTED)
def test_planted_program_is_violated_with_its_witness_and_its_twin_passes(
        tmp_path, capsys, planted, witness, twin):
    code, claim = _cli(tmp_path, f"examples.outcomes.{planted}")
    # the witness has probability 1 under one input and 0 under the other: with n = 16000
    # measured draws per side the bound is log(p_lo / q_hi), p_lo = (alpha/2)^(1/n) and
    # q_hi = 1 - (alpha/2)^(1/n) (Clopper-Pearson at 16000/16000 and 0/16000), 8.37 at
    # alpha = 0.05, whatever the seed
    assert code == 1 and claim["verdict"] == "VIOLATED"
    assert claim["data"]["event"] == witness
    assert claim["epsilon_lower_bound"] > 8.0
    assert f"event: {witness}" in capsys.readouterr().out
    # a correct twin is VIOLATED with probability <= alpha = 0.01 (false failure <= 0.01 each)
    # on the sampled route; the gray-box stage reads its Laplace output exactly
    code, claim = _cli(tmp_path, f"examples.outcomes.{twin}", "--alpha", "0.01",
                       "--no-graybox")
    assert code == 0 and claim["verdict"] == "CONSISTENT"
    code, claim = _cli(tmp_path, f"examples.outcomes.{twin}")
    assert code == 0 and claim["verdict"] in ("EXACT", "CONSISTENT")


def test_every_planted_module_has_its_twin_and_says_what_is_wrong():
    import examples.outcomes as pkg
    from examples.outcomes import clipped_sum, empty_mean, overflow, per_class

    for module in (clipped_sum, empty_mean, overflow, per_class):
        assert "Cebere" in (module.__doc__ or "") or "Dwork" in (module.__doc__ or "")
        for name, obj in vars(module).items():
            if isinstance(obj, type) and obj.__module__ == module.__name__:
                doc = obj.__doc__ or ""
                assert doc.startswith(("Broken:", "Correct twin:")), name
                assert name in (pkg.__doc__ or ""), name


# -- no false alarm --------------------------------------------------------------------------
class _FlakyLaplace:
    """Correct: ``x + Lap(1/eps)``, except that with probability ``nan_rate`` the sensor
    returns NaN and with ``inf_rate`` +inf, whatever ``x`` (a data-independent mixture of
    eps-DP laws is eps-DP)."""

    def __init__(self, epsilon: float, nan_rate: float, inf_rate: float) -> None:
        self.epsilon, self.delta = epsilon, 0.0
        self.nan_rate, self.inf_rate = nan_rate, inf_rate
        self.neighbours = [(0.0, 1.0)]

    def sample(self, data, size, rng):
        y = data + rng.laplace(0.0, 1.0 / self.epsilon, size)
        u = rng.random(size)
        y[u < self.nan_rate] = np.nan
        y[(u >= self.nan_rate) & (u < self.nan_rate + self.inf_rate)] = np.inf
        return y


@pytest.mark.statistical
@settings(max_examples=8, deadline=None)
@given(epsilon=st.floats(0.25, 3.0), nan_rate=st.floats(0.0, 0.9),
       inf_rate=st.floats(0.0, 0.05), seed=st.integers(0, 2**32 - 1))
def test_equal_nan_rates_raise_no_false_alarm(epsilon, nan_rate, inf_rate, seed):
    # each audit of this correct mechanism is VIOLATED with probability <= alpha = 1e-3 (the
    # bound is valid at 1 - alpha), so over the 8 examples the test fails falsely with
    # probability <= 8e-3; the examples are derandomized (fixed)
    r = audit_mechanism(_FlakyLaplace(epsilon, nan_rate, inf_rate), alpha=1e-3,
                        budget=AuditBudget(samples=20_000), seed=seed)
    assert r.verdict is not Verdict.VIOLATED, (r.event, r.epsilon_lower_bound)
    assert r.epsilon_lower_bound <= epsilon


# -- the same report for any workers and chunking --------------------------------------------
class _RareLonger:
    """Three Laplace values per output, four with probability 1e-3 on ``D'`` only, and a NaN
    coordinate with probability 0.05 on ``D'``: most chunks of draws have one shape (plain
    arrays), a few have two (:class:`~dpaudit.stats.outputs.Ragged`)."""

    epsilon, delta = 1.0, 0.0
    neighbours = [(0, 1)]

    def sample(self, data, size, rng):
        rows = data + rng.laplace(0.0, 1.0, (size, 4))
        long = (rng.random(size) < 1e-3) & (data == 1)
        rows[(rng.random(size) < 0.05) & (data == 1), 0] = np.nan
        if not long.any():
            return rows[:, :3]
        return [r if keep else r[:3] for r, keep in zip(rows, long, strict=True)]


@pytest.mark.parametrize("mech", [_FlakyLaplace(1.0, 0.2, 0.01), _RareLonger()],
                         ids=["nan-scalar", "mostly-fixed-rows"])
def test_same_report_for_one_and_two_workers(mech):
    budget = AuditBudget(samples=20_000, select_chunk=1000)
    one = audit_mechanism(mech, budget=budget, seed=11, workers=1)
    two = audit_mechanism(mech, budget=budget, seed=11, workers=2)
    assert one.evidence == two.evidence
    assert one.claim == two.claim


def test_rare_longer_rows_are_read_through_their_length():
    r = audit_mechanism(_RareLonger(), budget=AuditBudget(samples=20_000), seed=3)
    assert r.verdict is Verdict.VIOLATED
    assert "NaN" in r.event


class _NaNSummed:
    """Broken: two Laplace coordinates, the second NaN with probability 0.1 on ``D'``; the
    user's statistic (their sum) carries the NaN."""

    epsilon, delta = 1.0, 0.0
    neighbours = [(0, 1)]

    def features(self, outputs):
        return outputs.sum(axis=1)

    def sample(self, data, size, rng):
        y = rng.laplace(0.0, 1.0, (size, 2))
        y[(rng.random(size) < 0.1) & (data == 1), 1] = np.nan
        return y


class _FoundSummary:
    """Broken: a named summary holding one value per class found (one class on ``D``, two on
    ``D'``) beside a correct noisy value."""

    epsilon, delta = 1.0, 0.0
    neighbours = [(0, 1)]

    def sample(self, data, size, rng):
        return {"x": rng.laplace(data, 1.0, size),
                "found": [rng.laplace(0.0, 1.0, 1 + data) for _ in range(size)]}


@pytest.mark.parametrize("mech,kind,witness", [
    (_NaNSummed(), "statistic", "statistic is NaN"),
    (_FoundSummary(), "summaries", "found: output length in {1}")])
def test_nan_statistics_and_ragged_summaries_are_read(mech, kind, witness):
    # the witness has probability >= 0.1 under one input and 0 under the other: at 16000
    # measured draws per side the bound exceeds 5 whatever the seed
    r = audit_mechanism(mech, budget=AuditBudget(samples=20_000), seed=5)
    assert r.verdict is Verdict.VIOLATED and r.output_kind == kind
    assert r.event == witness and r.epsilon_lower_bound > 5


def _row_sum(outputs: np.ndarray) -> np.ndarray:
    return np.asarray(outputs).reshape(len(outputs), -1).sum(axis=1)


def _mixed_rows(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    lengths = np.where(rng.random(n) < 0.1, rng.integers(0, 6, n), 3)
    rows = [rng.normal(size=k) for k in lengths]
    for r in rows:
        if r.size and rng.random() < 0.2:
            r[rng.integers(r.size)] = rng.choice([np.nan, np.inf, -np.inf])
    return rows


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), cuts=st.lists(st.integers(1, 199), max_size=6))
def test_counts_and_samples_do_not_depend_on_the_chunk_boundaries(seed, cuts):
    rng = np.random.default_rng(seed)
    rows = _mixed_rows(rng, 200)
    whole = read(rows, len(rows), "s")
    bounds = [0, *sorted(set(cuts)), len(rows)]
    parts = [read(rows[a:b], b - a, "s") for a, b in zip(bounds, bounds[1:], strict=False)
             if b > a]
    merged = merge(parts)
    assert isinstance(merged, type(whole))
    feats_whole, feats_merged = row_features(whole), row_features(merged)
    for name, v in feats_whole.items():  # bit for bit, in either container
        assert np.array_equal(v, feats_merged[name], equal_nan=True), name
        chunked = np.concatenate([row_features(p)[name] for p in parts])
        assert np.array_equal(v, chunked, equal_nan=True), name
    # the engine's merge of packed chunks gives the same sample
    assert np.array_equal(row_features(_concat(parts))["sum"], feats_whole["sum"],
                          equal_nan=True)
    # an event chosen on rows of three values counts the same over any chunking
    from dpaudit.stats.events import ScoreEvent, SubsetEvent, ThresholdEvent
    from dpaudit.stats.families import AnyNonFiniteEvent, NonFiniteEvent, RowFeatureEvent

    for template, event in [((3,), NonFiniteEvent((1, 2), 0, "coordinate 0")),
                            ((3,), AnyNonFiniteEvent(3)),
                            ((3,), ScoreEvent(_row_sum, ThresholdEvent(0.5, True))),
                            ((1,), ThresholdEvent(0.5, True)),
                            (None, RowFeatureEvent("length", SubsetEvent((2, 4)))),
                            (None, RowFeatureEvent("NaN count", SubsetEvent((1,))))]:
        counter = _Counter(events=(event,), template=template)
        assert counter.hits(whole) == tuple(np.sum([counter.hits(p) for p in parts], axis=0))


def test_a_draw_whose_summary_changes_shape_is_outside_the_events_of_that_shape():
    # the event was chosen on summaries "a" of 2 values, "b" scalar, "c" of several lengths
    template = {"a": (2,), "b": (), "c": None}
    out = {"a": read([[1, 2], [3, 4, 5], [6, 7], [8, 9]], 4, "s"),
           "b": read([[1.0], [2.0], [3.0], [4.0, 5.0]], 4, "s"),
           "c": read([[1], [1, 2], [3], []], 4, "s")}
    fitted = _fit(out, template)
    assert np.array_equal(fitted["a"], [[1.0, 2.0], [6.0, 7.0]])  # rows 0 and 2 fit both
    assert np.array_equal(fitted["b"], [1.0, 3.0])
    assert fitted["c"].lengths.tolist() == [1, 1]
    # plain summaries of the selection's shapes are read as they are
    plain = {"a": np.zeros((4, 2)), "b": np.zeros(4), "c": out["c"]}
    assert _fit(plain, template) is plain


# -- the read of outputs ---------------------------------------------------------------------
finite_outputs = st.one_of(
    hnp.arrays(dtype=st.sampled_from([np.float64, np.float32]),
               shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
               elements=st.floats(-1e6, 1e6, width=32)),
    hnp.arrays(dtype=st.sampled_from([np.int64, np.int32, np.uint8]),
               shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
               elements=st.integers(0, 200)),
    hnp.arrays(dtype=np.bool_, shape=hnp.array_shapes(min_dims=1, max_dims=2, max_side=5)))


@given(out=finite_outputs, as_list=st.booleans())
def test_the_read_is_the_identity_on_finite_fixed_shape_outputs(out, as_list):
    raw = out.tolist() if as_list else out
    want = np.asarray(raw)  # what the engine read before non-finite outputs were outcomes
    got = draw(lambda n, rng: raw, len(out), np.random.default_rng(0), "s")
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)
    if not as_list:
        assert got is out  # not even a copy
    # every later chunk of the same shape is read by the event as it is
    assert _fit(got, tuple(got.shape[1:])) is got
    assert fit_rows(got, tuple(got.shape[1:]))[1] is None
    # and chunks of it merge as numpy concatenates them
    parts = [_draw_chunk(lambda n, rng, part=part: part, "s", len(part), None)
             for part in np.array_split(out, min(3, len(out)))]
    merged = _concat(parts)
    assert isinstance(merged, np.ndarray) and merged.dtype == out.dtype
    assert np.array_equal(merged, out)


def test_nan_and_infinities_are_kept_and_ragged_rows_read_as_their_values():
    y = np.array([0.5, np.nan, np.inf, -np.inf])
    assert read(y, 4, "s") is y
    rows = read([[1.0, np.nan], [2], []], 3, "s")
    assert isinstance(rows, Ragged) and rows.lengths.tolist() == [2, 1, 0]
    feats = row_features(rows)
    assert feats["length"].tolist() == [2, 1, 0] and feats["NaN count"].tolist() == [1, 0, 0]
    assert feats["sum"].tolist() == [1.0, 2.0, 0.0]
    # an object array of rows of one shape is a plain array of them
    same = np.empty(2, dtype=object)
    same[0], same[1] = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    assert np.array_equal(read(same, 2, "s"), [[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize("returned,said", [
    ("np.full(size, 'yes')", "got dtype <U3"),
    ("None", "it returned None"),
    ("[{'a': 1}] * size", "returned a dict"),
    ("[None] * size", "returned None as output 0"),
    ("[[1.0, 'x']] * size", "got dtype <U32"),
    ("[[1.0, None]] * size", "it returned a list"),
    ("np.zeros(3)", "first axis has length size"),
])
def test_unreadable_outputs_exit_2_saying_what_was_returned(tmp_path, monkeypatch, capsys,
                                                            returned, said):
    monkeypatch.syspath_prepend(str(tmp_path))
    name = "outcomes_unreadable"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(f"""
        import numpy as np

        class Mech:
            epsilon, delta = 1.0, 0.0
            neighbours = [(0, 1)]

            def sample(self, data, size, rng):
                return {returned}
        """))
    try:
        assert main(["audit", f"{name}:Mech", "--samples", "1000", "--no-state"]) == 2
    finally:
        sys.modules.pop(name, None)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0], err


def test_unreadable_summary_and_row_name_what_was_returned():
    with pytest.raises(InvalidParameterError, match=r"\(summary 'b'\).*dtype <U1"):
        draw(lambda n, rng: {"a": np.zeros(n), "b": np.array(["x"] * n)}, 3,
             np.random.default_rng(0), "M.sample")


# -- the local-DP route's reports ------------------------------------------------------------
LDP_SOURCE = """
import numpy as np


class TopNaN:
    \"\"\"Broken: a reward above 0.9 is divided by a zero count (NaN), others get Laplace.\"\"\"

    def __init__(self, epsilon):
        self.epsilon = epsilon

    def report(self, reward):
        if reward > 0.9:
            return float("nan")
        return reward + np.random.laplace(0.0, 1.0 / self.epsilon)


class RandomLength:
    \"\"\"Broken: one Laplace value per event, two events when the reward is above 1/2 and
    one or two at random otherwise (reports of different lengths in one sample).\"\"\"

    def __init__(self, epsilon):
        self.epsilon = epsilon

    def report(self, reward):
        k = 2 if reward > 0.5 or np.random.random() < 0.5 else 1
        return list(reward + np.random.laplace(0.0, 1.0 / self.epsilon, k))
"""


@pytest.mark.parametrize("target,witness", [("TopNaN", "output is NaN"),
                                            ("RandomLength", "output length in {1}")])
def test_local_dp_reports_nan_and_of_several_lengths_are_read(tmp_path, monkeypatch, target,
                                                              witness):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "outcomes_ldp.py").write_text(LDP_SOURCE)
    out = tmp_path / "r.json"
    try:
        code = main(["audit-policy", f"outcomes_ldp:{target}", "--arms", "2", "--horizon", "4",
                     "--notion", "ldp", "--epsilon", "1", "--samples", "4000", "--seed", "3",
                     "--json", str(out)])
    finally:
        sys.modules.pop("outcomes_ldp", None)
    claim = json.loads(out.read_text())["claims"][0]
    # the witness has probability 1/2 or more under one reward and 0 under the other: caught
    # at 3200 measured draws per side with a bound above 5, whatever the seed
    assert code == 1 and claim["verdict"] == "VIOLATED"
    assert claim["data"]["event"] == witness and claim["epsilon_lower_bound"] > 5
