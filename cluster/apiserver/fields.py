"""fieldSelector: `metadata.name=web,spec.nodeName!=,status.phase==Running` (fields.ParseSelector)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from cluster.apiserver.errors import bad_request
from cluster.apiserver.kinds import kind_info

_COMMON = ("metadata.name", "metadata.namespace")
# Each kind's own field labels are its registry entry's field_selectors.
# Fields that are indexed columns of ApiObject, per kind.
_COLUMNS = {"metadata.name": "name", "metadata.namespace": "namespace"}
_POD_COLUMNS = {"spec.nodeName": "node_name", "status.phase": "phase"}


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    field: str
    equal: bool  # = and == versus !=
    value: str


def _split(text: str, sep: str) -> list[str]:
    """Split on `sep` not preceded by a backslash escape."""
    parts, current, escaped = [], "", False
    for char in text:
        if escaped:
            current += "\\" + char
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == sep:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def _unescape(value: str) -> str:
    out, escaped = "", False
    for char in value:
        if escaped:
            if char not in "\\,=":
                raise bad_request(f"invalid field selector: invalid escape sequence: \\{char}")
            out += char
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            out += char
    return out


def parse_field_selector(kind: str, text: str) -> list[FieldRequirement]:
    result = []
    for term in _split(text or "", ","):
        if not term.strip():
            continue
        op = next((candidate for candidate in ("!=", "==", "=") if candidate in term), None)
        if op is None:
            raise bad_request(f"invalid selector: '{text}'; can't understand '{term}'")
        field, _, value = term.partition(op)
        field = field.strip()
        info = kind_info(kind)
        if field not in _COMMON and field not in (info.field_selectors if info else ()):
            raise bad_request(f"field label not supported: {field}")
        result.append(FieldRequirement(field, op != "!=", _unescape(value)))
    return result


def field_value(obj: dict, field: str) -> str:
    if field == "source":
        field = "source.component"
    value: object = obj
    for part in field.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def filter_fields(
    kind: str, queryset: QuerySet, requirements: list[FieldRequirement]
) -> tuple[QuerySet, list]:
    """Narrow `queryset` by indexed columns; returns it with the requirements left for Python."""
    columns = {**_COLUMNS, **(_POD_COLUMNS if kind == "Pod" else {})}
    rest = []
    for req in requirements:
        column = columns.get(req.field)
        if column is None:
            rest.append(req)
        elif req.equal:
            queryset = queryset.filter(**{column: req.value})
        else:
            queryset = queryset.exclude(**{column: req.value})
    return queryset, rest


def fields_match(requirements: list[FieldRequirement], obj: dict) -> bool:
    return all((field_value(obj, req.field) == req.value) == req.equal for req in requirements)
