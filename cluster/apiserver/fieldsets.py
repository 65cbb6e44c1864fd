"""Field sets of objects, as server-side apply's structured-merge-diff computes them.

A set is a Python set of paths; a path is a tuple of elements written as FieldsV1 writes them:
`f:spec` (a field), `k:{"name":"web"}` (a keyed list item), `v:"a"` (a set's value), `i:0` (an
index). `to_set` is what an applied configuration claims (ToFieldSet); `compare` is what a write
added, removed and modified (Compare): both walk the kind's upstream schema, as the merge does, so
lists merge by their keys, atomic lists and maps count as one field and sets by their values.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache

from cluster.openapi import definitions
from cluster.protobuf import schema as proto

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Type:
    form: str  # scalar | struct | map | list | deduced
    name: str = ""  # a struct's definition
    element: Type | None = None  # a map's values, a list's items
    atomic: bool = False
    keys: tuple[str, ...] = ()  # an associative list's keys
    is_set: bool = False  # a list of scalars merged by value


SCALAR = Type("scalar")
DEDUCED = Type("deduced")


@dataclass(slots=True)
class Comparison:
    added: set[Path] = field(default_factory=set)
    removed: set[Path] = field(default_factory=set)
    modified: set[Path] = field(default_factory=set)


def _type(prop: dict) -> Type:
    ref = prop.get("$ref", "")
    if ref:
        name = ref[len(definitions.REF_PREFIX) :]
        if name in definitions.SCALARS:
            return SCALAR
        target = definitions.DEFINITIONS.get(name, {})
        if not target.get("properties"):
            return DEDUCED
        atomic = "atomic" in (target.get("x-kubernetes-map-type"), prop.get("x-kubernetes-map-type"))
        return Type("struct", name, atomic=atomic)
    kind = prop.get("type")
    if kind == "array":
        element = _type(prop.get("items") or {})
        list_type = prop.get("x-kubernetes-list-type")
        keys = tuple(prop.get("x-kubernetes-list-map-keys") or ())
        if list_type is None and "merge" in prop.get("x-kubernetes-patch-strategy", "").split(","):
            # As kube-openapi's schema conversion: a merge key makes a map, none a set.
            key = prop.get("x-kubernetes-patch-merge-key")
            list_type, keys = ("map", (key,)) if key else ("set", ())
        if list_type == "map" and keys:
            return Type("list", element=element, keys=keys)
        if list_type == "set":
            return Type("list", element=element, is_set=True)
        return Type("list", element=element, atomic=True)
    if kind == "object":
        extra = prop.get("additionalProperties")
        if isinstance(extra, dict):
            return Type("map", element=_type(extra), atomic=prop.get("x-kubernetes-map-type") == "atomic")
        return DEDUCED
    return SCALAR


@cache
def _fields(name: str) -> dict[str, Type]:
    props = definitions.DEFINITIONS.get(name, {}).get("properties") or {}
    return {key: _type(prop) for key, prop in props.items()}


@cache
def _zero_fields(name: str) -> dict[str, object]:
    """The fields Go's zero object of a struct holds: a value (not pointer) struct as an empty
    object, any other field without omitempty as null. A write that fills one of them adds its
    fields or its value, never the field itself (no `.` in its entry)."""
    message = "k8s.io." + name.removeprefix("io.k8s.") if name.startswith("io.k8s.") else ""
    table = _proto_fields().get(message)
    if table is None:
        return {}
    kinds = _fields(name)
    out: dict[str, object] = {}
    for key, flags in table.items():
        if kinds.get(key, SCALAR).form == "struct" and "*" not in flags and "r" not in flags:
            out[key] = {}
        elif "o" not in flags:
            out[key] = None
    return out


@cache
def _omitted_when_zero(name: str) -> frozenset[str]:
    """The scalar fields Go leaves out of an object when they hold their zero value (omitempty,
    not a pointer): a stored `minReadySeconds: 0` is, to the field manager, no field at all."""
    message = "k8s.io." + name.removeprefix("io.k8s.") if name.startswith("io.k8s.") else ""
    kinds = _fields(name)
    return frozenset(
        key
        for key, flags in _proto_fields().get(message, {}).items()
        if "o" in flags and "*" not in flags and "r" not in flags and kinds.get(key) is SCALAR
    )


def _zero_scalar(value: object) -> bool:
    return isinstance(value, bool | int | float | str) and not value


@cache
def _proto_fields() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for module in proto.GROUPS:
        for message, table in module.MESSAGES.items():
            out[f"{module.PACKAGE}.{message}"] = {row[1]: row[3] for row in table}
    return out


def type_of(kind: str, version: str | None = None) -> Type:
    """The schema a kind's objects are walked with; a kind upstream does not define is deduced."""
    name = definitions.of_kind(kind, version)
    return Type("struct", name) if name else DEDUCED


