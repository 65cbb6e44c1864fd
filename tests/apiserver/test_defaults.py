"""Create fills in what the real API server defaults, and keeps what the user wrote."""

from __future__ import annotations

import re

import pytest

from cluster.apiserver import service as api
from tests.apiserver.conftest import pod


def rc(name: str = "rc", **spec) -> dict:
    template = {
        "metadata": {"labels": {"app": name}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]},
    }
    return {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": name},
        "spec": {"template": template, **spec},
    }


def deployment(name: str = "d") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def test_pod_defaults(cluster, actor):
    created = api.create(cluster, pod(), actor)
    meta, spec = created["metadata"], created["spec"]
    assert meta["namespace"] == "default"
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", meta["uid"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["creationTimestamp"])
    assert meta["resourceVersion"] == "1"
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["restartPolicy"] == "Always"
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert spec["containers"][0]["terminationMessagePath"] == "/dev/termination-log"
    assert created["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    assert "nodeName" not in spec


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.25", "IfNotPresent"),
        ("localhost:5000/app", "Always"),
        ("localhost:5000/app:v2", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
    ],
)
def test_image_pull_policy_follows_the_tag(cluster, actor, image, policy):
    created = api.create(cluster, pod(image=image), actor)
    assert created["spec"]["containers"][0]["imagePullPolicy"] == policy


def test_user_values_are_kept(cluster, actor):
    obj = pod(
        spec={"schedulerName": "my-scheduler", "restartPolicy": "Never"},
        metadata={"namespace": "kube-system"},
    )
    obj["spec"]["containers"][0]["imagePullPolicy"] = "Never"
    created = api.create(cluster, obj, actor)
    assert created["metadata"]["namespace"] == "kube-system"
    assert created["spec"]["schedulerName"] == "my-scheduler"
    assert created["spec"]["restartPolicy"] == "Never"
    assert created["spec"]["containers"][0]["imagePullPolicy"] == "Never"


def test_limits_only_become_requests_and_guaranteed_qos(cluster, actor):
    obj = pod()
    obj["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "500m", "memory": "128Mi"}}
    created = api.create(cluster, obj, actor)
    assert created["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "128Mi"}
    assert created["status"]["qosClass"] == "Guaranteed"


def test_generate_name_gets_a_suffix(cluster, actor):
    obj = pod("")
    obj["metadata"]["generateName"] = "web-"
    created = api.create(cluster, obj, actor)
    assert re.fullmatch(r"web-[a-z0-9]{5}", created["metadata"]["name"])


def test_replication_controller_defaults(cluster, actor):
    created = api.create(cluster, rc(), actor)
    assert created["spec"]["replicas"] == 1
    assert created["spec"]["selector"] == {"app": "rc"}
    assert created["metadata"]["labels"] == {"app": "rc"}
    assert created["metadata"]["generation"] == 1
    assert created["spec"]["template"]["spec"]["restartPolicy"] == "Always"
    assert created["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"


def test_deployment_defaults(cluster, actor):
    created = api.create(cluster, deployment(), actor)
    spec = created["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
    }
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600


def test_generation_bumps_on_spec_change_only(cluster, actor):
    api.create(cluster, rc(), actor)
    labelled = api.patch(
        cluster,
        "ReplicationController",
        "default",
        "rc",
        {"metadata": {"labels": {"tier": "web"}}},
        "application/merge-patch+json",
        actor,
    )
    assert labelled["metadata"]["generation"] == 1
    scaled = api.scale(cluster, "ReplicationController", "default", "rc", 3, actor)
    assert scaled["spec"]["replicas"] == 3
    assert api.get(cluster, "ReplicationController", "default", "rc")["metadata"]["generation"] == 2


def test_owner_references_are_kept(cluster, actor):
    owner = api.create(cluster, rc(), actor)
    ref = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "name": "rc",
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    created = api.create(cluster, pod("rc-abcde", metadata={"ownerReferences": [ref]}), actor)
    assert created["metadata"]["ownerReferences"] == [ref]


def test_builtin_namespaces_exist(cluster):
    names = [ns["metadata"]["name"] for ns in api.list_objects(cluster, "Namespace")[0]]
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]
    assert api.get(cluster, "Namespace", None, "kube-system")["status"] == {"phase": "Active"}
