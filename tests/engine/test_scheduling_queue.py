"""The scheduling queue and the plugins' queueing hints.

Named after the upstream tests they port: backend/queue/scheduling_queue_test.go for the queue
(TestPriorityQueue_*, TestBackOffFlow, Test_InFlightPods) and the plugins' own hint tests
(Test_isSchedulableAfterNodeChange and friends in noderesources, nodeaffinity, tainttoleration,
nodeports, nodeunschedulable).
"""

from __future__ import annotations

import pytest

from scheduler.engine.podinfo import PodInfo
from scheduler.engine.queueing_hints import (
    ADD,
    DELETE,
    NODE,
    POD,
    UPDATE_NODE_ALLOCATABLE,
    UPDATE_NODE_LABEL,
    UPDATE_NODE_TAINT,
    ClusterEvent,
    node_events,
    pod_events,
    retry_when,
    wake,
)
from scheduler.queue import (
    ACTIVE,
    BACKOFF,
    MAX_UNSCHEDULABLE_SECONDS,
    UNSCHEDULABLE,
    SchedulingQueue,
    backoff_duration,
    describe_entry,
)
from tests.engine.builders import container, make_node, make_pod


def pod(name, priority=0, **spec):
    p = make_pod(name, **spec)
    p["spec"]["priority"] = priority
    return p


# -- the queue -----------------------------------------------------------------------------------
def test_priority_queue_add():
    """TestPriorityQueue_Add: pops by priority, highest first."""
    q = SchedulingQueue()
    q.add(pod("mpp", 500), None)
    q.add(pod("up", 0), None)
    q.add(pod("hpp", 1000), None)
    assert [q.pop().pod["metadata"]["name"] for _ in range(3)] == ["hpp", "mpp", "up"]
    assert q.pop() is None


def test_priority_queue_equal_priority_is_first_in_first_out():
    q = SchedulingQueue()
    for name in ("a", "b", "c"):
        q.add(pod(name, 5), None)
    assert [q.pop().pod["metadata"]["name"] for _ in range(3)] == ["a", "b", "c"]


def test_a_traces_pods_are_taken_together_in_pop_order_and_the_rest_stay_queued():
    """With a pace or in step mode a trace's pods are scheduled together (scheduler/together.py)."""
    q = SchedulingQueue()
    q.add(pod("rc-a", 0), "t1")
    q.add(pod("other", 0), "t2")
    q.add(pod("rc-b", 0), "t1")
    q.add(pod("rc-c", 9), "t1")
    assert [e.pod["metadata"]["name"] for e in q.pop_trace("t1")] == ["rc-c", "rc-a", "rc-b"]
    assert q.pop_trace("t1") == []
    assert q.pop().pod["metadata"]["name"] == "other"
    assert q.pop() is None


def test_back_off_flow():
    """TestBackOffFlow: 1 s, doubling with each attempt, capped at 10 s."""
    assert [backoff_duration(n) for n in range(1, 8)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0]


def test_in_flight_pods_pod_without_rejector_is_enqueued_back_to_backoff_q():
    """Test_InFlightPods: a pod that failed with no unschedulable plugin (an error) → backoffQ."""
    q = SchedulingQueue()
    q.add(pod("targetpod"), None)
    entry = q.pop()
    q.park(entry, "error", frozenset(), now=100.0)
    assert entry.queue == BACKOFF
    # It waits its backoff out: an error pod is not taken from backoffQ early.
    assert q.pop() is None
    q.flush(now=101.0)
    assert q.pop() is entry


def test_priority_queue_add_unschedulable_if_not_present():
    q = SchedulingQueue()
    q.add(pod("up"), None)
    entry = q.pop()
    q.park(entry, "0/1 nodes are available", frozenset({"NodeResourcesFit"}), now=0.0)
    assert entry.queue == UNSCHEDULABLE and q.unschedulable == {entry.key}
    assert q.pop() is None  # it waits for an event, not for its backoff
    assert not q.pending()


NODE_BIG = make_node("node-big", allocatable={"cpu": "8", "memory": "8Gi", "pods": "110"})
NODE_SMALL = make_node("node-small", allocatable={"cpu": "1", "memory": "1Gi", "pods": "110"})


def _parked(name="p", rejectors=("NodeResourcesFit",), now=0.0, **spec):
    q = SchedulingQueue()
    spec.setdefault("containers", [container(requests={"cpu": "2"})])
    q.add(pod(name, **spec), None)
    entry = q.pop()
    q.park(entry, "unschedulable", frozenset(rejectors), now=now)
    return q, entry


