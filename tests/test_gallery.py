"""examples/gallery through ``audit-policy``: each planted bug caught, each correct twin passes.

Every command is the CLI alone, with no glue: the adapter finds the shape (time-indexed
``get_arm(t)``/``update(t, arm, reward)``, an ``(env, horizon, params)`` constructor with a
``run()`` method and a module-level generator, ``step(reward, arm)``, report hooks and an
aggregator sink, a numba whole-run function) and the neighbour search finds the pairs.

Local-DP audits here are exact (the release law is read off numpy's draws), so their verdicts
are deterministic. Global-DP audits are sampled: a correct policy comes out VIOLATED with
probability at most alpha = 0.05 (the bound's confidence, over seeds); the seeds are fixed.
The broken global ones leak deterministically once the search proposes the right pair (1600
of 1600 draws against 0 of 1600 at 2000 samples, a bound of 6.07 > 1); the search is seeded,
so whether it proposes that pair does not vary between runs of these tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import deltas, epsilons

from dpaudit.cli import main
from dpaudit.usercode.adapters import adapt
from dpaudit.usercode.ldp_audit import exact_release, find_release

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _examples_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))


def _audit(tmp_path: Path, target: str, *args: str) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    code = main(["audit-policy", f"examples.gallery.{target}", *args, "--seed", "3",
                 "--json", str(out)])
    return code, json.loads(out.read_text())["claims"][0]


GLOBAL = [("dpse:SharedNoiseDPSE", "dpse:DPSE", "64"),
          ("env_ucb:RawFirstPullUCB", "env_ucb:EnvEpisodeUCB", "32")]


@pytest.mark.statistical
@pytest.mark.parametrize("broken,correct,horizon", GLOBAL)
def test_global_dp_bugs_are_caught_and_correct_twins_pass(tmp_path, broken, correct, horizon):
    common = ("--arms", "2", "--horizon", horizon, "--epsilon", "1", "--samples", "2000")
    code, claim = _audit(tmp_path, broken, *common)
    assert code == 1 and claim["verdict"] == "VIOLATED" and claim["epsilon_lower_bound"] > 3
    code, claim = _audit(tmp_path, correct, *common)  # false failure <= alpha = 0.05
    assert code == 0 and claim["verdict"] == "CONSISTENT"
    assert any("covers the audited pair only" in d for d in claim["details"])


def test_shared_noise_is_caught_at_the_decision_boundary(tmp_path):
    # the neighbour the search chose is a gap table just at the elimination threshold, the
    # change placed before the elimination (step 61 at T = 64)
    code, claim = _audit(tmp_path, "dpse:SharedNoiseDPSE", "--arms", "2", "--horizon", "64",
                         "--epsilon", "1", "--samples", "1000", "--search-budget", "8")
    assert code == 1
    assert "gap" in claim["data"]["neighbour"] and "before the decision" in \
        claim["data"]["neighbour"]


LDP = [("local_laplace:WrongArgumentLaplaceUCB", "local_laplace:LocalLaplaceUCB",
        ("--epsilon", "0.5"), 1.0),
       ("twice:ReusedBudget", "twice:TwiceReported", ("--epsilon", "1"), 2.0),
       ("local_gaussian:SqrtTwoGaussian", "local_gaussian:GaussianReports",
        ("--epsilon", "0.9", "--delta", "1e-5"), None)]


@pytest.mark.parametrize("broken,correct,claim_args,true_eps", LDP)
def test_local_dp_bugs_are_decided_exactly(tmp_path, broken, correct, claim_args, true_eps):
    common = ("--arms", "2", "--horizon", "16", "--notion", "ldp", *claim_args)
    code, claim = _audit(tmp_path, broken, *common)
    assert code == 1 and claim["verdict"] == "VIOLATED" and claim["method"] == "exact"
    if true_eps is not None:  # the pure-DP loss of the report, computed
        assert claim["epsilon_lower_bound"] == pytest.approx(true_eps, rel=1e-9)
    code, claim = _audit(tmp_path, correct, *common)
    assert code == 0 and claim["verdict"] == "EXACT"


@settings(max_examples=15, deadline=None)
@given(eps=epsilons, gauss_eps=st.floats(min_value=0.01, max_value=0.99), delta=deltas)
def test_correct_local_reports_are_never_violated_and_the_bugs_exactly_when_they_leak(
        eps, gauss_eps, delta):
    from examples.gallery.local_gaussian import GaussianReports
    from examples.gallery.local_laplace import LocalLaplaceUCB, WrongArgumentLaplaceUCB
    from examples.gallery.twice import ReusedBudget, TwiceReported


    def excess(cls, e=eps, d=0.0):  # > 0: VIOLATED (exact delta beyond its error bound)
        rel = find_release(adapt(cls, n_arms=2, horizon=4, epsilon=e, delta=d))
        ev = exact_release(rel, epsilon=e, delta=d)
        return ev.delta_at_epsilon - ev.error - d
    assert excess(LocalLaplaceUCB) <= 0 and excess(TwiceReported) <= 0
    # the classical calibration holds for epsilon < 1 (Dwork & Roth 2014, Theorem A.1), the
    # domain the correct class accepts
    assert excess(GaussianReports, gauss_eps, delta) <= 0
    if eps < 0.999:  # the report is exactly 1-DP: a violation below 1, none above
        assert excess(WrongArgumentLaplaceUCB) > 0
    elif eps > 1.001:
        assert excess(WrongArgumentLaplaceUCB) <= 0
    assert excess(ReusedBudget) > 0  # always 2 epsilon


def test_numba_whole_run_function_works_without_glue(tmp_path):
    code, claim = _audit(tmp_path, "numba_run:play", "--arms", "2", "--horizon", "16",
                         "--epsilon", "1", "--samples", "400", "--search-budget", "2")
    assert code == 0 and claim["data"]["reproducible"] is True


# -- actions that depend on the rewards only late: stop at once, advise what fits ------------
LATE = ("--arms", "2", "--horizon", "64", "--epsilon", "1", "--samples", "1000",
        "--search-budget", "4")


def test_no_dependence_stops_before_sampling_with_advice_sized_by_the_measured_speed(
        tmp_path):
    import time

    t0 = time.perf_counter()
    code, claim = _audit(tmp_path, "late_commit:LateCommitETC", *LATE)
    assert code == 0 and claim["verdict"] == "INCONCLUSIVE"
    data = claim["data"]
    # no sample drawn: no candidate moved any action on coupled runs, so none could
    assert data["samples"] == 0 and data["not_started"] == "search"
    assert "try T >= 1024" in data["inconclusive_reason"]
    assert claim["epsilon_lower_bound"] is None and claim["detectable_epsilon"] is None
    line = data["advice_command"]
    assert line.startswith("python -m dpaudit audit-policy examples.gallery.late_commit:")
    assert "--horizon 1024 --epsilon 1 --samples 1000 --search-budget 4 --seconds " in line
    assert data["advice_estimate_seconds"] < data["advice_seconds"]
    assert any(d.startswith("in one command: ") for d in claim["details"])
    assert time.perf_counter() - t0 < 60  # no sampling at T = 64 (it took 47 s before)


def test_advice_lowers_the_settings_to_fit_the_seconds_given():
    from dpaudit.usercode.pilot import advise, sampling_runs, search_runs

    free = advise(4096, n_arms=2, samples=20_000, search_budget=16, workers=1,
                  run_seconds=0.004, seconds_given=None, startup=2.0)
    assert (free.samples, free.search_budget, free.lowered) == (20_000, 16, False)
    runs = search_runs(2, 16) + sampling_runs(20_000, 17)
    assert free.estimate == pytest.approx(2.0 + runs * 0.004)
    assert free.seconds > free.estimate
    tight = advise(4096, n_arms=2, samples=20_000, search_budget=16, workers=1,
                   run_seconds=0.004, seconds_given=120.0, startup=2.0)
    assert tight.lowered and tight.seconds <= 120 and tight.samples < 20_000
    assert f"--samples {tight.samples}" in tight.flags()


@pytest.mark.parametrize("target, verdicts", [
    ("LateCommitETC", {"CONSISTENT", "VIOLATED"}),  # about 15 s on the 2-core machine
    pytest.param("LateCommitMeanScale", {"VIOLATED"}, marks=pytest.mark.slow)])
def test_the_advice_run_as_printed_reaches_a_verdict_within_its_seconds(tmp_path, target,
                                                                        verdicts):
    """The advice of the audit at T = 64 (the commitment is at step 1001), run as printed in
    a fresh process, reaches a verdict within the --seconds it states. The broken twin's
    commitment is (500 epsilon)-DP: VIOLATED at the decision boundary the search finds; the
    correct twin is CONSISTENT or, with probability at most alpha = 0.05, VIOLATED: a
    verdict either way."""
    import shlex
    import subprocess
    import sys
    import time

    code, claim = _audit(tmp_path, f"late_commit:{target}", *LATE)
    assert code == 0 and claim["data"]["not_started"] == "search"
    argv = shlex.split(claim["data"]["advice_command"])
    assert argv[:3] == ["python", "-m", "dpaudit"]
    out = tmp_path / "advised.json"
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *argv[1:], "--no-state", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    elapsed = time.perf_counter() - t0
    doc = json.loads(out.read_text())
    assert proc.returncode in (0, 1), proc.stderr
    assert doc["claims"][0]["verdict"] in verdicts, doc["claims"][0]["details"]
    assert elapsed <= claim["data"]["advice_seconds"], (elapsed, claim["data"])
