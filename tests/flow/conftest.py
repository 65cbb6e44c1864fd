"""The control-plane tests share the demo cluster fixture."""

import pytest

from tests.support.demo import demo  # noqa: F401


@pytest.fixture
def client(teacher_client):
    """These tests write as the teacher (tests/support/auth.py); anonymous callers use Client() themselves."""
    return teacher_client