def test_priority_queue_move_all_to_active_or_backoff_queue_with_queueing_hint():
    """A registered event whose hint says Queue moves the pod: to backoffQ while backing off,
    else to activeQ; a QueueSkip leaves it in unschedulablePods."""
    q, entry = _parked(now=0.0)
    assert q.on_event(ClusterEvent(NODE, ADD, None, NODE_SMALL), now=0.5) == []  # too small: skip
    assert entry.queue == UNSCHEDULABLE
    assert q.on_event(ClusterEvent(NODE, ADD, None, NODE_BIG), now=0.5) == [entry.key]
    assert entry.queue == BACKOFF
    assert entry.woken_by["plugin"] == "NodeResourcesFit"
    assert entry.woken_by["event"] == "Node/Add node-big"

    q, entry = _parked(now=0.0)
    q.on_event(ClusterEvent(NODE, ADD, None, NODE_BIG), now=5.0)  # backoff (1 s) is over
    assert entry.queue == ACTIVE
    assert q.pop() is entry


def test_priority_queue_move_ignores_events_no_rejector_registered():
    q, entry = _parked(rejectors=("NodeResourcesFit",))
    labelled = make_node("node-small", labels={"zz": "cxk"}, allocatable=NODE_SMALL["status"]["allocatable"])
    for event in node_events(NODE_SMALL, labelled):
        assert event.action == UPDATE_NODE_LABEL
        q.on_event(event, now=5.0)
    assert entry.queue == UNSCHEDULABLE


def test_priority_queue_pop_from_backoff_q_when_active_q_is_empty():
    """SchedulerPopFromBackoffQ (on in v1.33): a pod an event moved on is tried at once."""
    q, entry = _parked(now=0.0)
    q.on_event(ClusterEvent(NODE, ADD, None, NODE_BIG), now=0.1)
    assert entry.queue == BACKOFF
    q.add(pod("newcomer"), None)
    assert q.pop().pod["metadata"]["name"] == "newcomer"  # activeQ first
    assert q.pop() is entry


def test_priority_queue_flush_unschedulable_pods_leftover():
    q, entry = _parked(now=0.0)
    q.flush(now=MAX_UNSCHEDULABLE_SECONDS - 1)
    assert entry.queue == UNSCHEDULABLE
    assert q.next_wakeup(now=MAX_UNSCHEDULABLE_SECONDS - 1) is None  # the loop's polls flush it
    q.flush(now=MAX_UNSCHEDULABLE_SECONDS)
    assert entry.queue == ACTIVE and entry.woken_by["event"] == "flush"


def test_priority_queue_update_of_the_pending_pod_itself_is_an_event():
    """A pending pod's new tolerations wake it when TaintToleration rejected it."""
    q, entry = _parked(rejectors=("TaintToleration",), now=0.0)
    updated = pod("p", containers=[container(requests={"cpu": "2"})])
    updated["spec"]["tolerations"] = [{"key": "k", "operator": "Exists"}]
    q.add(updated, None, now=5.0)
    assert entry.queue == ACTIVE
    assert entry.woken_by["plugin"] == "TaintToleration"


def test_describe_says_what_would_retry_the_pod():
    _, entry = _parked(rejectors=("NodeAffinity", "NodeResourcesFit"), now=0.0)
    described = describe_entry(entry, now=0.25)
    assert described["queue"] == UNSCHEDULABLE
    assert described["rejectors"] == ["NodeAffinity", "NodeResourcesFit"]
    assert described["backoffSeconds"] == 1.0 and described["backoffLeftSeconds"] == 0.8
    assert described["retryText"]["en"].startswith(
        "Will be retried when a node matching the pod's node selector"
    )
    assert "5 minutes" in described["retryText"]["en"] and "5 分钟" in described["retryText"]["zh"]


# -- the plugins' hints --------------------------------------------------------------------------
def _queues(plugin, target, event):
    return wake(frozenset({plugin}), PodInfo.of(target), event) is not None


@pytest.mark.parametrize(
    ("name", "old", "new", "expected"),
    [
        ("queue-on-add-node", None, NODE_BIG, True),
        ("skip-queue-on-add-node-too-small", None, NODE_SMALL, False),
        (
            "queue-on-node-allocatable-increase",
            NODE_SMALL,
            make_node("node-small", allocatable={"cpu": "4", "memory": "1Gi", "pods": "110"}),
            True,
        ),
        (
            "skip-queue-on-node-changes-that-dont-help",
            make_node("n", allocatable={"cpu": "4", "memory": "1Gi", "pods": "110"}),
            make_node("n", allocatable={"cpu": "4", "memory": "2Gi", "pods": "110"}),
            False,
        ),
    ],
)
def test_fit_is_schedulable_after_node_change(name, old, new, expected):
    """noderesources Test_isSchedulableAfterNodeChange."""
    target = pod("p", containers=[container(requests={"cpu": "2"})])
    [event] = node_events(old, new)
    assert event.action in (ADD, UPDATE_NODE_ALLOCATABLE)
    assert _queues("NodeResourcesFit", target, event) is expected


