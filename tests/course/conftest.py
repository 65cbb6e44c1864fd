"""The course notes' sequence end to end: its own live server (pace 0, the demo cluster, the API
port with TLS for kubectl), the dashboard in Chromium signed in as the teacher, the real kubectl."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.browser.conftest import CHROMIUM, _missing, browser  # noqa: F401
from tests.kubectl.conftest import LiveServer, live_server


@pytest.fixture(scope="package")
def course_server(tmp_path_factory) -> Iterator[LiveServer]:
    if not CHROMIUM.exists():
        _missing(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    with live_server(tmp_path_factory.mktemp("course"), seed=None) as server:
        yield server


@pytest.fixture(scope="package")
def live_server_url(course_server: LiveServer) -> str:
    return course_server.http
