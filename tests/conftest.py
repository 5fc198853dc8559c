import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import settings

# property tests run in CI on a 2-core machine: keep them bounded and deterministic
settings.register_profile("dpaudit", max_examples=60, deadline=None, derandomize=True)
settings.load_profile("dpaudit")


#: the suite's slowest tests as its last measurement named them (``benchmarks/timings.py
#: test-suite`` stores the ``--durations`` lines with the suite's time)
TIMINGS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "timings.json"


def _known_seconds() -> dict[str, float]:
    try:
        lines = json.loads(TIMINGS.read_text())["test-suite"]["durations"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    out: dict[str, float] = {}
    for line in lines:
        m = re.match(r"\s*(\d+(?:\.\d+)?)s call\s+(\S.*?)\s*$", str(line))
        if m:  # "23.67s call tests/test_x.py::test_y[id with spaces]"
            out[m.group(2)] = float(m.group(1))
    return out


def pytest_collection_modifyitems(items):
    """The type check (tests/test_types.py, 15 to 25 s on one core) first, so that it
    overlaps the other tests on the second core rather than ending the run alone; then the
    slowest tests of the last measurement, longest first, so that no worker starts a long
    test while the other has only short ones left (the end of a run is short tests on both).
    Every worker sorts its identical collection the same way; the rest keep their order."""
    known = _known_seconds()
    items.sort(key=lambda item: (item.path.name != "test_types.py",
                                 -known.get(item.nodeid, 0.0)))


@pytest.fixture(autouse=True, scope="session")
def _state_outside_the_checkout(tmp_path_factory):
    """``check`` saves its work as it goes (dpaudit.runtime.state); tests that end a check early (a
    user claim raising, an interrupt) must not leave ``.dpaudit-state/`` in the checkout."""
    key = "DPAUDIT_STATE_DIR"
    old = os.environ.get(key)
    os.environ[key] = str(tmp_path_factory.mktemp("dpaudit-state"))
    yield
    if old is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = old


@pytest.fixture
def loopback_scheduler():
    """The address of a one-worker Dask cluster on 127.0.0.1 (threads in this process, so it
    starts in about a second), closed after the test; skipped without dask.distributed."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        yield address


@pytest.fixture(scope="session")
def quick_check(tmp_path_factory):
    """``quick_check(name) -> (exit code, HTML path, JSON document, printed text)`` of one
    ``python -m dpaudit check NAME --quick --html ... --json ...``, run once per test process
    and shared (``tests/test_cli.py`` reads its JSON and text, ``tests/test_html_report.py``
    its page): no test pays twice for the same check."""
    import contextlib
    import io
    import json

    from dpaudit.cli import main

    folder = tmp_path_factory.mktemp("quick-checks")
    done: dict[str, tuple] = {}

    def run(name: str) -> tuple:
        if name not in done:
            page, doc, text = folder / f"{name}.html", folder / f"{name}.json", io.StringIO()
            with contextlib.redirect_stdout(text):
                code = main(["check", name, "--quick", "--html", str(page), "--json", str(doc)])
            done[name] = (code, page, json.loads(doc.read_text()), text.getvalue())
        return done[name]

    return run
