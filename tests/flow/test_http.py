from __future__ import annotations

import pytest
from django.test import Client

from cluster.apiserver import service as api
from cluster.flow import gate
from cluster.flow.snapshot import HEAD_STEPS, TAIL_STEPS
from cluster.models import Cluster, FlowTrace
from tests.support.demo import KUBECTL, drive, example

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_snapshot_lists_nodes_pods_workloads_and_traces(demo, client):
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    state = client.get("/clusters/demo/snapshot").json()
    assert state["type"] == "snapshot" and state["cluster"] == "demo"
    assert [n["metadata"]["name"] for n in state["nodes"]] == ["master", "node1", "node2"]
    assert len(state["pods"]) == 3 and [w["kind"] for w in state["workloads"]] == ["ReplicationController"]
    (trace,) = state["traces"]
    total = 6 + 3 * 7 + 1
    assert trace["kind"] == "ReplicationController" and trace["steps_total"] == total
    # A few steps only, the first and the newest, with the counts of every step number.
    newest = range(total - TAIL_STEPS + 1, total + 1)
    assert [s["seq"] for s in trace["steps"]] == [*range(1, HEAD_STEPS + 1), *newest]
    once, thrice = {str(n): 1 for n in range(1, 7)}, {str(n): 3 for n in range(7, 14)}
    assert trace["step_counts"] == {"0": 1, **once, **thrice}
    ending = trace["ending"]
    assert trace["steps"][-1] == ending and trace["finished_at"] is not None
    assert (ending["type"], ending["step"], ending["outcome"], ending["final"]) == (
        "flow.end",
        0,
        "completed",
        True,
    )
    assert "3 reported by their kubelets" in ending["detail"]["en"]
    assert ending["finished_at"] == ending["ts"]
    assert state["pace_ms"] == 0 and state["step_mode"] is False
    assert set(state["pod_status"].values()) == {"Running"}
    assert list(state["pod_requests"].values()) == [{"cpu": 0, "memory": 0}] * 3


def test_the_steps_a_snapshot_leaves_out_come_from_flow_steps_by_page(demo, client):
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    (trace,) = client.get("/clusters/demo/snapshot").json()["traces"]
    url = f"/clusters/demo/flow/steps?trace={trace['id']}"
    page = client.get(f"{url}&after={HEAD_STEPS}&limit=5").json()
    assert [s["seq"] for s in page["steps"]] == list(range(HEAD_STEPS + 1, HEAD_STEPS + 6)) and page["more"]
    rest = client.get(f"{url}&after={HEAD_STEPS}&before={trace['steps_total'] - TAIL_STEPS + 1}").json()
    assert len(rest["steps"]) == trace["steps_total"] - HEAD_STEPS - TAIL_STEPS and not rest["more"]
    assert set(rest["steps"][0]["title"]) == {"en", "zh"}
    assert client.get(f"{url}&after=-1").status_code == 400
    assert client.get("/clusters/demo/flow/steps?trace=nope").status_code == 404
    catalogue = client.get("/clusters/demo/flow/steps").json()["steps"]
    assert catalogue[0]["title"] == {"en": "Three list-watches are open", "zh": "三个 List-Watch 已就绪"}


def test_a_pod_s_requests_are_summed_as_kube_scheduler_does_sidecars_included(demo, client):
    pod = example("pod-nodename.yaml")
    spec = pod["spec"]
    spec["containers"][0]["resources"] = {"requests": {"cpu": "100m", "memory": "64Mi"}}
    sidecar = {"name": "log", "image": "busybox", "restartPolicy": "Always"}
    spec["initContainers"] = [
        {**sidecar, "resources": {"requests": {"cpu": "50m", "memory": "16Mi"}}},
        {"name": "setup", "image": "busybox", "resources": {"requests": {"cpu": "500m"}}},
    ]
    api.create(demo, pod, KUBECTL)
    state = client.get("/clusters/demo/snapshot").json()
    # The sidecar runs beside the containers (150m); the setup container runs after the sidecar
    # started, alone with it (550m): the larger wins.
    assert state["pod_requests"]["default/pod-example"] == {"cpu": 550, "memory": (64 + 16) * 2**20}


def test_the_scheduling_attempts_of_a_pending_pod_carry_the_engine_explanation(demo, client):
    drive()
    api.create(demo, example("pod-nodeselector.yaml"), KUBECTL)
    drive()
    body = client.get("/clusters/demo/scheduling/default/pod-example").json()
    (attempt,) = body["attempts"]
    assert attempt["result"] == "Unschedulable" and attempt["attempt"] == 1
    decision = attempt["decision"]
    assert decision["selected"] is None and decision["message"] == attempt["message"]
    assert decision["nodes"]["node1"]["firstFailure"]["plugin"] == "NodeAffinity"
    assert decision["nodes"]["master"]["firstFailure"]["plugin"] == "TaintToleration"
    pod = api.get(demo, "Pod", "default", "pod-example")
    (condition,) = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert condition["message"] == attempt["message"]


