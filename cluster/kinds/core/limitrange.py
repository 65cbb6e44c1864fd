"""LimitRanges (core/v1, `limitranges`, short name `limits`): SetDefaults_LimitRangeItem,
ValidateLimitRange, the default table (NAME, CREATED AT: upstream prints no LimitRange columns),
`kubectl describe limitrange` (describeLimitRange) and the namespace describer's "Resource Limits"
section (DescribeLimitRanges), v1.33.

The LimitRanger admission plugin applies them to new pods (cluster/apiserver/admission/limitranger.py).
"""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors, qualified_name_errors
from cluster.apiserver.kinds import KindInfo
from cluster.kubeapi.tables import NAME_COLUMN, TableSpec
from cluster.kubeapi.tabwriter import tabwrite
from k8s.quantity import QuantityError, format_quantity, parse_quantity

TYPES = ("Pod", "Container", "PersistentVolumeClaim")
FIELDS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")
NEGATIVE = "must be greater than or equal to 0"
HEADER = ("Type", "Resource", "Min", "Max", "Default Request", "Default Limit", "Max Limit/Request Ratio")


def _items(obj: dict) -> list[dict]:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    limits = spec.get("limits")
    return [item for item in limits if isinstance(item, dict)] if isinstance(limits, list) else []


def defaults(obj: dict) -> None:
    """SetDefaults_LimitRangeItem: a Container item's default limit is its max, its default
    request the default limit, else the min."""
    for item in _items(obj):
        if item.get("type") != "Container":
            continue
        default = dict(item.get("default") or {})
        request = dict(item.get("defaultRequest") or {})
        for name, value in (item.get("max") or {}).items():
            default.setdefault(name, value)
        for name, value in default.items():
            request.setdefault(name, value)
        for name, value in (item.get("min") or {}).items():
            request.setdefault(name, value)
        if default:
            item["default"] = default
        if request:
            item["defaultRequest"] = request


def _amount(value: object):
    try:
        return parse_quantity(value)  # type: ignore[arg-type]
    except (QuantityError, TypeError):
        return None


def _validate_item(errors: FieldErrors, path: str, item: dict) -> None:
    kind = item.get("type")
    if not isinstance(kind, str) or not kind:
        errors.required(f"{path}.type")
    else:
        messages = qualified_name_errors(kind)
        for message in messages:
            errors.invalid(f"{path}.type", kind, message)
        if not messages and "/" not in kind and kind not in TYPES:
            errors.invalid(f"{path}.type", kind, "must be a standard limit type or fully qualified")
    values = {field: item.get(field) if isinstance(item.get(field), dict) else {} for field in FIELDS}
    if kind == "Pod":
        for field in ("default", "defaultRequest"):
            if values[field]:
                errors.forbidden(f"{path}.{field}", "may not be specified when `type` is 'Pod'")
    names = sorted({name for field in FIELDS for name in values[field]})
    for name in names:
        low, high = _amount(values["min"].get(name)), _amount(values["max"].get(name))
        default, request = _amount(values["default"].get(name)), _amount(values["defaultRequest"].get(name))
        ratio = _amount(values["maxLimitRequestRatio"].get(name))
        shown = {field: format_quantity(values[field].get(name)) for field in FIELDS}
        if low is not None and high is not None and low > high:
            errors.invalid(
                f"{path}.min[{name}]",
                shown["min"],
                f"min value {shown['min']} is greater than max value {shown['max']}",
            )
        if request is not None and low is not None and low > request:
            errors.invalid(
                f"{path}.defaultRequest[{name}]",
                shown["defaultRequest"],
                f"min value {shown['min']} is greater than default request value {shown['defaultRequest']}",
            )
        if request is not None and high is not None and request > high:
            errors.invalid(
                f"{path}.defaultRequest[{name}]",
                shown["defaultRequest"],
                f"default request value {shown['defaultRequest']} is greater than max value {shown['max']}",
            )
        if request is not None and default is not None and request > default:
            errors.invalid(
                f"{path}.defaultRequest[{name}]",
                shown["defaultRequest"],
                f"default request value {shown['defaultRequest']} is greater than default limit value "
                f"{shown['default']}",
            )
        if default is not None and low is not None and low > default:
            errors.invalid(
                f"{path}.default[{name}]",
                shown["min"],
                f"min value {shown['min']} is greater than default value {shown['default']}",
            )
        if default is not None and high is not None and default > high:
            errors.invalid(
                f"{path}.default[{name}]",
                shown["max"],
                f"default value {shown['default']} is greater than max value {shown['max']}",
            )
        if ratio is not None and ratio < 1:
            errors.invalid(
                f"{path}.maxLimitRequestRatio[{name}]",
                shown["maxLimitRequestRatio"],
                f"ratio {shown['maxLimitRequestRatio']} is less than 1",
            )
        if ratio is not None and low and high is not None and ratio > high / low:
            errors.invalid(
                f"{path}.maxLimitRequestRatio[{name}]",
                shown["maxLimitRequestRatio"],
                f"ratio {shown['maxLimitRequestRatio']} is greater than max/min = {float(high / low):f}",
            )
    for field in FIELDS:
        for name, value in values[field].items():
            amount = _amount(value)
            if amount is not None and amount < 0:
                errors.invalid(f"{path}.{field}[{name}]", format_quantity(value), NEGATIVE)


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    seen = set()
    for i, item in enumerate(_items(obj)):
        path = f"spec.limits[{i}]"
        if item.get("type") in seen:
            errors.duplicate(f"{path}.type", item.get("type"))
        seen.add(item.get("type"))
        _validate_item(errors, path, item)


