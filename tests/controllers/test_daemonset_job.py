"""DaemonSets and Jobs on the demo cluster, driven through the whole control plane."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.models import FlowTrace
from k8s import clock
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)


def owned(cluster, owner: dict) -> list[dict]:
    """The owner's pods, but those already on their way out (graceful deletion's terminating ones)."""
    items, _ = api.list_objects(cluster, "Pod", "default")
    uid = owner["metadata"]["uid"]
    return [
        p
        for p in items
        if any(r.get("uid") == uid for r in p["metadata"].get("ownerReferences") or [])
        and not p["metadata"].get("deletionTimestamp")
    ]


def daemon_set(name: str = "agent", **template_spec) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}], **template_spec},
            },
        },
    }


def job(name: str, command: list[str], **spec) -> dict:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            **spec,
            "template": {
                "spec": {
                    "restartPolicy": spec.pop("restartPolicy", "Never"),
                    "containers": [{"name": name, "image": "busybox:1.36", "command": command}],
                }
            },
        },
    }


def test_a_daemon_set_runs_one_pod_per_schedulable_node_placed_by_its_match_fields_term(demo):
    drive()
    ds = api.create(demo, daemon_set(), KUBECTL)
    drive()
    pods = owned(demo, ds)
    # The master's NoSchedule taint is not tolerated by default: node1 and node2 only.
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node1", "node2"]
    for pod in pods:
        terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        node = pod["spec"]["nodeName"]
        assert terms == {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
            ]
        }
        keys = [(t["key"], t["effect"]) for t in pod["spec"]["tolerations"]]
        assert ("node.kubernetes.io/unschedulable", "NoSchedule") in keys
        assert pod["status"]["phase"] == "Running"
    status = api.get(demo, "DaemonSet", "default", "agent")["status"]
    assert status["desiredNumberScheduled"] == status["currentNumberScheduled"] == 2
    assert status["numberReady"] == status["numberAvailable"] == status["updatedNumberScheduled"] == 2
    assert status["numberMisscheduled"] == 0 and status["observedGeneration"] == 1


def test_a_daemon_set_follows_node_labels_and_rolls_out_a_new_template(demo):
    drive()
    ds = api.create(demo, daemon_set("disk", nodeSelector={"disk": "ssd"}), KUBECTL)
    drive()
    assert owned(demo, ds) == []
    api.patch(
        demo,
        "Node",
        None,
        "node2",
        {"metadata": {"labels": {"disk": "ssd"}}},
        "application/merge-patch+json",
        KUBECTL,
    )
    drive()
    (pod,) = owned(demo, ds)
    assert pod["spec"]["nodeName"] == "node2"
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}
    api.patch(demo, "DaemonSet", "default", "disk", patch, "application/strategic-merge-patch+json", KUBECTL)
    drive()
    (pod,) = owned(demo, ds)
    assert pod["spec"]["containers"][0]["image"] == "nginx:1.25" and pod["status"]["phase"] == "Running"
    status = api.get(demo, "DaemonSet", "default", "disk")["status"]
    assert status["updatedNumberScheduled"] == 1 and status["observedGeneration"] == 2
    api.patch(
        demo,
        "Node",
        None,
        "node2",
        {"metadata": {"labels": {"disk": None}}},
        "application/merge-patch+json",
        KUBECTL,
    )
    drive()
    assert owned(demo, ds) == []


def test_a_job_runs_its_completions_to_complete(demo):
    drive()
    created = api.create(demo, job("hello", ["echo", "hi"], completions=2, parallelism=1), KUBECTL)
    drive()
    drive()
    done = api.get(demo, "Job", "default", "hello")
    assert done["status"]["succeeded"] == 2
    assert [c["type"] for c in done["status"]["conditions"]] == ["SuccessCriteriaMet", "Complete"]
    assert done["status"]["completionTime"]
    pods = owned(demo, created)
    assert len(pods) == 2 and all(p["status"]["phase"] == "Succeeded" for p in pods)
    state = pods[0]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (state["exitCode"], state["reason"]) == (0, "Completed")


def test_a_failing_job_stops_at_its_backoff_limit(demo):
    drive()
    api.create(demo, job("fail", ["sh", "-c", "exit 1"], backoffLimit=1), KUBECTL)
    for _ in range(4):
        drive()
    failed = api.get(demo, "Job", "default", "fail")
    assert failed["status"]["failed"] == 2
    (target, condition) = failed["status"]["conditions"]
    assert target["type"] == "FailureTarget"
    assert (condition["type"], condition["reason"], condition["message"]) == (
        "Failed",
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
    )


def test_a_sleeping_job_pod_completes_after_its_duration_on_the_clock(demo, fake_clock):
    drive()
    created = api.create(demo, job("nap", ["sleep", "30"]), KUBECTL)
    drive()
    (pod,) = owned(demo, created)
    assert pod["status"]["phase"] == "Running"
    fake_clock.advance(31)
    drive()
    drive()
    (pod,) = owned(demo, created)
    assert pod["status"]["phase"] == "Succeeded"
    assert api.get(demo, "Job", "default", "nap")["status"]["succeeded"] == 1
    assert clock.monotonic() == fake_clock.monotonic()


def _steps(cluster, kind: str) -> list[int]:
    trace = FlowTrace.objects.get(cluster=cluster, kind=kind, verb="create")
    return sorted({s.step for s in trace.steps.all()})


def test_job_and_daemon_set_pods_go_through_the_13_steps_like_rc_pods(demo):
    drive()
    api.create(demo, job("steps", ["sleep", "60"]), KUBECTL)
    api.create(demo, daemon_set("walk"), KUBECTL)
    drive()
    # Every step of the flow, then the ending entry (0) once the pods run.
    assert _steps(demo, "Job") == list(range(14))
    assert _steps(demo, "DaemonSet") == list(range(14))


def test_a_daemon_set_follows_nodes_added_and_removed(demo):
    drive()
    ds = api.create(demo, daemon_set("follow"), KUBECTL)
    drive()
    node3 = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node3", "labels": {"kubernetes.io/hostname": "node3"}},
        "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    api.create(demo, node3, KUBECTL)
    drive()
    assert sorted(p["spec"].get("nodeName") for p in owned(demo, ds)) == ["node1", "node2", "node3"]
    api.delete(demo, "Node", None, "node3", KUBECTL)
    drive()
    assert sorted(p["spec"].get("nodeName") for p in owned(demo, ds)) == ["node1", "node2"]
    assert api.get(demo, "DaemonSet", "default", "follow")["status"]["desiredNumberScheduled"] == 2
