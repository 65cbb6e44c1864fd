"""Sandbox limits: objects, nodes and pods as a ResourceQuota, the request rate, clear messages."""

from __future__ import annotations

import json

import pytest

from cluster.apiserver import service as api
from cluster.models import Cluster
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


def test_nodes_over_the_limit_are_refused_and_a_big_rc_is_accepted_as_upstream(settings, sandbox):
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
    # ResourceQuota counts pods, not replicas: the RC is stored, its pods beyond the quota fail.
    assert api.create(sandbox, rc, ME)["spec"]["replicas"] == 1000


def test_a_students_write_rate_is_limited_and_kubectl_sees_429(settings, sandbox, student_a):
    settings.KUBESIM_SANDBOX_LIMITS = {"writes": 3, "window": 60}
    url = f"/clusters/{sandbox.name}/api/v1/namespaces/default/pods"
    codes = [
        student_a.post(url, json.dumps(pod(f"p{i}")), content_type="application/json").status_code
        for i in range(4)
    ]
    assert codes == [201, 201, 201, 429]
    response = student_a.post(url, json.dumps(pod("p9")), content_type="application/json")
    body = response.json()
    assert body["reason"] == "TooManyRequests"
    assert body["message"] == "Too many requests, please try again later."
    assert 1 <= int(response["Retry-After"]) <= 60
    assert body["details"]["retryAfterSeconds"] == int(response["Retry-After"])
    # deletes are writes too
    assert student_a.delete(f"{url}/p0").status_code == 429


def test_shared_clusters_have_the_classroom_quota_which_the_teacher_overrides(settings, db):
    settings.KUBESIM_SANDBOX_LIMITS = {"pods": 1}
    shared = Cluster.objects.create(name="demo-quota", quota={"pods": 3})
    for name in ("a", "b", "c"):
        api.create(shared, pod(name), ME)
    with pytest.raises(api.ApiError, match="exceeded quota: classroom-quota, requested: pods=1"):
        api.create(shared, pod("d"), ME)


def test_components_are_not_rate_limited(settings, sandbox):
    settings.KUBESIM_SANDBOX_LIMITS = {"writes": 1, "window": 60}
    api.create(sandbox, pod("mine"), ME)
    scheduler = api.Actor(client="scheduler")
    api.bind(sandbox, "default", "mine", "node1", scheduler)
    assert api.get(sandbox, "Pod", "default", "mine")["spec"]["nodeName"] == "node1"
