"""kube-proxy's NodePorts as the shell's network sees them (cluster/shell/services.py)."""

from __future__ import annotations

from cluster.shell.services import ServiceView, _internal_ips


def service(name: str, kind: str = "NodePort", **spec) -> dict:
    ports = [{"name": "http", "port": 80, "targetPort": 8080, "nodePort": 30080}]
    return {
        "metadata": {"namespace": "default", "name": name},
        "spec": {"type": kind, "ports": ports, **spec},
    }


def endpoints(*addresses: tuple[str, str]) -> dict:
    subset = {
        "addresses": [{"ip": ip, "nodeName": node} for ip, node in addresses],
        "ports": [{"name": "http", "port": 8080}],
    }
    return {"subsets": [subset] if addresses else []}


NODES = [
    {
        "metadata": {"name": name},
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}]
        },
    }
    for name, ip in (("node1", "192.168.56.11"), ("node2", "192.168.56.12"))
]


def view(svc: dict, eps: dict) -> ServiceView:
    return ServiceView([svc], {("default", svc["metadata"]["name"]): eps}, _internal_ips(NODES))


def test_every_node_forwards_its_node_port_to_a_ready_endpoint():
    v = view(service("web"), endpoints(("10.244.1.5", "node1")))
    assert v.nodes == {"192.168.56.11": "node1", "192.168.56.12": "node2"}
    assert v.node_port_route("192.168.56.11", 30080) == ("10.244.1.5", 8080)
    assert v.node_port_route("192.168.56.12", 30080) == ("10.244.1.5", 8080)  # not on node2: still sent
    assert v.node_port_route("192.168.56.12", 30081) is None  # no Service's: the node's own port


def test_no_ready_endpoint_is_refused_and_local_policy_drops_other_nodes():
    assert view(service("web"), endpoints()).node_port_route("192.168.56.11", 30080) == "refused"
    local = view(service("web", externalTrafficPolicy="Local"), endpoints(("10.244.1.5", "node1")))
    assert local.node_port_route("192.168.56.11", 30080) == ("10.244.1.5", 8080)
    assert local.node_port_route("192.168.56.12", 30080) == "timeout"


def test_a_cluster_ip_service_has_no_node_port():
    svc = service("web", kind="ClusterIP")
    assert view(svc, endpoints(("10.244.1.5", "node1"))).node_port_route("192.168.56.11", 30080) is None
    balanced = service("lb", kind="LoadBalancer")
    assert view(balanced, endpoints(("10.244.2.7", "node2"))).node_port_route("192.168.56.11", 30080) == (
        "10.244.2.7",
        8080,
    )
