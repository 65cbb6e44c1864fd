from __future__ import annotations

import time

import pytest
from asgiref.sync import async_to_sync

from cluster import controlplane
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.kubelet.logs import read_log
from tests.flow.support import KUBECTL, example

pytestmark = pytest.mark.django_db(transaction=True)


def drive() -> None:
    async_to_sync(controlplane.run_until_idle)("demo")


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
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)
    drive()
    text = read_log(demo, "default", "pod-example")
    assert "Configuration complete; ready for start up" in text
    assert read_log(demo, "default", "pod-example", tail_lines=1).count("\n") == 1
    bad = example("pod-nodename.yaml")
    bad["metadata"]["name"] = "broken"
    bad["spec"]["containers"][0]["image"] = "nginxx:1.0"
    api.create(demo, bad, KUBECTL)
    drive()
    with pytest.raises(ApiError) as error:
        read_log(demo, "default", "broken")
    assert error.value.code == 400
    assert error.value.message == (
        'container "nginx" in pod "broken" is waiting to start: trying and failing to pull image'
    )


def test_node_leases_are_renewed_in_kube_node_lease(demo):
    plane = async_to_sync(controlplane.run_until_idle)("demo")
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


def test_a_status_report_refreshes_heartbeats_and_keeps_the_node_identity(demo):
    plane = async_to_sync(controlplane.run_until_idle)("demo")
    before = api.get(demo, "Node", None, "node2")["status"]
    time.sleep(1.1)  # timestamps have a resolution of one second
    async_to_sync(controlplane.run_until_idle)("demo")
    plane.kubelets.report_node_status("node2")
    after = api.get(demo, "Node", None, "node2")["status"]
    assert after["nodeInfo"] == before["nodeInfo"]
    ready = {c["type"]: c for c in before["conditions"]}["Ready"]
    fresh = {c["type"]: c for c in after["conditions"]}["Ready"]
    assert fresh["lastHeartbeatTime"] > ready["lastHeartbeatTime"]
    assert fresh["lastTransitionTime"] == ready["lastTransitionTime"]
