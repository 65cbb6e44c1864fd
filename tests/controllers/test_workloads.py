from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.models import FlowTrace
from tests.support.demo import KUBECTL, drive, example

pytestmark = pytest.mark.django_db(transaction=True)


def settle(fake_clock, seconds: float = 1) -> None:
    """Drive, let the kubelets' stopping containers exit (nginx takes 1 s), and drive again."""
    drive()
    fake_clock.advance(seconds)
    drive()


def pods(cluster, **selector) -> list[dict]:
    items, _ = api.list_objects(cluster, "Pod", "default")
    return [p for p in items if all(p["metadata"].get("labels", {}).get(k) == v for k, v in selector.items())]


def test_an_rc_runs_its_replicas_with_owner_references_and_status(demo):
    drive()
    rc = api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    running = pods(demo, app="nginx")
    assert len(running) == 3
    for pod in running:
        assert (
            pod["metadata"]["name"].startswith("nginx-") and len(pod["metadata"]["name"]) == len("nginx-") + 5
        )
        (ref,) = pod["metadata"]["ownerReferences"]
        assert ref["uid"] == rc["metadata"]["uid"] and ref["controller"] is True
        assert pod["status"]["phase"] == "Running"
        assert pod["spec"]["nodeName"] in ("node1", "node2")  # the master's taint keeps it away
    status = api.get(demo, "ReplicationController", "default", "nginx")["status"]
    assert status["replicas"] == status["readyReplicas"] == status["availableReplicas"] == 3
    assert status["observedGeneration"] == 1


def test_an_rc_recreates_a_deleted_pod(demo, fake_clock):
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    victim = pods(demo, app="nginx")[0]["metadata"]["name"]
    api.delete(demo, "Pod", "default", victim, KUBECTL)
    drive()
    # The replacement runs at once; the victim is Terminating until its kubelet stopped nginx.
    by_name = {p["metadata"]["name"]: p for p in pods(demo, app="nginx")}
    assert len(by_name) == 4 and by_name[victim]["metadata"]["deletionGracePeriodSeconds"] == 30
    assert sum(1 for p in by_name.values() if p["status"].get("phase") == "Running") == 4
    fake_clock.advance(1)
    drive()
    names = [p["metadata"]["name"] for p in pods(demo, app="nginx")]
    assert len(names) == 3 and victim not in names
    trace = FlowTrace.objects.get(cluster=demo, kind="Pod", name=victim, verb="delete")
    assert [s.step for s in trace.steps.order_by("seq")] == [*range(1, 14), 0]


def test_scaling_an_rc_down_and_up(demo, fake_clock):
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    api.scale(demo, "ReplicationController", "default", "nginx", 1, KUBECTL)
    drive()
    assert len([p for p in pods(demo, app="nginx") if not p["metadata"].get("deletionTimestamp")]) == 1
    settle(fake_clock)
    assert len(pods(demo, app="nginx")) == 1
    api.scale(demo, "ReplicationController", "default", "nginx", 4, KUBECTL)
    drive()
    assert len([p for p in pods(demo, app="nginx") if p["status"]["phase"] == "Running"]) == 4


def deployment(image: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": image}]},
            },
        },
    }


