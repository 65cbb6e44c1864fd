"""Updates, patches, deletes, binding and scale: optimistic concurrency and one revision per write."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.models import ApiObject, Label, WatchEvent
from tests.apiserver.conftest import pod
from tests.apiserver.test_defaults import rc

MERGE = "application/merge-patch+json"


def test_stale_resource_version_gets_conflict_and_no_lost_update(cluster, actor):
    api.create(cluster, pod(), actor)
    first = api.get(cluster, "Pod", "default", "web")
    second = api.get(cluster, "Pod", "default", "web")
    first["metadata"]["labels"] = {"who": "first"}
    api.update(cluster, first, actor)
    second["metadata"]["labels"] = {"who": "second"}
    with pytest.raises(api.ApiError) as caught:
        api.update(cluster, second, actor)
    err = caught.value
    assert (err.code, err.reason) == (409, "Conflict")
    assert err.message == (
        'Operation cannot be fulfilled on pods "web": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    assert err.details == {"name": "web", "kind": "pods"}
    assert api.get(cluster, "Pod", "default", "web")["metadata"]["labels"] == {"who": "first"}


def test_create_of_existing_name_is_already_exists(cluster, actor):
    api.create(cluster, pod(), actor)
    with pytest.raises(api.ApiError) as caught:
        api.create(cluster, pod(), actor)
    assert (caught.value.code, caught.value.reason) == (409, "AlreadyExists")
    assert caught.value.message == 'pods "web" already exists'
    assert cluster.revision == 1


def test_unknown_object_is_not_found_with_details(cluster, actor):
    with pytest.raises(api.ApiError) as caught:
        api.get(cluster, "Pod", "default", "nope")
    assert caught.value.status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'pods "nope" not found',
        "reason": "NotFound",
        "code": 404,
        "details": {"name": "nope", "kind": "pods"},
    }
    with pytest.raises(api.ApiError) as caught:
        api.delete(cluster, "Deployment", "default", "nope", actor)
    assert caught.value.message == 'deployments.apps "nope" not found'


def test_each_write_is_one_revision_and_one_log_entry(cluster, actor):
    api.create(cluster, pod(metadata={"labels": {"app": "web"}}), actor)
    api.patch(cluster, "Pod", "default", "web", {"metadata": {"labels": {"tier": "1"}}}, MERGE, actor)
    api.delete(cluster, "Pod", "default", "web", actor)
    events = list(WatchEvent.objects.filter(cluster=cluster).values_list("revision", "type", "kind"))
    assert events == [(1, "ADDED", "Pod"), (2, "MODIFIED", "Pod"), (3, "DELETED", "Pod")]
    last = WatchEvent.objects.get(cluster=cluster, revision=3).object
    assert last["metadata"]["resourceVersion"] == "3"
    cluster.refresh_from_db()
    assert cluster.revision == 3


def test_update_that_changes_nothing_writes_nothing(cluster, actor):
    created = api.create(cluster, pod(), actor)
    same = api.update(cluster, created, actor)
    assert same["metadata"]["resourceVersion"] == "1"
    assert WatchEvent.objects.filter(cluster=cluster).count() == 1


def test_merge_patch_adds_and_removes_labels_and_label_rows(cluster, actor):
    api.create(cluster, pod(metadata={"labels": {"app": "web", "old": "x"}}), actor)
    patched = api.patch(
        cluster, "Pod", "default", "web", b'{"metadata":{"labels":{"old":null,"zz":"cxk"}}}', MERGE, actor
    )
    assert patched["metadata"]["labels"] == {"app": "web", "zz": "cxk"}
    rows = dict(Label.objects.filter(obj__name="web").values_list("key", "value"))
    assert rows == {"app": "web", "zz": "cxk"}


def test_patch_with_stale_resource_version_conflicts(cluster, actor):
    api.create(cluster, pod(), actor)
    api.patch(cluster, "Pod", "default", "web", {"metadata": {"labels": {"a": "1"}}}, MERGE, actor)
    body = {"metadata": {"resourceVersion": "1", "labels": {"a": "2"}}}
    with pytest.raises(api.ApiError) as caught:
        api.patch(cluster, "Pod", "default", "web", body, MERGE, actor)
    assert caught.value.code == 409


def test_malformed_patch_is_a_bad_request(cluster, actor):
    api.create(cluster, pod(), actor)
    with pytest.raises(api.ApiError) as caught:
        api.patch(cluster, "Pod", "default", "web", b'{"metadata": ', MERGE, actor)
    assert caught.value.code == 400
    assert "line 1" in caught.value.message


def test_put_keeps_status_and_status_subresource_keeps_spec(cluster, actor):
    api.create(cluster, pod(), actor)
    obj = api.get(cluster, "Pod", "default", "web")
    obj["status"] = {"phase": "Running"}
    obj["metadata"]["labels"] = {"x": "y"}
    assert api.update(cluster, obj, actor)["status"]["phase"] == "Pending"
    obj = api.get(cluster, "Pod", "default", "web")
    obj["status"]["phase"] = "Running"
    obj["metadata"]["labels"] = {"x": "changed"}
    result = api.update(cluster, obj, actor, subresource="status")
    assert result["status"]["phase"] == "Running"
    assert result["metadata"]["labels"] == {"x": "y"}
    assert ApiObject.objects.get(name="web").phase == "Running"


def test_bind_sets_node_once(cluster, actor):
    api.create(cluster, pod(), actor)
    bound = api.bind(cluster, "default", "web", "node1", actor)
    assert bound["spec"]["nodeName"] == "node1"
    assert bound["status"]["conditions"][0]["type"] == "PodScheduled"
    assert ApiObject.objects.get(name="web").node_name == "node1"
    with pytest.raises(api.ApiError) as caught:
        api.bind(cluster, "default", "web", "node2", actor)
    assert caught.value.message == (
        'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node1"'
    )


def test_scale_returns_a_scale_and_refuses_negative(cluster, actor):
    api.create(cluster, rc(), actor)
    scale = api.scale(cluster, "ReplicationController", "default", "rc", 5, actor)
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 5}
    assert scale["status"]["selector"] == "app=rc"
    with pytest.raises(api.ApiError) as caught:
        api.scale(cluster, "ReplicationController", "default", "rc", -1, actor)
    assert caught.value.message == (
        'Scale.autoscaling "rc" is invalid: spec.replicas: Invalid value: -1: '
        "must be greater than or equal to 0"
    )


def test_delete_returns_the_object_and_removes_dependents(cluster, actor):
    owner = api.create(cluster, rc(), actor)
    ref = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "name": "rc",
        "uid": owner["metadata"]["uid"],
        "controller": True,
    }
    api.create(cluster, pod("rc-1", metadata={"ownerReferences": [ref]}), actor)
    api.create(cluster, pod("lonely"), actor)
    deleted = api.delete(cluster, "ReplicationController", "default", "rc", actor)
    assert deleted["metadata"]["name"] == "rc"
    assert sorted(ApiObject.objects.values_list("name", flat=True)) == ["lonely"]


def test_orphan_delete_keeps_dependents_without_owner(cluster, actor):
    owner = api.create(cluster, rc(), actor)
    ref = {"apiVersion": "v1", "kind": "ReplicationController", "name": "rc", "uid": owner["metadata"]["uid"]}
    api.create(cluster, pod("rc-1", metadata={"ownerReferences": [ref]}), actor)
    api.delete(cluster, "ReplicationController", "default", "rc", actor, propagation="Orphan")
    orphan = api.get(cluster, "Pod", "default", "rc-1")
    assert "ownerReferences" not in orphan["metadata"]


def test_admission_can_refuse_a_write_and_nothing_is_stored(cluster, actor):
    from cluster.apiserver.admission import chain

    def quota(cluster_, verb, kind, body, actor_):
        if kind == "Pod" and verb == "create":
            raise api.ApiError(403, "Forbidden", 'pods "web" is forbidden: exceeded quota: pods=0')

    chain.register(quota)
    try:
        with pytest.raises(api.ApiError) as caught:
            api.create(cluster, pod(), actor)
    finally:
        chain.unregister(quota)
    assert caught.value.code == 403
    assert not ApiObject.objects.exists() and not WatchEvent.objects.exists()


def test_a_deleted_namespace_is_terminating_and_keeps_its_objects_for_its_controller(cluster, actor):
    api.create(cluster, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "lab"}}, actor)
    api.create(cluster, pod("a", metadata={"namespace": "lab"}), actor)
    api.create(cluster, pod("b"), actor)
    marked = api.delete(cluster, "Namespace", None, "lab", actor)
    assert marked["status"]["phase"] == "Terminating" and marked["metadata"]["deletionTimestamp"]
    assert "deletionGracePeriodSeconds" not in marked["metadata"]
    assert sorted(ApiObject.objects.values_list("namespace", "name")) == [
        ("", "lab"),
        ("default", "b"),
        ("lab", "a"),
    ]


def test_builtin_namespaces_cannot_be_created_or_deleted(cluster, actor):
    with pytest.raises(api.ApiError) as caught:
        api.create(cluster, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}, actor)
    assert caught.value.message == 'namespaces "default" already exists'
    with pytest.raises(api.ApiError) as caught:
        api.delete(cluster, "Namespace", None, "kube-system", actor)
    assert caught.value.code == 403
    assert caught.value.message == 'namespaces "kube-system" is forbidden: this namespace may not be deleted'
