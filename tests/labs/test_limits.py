"""Sandbox limits: objects, nodes, pods (and replicas) and the request rate, with clear messages."""

from __future__ import annotations

import json

import pytest

from cluster.apiserver import service as api
from cluster.models import Cluster
from labs.limits import RATE
from labs.selftest import forget

pytestmark = pytest.mark.django_db(transaction=True)
ME = api.Actor(client="kubectl")


def pod(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.15"}]},
    }


@pytest.fixture
def sandbox(student_a):
    cluster = student_a.student.sandbox
    RATE.reset(cluster.pk)
    yield cluster
    forget(cluster)


def test_pods_over_the_limit_are_refused_as_an_exceeded_quota(settings, sandbox):
    settings.KUBESIM_SANDBOX_LIMITS = {"pods": 2}
    api.create(sandbox, pod("a"), ME)
    api.create(sandbox, pod("b"), ME)
    with pytest.raises(api.ApiError) as info:
        api.create(sandbox, pod("c"), ME)
    assert info.value.code == 403
    assert info.value.message == (
        'pods "c" is forbidden: exceeded quota: sandbox-limits, '
        "requested: pods=1, used: pods=2, limited: pods=2"
    )


def test_nodes_and_replicas_over_the_limit_are_refused(settings, sandbox):
    settings.KUBESIM_SANDBOX_LIMITS = {"nodes": 3, "pods": 10}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node9"}}
    with pytest.raises(api.ApiError, match="requested: nodes=1, used: nodes=3, limited: nodes=3"):
        api.create(sandbox, node, ME)
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "big"},
        "spec": {
            "replicas": 1000,
            "selector": {"app": "big"},
            "template": {"metadata": {"labels": {"app": "big"}}, "spec": pod("x")["spec"]},
        },
    }
    with pytest.raises(api.ApiError, match="requested: pods=1000"):
        api.create(sandbox, rc, ME)


def test_a_students_write_rate_is_limited_and_kubectl_sees_429(settings, sandbox, student_a):
    settings.KUBESIM_SANDBOX_LIMITS = {"writes": 3, "window": 60}
    url = f"/clusters/{sandbox.name}/api/v1/namespaces/default/pods"
    codes = [
        student_a.post(url, json.dumps(pod(f"p{i}")), content_type="application/json").status_code
        for i in range(4)
    ]
    assert codes == [201, 201, 201, 429]
    body = student_a.post(url, json.dumps(pod("p9")), content_type="application/json").json()
    assert body["reason"] == "TooManyRequests" and "3 changes every 60 seconds" in body["message"]


def test_clusters_that_are_not_sandboxes_have_no_limits(settings, db):
    settings.KUBESIM_SANDBOX_LIMITS = {"pods": 1, "writes": 1}
    demo = Cluster.objects.create(name="demo-unlimited")
    for name in ("a", "b", "c"):
        api.create(demo, pod(name), ME)
    assert len(api.list_objects(demo, "Pod")[0]) == 3


def test_components_are_not_rate_limited(settings, sandbox):
    settings.KUBESIM_SANDBOX_LIMITS = {"writes": 1, "window": 60}
    api.create(sandbox, pod("mine"), ME)
    scheduler = api.Actor(client="scheduler")
    api.bind(sandbox, "default", "mine", "node1", scheduler)
    assert api.get(sandbox, "Pod", "default", "mine")["spec"]["nodeName"] == "node1"
