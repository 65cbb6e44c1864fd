"""Tables of Services, Endpoints, EndpointSlices, ConfigMaps and Secrets, as the v1.33 API
server's printers compute them (`pkg/printers/internalversion/printers.go`)."""

from __future__ import annotations

import base64
from datetime import datetime

from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s.selectors import format_labels

_MAX = 3  # the printers show three endpoints, then "+ N more..."


def port_string(ports: list) -> str:
    """makePortString: 80/TCP, 80:30080/TCP, joined by commas."""
    pieces = []
    for port in ports or []:
        protocol = port.get("protocol", "TCP")
        if port.get("nodePort"):
            pieces.append(f"{port.get('port')}:{port['nodePort']}/{protocol}")
        else:
            pieces.append(f"{port.get('port')}/{protocol}")
    return ",".join(pieces)


def external_ip(service: dict) -> str:
    """getServiceExternalIP."""
    spec = service.get("spec") or {}
    kind = spec.get("type", "ClusterIP")
    external = spec.get("externalIPs") or []
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else "<none>"
    if kind == "LoadBalancer":
        ingress = ((service.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        ips = [i.get("ip") or i.get("hostname") or "" for i in ingress]
        found = ",".join([*ips, *external])
        return found or "<pending>"
    if kind == "ExternalName":
        return spec.get("externalName", "")
    return "<unknown>"


def _service_row(obj: dict, now: datetime) -> list:
    spec = obj.get("spec") or {}
    return [
        obj["metadata"]["name"],
        spec.get("type", "ClusterIP"),
        spec.get("clusterIP") or "<none>",
        external_ip(obj),
        port_string(spec.get("ports") or []) or "<none>",
        age(obj, now),
        format_labels(spec.get("selector")),
    ]


def format_endpoints(endpoints: dict) -> str:
    """formatEndpoints: ready addresses with their ports; <none> when there is no subset."""
    subsets = endpoints.get("subsets") or []
    if not subsets:
        return "<none>"
    shown: list[str] = []
    count = 0
    for subset in subsets:
        addresses = [a.get("ip", "") for a in subset.get("addresses") or []]
        ports = subset.get("ports") or []
        for port in ports or [None]:
            count += len(addresses)
            for ip in addresses:
                if len(shown) == _MAX:
                    break
                shown.append(ip if port is None else f"{ip}:{port.get('port')}")
    text = ",".join(shown)
    return f"{text} + {count - _MAX} more..." if count > _MAX else text


def _more(items: list[str], count: int) -> str:
    """listWithMoreString."""
    text = ",".join(items[:_MAX])
    if count > _MAX:
        return f"{text} + {count - _MAX} more..."
    return text or "<unset>"


def _endpoints_row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], format_endpoints(obj), age(obj, now)]


def _slice_row(obj: dict, now: datetime) -> list:
    ports = obj.get("ports") or []
    port_texts = [str(p["port"]) if p.get("port") is not None else p.get("name") or "*" for p in ports]
    addresses = [a for e in obj.get("endpoints") or [] for a in e.get("addresses") or []]
    return [
        obj["metadata"]["name"],
        obj.get("addressType", ""),
        _more(port_texts, len(port_texts)),
        _more(addresses, len(addresses)),
        age(obj, now),
    ]


def _config_map_row(obj: dict, now: datetime) -> list:
    count = len(obj.get("data") or {}) + len(obj.get("binaryData") or {})
    return [obj["metadata"]["name"], count, age(obj, now)]


def _secret_row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], obj.get("type", ""), len(obj.get("data") or {}), age(obj, now)]


def data_bytes(value: str) -> int:
    """The length of a Secret's base64 value once decoded."""
    try:
        return len(base64.b64decode(value))
    except ValueError:
        return 0


SERVICE = TableSpec(
    (
        NAME_COLUMN,
        ("Type", "string", "", 0),
        ("Cluster-IP", "string", "", 0),
        ("External-IP", "string", "", 0),
        ("Port(s)", "string", "", 0),
        AGE_COLUMN,
        ("Selector", "string", "", 1),
    ),
    _service_row,
)
ENDPOINTS = TableSpec((NAME_COLUMN, ("Endpoints", "string", "", 0), AGE_COLUMN), _endpoints_row)
ENDPOINT_SLICE = TableSpec(
    (
        NAME_COLUMN,
        ("AddressType", "string", "", 0),
        ("Ports", "string", "", 0),
        ("Endpoints", "string", "", 0),
        AGE_COLUMN,
    ),
    _slice_row,
)
CONFIG_MAP = TableSpec((NAME_COLUMN, ("Data", "integer", "", 0), AGE_COLUMN), _config_map_row)
SECRET = TableSpec(
    (NAME_COLUMN, ("Type", "string", "", 0), ("Data", "integer", "", 0), AGE_COLUMN), _secret_row
)