def test_pace_step_mode_next_and_continue_over_http(demo, client):
    assert client.post("/clusters/demo/flow/pace", {"pace_ms": 250}).json() == {
        "pace_ms": 250,
        "step_mode": False,
    }
    assert client.post("/clusters/demo/flow/step_mode", {"on": "true"}).json()["step_mode"] is True
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    trace = FlowTrace.objects.get(cluster=demo)
    # Next only while a step of the trace waits at the gate (no control plane runs here).
    refused = client.post("/clusters/demo/flow/next", {"trace": trace.pk})
    assert refused.status_code == 409
    assert refused.json() == {"error": "no step of this trace waits for Next"}
    assert client.post("/clusters/demo/flow/next", {"trace": "nope"}).status_code == 404
    FlowTrace.objects.filter(pk=trace.pk).update(gate_step=5)
    assert client.post("/clusters/demo/flow/next", {"trace": trace.pk}).json() == {"trace": trace.pk}
    assert FlowTrace.objects.get(pk=trace.pk).permits == 1
    # A second press before the step happened does not let two through.
    assert client.post("/clusters/demo/flow/next", {"trace": trace.pk}).status_code == 409
    assert FlowTrace.objects.get(pk=trace.pk).permits == 1
    # Continue: the trace in flight runs to its end; step mode stays on for the next one.
    assert client.post("/clusters/demo/flow/continue").json() == {"pace_ms": 250, "step_mode": True}
    assert FlowTrace.objects.get(pk=trace.pk).permits == gate.RUN_TO_END
    assert client.post("/clusters/demo/flow/step_mode", {"on": "false"}).json()["step_mode"] is False
    assert FlowTrace.objects.get(pk=trace.pk).permits == 0
    assert client.post("/clusters/demo/flow/pace", {"pace_ms": "fast"}).status_code == 400
    assert client.get(f"/clusters/demo/traces/{trace.pk}").json()["steps"][0]["step"] == 1
    assert Cluster.objects.get(name="demo").pace_ms == 250


def test_a_private_cluster_is_hidden(demo, client):
    Cluster.objects.filter(pk=demo.pk).update(public=False)
    assert Client().get("/clusters/demo/snapshot").status_code == 404
    assert client.get("/clusters/demo/snapshot").status_code == 200  # the teacher sees every cluster


def test_the_snapshot_at_a_revision_shows_the_cluster_as_it_was(demo, client, settings):
    before = Cluster.objects.get(pk=demo.pk).revision
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)
    created = Cluster.objects.get(pk=demo.pk).revision
    api.delete(demo, "Pod", "default", "pod-example", KUBECTL, grace_period=0)  # --force --grace-period=0
    then = client.get(f"/clusters/demo/snapshot?revision={created}").json()
    assert then["historical"] is True and then["revision"] == created
    assert [p["metadata"]["name"] for p in then["pods"]] == ["pod-example"]
    assert then["pod_status"] == {"default/pod-example": "Pending"}
    assert {n["metadata"]["name"] for n in then["nodes"]} == {"master", "node1", "node2"}
    assert client.get(f"/clusters/demo/snapshot?revision={before}").json()["pods"] == []
    assert client.get("/clusters/demo/snapshot").json()["pods"] == []
    for bad in ("x", "-1"):
        answer = client.get(f"/clusters/demo/snapshot?revision={bad}")
        assert (answer.status_code, answer.json()["kind"], answer.json()["code"]) == (400, "Status", 400)
    assert client.get("/clusters/demo/snapshot?revision=999999").status_code == 400
    Cluster.objects.filter(pk=demo.pk).update(compacted_revision=created)
    gone = client.get(f"/clusters/demo/snapshot?revision={before}")
    assert (gone.status_code, gone.json()["reason"]) == (410, "Expired")


def test_the_scheduling_endpoint_and_the_snapshot_say_where_a_pending_pod_waits(demo, client):
    drive()
    api.create(demo, example("pod-nodeselector.yaml"), KUBECTL)
    drive()
    queue = client.get("/clusters/demo/scheduling/default/pod-example").json()["queue"]
    assert queue["queue"] == "unschedulablePods"
    assert queue["rejectors"] == ["NodeAffinity", "TaintToleration"]
    assert queue["backoffSeconds"] == 1.0 and 0 <= queue["backoffLeftSeconds"] <= 1.0
    assert 0 < queue["flushInSeconds"] <= 300
    assert queue["retryText"]["en"].startswith("Will be retried when a node matching the pod's node selector")
    assert queue["retryText"]["zh"].startswith("将在以下情况重试")
    state = client.get("/clusters/demo/snapshot").json()
    assert state["scheduling"]["default/pod-example"]["rejectors"] == ["NodeAffinity", "TaintToleration"]
    assert state["scheduling"]["default/pod-example"]["message"] == queue["message"]
