"""CLI contract: list, check, JSON shape, exit codes 0 / 1 / 2 (issue 2)."""

import json
import subprocess
import sys

import pytest

from dpaudit.cli import main

VERDICTS = {"PROVED", "EXACT", "CONSISTENT", "VIOLATED", "INCONCLUSIVE"}


def test_list_text_and_json(capsys):
    assert main(["list"]) == 0
    assert "dp-ftpl-new" in capsys.readouterr().out
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    names = {r["name"] for r in rows}
    assert {"dp-ftpl-new", "dp-ftpl-new-faulty"} <= names
    assert all(r["description"] for r in rows)
    # twins are NAME-<bug> (NAME-faulty for the older ones), with their original named
    assert all(r["faulty"] == (r["original"] is not None) for r in rows)
    assert all(r["name"].startswith(r["original"] + "-") for r in rows if r["faulty"])
    assert all(r["faulty"] for r in rows if r["name"].endswith("-faulty"))


def test_list_shows_each_check_once_and_marks_aliases(capsys):
    """The older NAME-faulty names are aliases: listed on their twin's line (text), by
    themselves with --aliases, and marked in --json (every entry kept, new fields only)."""
    from dpaudit.registry import all_aliases, all_audits

    aliases = all_aliases()
    assert aliases["dp-ftpl-new-faulty"] == "dp-ftpl-new-double-rate"
    assert all(a.endswith("-faulty") for a in aliases) and len(aliases) >= 19
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = [line.split()[0] for line in lines]
    assert len(first) == len(set(first)) == len(all_audits()) - len(aliases)
    assert not set(first) & set(aliases), "an alias is listed as a check of its own"
    row = next(line for line in lines if line.split()[0] == "dp-ftpl-new-double-rate")
    assert row.endswith("(alias: dp-ftpl-new-faulty)")
    assert main(["list", "--aliases"]) == 0
    listed = dict(line.split("  alias of ") for line in capsys.readouterr().out.splitlines())
    assert {k.strip(): v for k, v in listed.items()} == aliases
    assert main(["list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == set(all_audits())
    assert {n for n, r in rows.items() if r["alias"]} == set(aliases)
    assert all(rows[a]["alias_of"] == n and a in rows[n]["aliases"] for a, n in aliases.items())
    assert all(r["alias_of"] is None for r in rows.values() if not r["alias"])


def test_check_json_contract(quick_check):
    # `check dp-ftpl-new --quick --json` (with --html: tests/test_html_report.py reads the
    # same run)
    code, _, report, text = quick_check("dp-ftpl-new")
    assert code == 0
    assert "verdict:" in text and "Theorem 16" in text
    assert report["name"] == "dp-ftpl-new"
    assert report["verdict"] in VERDICTS - {"VIOLATED"}
    for claim in report["claims"]:
        assert claim["notion"] in {"ldp", "per-step", "global"}
        assert claim["verdict"] in VERDICTS
        assert claim["method"] in {"symbolic", "exact", "sampled"}
        assert claim["epsilon"] == 1.0 and claim["delta"] == 0.01
        assert claim["epsilon_lower_bound"] is None or claim["epsilon_lower_bound"] >= 0
    assert {c["method"] for c in report["claims"]} == {"symbolic", "exact", "sampled"}
    regret = report["regret"]
    for key in ("horizon", "runs", "mean", "ci_low", "ci_high", "bound"):
        assert isinstance(regret[key], int | float)
    assert regret["ci_low"] <= regret["mean"] <= regret["ci_high"] <= regret["bound"]
    assert all(f["notion"] == "global" for f in report["findings"])


# faulty names exit 1: the registry battery (tests/test_registry.py) and
# tests/test_conditions_audits.py run them once each


def test_other_parameters_accepted(capsys):
    # delta = 0 is the Laplace limit (Remark 17): still a valid claim
    assert main(["check", "dp-ftpl-new", "--quick", "--no-regret", "--epsilon", "0.5",
                 "--delta", "0", "--seed", "3"]) == 0
    assert "regime: laplace" in capsys.readouterr().out


@pytest.mark.parametrize("argv,needle", [
    (["check", "dp-ftpl-new", "--epsilon", "-1"], "epsilon=-1.0 must be"),
    (["check", "dp-ftpl-new", "--delta", "1.5"], "delta=1.5 must be"),
    (["check", "dp-ftpl-new", "--epsilon", "0", "--delta", "0"], "must not both be zero"),
    (["check", "dp-ftpl-nw"], "did you mean dp-ftpl-new"),
    (["check", "no_such_module.audit"], "No module named 'no_such_module'"),
    (["check", "dp-ftpl-new", "--epsilon", "nan"], "epsilon=nan must be a finite number"),
    # dp-ftpl-new is defined at epsilon = 0 (the uniform limit of Remark 17)
    (["check", "dp-ftpl-new", "--epsilon", "inf"], "epsilon=inf must be a finite number in "
                                                   "[0, inf)"),
    (["check", "dp-ftpl-new", "--seed", "-4"], "seed=-4 must be"),
    (["check", "dp-ftpl-new", "--alpha", "2"], "alpha=2.0 must be"),
])
def test_usage_errors_exit_two(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["check", "dp-ftpl-new", "--epsilon", "abc"],
    ["check", "dp-ftpl-new", "--seed", "1.5e0"],
    ["check"],
    ["frobnicate"],
])
def test_malformed_arguments_exit_two(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "dpaudit", "check", "dp-ftpl-new",
                           "--epsilon", "-1"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "must be a finite number" in proc.stderr and "Traceback" not in proc.stderr
