"""Endpoints (v1) and EndpointSlice (discovery.k8s.io/v1): defaults and validation (upstream
`pkg/apis/core/validation` ValidateEndpoints, `pkg/apis/discovery/validation`)."""

from __future__ import annotations

import ipaddress

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.servicekind import PORT_RANGE_MSG, PROTOCOLS

ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")


def _ports_defaults(ports: object) -> None:
    for port in ports if isinstance(ports, list) else ():
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")


def _endpoints_defaults(obj: dict) -> None:
    for subset in obj.get("subsets") or []:
        if isinstance(subset, dict):
            _ports_defaults(subset.get("ports"))


def _slice_defaults(obj: dict) -> None:
    _ports_defaults(obj.get("ports"))


def _ip(errors: FieldErrors, path: str, value: object) -> None:
    try:
        ipaddress.ip_address(value)  # type: ignore[arg-type]
    except ValueError:
        errors.invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")


def _port(errors: FieldErrors, path: str, port: dict) -> None:
    number = port.get("port")
    if number is not None and (not isinstance(number, int) or not 1 <= number <= 65535):
        errors.invalid(f"{path}.port", number, PORT_RANGE_MSG)
    if port.get("protocol", "TCP") not in PROTOCOLS:
        errors.not_supported(f"{path}.protocol", port.get("protocol"), PROTOCOLS)


def _endpoints(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    for i, subset in enumerate(obj.get("subsets") or []):
        if not isinstance(subset, dict):
            errors.type_error(f"subsets[{i}]", subset, "an object")
            continue
        for field in ("addresses", "notReadyAddresses"):
            for j, address in enumerate(subset.get(field) or []):
                _ip(errors, f"subsets[{i}].{field}[{j}].ip", (address or {}).get("ip"))
        for j, port in enumerate(subset.get("ports") or []):
            if isinstance(port, dict):
                _port(errors, f"subsets[{i}].ports[{j}]", port)


def _slice(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    kind = obj.get("addressType")
    if not kind:
        errors.required("addressType")
    elif kind not in ADDRESS_TYPES:
        errors.not_supported("addressType", kind, ADDRESS_TYPES)
    elif old is not None and kind != old.get("addressType"):
        errors.invalid("addressType", kind, "field is immutable")
    for i, endpoint in enumerate(obj.get("endpoints") or []):
        addresses = (endpoint or {}).get("addresses") if isinstance(endpoint, dict) else None
        if not addresses:
            errors.required(f"endpoints[{i}].addresses")
            continue
        if kind in ("IPv4", "IPv6"):
            for j, address in enumerate(addresses):
                _ip(errors, f"endpoints[{i}].addresses[{j}]", address)
    for i, port in enumerate(obj.get("ports") or []):
        if isinstance(port, dict):
            _port(errors, f"ports[{i}]", port)


ENDPOINTS_DEFAULTS = _endpoints_defaults
SLICE_DEFAULTS = _slice_defaults
ENDPOINTS = _endpoints
SLICE = _slice
