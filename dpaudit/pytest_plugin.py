"""pytest plugin (``pytest11`` entry point ``dpaudit``): scale the sample budget of
:func:`dpaudit.testing.assert_private` in CI.

* ``pytest --dpaudit-scale 0.1`` (or ``DPAUDIT_SAMPLE_SCALE=0.1``): every budget times 0.1;
* ``@pytest.mark.dpaudit(scale=2.0)``: this test's budget times 2 (overrides the option).
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpaudit")
    group.addoption("--dpaudit-scale", type=float, default=None, metavar="FACTOR",
                    help="multiply dpaudit.testing.assert_private's sample budgets by FACTOR "
                         "(default: $DPAUDIT_SAMPLE_SCALE, else 1)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "dpaudit(scale): multiply this test's dpaudit sample "
                                       "budgets by scale")
    scale = config.getoption("--dpaudit-scale", default=None)
    if scale is not None:
        # lazy: the plugin is loaded at every pytest start of a project with dpaudit
        # installed; dpaudit.testing (and the engine behind it) only when a test asks
        from dpaudit.testing import set_sample_scale

        try:
            set_sample_scale(scale)
        except ValueError as exc:
            raise pytest.UsageError(f"--dpaudit-scale: {exc}") from None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    marker = item.get_closest_marker("dpaudit")
    if marker is None or "scale" not in marker.kwargs:
        yield
        return
    from dpaudit import testing  # lazy: as above, only for a test marked dpaudit(scale=...)

    previous = testing._scale
    testing.set_sample_scale(marker.kwargs["scale"])
    try:
        yield
    finally:
        testing._scale = previous
