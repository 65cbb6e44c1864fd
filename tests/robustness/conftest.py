"""Fixtures: a live embedded server (SQLite) as a process, as the scale-out tests start it."""

from __future__ import annotations

import pytest

from tests.scaleout.conftest import embedded  # noqa: F401 (the fixture, shared)
from tests.support.demo import demo  # noqa: F401 (the websocket fuzzer's cluster)


@pytest.fixture
def client(teacher_client):
    """Every in-process request of these tests is the teacher's: bad input must be refused for
    what it is, not because an anonymous caller may not write."""
    return teacher_client
