"""A NodePort Service answers on every node's InternalIP at its nodePort, as kube-proxy on each
node makes it: curl and wget from `kubectl exec` reach nginx through master, node1 and node2."""

from __future__ import annotations

import json

import pytest

from tests.kubectl.conftest import own_demo
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl
NS = "nodeport-lab"


@pytest.fixture(scope="module")
def demo_kubectl(kubesim, kubectl):
    """A demo cluster of its own: its nodes are the demo's, each with its InternalIP."""
    return own_demo(kubesim, kubectl, "nodeports")


@pytest.fixture(scope="module")
def lab(demo_kubectl):
    demo_kubectl.ok("create", "namespace", NS)
    yield NS
    demo_kubectl.run("delete", "namespace", NS, "--wait=false")


def _internal_ips(kubectl) -> dict[str, str]:
    nodes = json.loads(kubectl.ok("get", "nodes", "-o", "json"))["items"]
    return {
        address["address"]: node["metadata"]["name"]
        for node in nodes
        for address in node["status"].get("addresses") or []
        if address["type"] == "InternalIP"
    }


def test_a_node_port_answers_on_every_nodes_address(demo_kubectl, lab):
    kubectl = demo_kubectl
    kubectl.ok("create", "deployment", "web", "--image=nginx:1.27", "-n", lab)
    exposed = kubectl.ok("expose", "deployment", "web", "--type=NodePort", "--port=80", "-n", lab)
    assert exposed == "service/web exposed\n"
    kubectl.ok("run", "client", "--image=busybox:1.36", "-n", lab, "--", "sleep", "3600")
    service = json.loads(kubectl.ok("get", "svc", "web", "-n", lab, "-o", "json"))
    node_port = service["spec"]["ports"][0]["nodePort"]
    assert 30000 <= node_port <= 32767

    def ready():
        got = kubectl.run("get", "endpoints", "web", "-n", lab).stdout
        phase = kubectl.run("get", "pod", "client", "-n", lab, "-o", "jsonpath={.status.phase}").stdout
        return ":80" in got and phase == "Running"

    assert wait_for(ready)
    ips = _internal_ips(kubectl)
    assert sorted(ips.values()) == ["master", "node1", "node2"]
    web = json.loads(kubectl.ok("get", "pods", "-l", "app=web", "-n", lab, "-o", "json"))["items"][0]
    for ip in ips:
        page = kubectl.ok(
            "exec", web["metadata"]["name"], "-n", lab, "--", "curl", "-s", f"http://{ip}:{node_port}/"
        )
        assert "<title>Welcome to nginx!</title>" in page, ip
        fetched = kubectl.ok("exec", "client", "-n", lab, "--", "wget", "-qO-", f"http://{ip}:{node_port}")
        assert "<title>Welcome to nginx!</title>" in fetched, ip

    # A port no Service has on the node: nothing listens there.
    ip = next(iter(ips))
    closed = 30000 if node_port != 30000 else 30001
    refused = kubectl.run(
        "exec", web["metadata"]["name"], "-n", lab, "--", "curl", "-s", "-S", f"http://{ip}:{closed}/"
    )
    assert refused.returncode == 7
    assert refused.stderr.startswith(
        f"curl: (7) Failed to connect to {ip} port {closed} after 0 ms: Couldn't connect to server\n"
    )
    # Scaled to zero, the NodePort has no ready endpoint: kube-proxy rejects the connection.
    kubectl.ok("scale", "deployment", "web", "--replicas=0", "-n", lab)
    assert wait_for(lambda: ":80" not in kubectl.run("get", "endpoints", "web", "-n", lab).stdout)
    gone = kubectl.run("exec", "client", "-n", lab, "--", "wget", "-qO-", f"http://{ip}:{node_port}")
    assert gone.returncode == 1
    assert f"wget: can't connect to remote host ({ip}): Connection refused" in gone.stderr
