"""The cluster's Services as a pod sees them: CoreDNS's answers for `svc.cluster.local` names and
kube-proxy's choice of an endpoint for a connection to a ClusterIP.

A ClusterIP is virtual: a connection to it on one of the Service's ports goes to a ready endpoint
(picked at random, as kube-proxy's iptables rules do) at its target port; with no ready endpoint
kube-proxy rejects it (Connection refused). A NodePort (or LoadBalancer) Service also answers on
every node's InternalIP at its nodePort, as kube-proxy on each node makes it. A headless
Service's name resolves to its ready endpoints' addresses. Read once per shell session, through
the API server.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cluster.apiserver import service as api

DOMAIN = "cluster.local"


@dataclass(slots=True)
class ServiceView:
    services: list[dict]
    endpoints: dict[tuple[str, str], dict] = field(default_factory=dict)
    nodes: dict[str, str] = field(default_factory=dict)  # a node's InternalIP -> its name

    def find(self, namespace: str, name: str) -> dict | None:
        for service in self.services:
            meta = service["metadata"]
            if meta.get("namespace") == namespace and meta["name"] == name:
                return service
        return None

    def by_ip(self, ip: str) -> dict | None:
        for service in self.services:
            spec = service.get("spec") or {}
            if ip in (spec.get("clusterIPs") or [spec.get("clusterIP")]):
                return service
        return None

    def ready_addresses(
        self, service: dict, port_name: str | None = None, any_port: bool = False, on_node: str | None = None
    ) -> list[tuple[str, int | None]]:
        """(pod IP, target port) of the Service's ready endpoints, for the port of that name (and
        only those on `on_node` when it is given)."""
        meta = service["metadata"]
        endpoints = self.endpoints.get((meta.get("namespace", ""), meta["name"])) or {}
        found = []
        for subset in endpoints.get("subsets") or []:
            ports = subset.get("ports") or []
            port = next((p for p in ports if (p.get("name") or "") == (port_name or "")), None)
            if ports and port is None and not any_port:
                continue
            for address in subset.get("addresses") or []:
                if on_node is not None and address.get("nodeName") != on_node:
                    continue
                found.append((address.get("ip", ""), port.get("port") if port else None))
        return found

    def answer(self, fqdn: str) -> list[str] | None:
        """CoreDNS: `<service>.<namespace>.svc.cluster.local` → its ClusterIP, or for a headless
        Service its ready endpoints' IPs; None when no such Service (NXDOMAIN)."""
        suffix = f".svc.{DOMAIN}"
        if not fqdn.endswith(suffix):
            return None
        parts = fqdn[: -len(suffix)].split(".")
        if len(parts) == 3:  # <hostname>.<service>.<namespace>: a pod of a headless Service
            return self.hostname_answer(parts[2], parts[1], parts[0])
        if len(parts) != 2:
            return None
        service = self.find(parts[1], parts[0])
        if service is None:
            return None
        spec = service.get("spec") or {}
        if spec.get("type") == "ExternalName":
            return None
        if spec.get("clusterIP") == "None":
            return sorted({ip for ip, _ in self.ready_addresses(service, None, any_port=True)}) or None
        return [spec.get("clusterIP", "")]

    def hostname_answer(self, namespace: str, service_name: str, hostname: str) -> list[str] | None:
        """CoreDNS: the ready endpoint of a headless Service that carries this hostname (a
        StatefulSet's pod, `web-0.web.default.svc.cluster.local`); None: NXDOMAIN."""
        service = self.find(namespace, service_name)
        if service is None or (service.get("spec") or {}).get("clusterIP") != "None":
            return None
        endpoints = self.endpoints.get((namespace, service_name)) or {}
        found = {
            address.get("ip", "")
            for subset in endpoints.get("subsets") or []
            for address in subset.get("addresses") or []
            if address.get("hostname") == hostname
        }
        return sorted(found) or None

    def route(self, ip: str, port: int) -> tuple[str, int] | str:
        """Where kube-proxy sends a connection to ip:port: (pod IP, port), or why not: "refused"
        (a Service port with no ready endpoint) or "timeout" (no such Service port)."""
        service = self.by_ip(ip)
        ports = (service.get("spec") or {}).get("ports") or [] if service else []
        chosen = next((p for p in ports if p.get("port") == port), None)
        if service is None or chosen is None:
            return "timeout"
        backends = [(a, p) for a, p in self.ready_addresses(service, chosen.get("name")) if p]
        if not backends:
            return "refused"
        return random.choice(backends)

    def node_port_route(self, node_ip: str, port: int) -> tuple[str, int] | str | None:
        """Where kube-proxy on the node with this InternalIP sends a connection to its port: a
        ready endpoint of the Service with that nodePort; "refused" when the Service has no ready
        endpoint (kube-proxy's REJECT); "timeout" when `externalTrafficPolicy: Local` and none of
        them runs on this node (kube-proxy drops it); None when no Service has that nodePort."""
        node = self.nodes.get(node_ip, "")
        for service in self.services:
            spec = service.get("spec") or {}
            if spec.get("type") not in ("NodePort", "LoadBalancer"):
                continue
            chosen = next((p for p in spec.get("ports") or [] if p.get("nodePort") == port), None)
            if chosen is None:
                continue
            backends = [(a, p) for a, p in self.ready_addresses(service, chosen.get("name")) if p]
            if not backends:
                return "refused"
            if spec.get("externalTrafficPolicy") == "Local":
                backends = [
                    (a, p) for a, p in self.ready_addresses(service, chosen.get("name"), on_node=node) if p
                ]
                if not backends:
                    return "timeout"
            return random.choice(backends)
        return None


