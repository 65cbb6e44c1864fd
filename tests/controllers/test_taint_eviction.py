"""The taint eviction controller: NoExecute taints evict the pods that do not tolerate them, after
their tolerationSeconds on the cluster's clock, with upstream's Events and condition."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.controllers.tainteviction import matching_tolerations, min_toleration_seconds
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)
MERGE = "application/merge-patch+json"
EVICT = {"key": "evict", "value": "now", "effect": "NoExecute"}


def pod_on(demo, name: str, node: str, tolerations: list[dict] | None = None) -> dict:
    spec = {"nodeName": node, "containers": [{"name": "c", "image": "nginx:1.27"}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}
    return api.create(demo, body, KUBECTL)


def taint(demo, node: str, taints: list[dict]) -> None:
    api.patch(demo, "Node", None, node, {"spec": {"taints": taints}}, MERGE, KUBECTL)


def gone_or_deleting(demo, name: str) -> bool:
    try:
        return bool(api.get(demo, "Pod", "default", name)["metadata"].get("deletionTimestamp"))
    except ApiError:
        return True


def eviction_events(demo) -> list[tuple[str, str, str]]:
    items, _ = api.list_objects(demo, "Event", "default")
    return sorted(
        (e["involvedObject"]["name"], e["message"], e["source"]["component"])
        for e in items
        if e["reason"] == "TaintManagerEviction"
    )


def test_a_no_execute_taint_evicts_the_pods_that_do_not_tolerate_it(demo):
    pod_on(demo, "plain", "node2")
    pod_on(demo, "tolerant", "node2", [{"key": "evict", "operator": "Exists", "effect": "NoExecute"}])
    pod_on(demo, "elsewhere", "node1")
    drive()
    taint(demo, "node2", [EVICT])
    drive()
    assert gone_or_deleting(demo, "plain")
    assert not gone_or_deleting(demo, "tolerant") and not gone_or_deleting(demo, "elsewhere")
    assert eviction_events(demo) == [
        ("plain", "Marking for deletion Pod default/plain", "taint-eviction-controller")
    ]
    items, _ = api.list_objects(demo, "Event", "default")
    (event,) = [e for e in items if e["reason"] == "TaintManagerEviction"]
    assert event["involvedObject"] == {
        "kind": "Pod",
        "namespace": "default",
        "name": "plain",
        "apiVersion": "v1",
    }


def test_the_disruption_target_condition_is_written_before_the_graceful_deletion(demo):
    pod_on(demo, "plain", "node2")
    drive()
    taint(demo, "node2", [EVICT])
    drive()
    revisions = api.events_since(demo, 0)
    writes = [
        (e.type, (e.object.get("status") or {}).get("conditions")) for e in revisions if e.kind == "Pod"
    ]
    marked = [c for _, conditions in writes for c in conditions or [] if c.get("type") == "DisruptionTarget"]
    assert marked and marked[0]["reason"] == "DeletionByTaintManager"
    assert marked[0]["message"] == "Taint manager: deleting due to NoExecute taint"


def test_toleration_seconds_delay_the_eviction_on_the_clusters_clock(demo, fake_clock):
    toleration = {"key": "evict", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
    pod_on(demo, "patient", "node2", [toleration])
    drive()
    taint(demo, "node2", [EVICT])
    drive()
    assert not gone_or_deleting(demo, "patient")
    fake_clock.advance(59)
    drive()
    assert not gone_or_deleting(demo, "patient")
    fake_clock.advance(2)
    drive()
    assert gone_or_deleting(demo, "patient")
    assert eviction_events(demo) == [
        ("patient", "Marking for deletion Pod default/patient", "taint-eviction-controller")
    ]


def test_removing_the_taint_in_time_cancels_the_eviction(demo, fake_clock):
    toleration = {"key": "evict", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
    pod_on(demo, "patient", "node2", [toleration])
    drive()
    taint(demo, "node2", [EVICT])
    drive()
    fake_clock.advance(30)
    taint(demo, "node2", [])
    drive()
    fake_clock.advance(60)
    drive()
    assert not gone_or_deleting(demo, "patient")
    assert eviction_events(demo) == [
        ("patient", "Cancelling deletion of Pod default/patient", "taint-eviction-controller")
    ]


def test_a_replication_controller_replaces_its_evicted_pods_on_another_node(demo):
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 4,
            "selector": {"app": "web"},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
            },
        },
    }
    api.create(demo, rc, KUBECTL)
    drive()
    taint(demo, "node2", [EVICT])
    drive()
    pods, _ = api.list_objects(demo, "Pod", "default", label_selector="app=web")
    live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
    assert len(live) == 4 and {p["spec"]["nodeName"] for p in live} == {"node1"}


# getMinTolerationTime and GetMatchingTolerations, as upstream's tables have them.
@pytest.mark.parametrize(
    ("tolerations", "expected"),
    [
        ([], 0),
        ([{"key": "a", "tolerationSeconds": 10}], 10),
        ([{"key": "a", "tolerationSeconds": 10}, {"key": "b", "tolerationSeconds": 5}], 5),
        ([{"key": "a"}], -1),
        ([{"key": "a"}, {"key": "b", "tolerationSeconds": 7}], 7),
        ([{"key": "a", "tolerationSeconds": -3}, {"key": "b", "tolerationSeconds": 7}], 0),
    ],
)
def test_min_toleration_time(tolerations, expected):
    assert min_toleration_seconds(tolerations) == expected


def test_matching_tolerations_need_every_taint_tolerated():
    taints = [{"key": "a", "effect": "NoExecute"}, {"key": "b", "value": "1", "effect": "NoExecute"}]
    only_a = [{"key": "a", "operator": "Exists"}]
    both = [*only_a, {"key": "b", "operator": "Equal", "value": "1", "effect": "NoExecute"}]
    assert matching_tolerations(taints, only_a) == (False, [])
    assert matching_tolerations(taints, both) == (True, both)
    assert matching_tolerations([], []) == (True, [])