# -- kubectl get: no printer upstream, the default table convertor --------------------------------
def _row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], obj["metadata"].get("creationTimestamp", "")]


TABLE = TableSpec((NAME_COLUMN, ("Created At", "date", "", 0)), _row)


# -- kubectl describe -----------------------------------------------------------------------------
def spec_rows(limit_range: dict, prefix: str) -> list[str]:
    """describeLimitRangeSpec: one row per item and resource (kubectl walks a Go map, in no
    order; KubeSim sorts by resource name), `-` for what the item leaves out."""
    rows = []
    for item in _items(limit_range):
        values = {field: item.get(field) if isinstance(item.get(field), dict) else {} for field in FIELDS}
        for name in sorted({name for field in FIELDS for name in values[field]}):
            cells = [
                format_quantity(values[field][name]) if name in values[field] else "-"
                for field in ("min", "max", "defaultRequest", "default", "maxLimitRequestRatio")
            ]
            rows.append(f"{prefix}{item.get('type', '')}\t{name}\t" + "\t".join(cells))
    return rows


def limits_section(limit_ranges: list[dict]) -> list[str]:
    """DescribeLimitRanges: the namespace describer's part (before tabwrite)."""
    if not limit_ranges:
        return ["No LimitRange resource."]
    lines = ["Resource Limits", " " + "\t".join(HEADER), " " + "\t".join("-" * len(h) for h in HEADER)]
    for limit_range in limit_ranges:
        lines += spec_rows(limit_range, " ")
    return lines


def describe_limit_range(limit_range: dict) -> str:
    meta = limit_range.get("metadata") or {}
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines += ["\t".join(HEADER), "\t".join("-" * len(h) for h in HEADER)]
    lines += spec_rows(limit_range, "")
    return tabwrite("\n".join(lines) + "\n")


def describe(read, namespace: str, name: str) -> str:
    return describe_limit_range(read.get("LimitRange", namespace, name))


KIND = KindInfo(
    kind="LimitRange",
    plural="limitranges",
    singular="limitrange",
    group="",
    version="v1",
    namespaced=True,
    short_names=("limits",),
    reset_rank=20,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)
