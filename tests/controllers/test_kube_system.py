"""kube-system as kubeadm leaves it: the control plane's mirror pods, CoreDNS and its kube-dns
Service, kube-proxy and the CNI's DaemonSet, served read-only beside the stored objects and
neither counted by the scheduler nor drawn on the page."""

from __future__ import annotations

import json
import re

import pytest

from cluster.apiserver import service as api
from cluster.kinds.core import kubesystem
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
BASE = "/clusters/demo/api/v1/namespaces/kube-system"


def test_kubectl_get_pods_lists_the_control_plane_coredns_kube_proxy_and_the_cni(demo, teacher_client):
    table = teacher_client.get(f"{BASE}/pods", headers={"Accept": TABLE}).json()
    rows = {row["cells"][0]: row["cells"][1:3] + row["cells"][6:7] for row in table["rows"]}
    for component in ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"):
        assert rows.pop(f"{component}-master") == ["1/1", "Running", "master"]
    coredns = sorted(name for name in rows if name.startswith("coredns-674b8bbfcf-"))
    assert len(coredns) == 2 and all(rows.pop(name) == ["1/1", "Running", "master"] for name in coredns)
    for prefix in ("kube-proxy-", "kube-flannel-ds-"):
        mine = sorted(name for name in rows if name.startswith(prefix))
        assert sorted(rows.pop(name)[2] for name in mine) == ["master", "node1", "node2"]
    assert rows == {}


def test_a_mirror_pod_is_owned_by_its_node_and_carries_kubeadms_manifest(demo):
    pod = api.get(demo, "Pod", "kube-system", "kube-scheduler-master")
    master = api.get(demo, "Node", None, "master")
    (owner,) = pod["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
        "Node",
        "master",
        master["metadata"]["uid"],
        True,
    )
    assert pod["metadata"]["annotations"]["kubernetes.io/config.source"] == "file"
    assert pod["metadata"]["labels"] == {"component": "kube-scheduler", "tier": "control-plane"}
    spec = pod["spec"]
    assert spec["priorityClassName"] == "system-node-critical" and spec["priority"] == 2000001000
    assert spec["hostNetwork"] is True and pod["status"]["podIP"] == "192.168.56.10"
    assert spec["containers"][0]["command"][0] == "kube-scheduler"
    assert spec["containers"][0]["resources"] == {"requests": {"cpu": "100m"}}


def test_coredns_is_a_deployment_of_two_behind_kube_dns_at_10_96_0_10(demo, teacher_client):
    deployment = api.get(demo, "Deployment", "kube-system", "coredns")
    assert deployment["spec"]["replicas"] == 2 and deployment["status"]["readyReplicas"] == 2
    rs = api.get(demo, "ReplicaSet", "kube-system", "coredns-674b8bbfcf")
    assert rs["metadata"]["ownerReferences"][0]["uid"] == deployment["metadata"]["uid"]
    pods, _ = api.list_objects(demo, "Pod", "kube-system", label_selector="k8s-app=kube-dns", served=True)
    assert [p["metadata"]["ownerReferences"][0]["uid"] for p in pods] == [rs["metadata"]["uid"]] * 2
    service = teacher_client.get(f"{BASE}/services/kube-dns").json()
    assert service["spec"]["clusterIP"] == "10.96.0.10"
    assert [(p["name"], p["port"], p["protocol"]) for p in service["spec"]["ports"]] == [
        ("dns", 53, "UDP"),
        ("dns-tcp", 53, "TCP"),
        ("metrics", 9153, "TCP"),
    ]
    endpoints = api.get(demo, "Endpoints", "kube-system", "kube-dns")
    assert [a["ip"] for a in endpoints["subsets"][0]["addresses"]] == ["10.244.0.2", "10.244.0.3"]
    daemon_sets = {
        d["metadata"]["name"]: d["status"]["numberReady"]
        for d in api.list_objects(demo, "DaemonSet", "kube-system", served=True)[0]
    }
    assert daemon_sets == {"kube-flannel-ds": 3, "kube-proxy": 3}


def test_they_are_read_only_and_a_deletion_says_it_is_not_simulated(demo, teacher_client):
    answer = teacher_client.delete(f"{BASE}/pods/etcd-master")
    assert answer.status_code == 403
    assert answer.json()["message"] == (
        'pods "etcd-master" is forbidden: KubeSim serves kube-system as kubeadm leaves it, read-only; '
        "deleting its objects is not simulated"
    )
    answer = teacher_client.delete("/clusters/demo/apis/apps/v1/namespaces/kube-system/deployments/coredns")
    assert answer.status_code == 403
    assert api.get(demo, "Pod", "kube-system", "etcd-master")["status"]["phase"] == "Running"


def test_the_default_namespace_the_page_and_the_scheduler_do_not_see_them(demo, teacher_client):
    assert api.list_objects(demo, "Pod", "default")[0] == []
    drive()
    served = api.list_objects(demo, "Pod", None, field_selector="spec.nodeName=node1", served=True)[0]
    assert sorted(p["metadata"]["namespace"] for p in served) == ["kube-system", "kube-system"]
    # The cluster's own readers (informers, checks, a reset's clear) list what is stored.
    assert api.list_objects(demo, "Pod", None)[0] == [] and api.list_items(demo, "Pod") == []
    assert [s["metadata"]["name"] for s in api.list_objects(demo, "Service")[0]] == ["kubernetes"]
    snapshot = teacher_client.get("/clusters/demo/snapshot").json()
    assert snapshot["pods"] == [] and [s["metadata"]["name"] for s in snapshot["services"]] == ["kubernetes"]
    assert len(kubesystem.POD_NAMES) == 12


def test_their_logs_are_the_simulated_components_own_lines(demo, teacher_client):
    api.create(
        demo,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web"},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
        },
        KUBECTL,
    )
    drive()
    scheduler = teacher_client.get(f"{BASE}/pods/kube-scheduler-master/log").content.decode()
    assert '"Starting Kubernetes Scheduler" version="v1.33.1"' in scheduler
    assert re.search(
        r'\] "Successfully bound pod to node" pod="default/web" node="node[12]"$', scheduler, re.M
    )
    etcd = teacher_client.get(f"{BASE}/pods/etcd-master/log?tailLines=1").content.decode()
    assert json.loads(etcd)["msg"] == "serving client traffic securely"
    coredns = teacher_client.get(f"{BASE}/pods/{kubesystem.COREDNS_PODS[0]}/log").content.decode()
    assert coredns.splitlines()[2:] == ["CoreDNS-1.12.0", "linux/amd64, go1.23.3, 51e11f1"]
