"""Each check kind passes and fails on real cluster state written through the API server."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.models import Cluster
from labs.checks import Probe, run_check
from labs.labmodel import Check, Text
from labs.selftest import forget, settle
from tests.labs.conftest import nodes

ME = api.Actor(client="kubectl", detail="test")
SYSTEM = api.Actor(client="kubelet", detail="test", node="node1")


def check(type_: str, negate: bool = False, message: Text | None = None, **params) -> Check:
    return Check(type_, params, message, negate, f"lab 't', step 1 ('s'), check 1 ({type_})", 1)


def holds(cluster: Cluster, c: Check, answer: str = "") -> bool:
    return run_check(Probe(cluster), c, answer).passed


def pod(name: str, **spec) -> dict:
    body = {"containers": [{"name": "c", "image": "nginx:1.15"}], **spec}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": body,
    }


@pytest.fixture
def cluster(db):
    cluster = Cluster.objects.create(name="checks", public=False, pace_ms=0)
    api.apply_manifests(cluster, nodes("node1", "node2"), ME)
    yield cluster
    forget(cluster)


def set_status(cluster: Cluster, name: str, status: dict) -> None:
    obj = api.get(cluster, "Pod", "default", name)
    obj["status"] = status
    api.update(cluster, obj, SYSTEM, subresource="status")


def test_exists_and_absent_follow_creation_and_deletion(cluster):
    exists, absent = check("exists", kind="Pod", name="web"), check("absent", kind="Pod", name="web")
    assert not holds(cluster, exists) and holds(cluster, absent)
    api.create(cluster, pod("web"), ME)
    assert holds(cluster, exists) and not holds(cluster, absent)
    api.delete(cluster, "Pod", "default", "web", ME)
    assert holds(cluster, absent)


def test_field_equals_and_matches_read_json_paths(cluster):
    api.create(cluster, pod("web"), ME)
    image = check("fieldEquals", kind="Pod", name="web", path="spec.containers[0].image", value="nginx:1.15")
    label = check("fieldEquals", kind="Pod", name="web", path="metadata.labels.app", value="db")
    matches = check(
        "fieldMatches", kind="Pod", name="web", path="spec.containers[0].image", pattern=r"^nginx:1\.1"
    )
    assert holds(cluster, image) and holds(cluster, matches) and not holds(cluster, label)
    ready = check("fieldEquals", kind="Pod", name="web", path="status.containerStatuses[0].ready", value=True)
    assert not holds(cluster, ready)
    set_status(cluster, "web", {"phase": "Running", "containerStatuses": [{"name": "c", "ready": True}]})
    assert holds(cluster, ready)


def test_pod_phase_reports_the_waiting_reason_when_it_fails(cluster):
    api.create(cluster, pod("web"), ME)
    set_status(
        cluster,
        "web",
        {"phase": "Pending", "containerStatuses": [{"state": {"waiting": {"reason": "ImagePullBackOff"}}}]},
    )
    result = run_check(Probe(cluster), check("podPhase", pod="web", phase="Running"))
    assert not result.passed
    assert (
        result.message.en == "Pod web should be Running."
        and result.found.en == "It is Pending (ImagePullBackOff)."
    )
    set_status(cluster, "web", {"phase": "Running"})
    assert holds(cluster, check("podPhase", pod="web", phase="Running"))


def test_pod_on_node_by_name_and_by_node_label(cluster):
    api.create(cluster, pod("web"), ME)
    on_node2 = check("podOnNode", pod="web", node="node2")
    on_ssd = check("podOnNode", pod="web", nodeLabel="disktype=ssd")
    assert not holds(cluster, on_node2)
    api.bind(cluster, "default", "web", "node2", ME)
    assert holds(cluster, on_node2) and not holds(cluster, on_ssd)
    node = api.get(cluster, "Node", "", "node2")
    node["metadata"]["labels"]["disktype"] = "ssd"
    api.update(cluster, node, ME)
    assert holds(cluster, on_ssd)


def test_node_label_and_taint_and_negation(cluster):
    label = check("nodeLabel", node="node1", label="zz=cxk")
    taint = check("nodeTaint", node="node1", key="dedicated", value="gpu", effect="NoSchedule")
    untainted = check("nodeTaint", negate=True, node="node1", key="dedicated")
    assert not holds(cluster, label) and not holds(cluster, taint) and holds(cluster, untainted)
    node = api.get(cluster, "Node", "", "node1")
    node["metadata"]["labels"]["zz"] = "cxk"
    node["spec"]["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    api.update(cluster, node, ME)
    assert holds(cluster, label) and holds(cluster, taint) and not holds(cluster, untainted)
    result = run_check(Probe(cluster), untainted)
    assert result.message.en.startswith(
        "This should no longer hold: Node node1 should have the taint dedicated"
    )


def test_pod_count_with_phase_fields_and_distinct_nodes(cluster):
    for name, node in (("a", "node1"), ("b", "node1"), ("c", "node2")):
        api.create(cluster, pod(name, nodeName=node), ME)
    assert holds(cluster, check("podCount", selector="app=web", count=3))
    assert not holds(cluster, check("podCount", selector="app=web", count=3, distinctNodes=3))
    assert holds(cluster, check("podCount", selector="app=web", distinctNodes=2))
    assert not holds(cluster, check("podCount", selector="app=web", phase="Running", min=1))
    fields = {"spec.nodeName": "node1"}
    assert holds(cluster, check("podCount", selector="app in (web,db)", fields=fields, count=2))
    assert holds(cluster, check("podCount", selector="app=db", count=0))


def test_event_with_reason_object_and_text(cluster):
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web.1"},
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default"},
        "reason": "Failed",
        "message": 'Failed to pull image "nginx:1.155"',
        "type": "Warning",
    }
    c = check("event", reason="Failed", kind="Pod", name="web", messageContains="nginx:1.155")
    assert not holds(cluster, c)
    api.create(cluster, event, SYSTEM)
    assert holds(cluster, c)
    assert not holds(cluster, check("event", reason="Failed", name="other"))


def test_answer_checks_accept_full_case_insensitive_matches():
    c = check("answer", question=Text("Who binds?", "谁绑定？"), accept=["(kube-)?scheduler", "调度器"])
    assert holds(None, c, "Scheduler") and holds(None, c, "调度器") and holds(None, c, "kube-scheduler")
    assert not holds(None, c, "the scheduler, maybe") and not holds(None, c, "")


def test_a_failing_check_shows_the_instructors_message(cluster):
    custom = Text("Label node1 first.", "先给 node1 打标签。")
    result = run_check(Probe(cluster), check("nodeLabel", message=custom, node="node1", label="zz=cxk"))
    assert result.message == custom
    assert result.found.en == "Its labels: kubernetes.io/hostname=node1."


def test_pending_and_scheduling_failure_read_the_real_scheduler(cluster):
    api.create(cluster, pod("web", nodeSelector={"zz": "cxk"}), ME)
    pending = check("podPending", pod="web", messageContains="didn't match Pod's node affinity/selector")
    failing = check("schedulingFailure", pod="web", plugin="NodeAffinity", node="node1")
    other_plugin = check("schedulingFailure", pod="web", plugin="TaintToleration", node="node1")
    assert not holds(cluster, pending) and not holds(cluster, failing)  # the scheduler has not run yet
    settle(cluster)
    assert holds(cluster, pending) and holds(cluster, failing) and not holds(cluster, other_plugin)
    node = api.get(cluster, "Node", "", "node1")
    node["metadata"]["labels"]["zz"] = "cxk"
    api.update(cluster, node, ME)
    settle(cluster)
    assert not holds(cluster, pending)
    assert holds(cluster, check("podOnNode", pod="web", node="node1"))
    assert holds(cluster, check("podPhase", pod="web", phase="Running"))


def test_flow_complete_follows_the_thirteen_steps(cluster):
    c = check("flowComplete", kind="Pod", name="web")
    settle(cluster)  # the components are watching before the pod is created, as in a lesson
    api.create(cluster, pod("web"), ME)
    assert not holds(cluster, c)
    assert holds(cluster, check("flowComplete", kind="Pod", name="web", step=4))
    settle(cluster)
    assert holds(cluster, c)