def test_a_deployment_image_change_rolls_its_pods(demo, fake_clock):
    drive()
    api.create(demo, deployment("nginx:1.15"), KUBECTL)
    drive()
    first = {p["metadata"]["name"] for p in pods(demo, app="web")}
    assert len(first) == 3
    sets, _ = api.list_objects(demo, "ReplicaSet", "default")
    assert len(sets) == 1 and sets[0]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    current = api.get(demo, "Deployment", "default", "web")
    current["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.16"
    api.update(demo, current, KUBECTL)
    settle(fake_clock)
    after = pods(demo, app="web")
    assert len(after) == 3 and not first & {p["metadata"]["name"] for p in after}
    assert {p["spec"]["containers"][0]["image"] for p in after} == {"nginx:1.16"}
    assert all(p["status"]["phase"] == "Running" for p in after)
    sets, _ = api.list_objects(demo, "ReplicaSet", "default")
    replicas = {
        s["metadata"]["annotations"]["deployment.kubernetes.io/revision"]: s["spec"]["replicas"] for s in sets
    }
    assert replicas == {"1": 0, "2": 3}
    status = api.get(demo, "Deployment", "default", "web")["status"]
    assert status["updatedReplicas"] == status["availableReplicas"] == 3
    conditions = {c["type"]: c["reason"] for c in status["conditions"]}
    assert conditions == {"Available": "MinimumReplicasAvailable", "Progressing": "NewReplicaSetAvailable"}


def test_a_pending_pod_is_scheduled_after_its_node_is_labelled(demo, fake_clock):
    drive()
    api.create(demo, example("pod-nodeselector-zz.yaml"), KUBECTL)
    drive()
    pod = api.get(demo, "Pod", "default", "pod-example-zz")
    assert pod["status"]["phase"] == "Pending" and not pod["spec"].get("nodeName")
    (condition,) = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert condition["reason"] == "Unschedulable"
    assert condition["message"].startswith("0/3 nodes are available:")
    api.patch(
        demo,
        "Node",
        None,
        "node1",
        {"metadata": {"labels": {"zz": "cxk"}}},
        "application/merge-patch+json",
        KUBECTL,
    )
    # The pod's 1 s back-off is over (the scheduler's clock is moved, not waited for).
    fake_clock.advance(1.1)
    drive()
    pod = api.get(demo, "Pod", "default", "pod-example-zz")
    assert pod["spec"]["nodeName"] == "node1" and pod["status"]["phase"] == "Running"
    events, _ = api.list_objects(demo, "Event", "default")
    reasons = [(e["reason"], e["message"]) for e in events if e["involvedObject"]["name"] == "pod-example-zz"]
    assert ("Scheduled", "Successfully assigned default/pod-example-zz to node1") in reasons
    assert any(reason == "FailedScheduling" for reason, _ in reasons)


def test_a_recreate_deployment_replaces_all_pods_at_once(demo, fake_clock):
    drive()
    body = deployment("nginx:1.15")
    body["spec"]["strategy"] = {"type": "Recreate"}
    api.create(demo, body, KUBECTL)
    drive()
    current = api.get(demo, "Deployment", "default", "web")
    current["spec"]["template"]["spec"]["containers"][0]["image"] = "httpd:2.4"
    api.update(demo, current, KUBECTL)
    drive()
    # Recreate: no new pod while an old one still runs (terminating, its nginx stopping).
    assert {p["spec"]["containers"][0]["image"] for p in pods(demo, app="web")} == {"nginx:1.15"}
    assert all(p["metadata"].get("deletionTimestamp") for p in pods(demo, app="web"))
    settle(fake_clock)
    after = pods(demo, app="web")
    assert len(after) == 3 and {p["spec"]["containers"][0]["image"] for p in after} == {"httpd:2.4"}
    events, _ = api.list_objects(demo, "Event", "default")
    scaling = [e["message"] for e in events if e["reason"] == "ScalingReplicaSet"]
    assert any(m.endswith("from 3 to 0") for m in scaling)
    assert any(m.startswith("Scaled up replica set web-") and m.endswith("from 0 to 3") for m in scaling)


def test_an_rc_adopts_a_matching_bare_pod(demo):
    drive()
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)  # labels app=nginx, as the RC selects
    drive()
    rc = api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    running = pods(demo, app="nginx")
    assert len(running) == 3
    adopted = api.get(demo, "Pod", "default", "pod-example")
    assert adopted["metadata"]["ownerReferences"][0]["uid"] == rc["metadata"]["uid"]
    trace = FlowTrace.objects.get(cluster=demo, kind="ReplicationController")
    assert "counts 1 of 3" in trace.steps.get(step=6).detail_en


def test_rc_replicas_get_the_default_spreading_that_bare_pods_do_not(demo):
    from scheduler.service import attempts

    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    solo = example("pod-nodename.yaml")
    solo["metadata"] = {"name": "solo", "labels": {"app": "solo"}}
    del solo["spec"]["nodeName"]
    api.create(demo, solo, KUBECTL)
    drive()
    replica = pods(demo, app="nginx")[-1]["metadata"]["name"]
    decision = attempts(demo, "default", replica)[0]["decision"]
    # The RC selects the replica, so the cluster-default constraints (hostname, zone) apply.
    assert "PodTopologySpread" not in decision["skippedScores"]
    assert "PodTopologySpread" in decision["nodes"][decision["selected"]]["scores"]
    # No controller selects app=solo: nothing to spread.
    assert "PodTopologySpread" in attempts(demo, "default", "solo")[0]["decision"]["skippedScores"]
