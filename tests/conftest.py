"""Shared fixtures."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import weakref
from pathlib import Path

import pytest
from django.conf import settings
from django.db.backends.signals import connection_created

from k8s import clock

# The tests' own state directory (presenter token, CA, kubeconfigs), inherited by every server they
# start, so a test run never touches the checkout's `.kubesim/` that `make run` uses.
_STATE = tempfile.mkdtemp(prefix="kubesim-test-state-")
os.environ["KUBESIM_STATE_DIR"] = _STATE
settings.KUBESIM_STATE_DIR = Path(_STATE)  # pytest-django read the settings before this file
atexit.register(shutil.rmtree, _STATE, ignore_errors=True)

REPO = Path(__file__).resolve().parent.parent
# The course notes' example manifests (copied from shared/examples, so the suite is self-contained).
SHARED_EXAMPLES = Path(__file__).resolve().parent / "fixtures" / "examples"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
def teacher_headers() -> dict[str, str]:
    """The teacher's credentials as request headers (see tests/support/auth.py)."""
    from tests.support.auth import teacher_headers as headers

    return headers()


@pytest.fixture
def teacher_client(db):
    """Django's test client as the teacher (the presenter token as a bearer token)."""
    from tests.support.auth import teacher_client as make

    return make()


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate limits count per process: each test starts with none spent (tests share 127.0.0.1)."""
    from cluster.auth.logins import FAILURES
    from cluster.auth.ratelimit import WRITES
    from cluster.auth.readlimit import READS
    from dashboard.files import SAVES
    from dashboard.views import PRESENTER_FAILURES
    from labs.joinlimits import JOINS

    WRITES._times.clear()
    JOINS._times.clear()
    PRESENTER_FAILURES._times.clear()
    FAILURES._times.clear()
    SAVES._times.clear()
    READS._times.clear()
    yield


@pytest.fixture(autouse=True)
def _sync_thread_connection_closed():
    """asgiref's one sync thread keeps its connection between calls (CONN_MAX_AGE, as a server
    does); a test's must not outlive it: PostgreSQL refuses to drop a database still in use."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    SyncToAsync.single_thread_executor.submit(connections.close_all).result()


# Every database connection the run opens, on any thread: the kept threads (request threads, stream
# readers, the labs' lanes) hold theirs between calls, as a server does.
_OPENED: weakref.WeakSet = weakref.WeakSet()


def _remember(sender, connection, **kwargs):
    _OPENED.add(connection)


connection_created.connect(_remember)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's, with every connection still open closed before the test database is
    dropped: PostgreSQL refuses to drop a database that sessions use. The threads that own them
    are idle once the run is over."""
    yield
    for wrapper in list(_OPENED):
        if wrapper.vendor != "sqlite" and wrapper.connection is not None:
            wrapper.inc_thread_sharing()
            try:
                wrapper.close()
            finally:
                wrapper.dec_thread_sharing()


@pytest.fixture(autouse=True)
def _sqlite_only(request):
    """`@pytest.mark.sqlite_only(why)`: the test is about the SQLite backend (a run with
    DATABASE_URL set skips it)."""
    marker = request.node.get_closest_marker("sqlite_only")
    if marker is not None:
        from django.db import connection

        if connection.vendor != "sqlite":
            pytest.skip(marker.args[0] if marker.args else "the SQLite backend's")


@pytest.fixture(autouse=True)
def _process_time():
    """A test reads the process clock when it starts: a request of an earlier test may have left
    its cluster's clock shift in this thread's context (Django's test client runs views in it)."""
    clock.enter(None)
    yield
    clock.enter(None)


@pytest.fixture
def fake_clock():
    """The cluster's clock, moved by the test (`fake_clock.advance(seconds)`) instead of sleeping."""
    fake = clock.FakeClock()
    previous = clock.use(fake)
    yield fake
    clock.use(previous)


# Tests that need more than this process are marked by the fixture that starts what they need, so
# none can forget its marker (`make test-fast` leaves them out; pyproject.toml lists the markers).
_MARKED_BY_FIXTURE = {
    "live_server_url": "browser",
    "page": "browser",
    "labs_server": "browser",
    "course_server": "browser",
    "kubesim": "kubectl",
    "kubectl": "kubectl",
    "anonymous_kubectl": "kubectl",
    "embedded": "server",
    "scaled": "scaleout",
}


def pytest_collection_modifyitems(items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for fixture, marker in _MARKED_BY_FIXTURE.items():
            if fixture in names:
                item.add_marker(marker)
        if "scaleout" in item.path.parts:
            item.add_marker("scaleout")  # PostgreSQL and Redis, whatever the fixture
