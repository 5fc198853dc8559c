"""Argument types of the command line: integers in scientific notation, output paths."""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.commands.common import float_arg, int_arg, output_dir, output_file


@given(st.integers(min_value=-10**30, max_value=10**30))
def test_int_arg_reads_every_integer_literal(n):
    assert int_arg(str(n)) == n


@given(st.integers(min_value=-10**6, max_value=10**6), st.integers(min_value=0, max_value=12))
def test_int_arg_reads_whole_scientific_notation_exactly(mantissa, exponent):
    # exact decimal arithmetic: 3e12 is 3000000000000, never a rounded float
    assert int_arg(f"{mantissa}e{exponent}") == mantissa * 10**exponent
    assert int_arg(f"{mantissa}E+{exponent}") == mantissa * 10**exponent


@given(st.integers(min_value=1, max_value=10**6).filter(lambda n: n % 10),
       st.integers(min_value=1, max_value=6))
def test_int_arg_refuses_fractions(n, places):
    # n / 10**places with n not a multiple of 10 is never whole
    text = f"{n}e-{places}"
    with pytest.raises(argparse.ArgumentTypeError, match="is not an integer"):
        int_arg(text)


@pytest.mark.parametrize("text", ["1.5e0", "abc", "1e", "inf", "nan", "", "0x10"])
def test_int_arg_refuses_non_integers(text):
    with pytest.raises(argparse.ArgumentTypeError):
        int_arg(text)


def test_float_arg_leaves_the_domain_to_the_validators():
    # inf and nan parse, so the parameter's validator words the refusal (one wording)
    assert float_arg("1e-3") == 1e-3 and float_arg("inf") == float("inf")
    with pytest.raises(argparse.ArgumentTypeError):
        float_arg("one")


def test_output_paths(tmp_path):
    assert output_file(str(tmp_path / "a" / "b" / "r.json")) == tmp_path / "a" / "b" / "r.json"
    assert output_dir(str(tmp_path / "new")) == tmp_path / "new"
    assert not (tmp_path / "a").exists()  # nothing is created before the work is done
    (tmp_path / "f").write_text("x")
    for bad, kind in ((str(tmp_path), output_file), ("", output_file), ("  ", output_file),
                      (str(tmp_path / "f" / "r.json"), output_file),
                      (str(tmp_path / "f"), output_dir), ("", output_dir),
                      (str(tmp_path) + "/", output_file)):
        with pytest.raises(argparse.ArgumentTypeError):
            kind(bad)
