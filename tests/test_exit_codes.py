"""Exit codes mean one thing: 0 ok, 1 VIOLATED, 2 usage, 3 user-code or internal error, 130 Ctrl-C,
141 standard output closed by its reader.

One test per path. User modules are written into ``tmp_path`` and put on ``sys.path`` with
``monkeypatch.syspath_prepend``; each test uses its own module names, removed from
``sys.modules`` afterwards, so tests do not see each other's modules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import dpaudit.commands.check as check_cmd
from dpaudit.cli import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    main,
    version,
)
from dpaudit.registry import all_audits

SAMPLER = '''
import numpy as np


class Base:
    """A sampler speaking the black-box protocol."""

    epsilon, delta = 1.0, 0.0
    neighbours = [(0.0, 1.0)]

    def sample(self, data, size, rng):
        return data + rng.laplace(0.0, 1.0, size)


class Raises(Base):
    def sample(self, data, size, rng):
        raise ValueError("the user's sampler failed")


class Interrupted(Base):
    def sample(self, data, size, rng):
        raise KeyboardInterrupt


class Exits(Base):
    def sample(self, data, size, rng):
        raise SystemExit(1)


class WrongShape(Base):
    def sample(self, data, size, rng):
        return np.zeros(3)


class NeedsArguments(Base):
    def __init__(self, scale):
        self.scale = scale


def factory_that_raises():
    raise RuntimeError("the user's factory failed")
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """``write(name, source)``: a module importable for this test only."""
    monkeypatch.syspath_prepend(str(tmp_path))
    written: list[str] = []

    def write(name: str, source: str) -> str:
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        written.append(name)
        return name

    yield write
    for name in written:
        sys.modules.pop(name, None)


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# -- 3: exceptions in user code, never 1 ---------------------------------------------------
def test_user_sampler_that_raises_exits_3_with_one_line(user_module, capsys):
    user_module("ec_sampler_a", SAMPLER)
    assert main(["audit", "ec_sampler_a:Raises", "--samples", "1000"]) == EXIT_INTERNAL
    line = _one_line(capsys.readouterr().err)
    assert "error in user code" in line and "the user's sampler failed" in line
    assert "ec_sampler_a.py" in line and "--debug" in line


def test_debug_prints_the_traceback(user_module, capsys):
    user_module("ec_sampler_b", SAMPLER)
    assert main(["audit", "ec_sampler_b:Raises", "--samples", "1000", "--debug"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "the user's sampler failed" in err


def test_sys_exit_in_user_code_is_not_a_verdict(user_module, capsys):
    user_module("ec_sampler_c", SAMPLER)
    assert main(["audit", "ec_sampler_c:Exits", "--samples", "1000"]) == 3
    assert "sys.exit(1)" in _one_line(capsys.readouterr().err)


def test_user_claim_that_raises_under_check_exits_3(user_module, capsys):
    user_module("ec_claim", '''
        from dataclasses import replace
        from dpaudit.audits.barbara_lazzaro_pike_burke_2025.privbern import AUDITS as _BUILTIN
        from dpaudit.engine import ClaimSpec
        from dpaudit.stats.results import Notion

        def _broken(ctx, spec):
            return 1 / 0

        AUDIT = replace(_BUILTIN[0], name="mine", claims=[
            ClaimSpec("broken", Notion.LDP, "s", "r", _broken)])
    ''')
    assert main(["check", "ec_claim", "--quick"]) == 3
    line = _one_line(capsys.readouterr().err)
    assert "ZeroDivisionError" in line and "ec_claim.py" in line


def test_factory_that_raises_exits_3(user_module, capsys):
    user_module("ec_sampler_d", SAMPLER)
    assert main(["audit", "ec_sampler_d:factory_that_raises"]) == 3
    assert "the user's factory failed" in _one_line(capsys.readouterr().err)


def test_internal_error_exits_3(monkeypatch, capsys):
    # a bug inside dpaudit: the check command receives no report and fails in check.py when
    # it records the run's parameters
    monkeypatch.setattr(check_cmd, "run_check", lambda *args, **kwargs: None)
    assert main(["check", "privbern"]) == 3
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("dpaudit: internal error: AttributeError")
    assert "check.py" in line and "please report it" in line


@pytest.mark.parametrize("argv", [
    ["check", "laplace", "--epsilon", "1e308", "--quick"],
    ["check", "privbern", "--epsilon", "1000", "--quick"],
])
def test_extreme_parameters_never_exit_1_with_a_traceback(argv, capsys):
    # the numerics decide these (0 or 1 with a real verdict) or the range refuses them (2,
    # naming it: epsilon past log(float64 max)); never a crash (issue 26, item 4)
    code = main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    if code == 1:
        assert "VIOLATED" in captured.out and "exit code 1" in captured.out
    else:
        assert code in (0, 2)
        if code == 2:
            assert "accepted range" in _one_line(captured.err)


# -- 130: Ctrl-C ---------------------------------------------------------------------------
def test_keyboard_interrupt_exits_130_quietly(user_module, capsys):
    user_module("ec_sampler_e", SAMPLER)
    assert main(["audit", "ec_sampler_e:Interrupted", "--samples", "1000"]) == EXIT_INTERRUPTED
    assert _one_line(capsys.readouterr().err) == "dpaudit: interrupted"


# -- 141: standard output closed by its reader (| head) ------------------------------------
def _run_into_closed_pipe(argv: list[str], cwd) -> subprocess.CompletedProcess:
    """Run the real entry point with its standard output a pipe whose reader is already gone
    (as under ``| head -1`` once head has exited): every write fails with EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "dpaudit", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120, cwd=cwd)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("argv", [
    ["list"], ["list", "--json"], ["claims", "--list-papers"],
    ["check", "privbern", "--quick", "--no-regret"],
])
def test_closed_stdout_exits_141_quietly(argv, tmp_path):
    proc = _run_into_closed_pipe(argv, tmp_path)
    assert proc.returncode == EXIT_BROKEN_PIPE == 141
    assert proc.stderr == ""  # no "internal error", no "Exception ignored" at exit


