"""The garbage collector and the one definition of how deletion cascades (cluster.apiserver.cascade)."""

from __future__ import annotations

import pytest

from bench.hostile.bodies import valid
from cluster.apiserver import service as api
from cluster.controllers.garbage_collector import GarbageCollector
from cluster.models import FlowTrace
from tests.support.demo import KUBECTL

pytestmark = pytest.mark.django_db(transaction=True)


def owned_pod(name: str, *owners: dict, controller: bool = True) -> dict:
    pod = valid("Pod", name)
    pod["metadata"]["ownerReferences"] = [
        {
            "apiVersion": owner["apiVersion"],
            "kind": owner["kind"],
            "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"],
            "controller": controller and i == 0,
        }
        for i, owner in enumerate(owners)
    ]
    return pod


def gone_owner(uid: str = "00000000-0000-0000-0000-000000000000") -> dict:
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "gone", "uid": uid}}


def names(cluster, kind: str = "Pod") -> list[str]:
    return [obj["metadata"]["name"] for obj in api.list_objects(cluster, kind, "default")[0]]


def deleted_order(cluster, since: int) -> list[tuple[str, str]]:
    return [(e.kind, e.name) for e in api.events_since(cluster, since) if e.type == "DELETED"]


def test_background_deletes_the_owner_first_foreground_its_dependents_first(demo):
    for policy, first in (("Background", "ReplicationController"), ("Foreground", "Pod")):
        rc = api.create(demo, valid("ReplicationController", "rc"), KUBECTL)
        api.create(demo, owned_pod("p1", rc), KUBECTL)
        api.create(demo, owned_pod("p2", rc), KUBECTL)
        since = demo.revision
        api.delete(demo, "ReplicationController", "default", "rc", KUBECTL, propagation=policy)
        order = deleted_order(demo, since)
        assert len(order) == 3 and order[0][0] == first, (policy, order)
        assert names(demo) == []


def test_orphan_keeps_the_dependents_without_the_reference(demo):
    rc = api.create(demo, valid("ReplicationController", "rc"), KUBECTL)
    other = api.create(demo, valid("ReplicationController", "other"), KUBECTL)
    api.create(demo, owned_pod("p1", rc, other), KUBECTL)
    api.delete(demo, "ReplicationController", "default", "rc", KUBECTL, propagation="Orphan")
    (ref,) = api.get(demo, "Pod", "default", "p1")["metadata"]["ownerReferences"]
    assert ref["uid"] == other["metadata"]["uid"]


def test_the_collector_deletes_dependents_whose_owner_is_gone_and_their_own_dependents(demo):
    rs = valid("ReplicaSet", "rs")
    rs["metadata"]["ownerReferences"] = owned_pod("x", gone_owner())["metadata"]["ownerReferences"]
    rs = api.create(demo, rs, KUBECTL)  # as a Deployment controller racing its owner's deletion
    api.create(demo, owned_pod("of-rs", rs), KUBECTL)
    api.create(demo, owned_pod("dangling", gone_owner()), KUBECTL)
    api.create(demo, valid("Pod", "bare"), KUBECTL)
    assert GarbageCollector("demo").sweep() == 2
    assert names(demo) == ["bare"] and names(demo, "ReplicaSet") == []


def test_a_dependent_with_another_live_owner_is_kept_without_the_dangling_reference(demo):
    alive = api.create(demo, valid("ReplicationController", "alive"), KUBECTL)
    api.create(demo, owned_pod("shared", gone_owner(), alive), KUBECTL)
    assert GarbageCollector("demo").sweep() == 1
    (ref,) = api.get(demo, "Pod", "default", "shared")["metadata"]["ownerReferences"]
    assert ref["uid"] == alive["metadata"]["uid"]
    assert GarbageCollector("demo").sweep() == 0  # nothing left to judge


def test_start_up_heal_ends_traces_of_objects_that_are_gone(demo):
    api.create(demo, valid("ReplicationController", "kept"), KUBECTL)
    api.create(demo, valid("ReplicationController", "removed"), KUBECTL)
    running = {t.name: t for t in FlowTrace.objects.filter(cluster=demo, finished_at=None)}
    assert {"kept", "removed"} <= set(running)
    api.delete(demo, "ReplicationController", "default", "removed", KUBECTL)
    GarbageCollector("demo").heal()
    assert FlowTrace.objects.get(pk=running["removed"].pk).finished_at is not None
    assert FlowTrace.objects.get(pk=running["kept"].pk).finished_at is None


def test_a_controller_creates_nothing_for_an_owner_deleted_under_it(demo):
    from asgiref.sync import async_to_sync

    from cluster.client import event_recorder
    from cluster.controlplane import runtime

    rc = valid("ReplicationController", "rc")
    rc["spec"]["replicas"] = 5
    stale = api.create(demo, rc, KUBECTL)
    plane = runtime.ControlPlane("demo")
    manager = plane.controller_manager
    async_to_sync(manager.step)()  # lists; the RC's creation starts on a copy that goes stale
    api.delete(demo, "ReplicationController", "default", "rc", KUBECTL)
    assert manager.controllers["ReplicationController"]._create_batch(stale, None, 5) == 0
    assert names(demo) == []
    event_recorder.flush("demo")  # the Events its first pass queued belong to this test's cluster
