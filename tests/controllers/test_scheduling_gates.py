"""Pod scheduling readiness (spec.schedulingGates), as kube-apiserver and kube-scheduler do it: a
gated pod says SchedulingGated, is never tried (no FailedScheduling), its gates may only be
removed, its nodeSelector may only grow, and it is scheduled once its last gate is gone."""

from __future__ import annotations

import pytest

from bench.hostile.bodies import valid
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.client import counters
from cluster.kubeapi.podstatus import status_text
from scheduler.models import SchedulingAttempt
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)
MERGE = "application/merge-patch+json"
GATES = [{"name": "example.com/quota"}, {"name": "example.com/arch"}]


def gated(name: str = "gated") -> dict:
    pod = valid("Pod", name)
    pod["spec"]["schedulingGates"] = [dict(g) for g in GATES]
    return pod


def scheduled_condition(pod: dict) -> dict:
    return next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")


def events_for(cluster, name: str) -> list[str]:
    events, _ = api.list_objects(cluster, "Event", "default")
    return [e["reason"] for e in events if e["involvedObject"]["name"] == name]


def test_a_gated_pod_says_so_and_is_never_tried(demo):
    drive()
    created = api.create(demo, gated(), KUBECTL)
    condition = scheduled_condition(created)
    assert {k: condition[k] for k in ("status", "reason", "message")} == {
        "status": "False",
        "reason": "SchedulingGated",
        "message": "Scheduling is blocked due to non-empty scheduling gates",
    }
    drive()
    pod = api.get(demo, "Pod", "default", "gated")
    assert not pod["spec"].get("nodeName")
    assert status_text(pod) == "SchedulingGated"
    assert "FailedScheduling" not in events_for(demo, "gated")
    assert not SchedulingAttempt.objects.filter(cluster=demo, pod="gated").exists()
    gauge = dict((labels["queue"], value) for labels, value in counters.of("demo")[counters.PENDING_PODS])
    assert gauge["gated"] == 1 and gauge["active"] == 0


def test_gates_may_only_be_removed_and_the_last_removal_lets_it_be_scheduled(demo):
    drive()
    api.create(demo, gated(), KUBECTL)
    drive()
    with pytest.raises(ApiError) as refused:
        api.patch(
            demo,
            "Pod",
            "default",
            "gated",
            {"spec": {"schedulingGates": [*GATES, {"name": "x"}]}},
            MERGE,
            KUBECTL,
        )
    assert refused.value.code == 422
    assert (
        "spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'x'"
        in refused.value.message
    )
    api.patch(demo, "Pod", "default", "gated", {"spec": {"schedulingGates": GATES[:1]}}, MERGE, KUBECTL)
    drive()
    assert not api.get(demo, "Pod", "default", "gated")["spec"].get("nodeName"), (
        "one gate left: still waiting"
    )
    api.patch(demo, "Pod", "default", "gated", {"spec": {"schedulingGates": None}}, MERGE, KUBECTL)
    drive()
    assert api.get(demo, "Pod", "default", "gated")["spec"].get("nodeName")


def test_a_gated_pods_node_selector_may_grow_but_not_change(demo):
    pod = gated()
    pod["spec"]["nodeSelector"] = {"disk": "ssd"}
    api.create(demo, pod, KUBECTL)
    grown = {"spec": {"nodeSelector": {"disk": "ssd", "zone": "a"}}}
    assert (
        api.patch(demo, "Pod", "default", "gated", grown, MERGE, KUBECTL)["spec"]["nodeSelector"]["zone"]
        == "a"
    )
    with pytest.raises(ApiError) as refused:
        api.patch(
            demo, "Pod", "default", "gated", {"spec": {"nodeSelector": {"disk": "hdd"}}}, MERGE, KUBECTL
        )
    assert (
        "only additions to spec.nodeSelector are allowed (no mutations or deletions)" in refused.value.message
    )
    api.patch(demo, "Pod", "default", "gated", {"spec": {"schedulingGates": None}}, MERGE, KUBECTL)
    with pytest.raises(ApiError) as ungated:  # no longer gated: the spec is fixed again
        api.patch(demo, "Pod", "default", "gated", {"spec": {"nodeSelector": {"more": "x"}}}, MERGE, KUBECTL)
    assert "pod updates may not change fields other than" in ungated.value.message


def test_gate_names_are_qualified_names_once_each_and_exclude_a_node_name(demo):
    twice = gated("twice")
    twice["spec"]["schedulingGates"] = [{"name": "a"}, {"name": "a"}, {"name": "not a name"}]
    with pytest.raises(ApiError) as refused:
        api.create(demo, twice, KUBECTL)
    assert 'spec.schedulingGates[1]: Duplicate value: "a"' in refused.value.message
    assert 'spec.schedulingGates[2]: Invalid value: "not a name"' in refused.value.message
    placed = gated("placed")
    placed["spec"]["nodeName"] = "node1"
    with pytest.raises(ApiError) as forbidden:
        api.create(demo, placed, KUBECTL)
    assert "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared" in (
        forbidden.value.message
    )
