"""A node whose kubelet stops: NotReady (Unknown) after the grace period, the unreachable taints,
its pods marked not ready and evicted after DefaultTolerationSeconds' 300 s, on the cluster's
clock; the kubelet started again makes it Ready and finishes what waited for it."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.controlplane.demo import reset_demo
from cluster.kubelet import power
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)

RC = {
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


def node(demo, name: str = "node2") -> dict:
    return api.get(demo, "Node", "", name)


def conditions(demo, name: str = "node2") -> dict[str, tuple[str, str, str]]:
    return {
        c["type"]: (c["status"], c["reason"], c["message"]) for c in node(demo, name)["status"]["conditions"]
    }


def taints(demo, name: str = "node2") -> list[tuple[str, str, bool]]:
    return [(t["key"], t["effect"], "timeAdded" in t) for t in node(demo, name)["spec"].get("taints") or []]


def web_pods(demo) -> list[dict]:
    return api.list_objects(demo, "Pod", "default", label_selector="app=web")[0]


def events(demo, reason: str) -> list[tuple[str, str, str, str]]:
    items = api.list_objects(demo, "Event", "default")[0] + api.list_objects(demo, "Event", "")[0]
    return sorted(
        {
            (e["involvedObject"]["kind"], e["type"], e["message"], e["source"]["component"])
            for e in items
            if e["reason"] == reason
        }
    )


@pytest.fixture
def failing(demo, fake_clock):
    api.create(demo, RC, KUBECTL)
    drive()
    on_node2 = [p["metadata"]["name"] for p in web_pods(demo) if p["spec"]["nodeName"] == "node2"]
    assert on_node2, "the RC spreads its pods over both workers"
    power.set_running(demo, "node2", False)
    drive()
    return demo, fake_clock, on_node2


def test_a_stopped_kubelet_leaves_the_node_ready_until_the_grace_period_ends(failing):
    demo, fake_clock, _ = failing
    fake_clock.advance(49)
    drive()
    assert conditions(demo)["Ready"][0] == "True" and taints(demo) == []
    fake_clock.advance(2)
    drive()
    unknown = ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
    assert conditions(demo) == {
        "MemoryPressure": unknown,
        "DiskPressure": unknown,
        "PIDPressure": unknown,
        "Ready": unknown,
    }
    assert taints(demo) == [
        ("node.kubernetes.io/unreachable", "NoExecute", True),
        ("node.kubernetes.io/unreachable", "NoSchedule", False),
    ]
    assert conditions(demo, "node1")["Ready"][0] == "True"
    assert events(demo, "NodeNotReady")[0] == (
        "Node",
        "Normal",
        "Node node2 status is now: NodeNotReady",
        "node-controller",
    )
    assert ("Pod", "Warning", "Node is not ready", "node-controller") in events(demo, "NodeNotReady")


def test_its_pods_are_marked_not_ready_then_evicted_after_300_seconds(failing):
    demo, fake_clock, on_node2 = failing
    fake_clock.advance(51)
    drive()
    for pod in web_pods(demo):
        ready = next(c for c in pod["status"]["conditions"] if c["type"] == "Ready")
        assert ready["status"] == ("False" if pod["metadata"]["name"] in on_node2 else "True")
    fake_clock.advance(299)
    drive()
    assert not any(p["metadata"].get("deletionTimestamp") for p in web_pods(demo))
    fake_clock.advance(2)
    drive()
    by_name = {p["metadata"]["name"]: p for p in web_pods(demo)}
    # Evicted, they stay Terminating: no kubelet on node2 confirms that their containers stopped.
    assert all(by_name[name]["metadata"].get("deletionTimestamp") for name in on_node2)
    live = [p for p in by_name.values() if not p["metadata"].get("deletionTimestamp")]
    assert len(live) == 4 and {p["spec"]["nodeName"] for p in live} == {"node1"}
    assert [m for _, _, m, _ in events(demo, "TaintManagerEviction")] == sorted(
        f"Marking for deletion Pod default/{name}" for name in on_node2
    )


def test_starting_the_kubelet_again_makes_the_node_ready_and_removes_the_evicted_pods(failing):
    demo, fake_clock, on_node2 = failing
    fake_clock.advance(51)
    drive()
    fake_clock.advance(301)
    drive()
    power.set_running(demo, "node2", True)
    drive()
    assert conditions(demo)["Ready"] == ("True", "KubeletReady", "kubelet is posting ready status")
    assert taints(demo) == []
    fake_clock.advance(31)  # the evicted pods' grace period
    drive()
    for name in on_node2:
        with pytest.raises(ApiError):
            api.get(demo, "Pod", "default", name)
    assert events(demo, "NodeReady") == [("Node", "Normal", "Node node2 status is now: NodeReady", "kubelet")]
    assert events(demo, "Starting") == [("Node", "Normal", "Starting kubelet.", "kubelet")]


def test_a_kubelet_started_before_the_grace_period_changes_nothing(failing):
    demo, fake_clock, _ = failing
    fake_clock.advance(20)
    drive()
    power.set_running(demo, "node2", True)
    drive()
    fake_clock.advance(60)
    drive()
    assert conditions(demo)["Ready"][0] == "True" and taints(demo) == []
    assert events(demo, "NodeNotReady") == []


def test_reset_demo_starts_a_stopped_kubelet_again(failing):
    demo, fake_clock, _ = failing
    fake_clock.advance(51)
    drive()
    reset_demo(demo, KUBECTL)
    drive()
    assert power.stopped("demo") == {}
    assert conditions(demo)["Ready"][0] == "True" and taints(demo) == []
