"""Fixtures for the API server's service layer."""

from __future__ import annotations

import pytest

from cluster.apiserver.service import Actor
from cluster.models import Cluster


@pytest.fixture
def cluster(db) -> Cluster:
    return Cluster.objects.create(name="demo")


@pytest.fixture
def actor() -> Actor:
    return Actor("kubectl", "kubectl/v1.33.1 (linux/amd64)")


def pod(name: str = "web", image: str = "nginx:1.25", **extra) -> dict:
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, **extra.pop("metadata", {})},
        "spec": {"containers": [{"name": "web", "image": image}], **extra.pop("spec", {})},
    }
    body.update(extra)
    return body
