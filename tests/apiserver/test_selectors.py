"""labelSelector (equality and set-based) and fieldSelector on lists."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from tests.apiserver.conftest import pod


@pytest.fixture
def pods(cluster, actor):
    specs = {
        "a": {"app": "web", "tier": "front", "env": "prod"},
        "b": {"app": "web", "tier": "back"},
        "c": {"app": "db", "env": "dev"},
        "d": {},
    }
    for name, labels in specs.items():
        api.create(cluster, pod(name, metadata={"labels": labels}), actor)
    api.bind(cluster, "default", "a", "node1", actor)
    api.bind(cluster, "default", "c", "node2", actor)
    return cluster


def names(cluster, **kwargs) -> list[str]:
    return [item["metadata"]["name"] for item in api.list_objects(cluster, "Pod", **kwargs)[0]]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("", ["a", "b", "c", "d"]),
        ("app=web", ["a", "b"]),
        ("app==web", ["a", "b"]),
        ("app!=web", ["c", "d"]),
        ("app=web,tier!=back", ["a"]),
        ("env in (prod,dev)", ["a", "c"]),
        ("env notin (prod)", ["b", "c", "d"]),
        ("env", ["a", "c"]),
        ("!env", ["b", "d"]),
        ("app=web,env", ["a"]),
        ("app in (web, db),!tier", ["c"]),
        ("tier in (front,back),env notin (prod)", ["b"]),
        ("app=", []),
    ],
)
def test_label_selectors(pods, selector, expected):
    assert names(pods, label_selector=selector) == expected


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("metadata.name=b", ["b"]),
        ("metadata.name==b", ["b"]),
        ("metadata.name!=b", ["a", "c", "d"]),
        ("spec.nodeName=node1", ["a"]),
        ("spec.nodeName=", ["b", "d"]),
        ("spec.nodeName!=", ["a", "c"]),
        ("status.phase=Pending,spec.nodeName!=node2", ["a", "b", "d"]),
        ("metadata.namespace=default,spec.schedulerName=default-scheduler", ["a", "b", "c", "d"]),
    ],
)
def test_field_selectors(pods, selector, expected):
    assert names(pods, field_selector=selector) == expected


def test_selectors_combine(pods):
    assert names(pods, label_selector="app=web", field_selector="spec.nodeName=") == ["b"]


def test_namespace_narrows_and_cluster_wide_sees_all(pods, actor):
    api.create(pods, pod("k", metadata={"namespace": "kube-system", "labels": {"app": "web"}}), actor)
    assert names(pods, namespace="kube-system") == ["k"]
    assert names(pods, label_selector="app=web") == ["a", "b", "k"]


@pytest.mark.parametrize("selector", ["app in (", "a b", "=x", "app in ()", "bad key!=x", "app=(x"])
def test_invalid_label_selector_is_a_bad_request(pods, selector):
    with pytest.raises(api.ApiError) as caught:
        api.list_objects(pods, "Pod", label_selector=selector)
    assert caught.value.code == 400


@pytest.mark.parametrize("selector", ["spec.image=nginx", "nonsense", "spec.nodeName"])
def test_invalid_field_selector_is_a_bad_request(pods, selector):
    with pytest.raises(api.ApiError) as caught:
        api.list_objects(pods, "Pod", field_selector=selector)
    assert caught.value.code == 400


def test_event_involved_object_fields(cluster, actor):
    for i, (kind, name) in enumerate([("Pod", "web"), ("Node", "node1"), ("Pod", "db")]):
        api.create(
            cluster,
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": f"e{i}"},
                "involvedObject": {"kind": kind, "name": name, "namespace": "default"},
                "reason": "Scheduled",
                "type": "Normal",
                "source": {"component": "default-scheduler"},
            },
            actor,
        )
    found = api.list_objects(
        cluster, "Event", field_selector="involvedObject.kind=Pod,involvedObject.name=web"
    )[0]
    assert [e["metadata"]["name"] for e in found] == ["e0"]
    found = api.list_objects(
        cluster, "Event", field_selector="source=default-scheduler,involvedObject.kind!=Pod"
    )[0]
    assert [e["metadata"]["name"] for e in found] == ["e1"]
