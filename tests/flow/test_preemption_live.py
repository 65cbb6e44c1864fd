"""Preemption on the live demo cluster: nominate, evict the victims, bind on the next attempt."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.controlplane import runtime
from cluster.models import FlowTrace
from scheduler.models import SchedulingAttempt
from tests.support.demo import KUBECTL, drive

CLASSES = (10, 1000)  # PriorityClasses p10 and p1000; priority 0 is the default without a class


@pytest.fixture(autouse=True)
def priority_classes(demo):
    for value in CLASSES:
        meta = {"name": f"p{value}"}
        body = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": meta,
            "value": value,
        }
        api.create(demo, body, KUBECTL)


def make_pod(name: str, cpu: str, priority: int = 0, labels: dict | None = None) -> dict:
    """A pod of PriorityClass p<priority> (Priority admission resolves its spec.priority)."""
    spec = {"containers": [{"name": "c", "image": "nginx:1.15", "resources": {"requests": {"cpu": cpu}}}]}
    if priority:
        spec["priorityClassName"] = f"p{priority}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {"app": name}},
        "spec": spec,
    }


@pytest.mark.django_db(transaction=True)
def test_a_high_priority_pod_nominates_preempts_and_binds(demo, fake_clock):
    drive()
    # node1 and node2 have 4 cpus each: two 3-cpu low-priority pods fill them.
    api.create(demo, make_pod("low-a", "3"), KUBECTL)
    drive()
    api.create(demo, make_pod("low-b", "3", priority=10), KUBECTL)
    drive()
    placed = {api.get(demo, "Pod", "default", n)["spec"]["nodeName"] for n in ("low-a", "low-b")}
    assert placed == {"node1", "node2"}
    low_a_node = api.get(demo, "Pod", "default", "low-a")["spec"]["nodeName"]
    low_a_uid = api.get(demo, "Pod", "default", "low-a")["metadata"]["uid"]

    created = api.create(demo, make_pod("high", "2", priority=1000), KUBECTL)
    drive()
    # The victim is terminating: the pod binds once its kubelet has stopped it (nginx: 1 s).
    assert api.get(demo, "Pod", "default", "low-a")["metadata"]["deletionTimestamp"]
    fake_clock.advance(1)
    drive()

    high = api.get(demo, "Pod", "default", "high")
    # The lowest-priority victim decides: low-a (priority 0) goes, low-b (10) stays; the status
    # write that failed the first attempt nominated that node.
    writes = [e.object for e in api.events_since(demo, 0) if e.kind == "Pod" and e.name == "high"]
    nominations = [w["status"].get("nominatedNodeName") for w in writes if not w["spec"].get("nodeName")]
    assert nominations[-1] == low_a_node
    assert high["spec"]["nodeName"] == low_a_node  # bound on the attempt after the eviction
    with pytest.raises(api.ApiError):
        api.get(demo, "Pod", "default", "low-a")
    # The victim's deletion is a story of its own, linked to the preemptor's, ending once with why
    # it went; the bare victim's own story keeps the ending it had (it ran).
    preemptor = FlowTrace.objects.get(cluster=demo, kind="Pod", name="high")
    victim = FlowTrace.objects.get(cluster=demo, kind="Pod", name="low-a", verb="preempt")
    assert victim.causes == preemptor.pk and victim.client == "default-scheduler"
    [ending] = victim.steps.filter(step=0, final=True)
    assert (ending.ending, ending.source) == ("deleted", "default-scheduler")
    assert ending.title_en == f"Preempted by default/high, gone from {low_a_node} (grace 30 s)"
    assert "preempted by pod default/high (priority 1000)" in ending.detail_en
    assert [s.step for s in victim.steps.exclude(step=0).filter(skipped=False).order_by("seq")] == [
        1,
        2,
        3,
        4,
        12,
        13,
    ]
    own = FlowTrace.objects.get(cluster=demo, kind="Pod", name="low-a", verb="create")
    assert list(own.steps.filter(step=0).values_list("ending", "final")) == [("completed", True)]
    api.get(demo, "Pod", "default", "low-b")

    events, _ = api.list_objects(demo, "Event", "default")
    preempted = [e for e in events if e["reason"] == "Preempted"]
    assert [e["message"] for e in preempted] == [
        f"Preempted by pod {created['metadata']['uid']} on node {low_a_node}"
    ]
    assert preempted[0]["involvedObject"]["uid"] == low_a_uid
    assert preempted[0]["related"]["name"] == "high"
    failed = [
        e for e in events if e["reason"] == "FailedScheduling" and e["involvedObject"]["name"] == "high"
    ]
    # A nominating PostFilter adds no preemption clause.
    assert failed[0]["message"] == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "2 Insufficient cpu."
    )

    # The preemptor's step 9 says what PostFilter did: the nominated node and the victim there.
    trace = FlowTrace.objects.get(cluster=demo, kind="Pod", name="high")
    nine = trace.steps.filter(step=9).order_by("seq").first()
    assert nine.ending == "waiting"
    assert f"PostFilter (DefaultPreemption) preempts: it nominates {low_a_node}" in nine.detail_en
    assert "evicts the lower-priority default/low-a (priority 0) there" in nine.detail_en
    assert "default/low-a" in nine.detail_zh

    tried = list(SchedulingAttempt.objects.filter(cluster=demo, pod="high").order_by("pk"))
    assert [a.result for a in tried] == ["Unschedulable", "Scheduled"]
    first = tried[0].to_json()
    assert first["decision"]["preemption"]["nominatedNode"] == low_a_node
    assert first["decision"]["preemption"]["decidedBy"] == "minHighestPriority"
    assert first["queue"]["queue"] == "unschedulablePods"
    assert first["queue"]["rejectors"] == ["NodeResourcesFit", "TaintToleration"]
    woken = tried[1].to_json()["queue"]["wokenBy"]
    assert woken["plugin"] == "NodeResourcesFit" and woken["event"] == "Pod/Delete default/low-a"


@pytest.mark.django_db(transaction=True)
def test_the_victim_gets_the_disruption_target_condition_before_deletion(demo):
    drive()
    seen = []
    original = api.delete

    def spy(cluster, kind, namespace, name, actor, *args, **kwargs):
        if kind == "Pod":
            seen.append(api.get(cluster, kind, namespace, name)["status"].get("conditions") or [])
        return original(cluster, kind, namespace, name, actor, *args, **kwargs)

    api.create(demo, make_pod("low-a", "3"), KUBECTL)
    api.create(demo, make_pod("low-b", "3"), KUBECTL)
    drive()
    api.delete = spy
    try:
        api.create(demo, make_pod("high", "2", priority=1000), KUBECTL)
        drive()
    finally:
        api.delete = original
    target = [c for c in seen[0] if c["type"] == "DisruptionTarget"]
    assert target == [
        {
            **target[0],
            "status": "True",
            "reason": "PreemptionByScheduler",
            "message": "default-scheduler: preempting to accommodate a higher priority pod",
        }
    ]


@pytest.mark.django_db(transaction=True)
def test_an_equal_priority_pod_waits_with_the_hint_events_that_would_wake_it(demo, fake_clock):
    drive()
    api.create(demo, make_pod("low-a", "3"), KUBECTL)
    api.create(demo, make_pod("low-b", "3"), KUBECTL)
    drive()
    api.create(demo, make_pod("same", "2"), KUBECTL)
    drive()
    pod = api.get(demo, "Pod", "default", "same")
    assert "nominatedNodeName" not in pod["status"]
    condition = next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")
    assert condition["message"].endswith(
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
        "2 No preemption victims found for incoming pod."
    )
    plane = runtime._running["demo"]
    queue = plane.scheduler.describe_queue("default", "same")
    assert queue["queue"] == "unschedulablePods"
    assert queue["rejectors"] == ["NodeResourcesFit", "TaintToleration"]
    assert "a scheduled or nominated pod is deleted" in queue["retryText"]["en"]
    # A label on a worker wakes nobody: neither rejector registered node label changes.
    node = api.get(demo, "Node", None, "node1")
    node["metadata"]["labels"]["zz"] = "cxk"
    api.update(demo, node, KUBECTL)
    drive()
    assert SchedulingAttempt.objects.filter(cluster=demo, pod="same").count() == 1
    # Deleting a scheduled pod does: NodeResourcesFit's hint queues it, and it fits now.
    api.delete(demo, "Pod", "default", "low-b", KUBECTL)
    drive()
    fake_clock.advance(1)  # low-b terminates; its removal is the deletion that wakes the pod
    drive()
    assert api.get(demo, "Pod", "default", "same")["spec"]["nodeName"]
    assert SchedulingAttempt.objects.filter(cluster=demo, pod="same").count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_controller_replaces_its_preempted_replica_which_then_waits(demo, fake_clock):
    drive()
    template = make_pod("rc-pod", "3")
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "filler", "namespace": "default"},
        "spec": {
            "replicas": 2,
            "selector": {"app": "filler"},
            "template": {"metadata": {"labels": {"app": "filler"}}, "spec": template["spec"]},
        },
    }
    api.create(demo, rc, KUBECTL)
    drive()
    pods, _ = api.list_objects(demo, "Pod", "default", label_selector="app=filler")
    before = {p["metadata"]["name"] for p in pods}
    assert len(before) == 2 and all(p["spec"].get("nodeName") for p in pods)

    api.create(demo, make_pod("high", "2", priority=1000), KUBECTL)
    drive()
    fake_clock.advance(1)  # the victim's nginx stops and its kubelet removes it
    drive()
    assert api.get(demo, "Pod", "default", "high")["spec"]["nodeName"]
    pods, _ = api.list_objects(demo, "Pod", "default", label_selector="app=filler")
    names = {p["metadata"]["name"] for p in pods}
    assert len(names) == 2 and len(names - before) == 1  # one replica preempted, one replacement
    [replacement] = [p for p in pods if p["metadata"]["name"] not in before]
    assert not replacement["spec"].get("nodeName")  # equal priority: it cannot preempt in turn
    condition = next(c for c in replacement["status"]["conditions"] if c["type"] == "PodScheduled")
    assert "No preemption victims found for incoming pod" in condition["message"]
    # The victim's deletion is a story of its own, naming the preemptor; its replacement follows.
    [victim] = before - names
    preempted = FlowTrace.objects.get(cluster=demo, kind="Pod", name=victim, verb="preempt")
    two = preempted.steps.get(step=2)
    assert two.detail_en.startswith(f"The Scheduler sends DELETE (preempt) for Pod default/{victim}")
    assert "preempted by pod default/high (priority 1000) on node" in two.detail_en
    assert "被 Pod default/high（优先级 1000）在 node" in two.detail_zh
    high = FlowTrace.objects.get(cluster=demo, kind="Pod", name="high")
    assert preempted.causes == high.pk
    assert preempted.steps.filter(step=0, final=True).count() == 1  # ended: the victim is gone
    # Its replacement is the controller's story, linked to the deletion; it waits for a node.
    replaced = FlowTrace.objects.get(
        cluster=demo, verb="replace", kind="ReplicationController", name="filler"
    )
    assert replaced.causes == preempted.pk and replaced.finished_at is None
    assert replaced.steps.filter(object_name=replacement["metadata"]["name"], step=7).exists()
    assert replaced.steps.filter(step=9, ending="waiting").exists()
    assert not preempted.steps.filter(object_name=replacement["metadata"]["name"]).exists()
    # The preemptor's story is its own: bound, started, ended; the replacement is not in it.
    trace = FlowTrace.objects.get(cluster=demo, kind="Pod", name="high")
    assert set(trace.steps.values_list("object_name", flat=True)) == {"high"}
    assert trace.finished_at is not None
    assert trace.steps.filter(step=0, final=True, ending="completed").count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_scheduler_follows_the_start_times_the_kubelet_reports(demo):
    """Preemption orders equal-priority victims by status.startTime, which the kubelet sets after
    the binding: the snapshot must carry it."""
    drive()
    api.create(demo, make_pod("low-a", "3"), KUBECTL)
    drive()
    started = api.get(demo, "Pod", "default", "low-a")["status"]["startTime"]
    plane = runtime._running["demo"]
    for _ in range(5):  # the kubelet's status write reaches the scheduler's watch on a later pass
        bound = plane.scheduler.bound[("default", "low-a")]
        if (bound.pod.get("status") or {}).get("startTime"):
            break
        drive()
    assert bound.pod["status"]["startTime"] == started
