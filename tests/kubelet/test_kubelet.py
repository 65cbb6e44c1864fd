from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.controlplane import runtime
from cluster.flow import gate
from cluster.kubelet.logs import read_log
from cluster.models import FlowTrace
from tests.support.demo import KUBECTL, drive, example

pytestmark = pytest.mark.django_db(transaction=True)


def test_kubelets_register_their_nodes(demo):
    drive()
    node = api.get(demo, "Node", None, "node1")
    status = node["status"]
    assert status["nodeInfo"]["kubeletVersion"].startswith("v1.33.")
    assert status["nodeInfo"]["containerRuntimeVersion"].startswith("docker://")
    ready = {c["type"]: c for c in status["conditions"]}["Ready"]
    assert ready["status"] == "True" and ready["reason"] == "KubeletReady"
    assert {a["type"] for a in status["addresses"]} == {"InternalIP", "Hostname"}
    assert status["allocatable"]["pods"] == "110"


def test_pulling_an_image_adds_it_to_the_node_and_emits_the_kubelet_events(demo):
    drive()
    pod = example("pod-nodename.yaml")
    pod["spec"]["containers"][0]["image"] = "redis:7"
    api.create(demo, pod, KUBECTL)
    drive()
    node = api.get(demo, "Node", None, "node1")
    names = [name for image in node["status"]["images"] for name in image["names"]]
    assert "redis:7" in names
    events, _ = api.list_objects(demo, "Event", "default")
    ours = [e for e in events if e["involvedObject"]["name"] == "pod-example"]
    reasons = [e["reason"] for e in sorted(ours, key=lambda e: e["metadata"]["resourceVersion"].zfill(12))]
    assert reasons == ["Pulling", "Pulled", "Created", "Started"]
    pulled = next(e for e in ours if e["reason"] == "Pulled")
    assert pulled["message"].startswith('Successfully pulled image "redis:7" in ')
    assert pulled["source"] == {"component": "kubelet", "host": "node1"}
    assert next(e for e in ours if e["reason"] == "Created")["message"] == "Created container: nginx"


def test_a_preloaded_image_is_already_present(demo):
    drive()
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)
    drive()
    events, _ = api.list_objects(demo, "Event", "default")
    messages = [e["message"] for e in events if e["reason"] == "Pulled"]
    assert messages == ['Container image "nginx:1.15" already present on machine']


def test_logs_of_a_running_nginx_and_of_a_waiting_container(demo):
    drive()
    quiet = example("pod-nodename.yaml")
    api.create(demo, quiet, KUBECTL)
    recent = example("pod-nodename.yaml")
    recent["metadata"]["name"] = "recent"
    recent["spec"]["containers"][0]["image"] = "nginx:1.25"
    api.create(demo, recent, KUBECTL)
    drive()
    assert read_log(demo, "default", "pod-example") == ""  # nginx:1.15 starts without a word
    text = read_log(demo, "default", "recent")
    assert "Configuration complete; ready for start up" in text
    assert read_log(demo, "default", "recent", tail_lines=1).count("\n") == 1
    bad = example("pod-nodename.yaml")
    bad["metadata"]["name"] = "broken"
    bad["spec"]["containers"][0]["image"] = "nginxx:1.0"
    api.create(demo, bad, KUBECTL)
    drive()
    with pytest.raises(ApiError) as error:
        read_log(demo, "default", "broken")
    assert error.value.code == 400
    assert error.value.message == (
        'container "nginx" in pod "broken" is waiting to start: image can\'t be pulled'
    )


def test_node_leases_are_renewed_in_kube_node_lease(demo):
    plane = async_to_sync(runtime.run_until_idle)("demo")
    plane.kubelets.renew_lease("node2")
    lease = api.get(demo, "Lease", "kube-node-lease", "node2")
    assert lease["spec"]["holderIdentity"] == "node2" and lease["spec"]["leaseDurationSeconds"] == 40
    first = lease["spec"]["renewTime"]
    plane.kubelets.renew_lease("node2")
    assert (
        api.get(demo, "Lease", "kube-node-lease", "node2")["metadata"]["resourceVersion"]
        != lease["metadata"]["resourceVersion"]
    )
    assert first


def test_a_status_report_refreshes_heartbeats_and_keeps_the_node_identity(demo, fake_clock):
    plane = async_to_sync(runtime.run_until_idle)("demo")
    before = api.get(demo, "Node", None, "node2")["status"]
    fake_clock.advance(1)  # timestamps have a resolution of one second
    async_to_sync(runtime.run_until_idle)("demo")
    plane.kubelets.report_node_status("node2")
    after = api.get(demo, "Node", None, "node2")["status"]
    assert after["nodeInfo"] == before["nodeInfo"]
    ready = {c["type"]: c for c in before["conditions"]}["Ready"]
    fresh = {c["type"]: c for c in after["conditions"]}["Ready"]
    assert fresh["lastHeartbeatTime"] > ready["lastHeartbeatTime"]
    assert fresh["lastTransitionTime"] == ready["lastTransitionTime"]


