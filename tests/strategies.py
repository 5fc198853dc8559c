"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

epsilons = st.floats(min_value=0.01, max_value=10.0, allow_nan=False)
deltas = st.floats(min_value=1e-10, max_value=0.9, allow_nan=False)
counts = st.integers(min_value=1, max_value=10_000)
centres = st.floats(min_value=-5.0, max_value=5.0, allow_nan=False)
unit = st.floats(min_value=1e-12, max_value=1 - 1e-12, allow_nan=False)
