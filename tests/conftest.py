import pytest
from hypothesis import settings

# property tests run in CI on a 2-core machine: keep them bounded and deterministic
settings.register_profile("dpaudit", max_examples=60, deadline=None, derandomize=True)
settings.load_profile("dpaudit")


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
