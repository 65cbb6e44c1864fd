"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The course notes' example manifests (copied from shared/examples, so the suite is self-contained).
SHARED_EXAMPLES = Path(__file__).resolve().parent / "fixtures" / "examples"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
