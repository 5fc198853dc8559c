"""Issue 26, item 7 (the pytest helper) and item 3 (identical neighbours are a usage error)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from dpaudit.stats.results import Verdict
from dpaudit.testing import PrivacyAssertionError, assert_private
from dpaudit.validation import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]


def _rr(data, size, rng):
    """Binary randomized response at eps = ln(0.73 / 0.27) = 0.9946 as a plain function."""
    return (rng.random(size) < (0.73 if data else 0.27)).astype(np.int64)


@pytest.mark.statistical
def test_a_plain_function_is_audited() -> None:
    """True loss 0.9946 <= claim 1: a correct claim fails with probability <= alpha = 1e-3."""
    result = assert_private(_rr, epsilon=1.0, neighbours=[(0, 1)], samples=20_000, alpha=1e-3)
    assert result.verdict is Verdict.CONSISTENT
    assert "_rr is (1, 0)-DP" in result.claim.statement


@pytest.mark.statistical
def test_a_plain_function_that_leaks_fails() -> None:
    """Claim 0.2 against true loss 0.9946: 20000 draws catch a loss above ~0.3 with power
    >= 80% (the engine's statement), so the seeded run is far inside the power."""
    with pytest.raises(PrivacyAssertionError, match="VIOLATED"):
        assert_private(_rr, epsilon=0.2, neighbours=[(0, 1)], samples=20_000)


def test_a_plain_function_needs_epsilon_and_neighbours() -> None:
    with pytest.raises(InvalidParameterError, match="needs epsilon= and neighbours="):
        assert_private(_rr, samples=1000)
    with pytest.raises(InvalidParameterError, match="needs neighbours="):
        assert_private(_rr, epsilon=1.0, samples=1000)


def test_inconclusive_fails_unless_allowed() -> None:
    """eps = 50 cannot be refuted by 20000 draws: INCONCLUSIVE, which is not a pass."""
    with pytest.raises(PrivacyAssertionError, match="allow_inconclusive=True") as info:
        assert_private(_rr, epsilon=50.0, neighbours=[(0, 1)], samples=20_000)
    assert "INCONCLUSIVE" in str(info.value)
    result = assert_private(_rr, epsilon=50.0, neighbours=[(0, 1)], samples=20_000,
                            allow_inconclusive=True)
    assert result.verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize("pair", [(3, 3), ((0.2, 1.0), [0.2, 1.0]),
                                  (np.zeros(3), np.zeros(3))])
def test_identical_neighbours_are_a_usage_error(pair) -> None:
    with pytest.raises(InvalidParameterError, match="equal inputs"):
        assert_private(_rr, epsilon=1.0, neighbours=[pair], samples=1000)


def test_identical_neighbours_exit_2_in_audit(tmp_path, monkeypatch, capsys) -> None:
    from dpaudit.cli import main

    (tmp_path / "same_pair_mech.py").write_text(textwrap.dedent("""
        import numpy as np
        class Same:
            epsilon, delta, neighbours = 1.0, 0.0, [(3, 3)]
            def sample(self, data, size, rng):
                return rng.laplace(data, 1.0, size)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["audit", "same_pair_mech:Same", "--samples", "1000"]) == 2
    assert "equal inputs" in capsys.readouterr().err


def test_a_failure_reads_like_an_assertion_about_the_users_code(tmp_path) -> None:
    """Under pytest the traceback shows the test's own line and no dpaudit frame."""
    (tmp_path / "test_user_gate.py").write_text(textwrap.dedent("""
        from dpaudit.testing import assert_private

        def leaky(data, size, rng):
            return rng.laplace(float(data), 0.1, size)

        def test_gate():
            assert_private(leaky, epsilon=1.0, neighbours=[(0, 1)], samples=2000)
    """))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "test_user_gate.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=env)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "assert_private(leaky, epsilon=1.0" in out
    assert "PrivacyAssertionError: leaky: claim 'dp-claim' is VIOLATED" in out
    assert "dpaudit/testing.py" not in out and "blackbox.py" not in out


class _EmptyFeatures:
    epsilon, delta, neighbours = 1.0, 0.0, [(0, 1)]

    def sample(self, data, size, rng):
        return rng.laplace(float(data), 1.0, size)

    def features(self, outputs):
        return np.zeros((len(outputs), 0))  # no statistic at all


class _NoOutcomes(_EmptyFeatures):
    features = None
    n_outcomes = 0


@pytest.mark.parametrize("mech, needle", [(_EmptyFeatures(), "empty statistic"),
                                          (_NoOutcomes(), "n_outcomes=0")])
def test_an_empty_event_family_is_a_usage_error(mech, needle) -> None:
    """Issue 26 item 3: a family with no event gave CONSISTENT ("learned score >= 0")."""
    with pytest.raises(InvalidParameterError, match=needle):
        assert_private(mech, samples=2000)
