"""``check --scheduler`` and ``audit --scheduler``: the pieces and chunked work go to the named
Dask cluster (as ``simulate --scheduler`` does), and the report is the one computed without it."""

from __future__ import annotations

import json
import os

import pytest

import dpaudit.runtime.parallel as parallel
from dpaudit.cli import EXIT_USAGE, main

UNREACHABLE = "tcp://127.0.0.1:1"  # nothing listens there: used only where it must be unused


@pytest.fixture
def dask_calls(monkeypatch):
    """The scheduler of every map_chunks call, and of every graph of pieces (a check's claims,
    findings and regret: :mod:`dpaudit.runtime.schedule`), that went to Dask (the real call
    still runs)."""
    from dpaudit.runtime import schedule

    calls: list[object] = []
    real = parallel._map_dask
    real_graph = schedule._run_dask

    def spy(fn, sizes, seqs, scheduler):
        calls.append(scheduler)
        return real(fn, sizes, seqs, scheduler)

    def spy_graph(graph, scheduler, done):
        calls.append(scheduler)
        return real_graph(graph, scheduler, done)

    monkeypatch.setattr(parallel, "_map_dask", spy)
    monkeypatch.setattr(schedule, "_run_dask", spy_graph)
    return calls


def _report(path) -> dict:
    data = json.loads(path.read_text())
    data.pop("seconds", None)  # wall time: the one field that may differ (and each claim's)
    for claim in data.get("claims", []):
        claim.pop("seconds", None)
    return data


# check randomized-response --quick has one sampled claim (map_chunks); audit laplace samples
# directly
CASES = {
    "check": ["check", "randomized-response", "--quick", "--no-regret"],
    "audit": ["audit", "laplace", "--samples", "20000"],
}


@pytest.mark.parametrize("command", sorted(CASES))
def test_flag_reaches_map_chunks_and_changes_no_number(command, tmp_path, monkeypatch,
                                                       dask_calls, loopback_scheduler,
                                                       capsys):
    monkeypatch.delenv(parallel.SCHEDULER_ENV, raising=False)
    argv = CASES[command]
    local, cluster = tmp_path / "local.json", tmp_path / "cluster.json"
    assert main([*argv, "--json", str(local)]) == 0
    assert dask_calls == []  # no flag, no variable: local work
    assert main([*argv, "--scheduler", loopback_scheduler, "--json", str(cluster)]) == 0
    assert dask_calls and set(dask_calls) == {loopback_scheduler}
    assert _report(cluster) == _report(local)
    assert parallel.SCHEDULER_ENV not in os.environ  # restored afterwards
    capsys.readouterr()


def test_flag_takes_precedence_over_the_variable(monkeypatch, dask_calls, loopback_scheduler,
                                                 capsys):
    monkeypatch.setenv(parallel.SCHEDULER_ENV, UNREACHABLE)
    assert main([*CASES["audit"], "--scheduler", loopback_scheduler]) == 0
    assert set(dask_calls) == {loopback_scheduler}
    assert os.environ[parallel.SCHEDULER_ENV] == UNREACHABLE  # the variable is restored
    capsys.readouterr()


@pytest.mark.parametrize("command", sorted(CASES))
@pytest.mark.parametrize("address", ["nowhere", "", "tcp://"])
def test_malformed_address_is_a_usage_error_before_any_work(command, address, dask_calls,
                                                            capsys):
    assert main([*CASES[command], "--scheduler", address]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "tcp://HOST:PORT" in err and "Traceback" not in err
    assert dask_calls == []


def test_check_audit_and_simulate_share_one_flag(capsys):
    helps = {}
    for command in ("check", "audit", "simulate"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        start = out.index("--scheduler ADDR Dask")  # the option's entry, not the usage line
        helps[command] = out[start:].split(" --", 1)[0]
    assert len(set(helps.values())) == 1
    assert "$DPAUDIT_SCHEDULER" in helps["check"]
