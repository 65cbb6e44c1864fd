"""Drain, evictions, PodDisruptionBudgets and graceful deletion through the real kubectl, on the
demo cluster as `make run` loads it (the master keeps its control-plane taint)."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest

from tests.kubectl.conftest import Kubectl, _kubectl_binary, live_server
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl

PDB = """
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web-pdb
spec:
  minAvailable: 2
  selector:
    matchLabels:
      app: web
"""

SLEEPER = """
apiVersion: v1
kind: Pod
metadata:
  name: sleeper
spec:
  terminationGracePeriodSeconds: 4
  containers:
  - name: sleeper
    image: busybox:1.36
    command: ["sleep", "3600"]
"""


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory):
    binary = _kubectl_binary()
    with live_server(tmp_path_factory.mktemp("drain"), seed=None) as server:
        yield server, binary


@pytest.fixture(scope="module")
def kubectl(demo_server) -> Kubectl:
    server, binary = demo_server
    home = server.tmp / "home"
    home.mkdir(exist_ok=True)
    return Kubectl(binary, f"{server.http}/clusters/demo", home, server.kubeconfig("demo", "teacher"))


def _web_pods(kubectl) -> list[dict]:
    return json.loads(kubectl.ok("get", "pods", "-l", "app=web", "-o", "json"))["items"]


def _running_on(kubectl) -> list[str]:
    pods = [p for p in _web_pods(kubectl) if not p["metadata"].get("deletionTimestamp")]
    return sorted(p["spec"].get("nodeName", "") for p in pods if p["status"].get("phase") == "Running")


def _create_web(kubectl) -> None:
    created = kubectl.run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2")
    assert created.returncode == 0, created.stderr
    assert created.stdout == "deployment.apps/web created\n"
    if not wait_for(lambda: len(_running_on(kubectl)) == 2, 30):
        pytest.skip("the embedded control plane is not running inside `manage.py serve`")


@pytest.fixture
def cleanup(kubectl):
    yield
    for node in ("node1", "node2"):
        kubectl.run("uncordon", node)
    kubectl.run("delete", "pdb", "web-pdb", "--ignore-not-found")
    kubectl.run("delete", "deployment", "web", "--wait=false")
    wait_for(lambda: not _web_pods(kubectl), 30)


def test_drain_cordons_evicts_and_the_replacements_land_on_node1(kubectl, demo_server, cleanup):
    # node1 cordoned first, so both replicas start on node2 (the master keeps its control-plane taint).
    assert kubectl.ok("cordon", "node1") == "node/node1 cordoned\n"
    _create_web(kubectl)
    assert _running_on(kubectl) == ["node2", "node2"]
    assert kubectl.ok("uncordon", "node1") == "node/node1 uncordoned\n"
    drained = kubectl.run("drain", "node2", "--ignore-daemonsets", "--force", "--timeout=60s", timeout=90)
    assert drained.returncode == 0, drained.stderr
    lines = drained.stdout.splitlines()
    assert lines[0] == "node/node2 cordoned" and lines[-1] == "node/node2 drained"
    evicted = [line for line in lines if re.fullmatch(r"pod/web-[a-z0-9]+-[a-z0-9]{5} evicted", line)]
    assert len(evicted) == 2, drained.stdout + drained.stderr
    assert wait_for(lambda: _running_on(kubectl) == ["node1", "node1"], 30)
    nodes = kubectl.ok("get", "node", "node2", "--no-headers")
    assert nodes.split()[1] == "Ready,SchedulingDisabled"
    # The scheduler explains the replacements' placement: node2 fails NodeUnschedulable.
    replacement = _web_pods(kubectl)[0]["metadata"]["name"]
    with urllib.request.urlopen(
        f"{demo_server[0].http}/clusters/demo/scheduling/default/{replacement}"
    ) as answer:
        explanation = answer.read().decode()
    assert "node(s) were unschedulable" in explanation
    assert kubectl.ok("uncordon", "node2") == "node/node2 uncordoned\n"


def test_a_budget_makes_the_drain_wait_and_report_the_429(kubectl, cleanup):
    _create_web(kubectl)
    assert kubectl.ok("apply", "-f", "-", stdin=PDB) == "poddisruptionbudget.policy/web-pdb created\n"
    assert wait_for(
        lambda: (
            json.loads(kubectl.ok("get", "pdb", "web-pdb", "-o", "json"))["status"].get("expectedPods") == 2
        ),
        30,
    )
    table = kubectl.ok("get", "pdb")
    assert table.splitlines()[0].split() == [
        "NAME",
        "MIN",
        "AVAILABLE",
        "MAX",
        "UNAVAILABLE",
        "ALLOWED",
        "DISRUPTIONS",
        "AGE",
    ]
    assert table.splitlines()[1].split()[:4] == ["web-pdb", "2", "N/A", "0"]
    described = kubectl.ok("describe", "pdb", "web-pdb")
    assert "Min available:  2\nSelector:       app=web\nStatus:\n    Allowed disruptions:  0\n" in described
    node = _running_on(kubectl)[0]
    drained = kubectl.run("drain", node, "--ignore-daemonsets", "--force", "--timeout=8s", timeout=60)
    assert drained.returncode != 0
    assert re.search(
        r'error when evicting pods/"web-[a-z0-9]+-[a-z0-9]{5}" -n "default" \(will retry after 5s\): '
        r"Cannot evict pod as it would violate the pod's disruption budget\.",
        drained.stderr,
    ), drained.stderr
    assert len(_running_on(kubectl)) == 2  # nothing was evicted


def test_delete_wait_false_then_get_shows_terminating_until_the_kubelet_is_done(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=SLEEPER)
    if not wait_for(lambda: "Running" in kubectl.ok("get", "pod", "sleeper", "--no-headers"), 30):
        pytest.skip("the embedded control plane is not running inside `manage.py serve`")
    assert kubectl.ok("delete", "pod", "sleeper", "--wait=false") == 'pod "sleeper" deleted\n'
    row = kubectl.ok("get", "pod", "sleeper", "--no-headers").split()
    assert row[:3] == ["sleeper", "1/1", "Terminating"]
    # busybox's `sleep` ignores SIGTERM: it is killed when its 4 s grace period runs out.
    assert wait_for(lambda: kubectl.run("get", "pod", "sleeper").returncode != 0, 20)
    gone = kubectl.run("get", "pod", "sleeper")
    assert gone.stderr == 'Error from server (NotFound): pods "sleeper" not found\n'
