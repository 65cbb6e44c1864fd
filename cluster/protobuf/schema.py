"""Message descriptors built at import time from the field tables in cluster/protobuf/groups/.

One FileDescriptorProto per proto package (proto2, as upstream's generated.proto files are), added
to a private DescriptorPool in dependency order; the `protobuf` package then parses the wire format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import ModuleType

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from cluster.protobuf.groups import (
    apps_v1,
    authentication_v1,
    authorization_v1,
    autoscaling_v1,
    autoscaling_v2,
    batch_v1,
    coordination_v1,
    core_v1,
    discovery_v1,
    intstr,
    meta_v1,
    policy_v1,
    rbac_v1,
    resource,
    runtime,
    scheduling_v1,
    storage_v1,
)

_SCALAR_TYPES = {
    "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    "bytes": descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
    "bool": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    "int32": descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
    "int64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    "uint32": descriptor_pb2.FieldDescriptorProto.TYPE_UINT32,
    "uint64": descriptor_pb2.FieldDescriptorProto.TYPE_UINT64,
    "sint32": descriptor_pb2.FieldDescriptorProto.TYPE_SINT32,
    "sint64": descriptor_pb2.FieldDescriptorProto.TYPE_SINT64,
    "double": descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE,
    "float": descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT,
}
_OPTIONAL = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
_REPEATED = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
_MESSAGE = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
_MAP = re.compile(r"^map<([\w.]+),([\w.]+)>$")

META = "k8s.io.apimachinery.pkg.apis.meta.v1"
# Option kinds every group version registers (metav1.AddToGroupVersion), whatever the apiVersion.
OPTION_KINDS = ("DeleteOptions", "CreateOptions")


@dataclass(frozen=True, slots=True)
class Field:
    number: int
    name: str
    type: str  # a scalar name, or a message's full proto name
    repeated: bool
    pointer: bool  # a Go pointer: present on the wire means present in JSON, even when zero
    omitempty: bool
    inline: bool
    map_value: str = ""  # for map<string, V>: V (scalar or full message name)


# Every proto package's table (cluster/protobuf/generate.py writes them): a new package is added
# here too (docs/protobuf.md).
GROUPS: tuple[ModuleType, ...] = (
    apps_v1,
    authentication_v1,
    authorization_v1,
    autoscaling_v1,
    autoscaling_v2,
    batch_v1,
    coordination_v1,
    core_v1,
    discovery_v1,
    intstr,
    meta_v1,
    policy_v1,
    rbac_v1,
    resource,
    runtime,
    scheduling_v1,
    storage_v1,
)


def _full(package: str, typ: str) -> str:
    return typ if typ in _SCALAR_TYPES or "." in typ else f"{package}.{typ}"


def _fields(package: str, table: tuple) -> tuple[Field, ...]:
    fields = []
    for number, name, typ, flags in table:
        mapped = _MAP.match(typ)
        fields.append(
            Field(
                number,
                name,
                "map" if mapped else _full(package, typ),
                "r" in flags,
                "*" in flags,
                "o" in flags,
                "i" in flags,
                _full(package, mapped.group(2)) if mapped else "",
            )
        )
    return tuple(fields)


def _entry_name(field: str) -> str:
    return field[0].upper() + field[1:] + "Entry"


def _type_ref(typ: str) -> str:
    return "." + typ


def _file(module: ModuleType, fields: dict[str, tuple[Field, ...]]) -> descriptor_pb2.FileDescriptorProto:
    package = module.PACKAGE
    proto = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto2")
    deps: set[str] = set()
    for name in module.MESSAGES:
        message = proto.message_type.add(name=name)
        for f in fields[f"{package}.{name}"]:
            field = message.field.add(
                name=f.name, number=f.number, label=_REPEATED if f.repeated else _OPTIONAL
            )
            if f.type == "map":
                entry = message.nested_type.add(name=_entry_name(f.name))
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, label=_OPTIONAL, type=_SCALAR_TYPES["string"])
                value = entry.field.add(name="value", number=2, label=_OPTIONAL)
                _set_type(value, f.map_value, package, deps)
                field.label = _REPEATED
                field.type = _MESSAGE
                field.type_name = f".{package}.{name}.{entry.name}"
            else:
                _set_type(field, f.type, package, deps)
    proto.dependency.extend(sorted(deps))
    return proto


def _set_type(field, typ: str, package: str, deps: set[str]) -> None:
    if typ in _SCALAR_TYPES:
        field.type = _SCALAR_TYPES[typ]
        return
    field.type = _MESSAGE
    field.type_name = _type_ref(typ)
    owner = typ.rsplit(".", 1)[0]
    if owner != package:
        deps.add(f"{owner}.proto")


def _build() -> tuple[descriptor_pool.DescriptorPool, dict, dict]:
    modules = GROUPS
    fields = {
        f"{m.PACKAGE}.{name}": _fields(m.PACKAGE, table)
        for m in modules
        for name, table in m.MESSAGES.items()
    }
    files = {f"{m.PACKAGE}.proto": _file(m, fields) for m in modules}
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(name: str) -> None:
        if name in added:
            return
        added.add(name)
        for dep in files[name].dependency:
            add(dep)
        pool.Add(files[name])

    for name in files:
        add(name)
    kinds = {}
    for m in modules:
        for kind in m.KINDS:
            if m.GROUP_VERSION:
                kinds[(m.GROUP_VERSION, kind)] = f"{m.PACKAGE}.{kind}"
    return pool, fields, kinds


POOL, FIELDS, KINDS = _build()
_CLASSES: dict[str, type] = {}


def message_class(full_name: str) -> type:
    """The generated Python class for a message, e.g. "k8s.io.api.apps.v1.Deployment"."""
    cls = _CLASSES.get(full_name)
    if cls is None:
        cls = _CLASSES[full_name] = message_factory.GetMessageClass(POOL.FindMessageTypeByName(full_name))
    return cls


def message_for(api_version: str, kind: str) -> str | None:
    """The full message name for an envelope's apiVersion and kind, or None when not registered."""
    if kind in OPTION_KINDS and api_version:
        return f"{META}.{kind}"
    return KINDS.get((api_version, kind))