def test_fit_is_schedulable_after_pod_event():
    """noderesources Test_isSchedulableAfterPodEvent: a deleted scheduled pod frees resources, a
    deleted unscheduled (not nominated) one does not."""
    target = pod("p", containers=[container(requests={"cpu": "2"})])
    scheduled = pod("other", node_name="node1")
    assert _queues("NodeResourcesFit", target, ClusterEvent(POD, DELETE, scheduled, None))
    assert not _queues("NodeResourcesFit", target, ClusterEvent(POD, DELETE, pod("pending"), None))
    nominated = pod("nominated")
    nominated["status"] = {"nominatedNodeName": "node1"}
    assert _queues("NodeResourcesFit", target, ClusterEvent(POD, DELETE, nominated, None))


def test_node_affinity_is_schedulable_after_node_change():
    """nodeaffinity Test_isSchedulableAfterNodeChange."""
    target = pod("p", nodeSelector={"foo": "bar"})
    plain = make_node("n", allocatable={"pods": "110"})
    matching = make_node("n", labels={"foo": "bar"}, allocatable={"pods": "110"})
    assert not _queues("NodeAffinity", target, ClusterEvent(NODE, ADD, None, plain))
    assert _queues("NodeAffinity", target, ClusterEvent(NODE, ADD, None, matching))
    [labelled] = node_events(plain, matching)
    assert _queues("NodeAffinity", target, labelled)
    # The node already matched: a further label change does not help.
    relabelled = make_node("n", labels={"foo": "bar", "x": "y"}, allocatable={"pods": "110"})
    [again] = node_events(matching, relabelled)
    assert not _queues("NodeAffinity", target, again)


def test_taint_toleration_is_schedulable_after_node_change():
    """tainttoleration TestIsSchedulableAfterNodeChange."""
    taint = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    tainted = make_node("n", taints=taint, allocatable={"pods": "110"})
    clean = make_node("n", allocatable={"pods": "110"})
    target = pod("p")
    [untainted] = node_events(tainted, clean)
    assert untainted.action == UPDATE_NODE_TAINT
    assert _queues("TaintToleration", target, untainted)
    assert not _queues("TaintToleration", target, ClusterEvent(NODE, ADD, None, tainted))
    tolerating = pod("p", tolerations=[{"key": "dedicated", "operator": "Exists"}])
    assert _queues("TaintToleration", tolerating, ClusterEvent(NODE, ADD, None, tainted))


def test_node_unschedulable_is_schedulable_after_node_change():
    """nodeunschedulable TestIsSchedulableAfterNodeChange: uncordoning queues, cordoning skips."""
    cordoned = make_node("n", unschedulable=True, allocatable={"pods": "110"})
    open_node = make_node("n", allocatable={"pods": "110"})
    [uncordon] = node_events(cordoned, open_node)
    assert _queues("NodeUnschedulable", pod("p"), uncordon)
    [cordon] = node_events(open_node, cordoned)
    assert not _queues("NodeUnschedulable", pod("p"), cordon)


def test_node_ports_is_schedulable_after_pod_deleted():
    """nodeports Test_isSchedulableAfterPodDeleted: only a freed conflicting host port helps."""

    def with_port(name, port, node=""):
        return pod(
            name, node_name=node, containers=[container(ports=[{"containerPort": 80, "hostPort": port}])]
        )

    target = with_port("p", 8080)
    assert _queues("NodePorts", target, ClusterEvent(POD, DELETE, with_port("a", 8080, "n"), None))
    assert not _queues("NodePorts", target, ClusterEvent(POD, DELETE, with_port("b", 9090, "n"), None))
    assert not _queues("NodePorts", target, ClusterEvent(POD, DELETE, with_port("c", 8080), None))


def test_inter_pod_affinity_is_schedulable_after_pod_change():
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
    target = pod("p", affinity=anti)
    db = pod("db", node_name="n", labels={"app": "db"})
    web = pod("web", node_name="n", labels={"app": "web"})
    assert _queues("InterPodAffinity", target, ClusterEvent(POD, DELETE, db, None))
    assert not _queues("InterPodAffinity", target, ClusterEvent(POD, DELETE, web, None))


def test_pod_events_binding_is_the_assigned_pods_add():
    pending = pod("p")
    bound = pod("p", node_name="node1")
    assert [(e.resource, e.action) for e in pod_events(pending, bound)] == [(POD, ADD)]


def test_default_preemption_never_requeues_by_itself():
    assert not _queues(
        "DefaultPreemption", pod("p"), ClusterEvent(POD, DELETE, pod("x", node_name="n"), None)
    )


def test_retry_when_lists_each_rejectors_events():
    found = retry_when(frozenset({"NodeAffinity"}))
    assert found == [
        {
            "plugin": "NodeAffinity",
            "resource": "Node",
            "actions": ["Add", "UpdateNodeLabel"],
            "why": found[0]["why"],
        }
    ]
    assert found[0]["why"]["zh"]