def _internal_ips(nodes: list[dict]) -> dict[str, str]:
    found = {}
    for node in nodes:
        for address in (node.get("status") or {}).get("addresses") or []:
            if address.get("type") == "InternalIP" and address.get("address"):
                found[address["address"]] = node["metadata"]["name"]
    return found


def load(cluster) -> ServiceView:
    services, _ = api.list_objects(cluster, "Service")
    endpoints, _ = api.list_objects(cluster, "Endpoints")
    nodes, _ = api.list_objects(cluster, "Node")
    return ServiceView(
        services,
        {(e["metadata"].get("namespace", ""), e["metadata"]["name"]): e for e in endpoints},
        _internal_ips(nodes),
    )


def link_env(view: ServiceView, namespace: str, started_at: str) -> list[tuple[str, str]]:
    """The Docker-link variables the kubelet gives a container (enableServiceLinks) for each
    Service of its namespace that existed when it started: WEB_SERVICE_HOST, WEB_PORT_80_TCP, ...
    (the `kubernetes` Service's are the context's own)."""
    out: list[tuple[str, str]] = []
    for service in view.services:
        meta, spec = service["metadata"], service.get("spec") or {}
        ip = spec.get("clusterIP")
        if meta.get("namespace") != namespace or (namespace, meta["name"]) == ("default", "kubernetes"):
            continue
        if not ip or ip == "None" or (started_at and meta.get("creationTimestamp", "") > started_at):
            continue
        prefix = meta["name"].upper().replace("-", "_")
        ports = spec.get("ports") or []
        if not ports:
            continue
        first = ports[0]
        out += [(f"{prefix}_SERVICE_HOST", ip), (f"{prefix}_SERVICE_PORT", str(first.get("port")))]
        for port in ports:
            if port.get("name"):
                name = port["name"].upper().replace("-", "_")
                out.append((f"{prefix}_SERVICE_PORT_{name}", str(port.get("port"))))
        protocol = first.get("protocol", "TCP").lower()
        out.append((f"{prefix}_PORT", f"{protocol}://{ip}:{first.get('port')}"))
        for port in ports:
            proto = port.get("protocol", "TCP")
            base = f"{prefix}_PORT_{port.get('port')}_{proto}"
            out += [
                (base, f"{proto.lower()}://{ip}:{port.get('port')}"),
                (f"{base}_PROTO", proto.lower()),
                (f"{base}_PORT", str(port.get("port"))),
                (f"{base}_ADDR", ip),
            ]
    return out
