from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.models import FlowTrace
from tests.support.demo import KUBECTL, drive, example


@pytest.mark.django_db(transaction=True)
def test_a_pod_with_node_name_runs_all_13_steps_with_controller_and_scheduler_skipped(demo):
    drive()  # the components list and open their watches
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)
    drive()
    trace = FlowTrace.objects.get(cluster=demo, kind="Pod", name="pod-example")
    steps = list(trace.steps.order_by("seq"))
    assert [s.step for s in steps] == [*range(1, 14), 0]
    assert [s.step for s in steps if s.skipped] == [5, 6, 7, 8, 9, 10, 11]
    ending = steps[-1]
    assert (ending.ending, ending.final, ending.source) == ("completed", True, "kubelet/node1")
    assert ending.detail_en == (
        "Pod default/pod-example reached its goal: the kubelet on node1 reported its status (step 13)."
    )
    assert "kubectl/v1.33.1" in steps[1].detail_en and steps[1].actor == "kubectl"
    # (and PodDisruptionBudgets and the storage kinds, where the API server serves them)
    assert "scheduler watches Pods, Nodes, ReplicationControllers, ReplicaSets, " in steps[0].detail_en
    assert steps[11].node == "node1" and steps[12].node == "node1"
    assert trace.finished_at is not None
    pod = api.get(demo, "Pod", "default", "pod-example")
    assert pod["status"]["phase"] == "Running"
    assert pod["status"]["podIP"].startswith("10.244.1.")
    running = pod["status"]["containerStatuses"][0]
    assert running["ready"] and running["containerID"].startswith("docker://")


@pytest.mark.django_db(transaction=True)
def test_an_unknown_image_ends_in_err_image_pull_with_warning_events(demo):
    drive()
    pod = example("pod-nodename.yaml")
    pod["spec"]["containers"][0]["image"] = "nginxx:1.0"
    api.create(demo, pod, KUBECTL)
    drive()
    stored = api.get(demo, "Pod", "default", "pod-example")
    waiting = stored["status"]["containerStatuses"][0]["state"]["waiting"]
    assert waiting["reason"] in ("ErrImagePull", "ImagePullBackOff")
    events, _ = api.list_objects(demo, "Event", "default")
    messages = [e["message"] for e in events if e["type"] == "Warning"]
    assert any("pull access denied for nginxx" in m for m in messages)
    assert "Error: ErrImagePull" in messages


@pytest.mark.django_db(transaction=True)
def test_an_unschedulable_pod_stops_at_step_9(demo):
    drive()
    api.create(demo, example("pod-nodeselector.yaml"), KUBECTL)
    drive()
    trace = FlowTrace.objects.get(cluster=demo, kind="Pod", name="pod-example")
    steps = list(trace.steps.order_by("seq"))
    assert [s.step for s in steps] == list(range(1, 10))
    assert "didn't match Pod's node affinity/selector" in steps[-1].detail_en
    assert trace.finished_at is None
