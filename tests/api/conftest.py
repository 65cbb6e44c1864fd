"""Fixtures for the REST API tests: a cluster and JSON helpers over Django's test clients."""

from __future__ import annotations

import json

import pytest

from cluster.models import Cluster

PODS = "/clusters/demo/api/v1/namespaces/default/pods"


@pytest.fixture
def cluster(db) -> Cluster:
    return Cluster.objects.create(name="demo")


def pod_json(name: str = "web", image: str = "nginx:1.25", labels: dict | None = None) -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": labels or {}},
            "spec": {"containers": [{"name": "web", "image": image}]},
        }
    )


def post_pod(client, name: str = "web", headers: dict | None = None, **kwargs):
    return client.post(PODS, pod_json(name, **kwargs), content_type="application/json", headers=headers)


@pytest.fixture
def client(teacher_client):
    """These tests write as the teacher (tests/support/auth.py); anonymous callers use Client() themselves."""
    return teacher_client
