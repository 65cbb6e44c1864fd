"""Services (core/v1, `services`, short name `svc`): defaults and validation (upstream
`pkg/apis/core/v1/defaults.go` SetDefaults_Service, `pkg/apis/core/validation` ValidateService /
ValidateServiceUpdate), the printer's columns, `kubectl describe service`, and the `kubernetes`
Service every cluster has (`defaultservice.py`).

ClusterIPs and node ports are not chosen here: the allocator (`serviceips.py`) assigns them inside
the write's transaction, where it can see every other Service of the cluster.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import datetime

from cluster.apiserver.fielderrors import DNS_LABEL_MSG, FieldErrors
from cluster.apiserver.kinds import KindInfo, status_subresource
from cluster.kinds.core import defaultservice
from cluster.kinds.core.serviceips import NONE
from cluster.kubeapi.describe import events_of, object_head, with_events
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock
from k8s.labels import format_labels

TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
PROTOCOLS = ("SCTP", "TCP", "UDP")
PORT_RANGE_MSG = "must be between 1 and 65535, inclusive"
_IANA_NAME = re.compile(r"[-a-z0-9]+")


def defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    spec.setdefault("type", "ClusterIP")
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    for port in spec.get("ports") or []:
        if not isinstance(port, dict):
            continue
        port.setdefault("protocol", "TCP")
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port")
    kind = spec["type"]
    if kind in ("NodePort", "LoadBalancer"):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    if kind != "ExternalName":
        spec.setdefault("internalTrafficPolicy", "Cluster")
        if spec.get("clusterIP"):
            spec.setdefault("clusterIPs", [spec["clusterIP"]])
        if spec.get("clusterIP") != NONE or spec.get("selector"):
            spec.setdefault("ipFamilyPolicy", "SingleStack")
            spec.setdefault("ipFamilies", ["IPv4"])
    if kind == "LoadBalancer":
        spec.setdefault("allocateLoadBalancerNodePorts", True)
    status = obj.setdefault("status", {})
    if isinstance(status, dict):
        status.setdefault("loadBalancer", {})


def _port_number(errors: FieldErrors, path: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 65535:
        errors.invalid(path, value, PORT_RANGE_MSG)


def _target_port(errors: FieldErrors, path: str, value: object) -> None:
    """An IntOrString: a port number or an IANA service name (validation.IsValidPortName)."""
    if isinstance(value, int) and not isinstance(value, bool):
        _port_number(errors, path, value)
        return
    if not isinstance(value, str):
        errors.invalid(path, value, "must be an integer or a string")
        return
    if len(value) > 15:
        errors.invalid(path, value, "must be no more than 15 characters")
    if not _IANA_NAME.fullmatch(value):
        errors.invalid(path, value, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search("[a-z]", value):
        errors.invalid(path, value, "must contain at least one letter (a-z)")
    if "--" in value:
        errors.invalid(path, value, "must not contain consecutive hyphens")
    if value.startswith("-") or value.endswith("-"):
        errors.invalid(path, value, "must not begin or end with a hyphen")


def _ports(errors: FieldErrors, spec: dict) -> None:
    ports = spec.get("ports")
    kind = spec.get("type", "ClusterIP")
    if not ports:
        if kind != "ExternalName" and spec.get("clusterIP") != NONE:
            errors.required("spec.ports")
        return
    if not isinstance(ports, list):
        errors.type_error("spec.ports", ports, "a list")
        return
    names: set[str] = set()
    seen: set[tuple] = set()
    for i, port in enumerate(ports):
        where = f"spec.ports[{i}]"
        if not isinstance(port, dict):
            errors.type_error(where, port, "an object")
            continue
        name = port.get("name") or ""
        if len(ports) > 1 and not name:
            errors.required(f"{where}.name")
        elif name:
            if len(name) > 63:
                errors.invalid(f"{where}.name", name, "must be no more than 63 characters")
            if not re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name):
                errors.invalid(f"{where}.name", name, DNS_LABEL_MSG)
            if name in names:
                errors.duplicate(f"{where}.name", name)
            names.add(name)
        _port_number(errors, f"{where}.port", port.get("port", 0))
        protocol = port.get("protocol", "TCP")
        if protocol not in PROTOCOLS:
            errors.not_supported(f"{where}.protocol", protocol, PROTOCOLS)
        if port.get("targetPort") is not None:
            _target_port(errors, f"{where}.targetPort", port["targetPort"])
        node_port = port.get("nodePort")
        if node_port and kind in ("ClusterIP", "ExternalName"):
            errors.forbidden(f"{where}.nodePort", f"may not be used when `type` is '{kind}'")
        key = (port.get("port"), protocol)
        if key in seen:
            errors.duplicate(where, f"{key[0]}/{key[1]}")
        seen.add(key)


def _cluster_ip(errors: FieldErrors, spec: dict, old: dict | None) -> None:
    ip = spec.get("clusterIP")
    if ip in (None, ""):
        return
    if ip == NONE:
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            errors.invalid("spec.clusterIPs[0]", ip, f"may not be set to 'None' for {spec['type']} services")
        return
    try:
        ipaddress.ip_address(ip)
    except ValueError:
        message = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
        errors.invalid("spec.clusterIPs[0]", ip, message)
        return
    before = ((old or {}).get("spec") or {}).get("clusterIP")
    if old is not None and before and before != ip:
        errors.invalid("spec.clusterIPs[0]", ip, "may not change once set")


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.required("spec")
        return
    kind = spec.get("type", "ClusterIP")
    if kind not in TYPES:
        errors.not_supported("spec.type", kind, TYPES)
        return
    if kind == "ExternalName":
        if not spec.get("externalName"):
            errors.required("spec.externalName")
        elif isinstance(spec["externalName"], str):
            errors.dns_subdomain("spec.externalName", spec["externalName"])
    _ports(errors, spec)
    errors.labels("spec.selector", spec.get("selector"))
    if spec.get("sessionAffinity") not in (None, "None", "ClientIP"):
        errors.not_supported("spec.sessionAffinity", spec["sessionAffinity"], ("ClientIP", "None"))
    _cluster_ip(errors, spec, old)


# -- kubectl get ----------------------------------------------------------------------------------
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


def _row(obj: dict, now: datetime) -> list:
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


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Type", "string", "", 0),
        ("Cluster-IP", "string", "", 0),
        ("External-IP", "string", "", 0),
        ("Port(s)", "string", "", 0),
        AGE_COLUMN,
        ("Selector", "string", "", 1),
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
SERVICE_NAME_LABEL = "kubernetes.io/service-name"  # an EndpointSlice's Service
_MAX = 3  # kubectl shows three endpoints, then "+ N more..."


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
    lines = object_head(service)
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
    return with_events(lines, events, now)


def describe(read, namespace: str, name: str) -> str:
    service = read.get("Service", namespace, name)
    slices = [
        s
        for s in read.list("EndpointSlice", namespace)
        if ((s.get("metadata") or {}).get("labels") or {}).get(SERVICE_NAME_LABEL) == name
    ]
    return describe_service(service, slices, events_of(read, service), clock.now())


KIND = KindInfo(
    kind="Service",
    plural="services",
    singular="service",
    group="",
    version="v1",
    namespaced=True,
    short_names=("svc",),
    categories=("all",),
    subresources=(status_subresource("Service"),),
    verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
    field_selectors=("spec.clusterIP", "spec.type"),
    reset_rank=35,  # before the endpoints its controller keeps
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=defaultservice.builtin_objects("Service"),
)
