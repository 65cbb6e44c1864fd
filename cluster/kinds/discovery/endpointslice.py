"""EndpointSlices (discovery.k8s.io/v1, `endpointslices`): defaults and validation (upstream
`pkg/apis/discovery/validation`), the printer's columns and `kubectl describe endpointslice`. The
`kubernetes` Service's slice exists in every cluster (`cluster/kinds/core/defaultservice.py`)."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.kinds.core import defaultservice
from cluster.kinds.core.endpoints import ports_defaults, validate_ip, validate_port
from cluster.kubeapi.describe import events_of, object_head, with_events
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock

ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")
_MAX = 3  # the printers show three endpoints, then "+ N more..."


def defaults(obj: dict) -> None:
    ports_defaults(obj.get("ports"))


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
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
                validate_ip(errors, f"endpoints[{i}].addresses[{j}]", address)
    for i, port in enumerate(obj.get("ports") or []):
        if isinstance(port, dict):
            validate_port(errors, f"ports[{i}]", port)


# -- kubectl get ----------------------------------------------------------------------------------
def _more(items: list[str], count: int) -> str:
    """listWithMoreString."""
    text = ",".join(items[:_MAX])
    if count > _MAX:
        return f"{text} + {count - _MAX} more..."
    return text or "<unset>"


def _row(obj: dict, now: datetime) -> list:
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


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("AddressType", "string", "", 0),
        ("Ports", "string", "", 0),
        ("Endpoints", "string", "", 0),
        AGE_COLUMN,
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_endpoint_slice(eps: dict, events: list[dict], now: datetime) -> str:
    lines = [*object_head(eps), f"AddressType:\t{eps.get('addressType', '')}"]
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
    return with_events(lines, events, now)


def describe(read, namespace: str, name: str) -> str:
    eps = read.get("EndpointSlice", namespace, name)
    return describe_endpoint_slice(eps, events_of(read, eps), clock.now())


KIND = KindInfo(
    kind="EndpointSlice",
    plural="endpointslices",
    singular="endpointslice",
    group="discovery.k8s.io",
    version="v1",
    namespaced=True,
    reset_rank=37,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=defaultservice.builtin_objects("EndpointSlice"),
)
