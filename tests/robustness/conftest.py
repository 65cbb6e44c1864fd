"""Fixtures: a live embedded server (SQLite) as a process, as the scale-out tests start it."""

from __future__ import annotations

from tests.scaleout.conftest import embedded  # noqa: F401 (the fixture, shared)
