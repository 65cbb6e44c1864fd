"""Service: defaults and validation (upstream `pkg/apis/core/v1/defaults.go` SetDefaults_Service,
`pkg/apis/core/validation` ValidateService / ValidateServiceUpdate).

ClusterIPs and node ports are not chosen here: the allocator (`serviceips.py`) assigns them inside
the write's transaction, where it can see every other Service of the cluster.
"""

from __future__ import annotations

import ipaddress
import re

from cluster.apiserver.fielderrors import DNS_LABEL_MSG, FieldErrors

TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
PROTOCOLS = ("SCTP", "TCP", "UDP")
NONE = "None"  # clusterIP of a headless Service
PORT_RANGE_MSG = "must be between 1 and 65535, inclusive"
_IANA_NAME = re.compile(r"[-a-z0-9]+")


def is_headless(service: dict) -> bool:
    return ((service.get("spec") or {}).get("clusterIP")) == NONE


def _defaults(obj: dict) -> None:
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


def _validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
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


DEFAULTS = _defaults
VALIDATE = _validate
