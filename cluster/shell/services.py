"""The cluster's Services as a pod sees them: CoreDNS's answers for `svc.cluster.local` names and
kube-proxy's choice of an endpoint for a connection to a ClusterIP.

A ClusterIP is virtual: a connection to it on one of the Service's ports goes to a ready endpoint
(picked at random, as kube-proxy's iptables rules do) at its target port; with no ready endpoint
kube-proxy rejects it (Connection refused). A headless Service's name resolves to its ready
endpoints' addresses. Read once per shell session, through the API server.
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
        self, service: dict, port_name: str | None = None, any_port: bool = False
    ) -> list[tuple[str, int | None]]:
        """(pod IP, target port) of the Service's ready endpoints, for the port of that name."""
        meta = service["metadata"]
        endpoints = self.endpoints.get((meta.get("namespace", ""), meta["name"])) or {}
        found = []
        for subset in endpoints.get("subsets") or []:
            ports = subset.get("ports") or []
            port = next((p for p in ports if (p.get("name") or "") == (port_name or "")), None)
            if ports and port is None and not any_port:
                continue
            for address in subset.get("addresses") or []:
                found.append((address.get("ip", ""), port.get("port") if port else None))
        return found

    def answer(self, fqdn: str) -> list[str] | None:
        """CoreDNS: `<service>.<namespace>.svc.cluster.local` → its ClusterIP, or for a headless
        Service its ready endpoints' IPs; None when no such Service (NXDOMAIN)."""
        suffix = f".svc.{DOMAIN}"
        if not fqdn.endswith(suffix):
            return None
        parts = fqdn[: -len(suffix)].split(".")
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


def load(cluster) -> ServiceView:
    services, _ = api.list_objects(cluster, "Service")
    endpoints, _ = api.list_objects(cluster, "Endpoints")
    return ServiceView(
        services,
        {(e["metadata"].get("namespace", ""), e["metadata"]["name"]): e for e in endpoints},
    )
