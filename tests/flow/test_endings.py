"""Every trace ends, and its ending entry (step 0) says who ended it and why (pace 0)."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.models import FlowStep, FlowTrace
from tests.support.demo import KUBECTL, drive, drive_until, example

pytestmark = pytest.mark.django_db(transaction=True)


def trace_of(cluster, kind: str, name: str) -> FlowTrace:
    return FlowTrace.objects.filter(cluster=cluster, kind=kind, name=name).order_by("-created_at").first()


def endings(trace: FlowTrace) -> list[FlowStep]:
    return list(trace.steps.filter(step=0).order_by("seq"))


def test_the_course_order_rc_then_pod_nodename_ends_the_pods_trace_with_the_rcs_reason(demo):
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)
    drive()
    trace = trace_of(demo, "Pod", "pod-example")
    (ending,) = endings(trace)
    assert ending.final and ending.ending == "deleted" and ending.source == "replicationcontroller/nginx"
    assert ending.actor == "controller-manager"
    assert ending.detail_en == (
        "ReplicationController nginx deleted pod-example: it matched selector app=nginx and the "
        "controller already had 3 replicas"
    )
    assert ending.detail_zh.startswith("ReplicationController nginx 删除了 pod-example")
    assert trace.finished_at is not None
    assert not FlowTrace.objects.filter(cluster=demo, finished_at=None).exists()
    # The course goes on: without the RC the same pod runs on node1.
    api.delete(demo, "ReplicationController", "default", "nginx", KUBECTL)
    drive()
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)
    drive()
    again = trace_of(demo, "Pod", "pod-example")
    assert again.pk != trace.pk and [e.ending for e in endings(again)] == ["completed"]
    assert api.get(demo, "Pod", "default", "pod-example")["status"]["phase"] == "Running"


def test_a_pod_deleted_mid_trace_ends_its_trace_deleted_by_kubectl(demo):
    drive()
    api.create(demo, example("pod-nodeselector.yaml"), KUBECTL)
    drive()
    trace = trace_of(demo, "Pod", "pod-example")
    assert trace.finished_at is None  # unschedulable: it waits for the cluster to change
    api.delete(demo, "Pod", "default", "pod-example", KUBECTL)
    drive()
    trace.refresh_from_db()
    (ending,) = endings(trace)
    assert (ending.ending, ending.source, ending.actor) == ("deleted", "kubectl", "kubectl")
    assert ending.detail_en == (
        "kubectl deleted Pod default/pod-example at step 9, before it reached its goal; the rest of its "
        "steps will not happen."
    )
    assert trace.finished_at is not None


def test_an_rc_scaled_down_mid_trace_ends_the_branches_it_deleted_then_the_trace(demo):
    drive()
    rc = example("rc-nginx.yaml")
    rc["spec"]["template"]["spec"]["nodeSelector"] = {"lc": "fuheinan"}
    api.create(demo, rc, KUBECTL)
    drive()
    trace = trace_of(demo, "ReplicationController", "nginx")
    assert trace.finished_at is None  # three pods wait at step 9
    api.scale(demo, "ReplicationController", "default", "nginx", 1, KUBECTL)
    drive()
    trace.refresh_from_db()
    branches = endings(trace)
    assert len(branches) == 2 and not any(e.final for e in branches)
    assert all(e.ending == "deleted" and e.source == "replicationcontroller/nginx" for e in branches)
    assert all("the controller had 3 replicas and spec.replicas is 1" in e.detail_en for e in branches)
    assert trace.finished_at is None  # one pod still waits
    scale_trace = FlowTrace.objects.filter(cluster=demo, verb="scale").get()
    assert [e.ending for e in endings(scale_trace)] == ["completed"]
    node = api.get(demo, "Node", None, "node1")
    node["metadata"]["labels"]["lc"] = "fuheinan"
    api.update(demo, node, KUBECTL)
    drive_until(lambda: FlowTrace.objects.get(pk=trace.pk).finished_at is not None)
    trace.refresh_from_db()
    final = endings(trace)[-1]
    assert final.final and final.ending == "completed" and trace.finished_at is not None
    assert "1 reported by their kubelets; 2 deleted before they started" in final.detail_en


def test_deleting_the_rc_mid_trace_ends_its_trace(demo):
    drive()
    rc = example("rc-nginx.yaml")
    rc["spec"]["template"]["spec"]["nodeSelector"] = {"lc": "fuheinan"}
    api.create(demo, rc, KUBECTL)
    drive()
    api.delete(demo, "ReplicationController", "default", "nginx", KUBECTL)
    drive()
    trace = trace_of(demo, "ReplicationController", "nginx")
    (ending,) = endings(trace)
    assert (ending.ending, ending.source, ending.final) == ("deleted", "kubectl", True)
    assert not FlowTrace.objects.filter(cluster=demo, finished_at=None).exists()


def test_an_image_that_cannot_be_pulled_ends_the_trace_failed(demo):
    drive()
    pod = example("pod-nodename.yaml")
    pod["spec"]["containers"][0]["image"] = "nginxx:1.0"
    api.create(demo, pod, KUBECTL)
    drive()
    (ending,) = endings(trace_of(demo, "Pod", "pod-example"))
    assert (ending.ending, ending.source) == ("failed", "kubelet/node1")


def test_a_controller_that_deletes_a_pod_after_its_trace_completed_ends_it_once(demo):
    """At pace 0 a pod can run before the controller that adopts it acts: its deletion then ends
    the trace instead of adding a second ending (the first stays as an entry, not final)."""
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    pod = example("pod-nodename.yaml")
    pod["metadata"]["labels"] = {"app": "not-yet"}
    api.create(demo, pod, KUBECTL)
    drive()
    trace = trace_of(demo, "Pod", "pod-example")
    assert [(e.ending, e.final) for e in endings(trace)] == [("completed", True)]
    relabel = b'{"metadata": {"labels": {"app": "nginx"}}}'  # now one replica too many
    api.patch(demo, "Pod", "default", "pod-example", relabel, "application/merge-patch+json", KUBECTL)
    drive_until(lambda: FlowStep.objects.filter(trace=trace, step=0, ending="deleted").exists())
    found = [(e.ending, e.final, e.source) for e in endings(trace)]
    assert found == [("completed", False, "kubelet/node1"), ("deleted", True, "replicationcontroller/nginx")]
    assert FlowTrace.objects.get(pk=trace.pk).finished_at is not None
