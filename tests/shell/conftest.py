"""The shell's containers belong to a cluster: their writable layers are stored with it."""

from __future__ import annotations

import pytest

from cluster.models import Cluster


@pytest.fixture(autouse=True)
def demo_cluster(db):
    return Cluster.objects.create(name="demo")