def busybox(name: str, **spec) -> dict:
    pod = example("pod-nodename.yaml")
    pod["metadata"]["name"] = name
    pod["spec"]["containers"] = [{"name": "busybox", "image": "busybox:1.36"}]
    pod["spec"].update(spec)
    return pod


def test_a_container_that_exits_at_once_crash_loops_or_completes(demo):
    drive()
    api.create(demo, busybox("loops"), KUBECTL)
    api.create(demo, busybox("once", restartPolicy="Never"), KUBECTL)
    sleeper = busybox("sleeper")
    sleeper["spec"]["containers"][0]["command"] = ["sleep", "3600"]
    api.create(demo, sleeper, KUBECTL)
    drive()
    loops = api.get(demo, "Pod", "default", "loops")["status"]
    (container,) = loops["containerStatuses"]
    assert loops["phase"] == "Running" and container["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert container["lastState"]["terminated"]["reason"] == "Completed" and not container["ready"]
    once = api.get(demo, "Pod", "default", "once")["status"]
    assert once["phase"] == "Succeeded"
    assert once["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 0
    assert api.get(demo, "Pod", "default", "sleeper")["status"]["phase"] == "Running"
    events, _ = api.list_objects(demo, "Event", "default")
    backoff = [e for e in events if e["reason"] == "BackOff" and e["involvedObject"]["name"] == "loops"]
    assert backoff and backoff[0]["type"] == "Warning"
    assert backoff[0]["message"].startswith(
        "Back-off restarting failed container busybox in pod loops_default("
    )


def test_a_new_image_for_a_running_pod_restarts_its_container(demo):
    drive()
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)
    drive()
    before = api.get(demo, "Pod", "default", "pod-example")
    pod = api.get(demo, "Pod", "default", "pod-example")
    pod["spec"]["containers"][0]["image"] = "nginx:1.16"
    api.update(demo, pod, KUBECTL)
    drive()
    after = api.get(demo, "Pod", "default", "pod-example")["status"]
    (container,) = after["containerStatuses"]
    assert container["image"] == "nginx:1.16" and container["restartCount"] == 1
    assert container["lastState"]["terminated"]["reason"] == "Completed"
    assert after["podIP"] == before["status"]["podIP"]
    events, _ = api.list_objects(demo, "Event", "default")
    assert "Container nginx definition changed, will be restarted" in [e["message"] for e in events]
    trace = FlowTrace.objects.filter(cluster=demo, kind="Pod", verb="update").get()
    steps = list(trace.steps.order_by("seq"))
    assert [s.step for s in steps] == [*range(1, 14), 0]
    assert [s.step for s in steps if s.skipped] == list(range(5, 12))


@pytest.mark.parametrize("stale_settings", [False, True])
def test_pods_reaching_the_kubelets_together_share_their_transactions(demo, monkeypatch, stale_settings):
    """Bound pods seen in one sync: their step 12 with ContainerCreating, each node's first pull
    and the started status are each written in one transaction for the pods, and each pod still
    gets its own steps, status and node image. Also when the flow's settings are stale at every
    ask: the workers share each read of them, and come back together."""
    from cluster.kubelet import podwrites

    drive()
    # Fresh at every ask, or stale at every ask: a cache expiring between two workers of one turn
    # (one served, the other reading) would split their batch, and that is neither case.
    monkeypatch.setattr(gate, "SETTINGS_TTL", 0.0 if stale_settings else 3600.0)
    batches: list[list[str]] = []
    write_in_turns = podwrites.writers.write_in_turns

    def recorded(items, write):
        written = write_in_turns(items, write)
        batches.append([item[0].__name__ for item in items[:written]])
        return written

    monkeypatch.setattr(podwrites.writers, "write_in_turns", recorded)
    # Nobody else queues for the writer here: a thread another test left waiting at the gate
    # would end the batches early (as it should), which is what the writer-gate tests check.
    monkeypatch.setattr(podwrites.writers, "urgent_waiting", lambda: False)
    for index, node in enumerate(("node1", "node2")):
        pod = example("pod-nodename.yaml")
        pod["metadata"]["name"] = f"redis-{index}"
        pod["spec"]["nodeName"] = node
        pod["spec"]["containers"][0]["image"] = "redis:7"
        api.create(demo, pod, KUBECTL)
    drive()

    assert batches == [["_write_creating"] * 2, ["_pulled"] * 2, ["_write_status"] * 2]
    for index, node in enumerate(("node1", "node2")):
        pod = api.get(demo, "Pod", "default", f"redis-{index}")
        assert pod["status"]["phase"] == "Running"
        trace = FlowTrace.objects.filter(cluster=demo, kind="Pod", name=f"redis-{index}").get()
        assert [s.step for s in trace.steps.order_by("seq")] == [*range(1, 14), 0]
        images = api.get(demo, "Node", None, node)["status"]["images"]
        assert any("redis:7" in image["names"] for image in images)
