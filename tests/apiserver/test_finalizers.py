"""metadata.finalizers as kube-apiserver honours them: a delete marks, the last removal removes."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.controllers.garbage_collector import GarbageCollector
from cluster.models import ApiObject
from tests.apiserver.conftest import pod

MERGE = "application/merge-patch+json"


def config_map(name: str = "cfg", finalizers=("example.com/hold",), **meta) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "finalizers": list(finalizers), **meta},
        "data": {"a": "1"},
    }


def test_a_delete_marks_an_object_with_finalizers_and_keeps_it(cluster, actor):
    api.create(cluster, config_map(), actor)
    marked = api.delete(cluster, "ConfigMap", "default", "cfg", actor)
    assert marked["metadata"]["deletionTimestamp"]
    assert marked["metadata"]["deletionGracePeriodSeconds"] == 0
    stored = api.get(cluster, "ConfigMap", "default", "cfg")
    assert stored["metadata"]["finalizers"] == ["example.com/hold"]
    revision = cluster.revision
    again = api.delete(cluster, "ConfigMap", "default", "cfg", actor)  # nothing more to do
    assert again["metadata"]["deletionTimestamp"] == marked["metadata"]["deletionTimestamp"]
    assert cluster.revision == revision


def test_the_patch_removing_the_last_finalizer_removes_the_object_with_one_deleted_event(cluster, actor):
    api.create(cluster, config_map(finalizers=("a.io/x", "b.io/y")), actor)
    api.delete(cluster, "ConfigMap", "default", "cfg", actor)
    api.patch(cluster, "ConfigMap", "default", "cfg", {"metadata": {"finalizers": ["b.io/y"]}}, MERGE, actor)
    assert api.get(cluster, "ConfigMap", "default", "cfg")["metadata"]["finalizers"] == ["b.io/y"]
    since = cluster.revision
    api.patch(cluster, "ConfigMap", "default", "cfg", {"metadata": {"finalizers": None}}, MERGE, actor)
    assert [(e.type, e.name) for e in api.events_since(cluster, since)] == [("DELETED", "cfg")]
    assert not ApiObject.objects.filter(kind="ConfigMap").exists()


def test_no_new_finalizer_once_deleting_in_upstreams_words(cluster, actor):
    api.create(cluster, config_map(), actor)
    api.delete(cluster, "ConfigMap", "default", "cfg", actor)
    body = {"metadata": {"finalizers": ["example.com/hold", "z.io/b", "a.io/c"]}}
    with pytest.raises(api.ApiError) as caught:
        api.patch(cluster, "ConfigMap", "default", "cfg", body, MERGE, actor)
    assert caught.value.code == 422
    assert caught.value.message == (
        'ConfigMap "cfg" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the '
        'object is being deleted, found new finalizers []string{"a.io/c", "z.io/b"}'
    )
    assert api.get(cluster, "ConfigMap", "default", "cfg")["metadata"]["finalizers"] == ["example.com/hold"]


def test_a_finalizer_may_be_added_before_the_deletion(cluster, actor):
    api.create(cluster, config_map(finalizers=()), actor)
    body = {"metadata": {"finalizers": ["example.com/hold"]}}
    api.patch(cluster, "ConfigMap", "default", "cfg", body, MERGE, actor)
    api.delete(cluster, "ConfigMap", "default", "cfg", actor)
    assert api.get(cluster, "ConfigMap", "default", "cfg")["metadata"]["deletionTimestamp"]


def test_a_pod_on_a_node_with_a_finalizer_outlives_its_kubelets_final_delete(cluster, actor):
    api.create(cluster, pod(metadata={"finalizers": ["example.com/hold"]}), actor)
    api.bind(cluster, "default", "web", "node1", actor)
    marked = api.delete(cluster, "Pod", "default", "web", actor)
    assert marked["metadata"]["deletionGracePeriodSeconds"] == 30
    # its grace period still runs: removing the finalizer leaves it to its kubelet
    api.patch(cluster, "Pod", "default", "web", {"metadata": {"finalizers": None}}, MERGE, actor)
    assert api.get(cluster, "Pod", "default", "web")["metadata"]["deletionTimestamp"]
    api.delete(cluster, "Pod", "default", "web", actor, grace_period=0)
    assert not ApiObject.objects.filter(kind="Pod").exists()


def test_the_kubelets_final_delete_keeps_a_pod_whose_finalizer_stays(cluster, actor):
    api.create(cluster, pod(metadata={"finalizers": ["example.com/hold"]}), actor)
    api.bind(cluster, "default", "web", "node1", actor)
    api.delete(cluster, "Pod", "default", "web", actor)
    kept = api.delete(cluster, "Pod", "default", "web", actor, grace_period=0)
    assert kept["metadata"]["deletionGracePeriodSeconds"] == 0
    api.patch(cluster, "Pod", "default", "web", {"metadata": {"finalizers": None}}, MERGE, actor)
    assert not ApiObject.objects.filter(kind="Pod").exists()


def rc_with_pod(cluster, actor, finalizers=()) -> dict:
    rc = api.create(
        cluster,
        {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": "rc", "finalizers": list(finalizers)},
            "spec": {
                "replicas": 1,
                "selector": {"app": "a"},
                "template": {"metadata": {"labels": {"app": "a"}}, "spec": pod()["spec"]},
            },
        },
        actor,
    )
    ref = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "name": "rc",
        "uid": rc["metadata"]["uid"],
        "controller": True,
    }
    api.create(cluster, pod("rc-1", metadata={"ownerReferences": [ref], "labels": {"app": "a"}}), actor)
    return rc


def test_an_owner_kept_by_finalizers_keeps_its_dependents_until_it_goes(cluster, actor):
    rc_with_pod(cluster, actor, ["example.com/hold"])
    api.delete(cluster, "ReplicationController", "default", "rc", actor)
    assert api.get(cluster, "Pod", "default", "rc-1")
    api.patch(
        cluster, "ReplicationController", "default", "rc", {"metadata": {"finalizers": None}}, MERGE, actor
    )
    assert not ApiObject.objects.exists()


def test_foreground_keeps_the_owner_with_its_finalizer_until_a_terminating_dependent_is_gone(cluster, actor):
    rc_with_pod(cluster, actor)
    api.bind(cluster, "default", "rc-1", "node1", actor)
    owner = api.delete(cluster, "ReplicationController", "default", "rc", actor, propagation="Foreground")
    assert owner["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert owner["metadata"]["deletionTimestamp"]
    assert api.get(cluster, "Pod", "default", "rc-1")["metadata"]["deletionTimestamp"]
    GarbageCollector("demo").sweep()
    assert api.get(cluster, "ReplicationController", "default", "rc")  # its pod still terminates
    api.delete(cluster, "Pod", "default", "rc-1", actor, grace_period=0)  # the kubelet's last word
    assert GarbageCollector("demo").sweep() == 1
    assert not ApiObject.objects.exists()
