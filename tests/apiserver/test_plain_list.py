"""A list without selectors is one plain statement (no ORM query building: lab checks and
informers list under a class), and gives the same items as the selector path, as the caller's own
copies."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cluster.apiserver import service as api
from cluster.models import Cluster

pytestmark = pytest.mark.django_db


def _pod(name: str, namespace: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def test_a_list_without_selectors_is_one_statement_and_matches_the_selector_path(actor):
    cluster = Cluster.objects.create(name="plain-list")
    api.create(cluster, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}, actor)
    for name, namespace in (("b", "default"), ("a", "team"), ("c", "default"), ("a", "default")):
        api.create(cluster, _pod(name, namespace), actor)

    with CaptureQueriesContext(connection) as queries:
        everywhere = api.list_items(cluster, "Pod")
    assert len(queries.captured_queries) == 1
    with CaptureQueriesContext(connection) as queries:
        in_default = api.list_items(cluster, "Pod", "default")
    assert len(queries.captured_queries) == 1

    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in everywhere] == [
        ("default", "a"),
        ("default", "b"),
        ("default", "c"),
        ("team", "a"),
    ]
    assert everywhere == api.list_items(cluster, "Pod", label_selector="app=web")
    assert in_default == api.list_items(cluster, "Pod", "default", label_selector="app=web")
    items, revision = api.list_objects(cluster, "Pod", "team")
    assert [p["metadata"]["name"] for p in items] == ["a"] and revision == cluster.revision

    everywhere[0]["metadata"]["name"] = "changed by the caller"
    assert api.list_items(cluster, "Pod")[0]["metadata"]["name"] == "a"


@pytest.mark.parametrize(
    "selector",
    [
        "app=web",
        "app in (web,db),tier!=front",
        "tier notin (front)",
        "tier,!gone",
        "app=web,version>1",  # Gt: matched in Python after the statement
    ],
)
def test_a_list_with_label_selectors_is_one_statement_and_matches_them_as_kubernetes_does(actor, selector):
    from cluster.apiserver.selectors import labels_match, parse_label_selector

    cluster = Cluster.objects.create(name="labelled-list")
    api.create(cluster, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}, actor)
    labels = [
        {"app": "web", "tier": "front", "version": "1"},
        {"app": "web", "tier": "back", "version": "2"},
        {"app": "db", "tier": "back"},
        {"app": "db", "gone": "yes", "tier": "x"},
        {"app": "web"},
    ]
    for i, pod_labels in enumerate(labels):
        pod = _pod(f"p{i}", "team" if i % 2 else "default")
        pod["metadata"]["labels"] = pod_labels
        api.create(cluster, pod, actor)

    with CaptureQueriesContext(connection) as queries:
        found = api.list_items(cluster, "Pod", label_selector=selector)
        in_team = api.list_items(cluster, "Pod", "team", label_selector=selector)
    assert len(queries.captured_queries) == 2
    requirements = parse_label_selector(selector)
    expected = [p for p in api.list_items(cluster, "Pod") if labels_match(requirements, p)]
    assert found == expected and found  # every selector here matches some pod
    assert in_team == [p for p in expected if p["metadata"]["namespace"] == "team"]
