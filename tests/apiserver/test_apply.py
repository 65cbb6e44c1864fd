"""apply_manifests: multi-document YAML, created/configured/unchanged, all or nothing."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.models import ApiObject, WatchEvent

THREE = """\
apiVersion: v1
kind: Pod
metadata:
  name: one
spec:
  containers:
  - name: c
    image: nginx:1.25
---
apiVersion: v1
kind: ReplicationController
metadata:
  name: two
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: two}
    spec:
      containers:
      - name: c
        image: nginx
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: three
spec:
  selector:
    matchLabels: {app: three}
  template:
    metadata:
      labels: {app: three}
    spec:
      containers:
      - name: c
        image: nginx
"""


def nothing_written(cluster) -> bool:
    cluster.refresh_from_db()
    return cluster.revision == 0 and not ApiObject.objects.exists() and not WatchEvent.objects.exists()


def test_creates_every_document(cluster, actor):
    result = api.apply_manifests(cluster, THREE, actor)
    assert [(o["kind"], o["name"], o["action"], o["line"]) for o in result["objects"]] == [
        ("Pod", "one", "created", 1),
        ("ReplicationController", "two", "created", 10),
        ("Deployment", "three", "created", 24),
    ]
    assert result["revision"] == 3


def test_second_apply_is_unchanged_then_configured(cluster, actor):
    api.apply_manifests(cluster, THREE, actor)
    again = api.apply_manifests(cluster, THREE, actor)
    assert [o["action"] for o in again["objects"]] == ["unchanged"] * 3
    changed = api.apply_manifests(cluster, THREE.replace("replicas: 2", "replicas: 4"), actor)
    assert [o["action"] for o in changed["objects"]] == ["unchanged", "configured", "unchanged"]
    assert api.get(cluster, "ReplicationController", "default", "two")["spec"]["replicas"] == 4


def test_fields_dropped_from_the_manifest_are_removed(cluster, actor):
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {a: '1', b: '2'}\n"
        "spec:\n  containers: [{name: c, image: nginx}]\n"
    )
    api.apply_manifests(cluster, text, actor)
    api.apply_manifests(cluster, text.replace(", b: '2'", ""), actor)
    assert api.get(cluster, "Pod", "default", "p")["metadata"]["labels"] == {"a": "1"}


def test_apply_keeps_fields_others_set(cluster, actor):
    api.apply_manifests(cluster, THREE, actor)
    api.bind(cluster, "default", "one", "node1", actor)
    result = api.apply_manifests(cluster, THREE.replace("name: one", "name: one\n  labels: {x: y}"), actor)
    assert result["objects"][0]["action"] == "configured"
    assert api.get(cluster, "Pod", "default", "one")["spec"]["nodeName"] == "node1"


def test_invalid_third_document_creates_nothing(cluster, actor):
    bad = THREE.replace("        image: nginx\n", "        image: ''\n").replace("name: three", "name: Three")
    with pytest.raises(api.ApiError) as caught:
        api.apply_manifests(cluster, bad, actor)
    assert nothing_written(cluster)
    errors = caught.value.details["errors"]
    # The RC (document 2) and the Deployment (document 3) both lost their image.
    assert [(e["document"], e["field"], e["line"]) for e in errors] == [
        (2, "spec.template.spec.containers[0].image", 22),
        (3, "metadata.name", 27),
        (3, "spec.template.spec.containers[0].image", 37),
    ]
    assert caught.value.code == 422


def test_invalid_only_third_document(cluster, actor):
    bad = THREE.replace("name: three", "name: Three")
    with pytest.raises(api.ApiError) as caught:
        api.apply_manifests(cluster, bad, actor)
    assert nothing_written(cluster)
    assert caught.value.message.startswith('document 3, line 27: metadata.name: Invalid value: "Three"')


def test_malformed_yaml_names_the_line(cluster, actor):
    with pytest.raises(api.ApiError) as caught:
        api.apply_manifests(cluster, "apiVersion: v1\nkind: Pod\nmetadata: {name: x\n", actor)
    assert caught.value.code == 400
    # The flow mapping opened on line 3 is still open when the text ends on line 4.
    assert caught.value.details["errors"][0]["line"] == 4
    assert "expected ',' or '}'" in caught.value.message
    assert nothing_written(cluster)


def test_alias_bomb_is_refused(cluster, actor):
    bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        bomb += f"{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
    with pytest.raises(api.ApiError) as caught:
        api.apply_manifests(cluster, bomb, actor)
    assert caught.value.code == 400
    assert "aliases" in caught.value.message
    assert nothing_written(cluster)


def test_unknown_kind_document_is_reported_with_its_line(cluster, actor):
    text = THREE + "---\napiVersion: v1\nkind: Gizmo\nmetadata:\n  name: g\n"
    with pytest.raises(api.ApiError) as caught:
        api.apply_manifests(cluster, text, actor)
    assert caught.value.details["errors"] == [
        {
            "index": 3,
            "document": 4,
            "kind": "Gizmo",
            "name": "g",
            "reason": "BadRequest",
            "code": 400,
            "line": 39,
            "field": "",
            "message": 'no matches for kind "Gizmo" in version "v1"',
        }
    ]
    assert nothing_written(cluster)


def test_v1_list_items_are_applied(cluster, actor):
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n"
        "  spec: {containers: [{name: c, image: nginx}]}\n"
        "- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n"
        "  spec: {containers: [{name: c, image: nginx}]}\n"
    )
    result = api.apply_manifests(cluster, text, actor)
    assert [(o["name"], o["line"]) for o in result["objects"]] == [("a", 4), ("b", 8)]


def test_last_applied_annotation_is_recorded(cluster, actor):
    api.apply_manifests(cluster, THREE, actor)
    annotations = api.get(cluster, "Pod", "default", "one")["metadata"]["annotations"]
    assert annotations["kubectl.kubernetes.io/last-applied-configuration"].startswith(
        '{"apiVersion":"v1","kind":"Pod"'
    )
