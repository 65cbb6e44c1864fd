"""ClusterIP and NodePort allocation: the API server's part of creating a Service.

Runs as an admission function, inside the write's transaction and under the cluster row lock, so
two Services never get the same address or port. Used addresses are read from the stored
Services (a deleted Service frees its address with its row). The service CIDR is kubeadm's
10.96.0.0/12 (`KUBESIM_SERVICE_CIDR`); its first address belongs to the `kubernetes` Service and
10.96.0.10 to cluster DNS, as on a kubeadm cluster. Wording is upstream's (`pkg/registry/core/
service/ipallocator`, `portallocator`).
"""

from __future__ import annotations

import ipaddress
import json
import random

from django.conf import settings

from cluster.apiserver import rows
from cluster.apiserver.admission import chain
from cluster.apiserver.errors import ApiError, Cause, invalid
from cluster.apiserver.kinds import kind_info
from cluster.models import ApiObject

NONE = "None"  # the clusterIP of a headless Service: no address
NODE_PORTS = range(30000, 32768)
NODE_PORT_RANGE = "30000-32767"
_RANDOM_TRIES = 64
# KubeSim's bound on one Service's node ports (upstream has none): one Service with thousands of
# ports would otherwise take the class's whole range. Refused as upstream words a list too long.
MAX_NODE_PORTS_PER_SERVICE = 100


def service_cidr() -> ipaddress.IPv4Network:
    return ipaddress.ip_network(settings.KUBESIM_SERVICE_CIDR)


def kubernetes_ip() -> str:
    """The first address of the range: the default `kubernetes` Service's."""
    return str(service_cidr().network_address + 1)


def dns_ip() -> str:
    """Cluster DNS, the tenth address (kubeadm's clusterDNS, the kubelet's resolv.conf nameserver)."""
    return str(service_cidr().network_address + 10)


def _stored(cluster_id: int, skip: tuple[str, str]) -> list[dict]:
    bodies = ApiObject.objects.filter(cluster_id=cluster_id, kind="Service").values_list(
        "namespace", "name", "body"
    )
    return [
        body if isinstance(body, dict) else json.loads(body)
        for ns, name, body in bodies
        if (ns, name) != skip
    ]


def _used(services: list[dict], key: tuple[str, str]) -> tuple[set[str], set[int]]:
    ips: set[str] = {dns_ip()}
    if key != ("default", "kubernetes"):
        ips.add(kubernetes_ip())
    ports: set[int] = set()
    for service in services:
        spec = service.get("spec") or {}
        ips.update(ip for ip in spec.get("clusterIPs") or [spec.get("clusterIP")] if ip and ip != NONE)
        ports.update(
            p["nodePort"] for p in spec.get("ports") or [] if isinstance(p, dict) and p.get("nodePort")
        )
    return ips, ports


def _invalid_ip(name: str, ip: str, why: str) -> ApiError:
    message = f'Invalid value: []string{{"{ip}"}}: failed to allocate IP {ip}: {why}'
    return invalid(kind_info("Service"), name, [Cause("FieldValueInvalid", "spec.clusterIPs", message)])


def _next_ip(used: set[str]) -> str | None:
    network = service_cidr()
    first, last = int(network.network_address) + 1, int(network.broadcast_address) - 1
    for _ in range(_RANDOM_TRIES):
        candidate = str(ipaddress.ip_address(random.randint(first, last)))
        if candidate not in used:
            return candidate
    for value in range(first, last + 1):  # nearly full: look at every address
        candidate = str(ipaddress.ip_address(value))
        if candidate not in used:
            return candidate
    return None


def _cluster_ip(name: str, spec: dict, used: set[str]) -> None:
    wanted = spec.get("clusterIP")
    if wanted == NONE:
        spec["clusterIPs"] = [NONE]
        return
    if wanted:
        if ipaddress.ip_address(wanted) not in service_cidr():
            why = (
                f"the provided IP ({wanted}) is not in the valid range. "
                f"The range of valid IPs is {service_cidr()}"
            )
            raise _invalid_ip(name, wanted, why)
        if wanted in used:
            raise _invalid_ip(name, wanted, "provided IP is already allocated")
        ip = wanted
    else:
        ip = _next_ip(used)
        if ip is None:
            raise ApiError(
                500,
                "InternalError",
                "Internal error occurred: failed to allocate a serviceIP: range is full",
                {"causes": [{"message": "failed to allocate a serviceIP: range is full"}]},
            )
    spec["clusterIP"], spec["clusterIPs"] = ip, [ip]


def _node_ports(name: str, spec: dict, used: set[int], kept: set[int]) -> None:
    ports = spec.get("ports") or []
    if len(ports) > MAX_NODE_PORTS_PER_SERVICE:
        message = f"Too many: {len(ports)}: must have at most {MAX_NODE_PORTS_PER_SERVICE} items"
        raise invalid(kind_info("Service"), name, [Cause("FieldValueTooMany", "spec.ports", message)])
    causes = []
    for i, port in enumerate(ports):
        wanted = port.get("nodePort")
        if wanted:
            if wanted not in NODE_PORTS:
                message = (
                    f"Invalid value: {wanted}: provided port is not in the valid range. "
                    f"The range of valid ports is {NODE_PORT_RANGE}"
                )
                causes.append(Cause("FieldValueInvalid", f"spec.ports[{i}].nodePort", message))
            elif wanted in used and wanted not in kept:
                message = f"Invalid value: {wanted}: provided port is already allocated"
                causes.append(Cause("FieldValueInvalid", f"spec.ports[{i}].nodePort", message))
            used.add(wanted)
            continue
        free = [p for p in NODE_PORTS if p not in used]
        if not free:
            raise ApiError(
                500,
                "InternalError",
                "Internal error occurred: failed to allocate a nodePort: range is full",
                {"causes": [{"message": "failed to allocate a nodePort: range is full"}]},
            )
        port["nodePort"] = random.choice(free)
        used.add(port["nodePort"])
    if causes:
        raise invalid(kind_info("Service"), name, causes)


def admit(cluster, verb: str, kind: str, body: dict, actor) -> None:
    """Give a new or changed Service its clusterIP and node ports (a kept one stays its own)."""
    if kind != "Service" or verb not in ("create", "update", "patch"):
        return
    meta, spec = body["metadata"], body.get("spec")
    if not isinstance(spec, dict) or spec.get("type") == "ExternalName":
        return
    key = (meta.get("namespace", ""), meta["name"])
    old = None
    if verb != "create":
        row = rows.find(cluster.pk, "Service", *key)
        old = row.body.get("spec") or {} if row is not None else None
    used_ips, used_ports = _used(_stored(cluster.pk, key), key)
    if old is not None and old.get("clusterIP"):
        # An update keeps what was allocated (patchAllocatedValues): it may leave them out.
        spec.setdefault("clusterIP", old["clusterIP"])
        spec["clusterIPs"] = old.get("clusterIPs") or [old["clusterIP"]]
    else:
        _cluster_ip(meta["name"], spec, used_ips)
    kept: set[int] = set()
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        before = {
            (p.get("port"), p.get("protocol")): p.get("nodePort") for p in (old or {}).get("ports") or []
        }
        for port in spec.get("ports") or []:
            previous = before.get((port.get("port"), port.get("protocol")))
            if previous and not port.get("nodePort"):
                port["nodePort"] = previous
            if port.get("nodePort") == previous:
                kept.add(previous)
        _node_ports(meta["name"], spec, used_ports, kept)
    else:
        for port in spec.get("ports") or []:
            port.pop("nodePort", None)


def install() -> None:
    chain.register(admit)