def test_piped_to_head_prints_its_line_and_no_error(tmp_path):
    # whether `list` is still writing when head exits is a race: 0 (all written into the pipe
    # in time) or 141 (the reader had gone); never an error message
    producer = subprocess.Popen([sys.executable, "-m", "dpaudit", "list", "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    head = subprocess.run(["head", "-1"], stdin=producer.stdout, capture_output=True,
                          text=True, timeout=120)
    producer.stdout.close()
    err = producer.stderr.read().decode()
    producer.stderr.close()
    assert producer.wait(timeout=120) in (0, EXIT_BROKEN_PIPE)
    assert head.stdout == "[\n" and err == ""


def test_broken_pipe_elsewhere_is_still_an_error(tmp_path):
    # a BrokenPipeError that is not the standard output's (a worker's or a cluster's pipe)
    # must not pass for a reader that went away: exit 3 with its one line
    (tmp_path / "ec_pipe.py").write_text(textwrap.dedent('''
        from dataclasses import replace
        from dpaudit.audits.barbara_lazzaro_pike_burke_2025.privbern import AUDITS as _BUILTIN
        from dpaudit.engine import ClaimSpec
        from dpaudit.stats.results import Notion

        def _broken(ctx, spec):
            raise BrokenPipeError(32, "a worker's pipe broke")

        AUDIT = replace(_BUILTIN[0], name="mine", claims=[
            ClaimSpec("broken", Notion.LDP, "s", "r", _broken)])
    '''))
    proc = subprocess.run([sys.executable, "-m", "dpaudit", "check", "ec_pipe", "--quick"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == EXIT_INTERNAL
    line = _one_line(proc.stderr)
    assert "BrokenPipeError" in line and "ec_pipe.py" in line


# -- 2: usage errors -----------------------------------------------------------------------
def test_syntax_error_in_user_module_exits_2_with_its_line(user_module, capsys):
    user_module("ec_syntax", "x = 1\ndef broken(:\n    pass\n")
    for argv in (["check", "ec_syntax"], ["audit", "ec_syntax:X"]):
        assert main(argv) == EXIT_USAGE
        line = _one_line(capsys.readouterr().err)
        assert "SyntaxError" in line and "ec_syntax.py, line 2" in line
        assert "unknown check name" not in line


def test_failed_import_inside_user_module_exits_2(user_module, capsys):
    user_module("ec_missing_dep", "import no_such_dependency_xyz\n")
    assert main(["check", "ec_missing_dep"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "No module named 'no_such_dependency_xyz'" in line


def test_user_module_whose_top_level_raises_exits_3(user_module, capsys):
    user_module("ec_top_raises", "raise RuntimeError('top level failed')\n")
    assert main(["check", "ec_top_raises"]) == 3
    assert "top level failed" in _one_line(capsys.readouterr().err)


def test_user_object_breaking_the_protocol_exits_2(user_module, capsys):
    user_module("ec_sampler_f", SAMPLER + "\nNOT_A_MECHANISM = 42\n")
    assert main(["audit", "ec_sampler_f:NOT_A_MECHANISM"]) == 2
    assert "has no attribute 'sample'" in _one_line(capsys.readouterr().err)
    assert main(["audit", "ec_sampler_f:WrongShape", "--samples", "1000"]) == 2
    assert "first axis has length size" in _one_line(capsys.readouterr().err)
    assert main(["audit", "ec_sampler_f:NeedsArguments"]) == 2
    assert "needs arguments" in _one_line(capsys.readouterr().err)
    user_module("ec_not_specs", "AUDITS = [1, 2]\n")
    assert main(["check", "ec_not_specs"]) == 2
    assert "not an AuditSpec" in _one_line(capsys.readouterr().err)


def test_json_to_a_directory_or_empty_exits_2_before_any_work(tmp_path, monkeypatch, capsys):
    def must_not_run(*args, **kwargs):
        raise AssertionError("the check ran although its output path is unusable")

    monkeypatch.setattr(check_cmd, "run_check", must_not_run)
    for bad in (str(tmp_path), ""):
        with pytest.raises(SystemExit) as exc:
            main(["check", "privbern", "--json", bad])
        assert exc.value.code == 2
        assert "argument --json" in capsys.readouterr().err
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(SystemExit):  # a folder cannot be created under a file
        main(["check", "privbern", "--json", str(tmp_path / "a_file" / "r.json")])


def test_json_to_a_missing_folder_creates_it(tmp_path, capsys):
    path = tmp_path / "new" / "folder" / "report.json"
    assert main(["check", "privbern", "--quick", "--json", str(path)]) == 0
    assert json.loads(path.read_text())["name"] == "privbern"


@pytest.mark.parametrize("argv", [
    ["audit", "laplace", "--samples", "1.5e0"],
    ["check", "privbern", "--seed", "abc"],
    ["check", "privbern", "--no-such-option"],
])
def test_malformed_options_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_epsilon_domain_has_one_wording(capsys):
    texts = []
    for argv in (["check", "laplace", "--epsilon", "inf"], ["audit", "laplace", "--epsilon",
                                                             "inf"]):
        assert main(argv) == 2
        texts.append(_one_line(capsys.readouterr().err))
    assert texts[0] == texts[1] == "dpaudit: error: epsilon=inf must be a finite number in (0, inf)"


# -- user modules load the way the README says --------------------------------------------
def test_top_level_module_with_audits_audit_or_named_audits(user_module, capsys):
    base = ("from dataclasses import replace\n"
            "from dpaudit.audits.barbara_lazzaro_pike_burke_2025.privbern "
            "import AUDITS as _BUILTIN\n")
    user_module("ec_audits", base + 'AUDITS = [replace(_BUILTIN[0], name="mine")]\n')
    user_module("ec_audit", base + 'AUDIT = replace(_BUILTIN[0], name="mine")\n')
    user_module("ec_named", base + 'cli = replace(_BUILTIN[0], name="a")\n'
                                   'other = replace(_BUILTIN[0], name="b")\n')
    for argv in (["check", "ec_audits"], ["check", "ec_audit"], ["check", "ec_named:cli"],
                 ["check", "ec_named:b"], ["check", "ec_audits:mine"]):
        assert main([*argv, "--quick"]) == 0, argv
    capsys.readouterr()
    assert main(["check", "ec_named"]) == 2  # two audits: the user must name one
    assert "ec_named:a" in capsys.readouterr().err


def test_unknown_bare_name_is_a_typo_not_an_import_error(capsys):
    assert main(["check", "privbrn"]) == 2
    err = capsys.readouterr().err
    assert "did you mean privbern" in err and "no module 'privbrn'" in err


def test_audit_accepts_a_class(user_module, capsys):
    # a class is accepted wherever a zero-argument factory is (correct Laplace, alpha 1e-4:
    # false-failure probability <= 1e-4)
    user_module("ec_sampler_g", SAMPLER)
    assert main(["audit", "ec_sampler_g:Base", "--samples", "20000", "--alpha", "1e-4"]) == 0


# -- check NAME and audit NAME mean the same mechanism ---------------------------------------
def test_audit_names_are_the_registry_mechanisms(capsys):
    assert main(["audit", "--list"]) == 0
    listed = {line.split()[0] for line in capsys.readouterr().out.splitlines()}
    registry = all_audits()
    assert listed == {n for n, s in registry.items() if s.mechanism is not None}
    assert {"laplace", "gaussian", "privbern"} <= listed
    # `audit laplace` attacks check laplace's worst episode (m = 1): Lap(1/eps) on a sum of
    # sensitivity 1; `audit gaussian` the classical calibration check gaussian decides
    assert registry["laplace"].mechanism(0.5, 0.0).scale == pytest.approx(2.0)
    from dpaudit.exact.divergence import classical_gaussian_sigma

    assert registry["gaussian"].mechanism(2.0, 1e-3).sigma == pytest.approx(
        classical_gaussian_sigma(2.0, 1e-3))
    assert main(["audit", "dp-ftpl-new"]) == 2  # a check without a black-box mechanism
    assert "declares no mechanism" in capsys.readouterr().err


# -- --version, and the real entry point -----------------------------------------------------
def test_version_from_package_metadata(capsys):
    from importlib.metadata import version as dist_version

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"dpaudit {dist_version('dpaudit')}" == (
        f"dpaudit {version()}")


def test_entry_point_integer_in_scientific_notation_and_exit_code(tmp_path):
    # 2e5 samples of the correct built-in Laplace at alpha = 1e-4: false-failure <= 1e-4
    proc = subprocess.run([sys.executable, "-m", "dpaudit", "audit", "laplace", "--samples",
                           "2e5", "--alpha", "1e-4"], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "samples=200000" in proc.stdout
