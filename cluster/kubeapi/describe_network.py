"""`kubectl describe` of Services, Endpoints, EndpointSlices, ConfigMaps and Secrets, in
kubectl's layout (k8s.io/kubectl `pkg/describe/describe.go`). Map entries are printed in key order
(Go's map order is random; sorted is one of the orders kubectl may print)."""

from __future__ import annotations

from datetime import UTC, datetime

from cluster.kubeapi.describe import _with_events, events_of
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.tables_network import data_bytes
from cluster.kubeapi.tabwriter import tabwrite
from k8s.selectors import format_labels

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
_MAX = 3


def _head(obj: dict) -> list[str]:
    meta = obj.get("metadata") or {}
    return [
        f"Name:\t{meta.get('name', '')}",
        f"Namespace:\t{meta.get('namespace', '')}",
        *labels_multiline("Labels", meta.get("labels")),
        *annotations_multiline("Annotations", meta.get("annotations")),
    ]


def _ready(endpoint: dict) -> bool:
    ready = (endpoint.get("conditions") or {}).get("ready")
    return ready is None or bool(ready)


def format_endpoint_slices(slices: list[dict], port_name: str | None) -> str:
    """formatEndpointSlices: the ready endpoints of the slices, three at most, then "+ N more..."."""
    if not slices:
        return "<none>"
    shown: list[str] = []
    more, count = False, 0
    for eps in slices:
        ports = eps.get("ports") or []
        pairs = [(e, None) for e in eps.get("endpoints") or []] if not ports else []
        for port in ports:
            if port_name is None or (port.get("name") or "") == port_name:
                pairs += [(e, port) for e in eps.get("endpoints") or []]
        for endpoint, port in pairs:
            if len(shown) == _MAX:
                more = True
            if not _ready(endpoint):
                continue
            if not more:
                address = (endpoint.get("addresses") or [""])[0]
                shown.append(address if port is None else f"{address}:{port.get('port')}")
            count += 1
    text = ",".join(shown)
    return f"{text} + {count - _MAX} more..." if more else text


def describe_service(service: dict, slices: list[dict], events: list[dict], now: datetime) -> str:
    spec = service.get("spec") or {}
    lines = _head(service)
    lines.append(f"Selector:\t{format_labels(spec.get('selector'))}")
    lines.append(f"Type:\t{spec.get('type', '')}")
    if spec.get("ipFamilyPolicy"):
        lines.append(f"IP Family Policy:\t{spec['ipFamilyPolicy']}")
    lines.append(f"IP Families:\t{','.join(spec.get('ipFamilies') or []) or '<none>'}")
    lines.append(f"IP:\t{spec.get('clusterIP', '')}")
    lines.append(f"IPs:\t{','.join(spec.get('clusterIPs') or []) or '<none>'}")
    if spec.get("externalIPs"):
        lines.append(f"External IPs:\t{','.join(spec['externalIPs'])}")
    if spec.get("externalName"):
        lines.append(f"External Name:\t{spec['externalName']}")
    for port in spec.get("ports") or []:
        name = port.get("name") or "<unset>"
        protocol = port.get("protocol", "TCP")
        lines.append(f"Port:\t{name}\t{port.get('port')}/{protocol}")
        lines.append(f"TargetPort:\t{port.get('targetPort')}/{protocol}")
        if port.get("nodePort"):
            lines.append(f"NodePort:\t{name}\t{port['nodePort']}/{protocol}")
        lines.append(f"Endpoints:\t{format_endpoint_slices(slices, port.get('name') or '')}")
    lines.append(f"Session Affinity:\t{spec.get('sessionAffinity', '')}")
    if spec.get("externalTrafficPolicy"):
        lines.append(f"External Traffic Policy:\t{spec['externalTrafficPolicy']}")
    if spec.get("internalTrafficPolicy"):
        lines.append(f"Internal Traffic Policy:\t{spec['internalTrafficPolicy']}")
    return _with_events(lines, events, now)


