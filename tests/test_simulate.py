"""``simulate``: streamed regret statistics, identical reports for any workers or a Dask cluster."""

import json
import math
from functools import partial

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.cli import main
from dpaudit.registry import all_policies
from dpaudit.runtime.parallel import map_chunks
from dpaudit.sim.bandits import BernoulliRewards, PolicyEntry
from dpaudit.sim.simulation import (
    Moments,
    chunk_runs,
    policy_overrides,
    simulate_policy,
)
from dpaudit.validation import InvalidParameterError

SMALL = {"horizon": 2000, "runs": 24, "seed": 5}


def _regrets(name, horizon, size, rng):
    entry = all_policies()[name]
    return entry.factory().simulate(BernoulliRewards(entry.instance.means), horizon, size,
                                    rng=rng).regret


@given(st.lists(st.lists(st.floats(-1e6, 1e6), min_size=0, max_size=20), min_size=1,
                max_size=6))
def test_moments_merge_equals_moments_of_all(parts):
    merged = Moments(0, 0.0, 0.0)
    for p in parts:
        merged = merged.merge(Moments.of(np.array(p)))
    whole = Moments.of(np.concatenate([np.array(p, dtype=float) for p in parts]))
    assert merged.n == whole.n
    # rounding only: values up to 1e6, at most 120 of them, double precision
    scale = 1e6 * max(whole.n, 1)
    assert math.isclose(merged.mean, whole.mean, rel_tol=1e-9, abs_tol=1e-9 * scale / 1e3)
    assert math.isclose(merged.m2, whole.m2, rel_tol=1e-7, abs_tol=1e-6 * scale)


def test_streamed_statistics_equal_those_of_the_runs():
    """The merged chunk moments are those of the per-run regrets under the same chunk seeds."""
    name = "adap-ucb"
    rep = simulate_policy(name, workers=1, **SMALL)
    runs = map_chunks(partial(_regrets, name, SMALL["horizon"]), SMALL["runs"],
                      seed=SMALL["seed"], key=f"simulate:{name}",
                      chunk=chunk_runs(SMALL["runs"]))
    regret = np.concatenate(runs)
    assert rep.chunks == len(runs) > 1
    assert math.isclose(rep.mean, regret.mean(), rel_tol=1e-12)
    assert math.isclose(rep.std, regret.std(ddof=1), rel_tol=1e-9)
    assert rep.ci_low < rep.mean < rep.ci_high
    assert rep.mean_curve[-1] == pytest.approx(rep.mean, rel=1e-12)
    assert sum(rep.mean_pulls) == pytest.approx(SMALL["horizon"])


def test_workers_do_not_change_the_report():
    one = simulate_policy("dp-se", workers=1, **SMALL)
    two = simulate_policy("dp-se", workers=2, **SMALL)
    assert one.numbers() == two.numbers()


def test_local_dask_cluster_gives_the_one_worker_report(monkeypatch, loopback_scheduler):
    address = loopback_scheduler
    one = simulate_policy("adap-ucb", workers=1, **SMALL)
    cluster_report = simulate_policy("adap-ucb", scheduler=address, **SMALL)
    monkeypatch.setenv("DPAUDIT_SCHEDULER", address)
    from_env = simulate_policy("adap-ucb", **SMALL)
    assert cluster_report.scheduler == address and from_env.scheduler == address
    assert cluster_report.numbers() == one.numbers() == from_env.numbers()


def test_cli_json_fields_and_bound(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["simulate", "adap-ucb", "--horizon", "2000", "--runs", "12", "--seed", "3",
                 "--workers", "1", "--json", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    for key in ("mean", "ci_low", "ci_high", "seconds", "pulls_per_second", "bound"):
        assert key in data
    assert data["ci_low"] <= data["mean"] <= data["ci_high"]
    assert data["bound"] > 0 and "Theorem 7" in data["bound_name"]
    # the verdict comes from the evidence module's interval rule, not from within_bound
    assert data["verdict"] == "CONSISTENT" and data["within_bound"] is True
    assert data["verdict_ci_high"] < data["bound"]
    assert data["verdict_alpha"] == pytest.approx(0.05)
    assert data["verdict_lower_method"] == "betting-cs"  # T * max gap is known, runs kept
    assert data["runs_to_settle"] is None
    assert data["pulls_per_second"] > 0
    assert "arm-pulls per second" in capsys.readouterr().out


def test_cli_means_and_no_bound(tmp_path):
    out = tmp_path / "r.json"
    code = main(["simulate", "adap-klucb", "--horizon", "500", "--runs", "3", "--workers",
                 "1", "--means", "0.8,0.5,0.2", "--epsilon", "0.5", "--json", str(out)])
    data = json.loads(out.read_text())
    assert code == 0 and data["bound"] is None and data["means"] == [0.8, 0.5, 0.2]
    assert data["verdict"] == "INCONCLUSIVE" and data["within_bound"] is None
    assert data["parameters"]["epsilon"] == 0.5


@pytest.mark.parametrize("argv, message", [
    (["ucbb"], "unknown policy name"),
    (["adap-ucb", "--epsilon", "-1"], "epsilon=-1.0 must be"),
    (["adap-ucb", "--means", "0.5,x"], "not a number"),
    (["adap-ucb", "--means", "0.5,1.5"], "must be"),
    (["adap-ucb", "--workers", "0"], "workers=0"),
    (["adap-ucb", "--scheduler", "nowhere"], "tcp://HOST:PORT"),
    (["adap-ucb", "--horizon", "3"], "horizon=3"),
])
def test_cli_usage_errors_exit_2(argv, message, capsys):
    base = {"--horizon": "100", "--runs": "2"}
    extra = [x for k, v in base.items() if k not in argv for x in (k, v)]
    assert main(["simulate", *argv, *extra]) == 2
    assert message in capsys.readouterr().err


def test_json_path_is_checked_before_the_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:  # argparse: a folder is not an output file
        main(["simulate", "adap-ucb", "--horizon", "100", "--runs", "2", "--json",
              str(tmp_path)])
    assert exc.value.code == 2 and "is a folder" in capsys.readouterr().err


def test_epsilon_on_a_policy_without_one_is_a_usage_error():
    class Plain:
        def __init__(self, *, horizon: int = 10) -> None:
            self.horizon = horizon

    entry = PolicyEntry(Plain, all_policies()["adap-ucb"].instance, "a baseline")
    assert policy_overrides("plain", entry, horizon=7, epsilon=None, delta=None) == {
        "horizon": 7}
    with pytest.raises(InvalidParameterError, match="no epsilon parameter"):
        policy_overrides("plain", entry, horizon=7, epsilon=1.0, delta=None)


def test_chunks_depend_on_runs_only():
    assert chunk_runs(5) == 5 and chunk_runs(20) == 10 and chunk_runs(1600) == 100


def test_map_chunks_sends_closures_to_a_pool():
    def draw(n, rng):
        return rng.random(n).sum()
    one = map_chunks(draw, 30, seed=1, key="c", chunk=10, workers=1)
    two = map_chunks(draw, 30, seed=1, key="c", chunk=10, workers=2)
    assert one == two and len(one) == 3
    assert map_chunks(draw, 0, seed=1, key="c", chunk=10) == []
