"""The resource metrics API (`metrics.k8s.io/v1beta1`): discovery, NodeMetrics and PodMetrics as
metrics-server serves them, their Tables, selectors, and metrics-server's not-found errors."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from cluster.apiserver import service as api
from cluster.kubeapi import discovery
from k8s import clock

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]

ACTOR = api.Actor(client="kubelet", detail="test", node="node1")
METRICS = "/clusters/demo/apis/metrics.k8s.io/v1beta1"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


@pytest.fixture
def running(cluster):
    """A Ready node and a pod of nginx that started an hour ago; the clock in the present."""
    capacity = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    api.create(
        cluster,
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1"}},
            "status": {
                "capacity": capacity,
                "allocatable": capacity,
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        },
        ACTOR,
    )
    started = (clock.now() - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    for name in ("web", "idle"):
        api.create(
            cluster,
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "labels": {"app": name}},
                "spec": {"nodeName": "node1", "containers": [{"name": "nginx", "image": "nginx:1.25"}]},
            },
            ACTOR,
        )
        pod = api.get(cluster, "Pod", "default", name)
        pod["status"] = {
            "phase": "Running",
            "containerStatuses": [{"name": "nginx", "state": {"running": {"startedAt": started}}}],
        }
        api.update(cluster, pod, ACTOR, subresource="status")
    return cluster


def test_discovery_lists_the_metrics_api_as_metrics_server_registers_it():
    groups = discovery.api_group_list()["groups"]
    entry = next(g for g in groups if g["name"] == "metrics.k8s.io")
    assert entry["preferredVersion"] == {"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"}
    aggregated = discovery.aggregated(core=False)["items"]
    assert any(g["metadata"]["name"] == "metrics.k8s.io" for g in aggregated)
    listing = discovery.api_resource_list("metrics.k8s.io", "v1beta1")
    assert [(r["name"], r["kind"], r["namespaced"], r["verbs"]) for r in listing["resources"]] == [
        ("nodes", "NodeMetrics", False, ["get", "list"]),
        ("pods", "PodMetrics", True, ["get", "list"]),
    ]


def test_node_and_pod_metrics(client, running):
    nodes = client.get(f"{METRICS}/nodes").json()
    assert nodes["kind"] == "NodeMetricsList" and nodes["apiVersion"] == "metrics.k8s.io/v1beta1"
    (node,) = nodes["items"]
    assert node["metadata"]["name"] == "node1" and node["window"] == "15s"
    assert node["usage"]["cpu"].endswith("n") and node["usage"]["memory"].endswith("Ki")
    pods = client.get(f"{METRICS}/namespaces/default/pods").json()
    assert [p["metadata"]["name"] for p in pods["items"]] == ["idle", "web"]
    web = client.get(f"{METRICS}/namespaces/default/pods/web").json()
    assert web["kind"] == "PodMetrics" and web["metadata"]["namespace"] == "default"
    assert [c["name"] for c in web["containers"]] == ["nginx"]
    assert client.get(f"{METRICS}/pods").json()["items"] == pods["items"]


def test_selectors(client, running):
    chosen = client.get(f"{METRICS}/namespaces/default/pods", {"labelSelector": "app=web"}).json()
    assert [p["metadata"]["name"] for p in chosen["items"]] == ["web"]
    named = client.get(f"{METRICS}/pods", {"fieldSelector": "metadata.name=idle"}).json()
    assert [p["metadata"]["name"] for p in named["items"]] == ["idle"]
    bad = client.get(f"{METRICS}/pods", {"fieldSelector": "spec.nodeName=node1"})
    assert bad.status_code == 400


def test_tables_as_metrics_server_converts_them(client, running):
    table = client.get(f"{METRICS}/nodes", headers={"Accept": TABLE}).json()
    assert table["kind"] == "Table"
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "cpu", "memory", "Window"]
    assert table["rows"][0]["cells"][0] == "node1" and table["rows"][0]["cells"][3] == "15s"


def test_not_found_in_metrics_servers_words(client, running):
    missing = client.get(f"{METRICS}/namespaces/default/pods/nope")
    assert missing.status_code == 404 and missing.json()["message"] == 'pods "nope" not found'
    api.create(
        running,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "pending"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        },
        ACTOR,
    )
    none_yet = client.get(f"{METRICS}/namespaces/default/pods/pending")
    assert none_yet.status_code == 404
    assert none_yet.json()["message"] == 'podmetrics.metrics.k8s.io "default/pending" not found'
    assert client.get(f"{METRICS}/nodes/node9").json()["message"] == 'nodes "node9" not found'


def test_only_get_and_list(client, running):
    assert client.post(f"{METRICS}/nodes", "{}", content_type="application/json").status_code == 405
    assert client.get(f"{METRICS}/nodes", {"watch": "1"}).status_code == 405
    assert client.get(f"{METRICS}/namespaces/default/nodes").status_code == 404


def test_anonymous_callers_read_them_as_they_read_pods(running):
    assert Client().get(f"{METRICS}/namespaces/default/pods").status_code == 200