def describe_endpoints(endpoints: dict, events: list[dict], now: datetime) -> str:
    lines = [*_head(endpoints), "Subsets:"]
    for subset in endpoints.get("subsets") or []:
        ready = ",".join(a.get("ip", "") for a in subset.get("addresses") or []) or "<none>"
        not_ready = ",".join(a.get("ip", "") for a in subset.get("notReadyAddresses") or []) or "<none>"
        lines += [f"  Addresses:\t{ready}", f"  NotReadyAddresses:\t{not_ready}"]
        if subset.get("ports"):
            lines += ["  Ports:", "    Name\tPort\tProtocol", "    ----\t----\t--------"]
            for port in subset["ports"]:
                lines.append(
                    f"    {port.get('name') or '<unset>'}\t{port.get('port')}\t{port.get('protocol')}"
                )
        lines.append("")
    return _with_events(lines, events, now)


def describe_endpoint_slice(eps: dict, events: list[dict], now: datetime) -> str:
    lines = [*_head(eps), f"AddressType:\t{eps.get('addressType', '')}"]
    ports = eps.get("ports") or []
    if not ports:
        lines.append("Ports: <unset>")
    else:
        lines += ["Ports:", "  Name\tPort\tProtocol", "  ----\t----\t--------"]
        for port in ports:
            number = port.get("port")
            lines.append(
                f"  {port.get('name') or '<unset>'}\t{'<unset>' if number is None else number}"
                f"\t{port.get('protocol')}"
            )
    endpoints = eps.get("endpoints") or []
    if not endpoints:
        lines.append("Endpoints: <none>")
    else:
        lines.append("Endpoints:")
        for endpoint in endpoints:
            ready = (endpoint.get("conditions") or {}).get("ready")
            lines.append(f"  - Addresses:\t{', '.join(endpoint.get('addresses') or []) or '<none>'}")
            lines.append("    Conditions:")
            lines.append(f"      Ready:\t{'<unset>' if ready is None else str(bool(ready)).lower()}")
            lines.append(f"    Hostname:\t{endpoint.get('hostname') or '<unset>'}")
            ref = endpoint.get("targetRef")
            if ref:
                lines.append(f"    TargetRef:\t{ref.get('kind')}/{ref.get('name')}")
            lines.append(f"    NodeName:\t{endpoint.get('nodeName') or '<unset>'}")
            lines.append(f"    Zone:\t{endpoint.get('zone') or '<unset>'}")
    return _with_events(lines, events, now)


def describe_config_map(config_map: dict, events: list[dict], now: datetime) -> str:
    lines = [*_head(config_map), "", "Data", "===="]
    for key, value in sorted((config_map.get("data") or {}).items()):
        lines += [f"{key}:", "----", str(value), ""]
    lines += ["", "BinaryData", "===="]
    for key, value in sorted((config_map.get("binaryData") or {}).items()):
        lines.append(f"{key}: {data_bytes(value)} bytes")
    lines.append("")
    return _with_events(lines, events, now)


def describe_secret(secret: dict) -> str:
    """Values are never shown: their sizes in bytes (a service-account token excepted)."""
    lines = [*_head(secret), "", f"Type:\t{secret.get('type', '')}", "", "Data", "===="]
    for key, value in sorted((secret.get("data") or {}).items()):
        lines.append(f"{key}:\t{data_bytes(value)} bytes")
    return tabwrite("\n".join(lines) + "\n")


def _describe(read, kind: str, namespace: str, name: str) -> str:
    obj = read.get(kind, namespace, name)
    now = datetime.now(UTC)
    if kind == "Secret":
        return describe_secret(obj)
    events = events_of(read.cluster, obj)
    if kind == "Service":
        slices = [
            s
            for s in read.list("EndpointSlice", namespace)
            if ((s.get("metadata") or {}).get("labels") or {}).get(SERVICE_NAME_LABEL) == name
        ]
        return describe_service(obj, slices, events, now)
    if kind == "Endpoints":
        return describe_endpoints(obj, events, now)
    if kind == "EndpointSlice":
        return describe_endpoint_slice(obj, events, now)
    return describe_config_map(obj, events, now)


def describer(kind: str):
    """The registry's describe hook of one of these kinds."""

    def describe_hook(read, namespace: str, name: str) -> str:
        return _describe(read, kind, namespace, name)

    describe_hook.__name__ = f"describe_{kind.lower()}"
    return describe_hook
