"""The taint manager and kube-system through the real kubectl, on the demo cluster as `make run`
loads it: a NoExecute taint evicts the pods that do not tolerate it, with upstream's Events;
kube-system lists what kubeadm leaves there."""

from __future__ import annotations

import json
import re

import pytest

from tests.kubectl.conftest import Kubectl, _kubectl_binary, live_server
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl

PODS = """
apiVersion: v1
kind: Pod
metadata:
  name: plain
spec:
  nodeName: node2
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: nginx:1.27
---
apiVersion: v1
kind: Pod
metadata:
  name: tolerant
spec:
  nodeName: node2
  tolerations:
  - key: evict
    operator: Exists
    effect: NoExecute
  containers:
  - name: c
    image: nginx:1.27
"""


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory) -> Kubectl:
    binary = _kubectl_binary()
    with live_server(tmp_path_factory.mktemp("nodefailure"), seed=None) as server:
        home = server.tmp / "home"
        home.mkdir(exist_ok=True)
        yield Kubectl(binary, f"{server.http}/clusters/demo", home, server.kubeconfig("demo", "teacher"))


def _phases(kubectl) -> dict[str, str]:
    items = json.loads(kubectl.ok("get", "pods", "-o", "json"))["items"]
    return {
        p["metadata"]["name"]: "Terminating"
        if p["metadata"].get("deletionTimestamp")
        else p["status"].get("phase")
        for p in items
    }


def test_a_no_execute_taint_evicts_the_pods_that_do_not_tolerate_it(kubectl):
    assert kubectl.ok("apply", "-f", "-", stdin=PODS) == "pod/plain created\npod/tolerant created\n"
    if not wait_for(lambda: _phases(kubectl) == {"plain": "Running", "tolerant": "Running"}, 30):
        pytest.skip("the embedded control plane is not running inside `manage.py serve`")
    try:
        assert kubectl.ok("taint", "nodes", "node2", "evict=now:NoExecute") == "node/node2 tainted\n"
        assert wait_for(lambda: "plain" not in _phases(kubectl), 30), _phases(kubectl)
        assert _phases(kubectl) == {"tolerant": "Running"}
        events = kubectl.ok("get", "events", "--field-selector", "reason=TaintManagerEviction")
        lines = events.splitlines()
        assert re.match(r"LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$", lines[0])
        assert [re.split(r"\s{2,}", line)[1:] for line in lines[1:]] == [
            ["Normal", "TaintManagerEviction", "pod/plain", "Marking for deletion Pod default/plain"]
        ]
        described = kubectl.ok("describe", "node", "node2")
        assert re.search(r"^Taints:\s+evict=now:NoExecute$", described, re.M)
    finally:
        kubectl.run("taint", "nodes", "node2", "evict-")
        kubectl.run("delete", "pod", "tolerant", "--grace-period=0", "--force")


def test_kube_system_lists_the_control_plane_coredns_and_kube_proxy(kubectl):
    pods = kubectl.ok("get", "pods", "-n", "kube-system")
    lines = pods.splitlines()
    assert re.match(r"NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$", lines[0])
    rows = {line.split()[0]: line.split()[1:4] for line in lines[1:]}
    assert all(cells == ["1/1", "Running", "0"] for cells in rows.values()), pods
    names = sorted(rows)
    for mirror in (
        "etcd-master",
        "kube-apiserver-master",
        "kube-controller-manager-master",
        "kube-scheduler-master",
    ):
        assert mirror in names
    assert len([n for n in names if re.fullmatch(r"coredns-674b8bbfcf-[a-z0-9]{5}", n)]) == 2
    assert len([n for n in names if re.fullmatch(r"kube-proxy-[a-z0-9]{5}", n)]) == 3
    assert len([n for n in names if re.fullmatch(r"kube-flannel-ds-[a-z0-9]{5}", n)]) == 3
    wide = kubectl.ok("get", "pods", "-n", "kube-system", "-l", "k8s-app=kube-proxy", "-o", "wide")
    assert sorted(line.split()[6] for line in wide.splitlines()[1:]) == ["master", "node1", "node2"]
    services = kubectl.ok("get", "svc", "-n", "kube-system").splitlines()
    assert re.split(r"\s{2,}", services[1])[:5] == [
        "kube-dns",
        "ClusterIP",
        "10.96.0.10",
        "<none>",
        "53/UDP,53/TCP,9153/TCP",
    ]
    deployments = kubectl.ok("get", "deploy", "-n", "kube-system").splitlines()
    assert deployments[1].split()[:4] == ["coredns", "2/2", "2", "2"]
    daemon_sets = kubectl.ok("get", "ds", "-n", "kube-system").splitlines()
    assert [line.split()[:6] for line in daemon_sets[1:]] == [
        ["kube-flannel-ds", "3", "3", "3", "3", "3"],
        ["kube-proxy", "3", "3", "3", "3", "3"],
    ]
    logs = kubectl.ok("logs", "-n", "kube-system", "kube-scheduler-master")
    assert '"Starting Kubernetes Scheduler" version="v1.33.1"' in logs
    refused = kubectl.run("delete", "pod", "-n", "kube-system", "etcd-master")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'Error from server (Forbidden): pods "etcd-master" is forbidden: KubeSim serves kube-system as '
        "kubeadm leaves it, read-only; deleting its objects is not simulated"
    )
    # The default namespace and the nodes' drawn pods are the course's: nothing of kube-system there.
    assert kubectl.run("get", "pods").stderr.strip() in ("No resources found in default namespace.", "")
