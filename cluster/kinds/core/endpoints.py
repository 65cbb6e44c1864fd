"""Endpoints (core/v1, `endpoints`, short name `ep`): defaults and validation (upstream
`pkg/apis/core/validation` ValidateEndpoints), the printer's columns and `kubectl describe ep`;
the address and port rules EndpointSlices share. The `kubernetes` Service's Endpoints exist in
every cluster (`defaultservice.py`)."""

from __future__ import annotations

import ipaddress
from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.kinds.core import defaultservice
from cluster.kinds.core.service import PORT_RANGE_MSG, PROTOCOLS
from cluster.kubeapi.describe import events_of, object_head, with_events
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock


def ports_defaults(ports: object) -> None:
    for port in ports if isinstance(ports, list) else ():
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")


def defaults(obj: dict) -> None:
    for subset in obj.get("subsets") or []:
        if isinstance(subset, dict):
            ports_defaults(subset.get("ports"))


def validate_ip(errors: FieldErrors, path: str, value: object) -> None:
    try:
        ipaddress.ip_address(value)  # type: ignore[arg-type]
    except ValueError:
        errors.invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")


def validate_port(errors: FieldErrors, path: str, port: dict) -> None:
    number = port.get("port")
    if number is not None and (not isinstance(number, int) or not 1 <= number <= 65535):
        errors.invalid(f"{path}.port", number, PORT_RANGE_MSG)
    if port.get("protocol", "TCP") not in PROTOCOLS:
        errors.not_supported(f"{path}.protocol", port.get("protocol"), PROTOCOLS)


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    for i, subset in enumerate(obj.get("subsets") or []):
        if not isinstance(subset, dict):
            errors.type_error(f"subsets[{i}]", subset, "an object")
            continue
        for field in ("addresses", "notReadyAddresses"):
            for j, address in enumerate(subset.get(field) or []):
                validate_ip(errors, f"subsets[{i}].{field}[{j}].ip", (address or {}).get("ip"))
        for j, port in enumerate(subset.get("ports") or []):
            if isinstance(port, dict):
                validate_port(errors, f"subsets[{i}].ports[{j}]", port)


# -- kubectl get ----------------------------------------------------------------------------------
_MAX = 3  # the printers show three endpoints, then "+ N more..."


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


def _row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], format_endpoints(obj), age(obj, now)]


TABLE = TableSpec((NAME_COLUMN, ("Endpoints", "string", "", 0), AGE_COLUMN), _row)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_endpoints(endpoints: dict, events: list[dict], now: datetime) -> str:
    lines = [*object_head(endpoints), "Subsets:"]
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
    return with_events(lines, events, now)


def describe(read, namespace: str, name: str) -> str:
    endpoints = read.get("Endpoints", namespace, name)
    return describe_endpoints(endpoints, events_of(read, endpoints), clock.now())


KIND = KindInfo(
    kind="Endpoints",
    plural="endpoints",
    singular="endpoints",
    group="",
    version="v1",
    namespaced=True,
    short_names=("ep",),
    reset_rank=36,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=defaultservice.builtin_objects("Endpoints"),
)