def _key_element(item: object, keys: tuple[str, ...]) -> str:
    values = {k: item[k] for k in sorted(keys) if k in item} if isinstance(item, dict) else {}
    return "k:" + json.dumps(values, separators=(",", ":"), ensure_ascii=False)


def _value_element(item: object) -> str:
    return "v:" + json.dumps(item, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _items(kind: Type, items: list) -> dict[str, object]:
    """A granular list's items by their path element."""
    if kind.keys:
        return {_key_element(item, kind.keys): item for item in items}
    if kind.is_set:
        return {_value_element(item): item for item in items}
    return {f"i:{index}": item for index, item in enumerate(items)}


def _child(kind: Type, key: str) -> tuple[Type, bool]:
    """A map's or struct's child type, and whether it is a declared struct field."""
    if kind.form == "struct":
        found = _fields(kind.name).get(key)
        return (found, True) if found is not None else (DEDUCED, False)
    if kind.form == "map" and kind.element is not None:
        return kind.element, False
    return DEDUCED, False


def to_set(kind: Type, value: object, path: Path = (), out: set[Path] | None = None) -> set[Path]:
    """Every field a value sets (an applied configuration's claim), as ToFieldSet."""
    out = set() if out is None else out
    if isinstance(value, dict) and kind.form in ("struct", "map", "deduced"):
        if kind.atomic:
            out.add(path)
            return out
        for key, child in value.items():
            child_type, declared = _child(kind, key)
            child_path = (*path, "f:" + key)
            to_set(child_type, child, child_path, out)
            if child is None or child == {} or not declared:
                out.add(child_path)
    elif isinstance(value, list) and kind.form == "list" and not kind.atomic:
        for element, item in _items(kind, value).items():
            item_path = (*path, element)
            to_set(kind.element or DEDUCED, item, item_path, out)
            out.add(item_path)
    else:
        out.add(path)
    return out


_MISSING = object()


def compare(kind: Type, old: object, new: object) -> Comparison:
    """What changed from `old` to `new` (either may be None: no object), as Compare. A create
    compares with Go's zero object: pass `{}`."""
    result = Comparison()
    _compare(kind, _MISSING if old is None else old, _MISSING if new is None else new, (), result)
    return result


def _leaf(old: object, new: object, path: Path, result: Comparison) -> None:
    if old is _MISSING:
        result.added.add(path)
    elif new is _MISSING:
        result.removed.add(path)
    elif old != new or type(old) is not type(new):
        result.modified.add(path)


def _empty(value: object) -> bool:
    return value is _MISSING or value is None or value == {} or value == []


def _compare(kind: Type, old: object, new: object, path: Path, result: Comparison) -> None:
    if old is _MISSING and new is _MISSING:
        return
    if isinstance(old, dict) or isinstance(new, dict):
        walk = kind.form in ("struct", "map", "deduced") and not kind.atomic
    elif isinstance(old, list) or isinstance(new, list):
        walk = kind.form == "list" and not kind.atomic
    else:
        walk = False
    if not walk or (_empty(old) and _empty(new)):
        _leaf(old, new, path, result)
        return
    if isinstance(old, list) or isinstance(new, list):
        olds = _items(kind, old) if isinstance(old, list) else {}
        news = _items(kind, new) if isinstance(new, list) else {}
        element_type = kind.element or DEDUCED
        for element in olds.keys() | news.keys():
            before, after = olds.get(element, _MISSING), news.get(element, _MISSING)
            _compare(element_type, before, after, (*path, element), result)
    else:
        olds = old if isinstance(old, dict) else {}
        news = new if isinstance(new, dict) else {}
        zero = _zero_fields(kind.name) if kind.form == "struct" else {}
        omitted = _omitted_when_zero(kind.name) if kind.form == "struct" else frozenset()
        for key in olds.keys() | news.keys():
            child_type, _ = _child(kind, key)
            before, after = olds.get(key, _MISSING), news.get(key, _MISSING)
            if key in omitted:
                before = _MISSING if _zero_scalar(before) else before
                after = _MISSING if _zero_scalar(after) else after
            if key in zero:  # never absent from a Go object that exists: its zero value at worst
                before = zero[key] if before is _MISSING and isinstance(old, dict) else before
                after = zero[key] if after is _MISSING and isinstance(new, dict) else after
            _compare(child_type, before, after, (*path, "f:" + key), result)
    if path and old is _MISSING:
        result.added.add(path)
    elif path and new is _MISSING:
        result.removed.add(path)


def without(paths: set[Path], prefixes: tuple[Path, ...], exact: frozenset[Path]) -> set[Path]:
    """The paths that are neither one of `exact` nor under one of `prefixes`."""
    return {p for p in paths if p not in exact and not any(p[: len(x)] == x for x in prefixes)}


def encode(paths: set[Path]) -> dict:
    """A set as FieldsV1's JSON: nested objects, `.` marking a path that has children too."""
    tree: dict = {}
    for path in paths:
        node = tree
        for element in path:
            node = node.setdefault(element, {})
        node["."] = {}
    return _sorted(tree)


def _sorted(node: dict) -> dict:
    children = {k: _sorted(v) for k, v in sorted(node.items()) if k != "."}
    if not children:
        return {}
    return {".": {}, **children} if "." in node else children


def decode(fields: object, path: Path = ()) -> set[Path]:
    """FieldsV1's JSON back to a set (an empty object is a member)."""
    out: set[Path] = set()
    if not isinstance(fields, dict):
        return out
    if not fields and path:
        out.add(path)
    for key, child in fields.items():
        if key == ".":
            out.add(path)
        else:
            out |= decode(child, (*path, key))
    return out


def path_text(path: Path) -> str:
    """A path as the conflict message prints it: `.spec.containers[name="web"].image`."""
    parts = []
    for element in path:
        tag, text = element[:2], element[2:]
        if tag == "f:":
            parts.append("." + text)
        elif tag == "k:":
            keys = json.loads(text)
            parts.append("[" + ",".join(f"{k}={_go_text(v)}" for k, v in keys.items()) + "]")
        elif tag == "v:":
            parts.append(f"[={_go_text(json.loads(text))}]")
        else:
            parts.append(f"[{text}]")
    return "".join(parts)


def _go_text(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def remove(obj: dict, kind: Type, path: Path) -> bool:
    """Remove one path's field or item from an object; whether it was there."""
    if not path:
        return False
    parent = find(obj, kind, path[:-1])
    element = path[-1]
    if isinstance(parent, dict) and element.startswith("f:"):
        return parent.pop(element[2:], _MISSING) is not _MISSING
    if isinstance(parent, list):
        list_type = _type_at(kind, path[:-1])
        items = _items(list_type, parent)
        if element in items:
            parent.remove(items[element])
            return True
    return False


def find(obj: object, kind: Type, path: Path) -> object:
    node: object = obj
    for element in path:
        if isinstance(node, dict) and element.startswith("f:"):
            node, kind = node.get(element[2:]), _child(kind, element[2:])[0]
        elif isinstance(node, list):
            node, kind = _items(kind, node).get(element), kind.element or DEDUCED
        else:
            return None
    return node


def _type_at(kind: Type, path: Path) -> Type:
    for element in path:
        kind = _child(kind, element[2:])[0] if element.startswith("f:") else kind.element or DEDUCED
    return kind
