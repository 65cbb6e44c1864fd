"""ConfigMaps (core/v1, `configmaps`, short name `cm`): validation (upstream
`pkg/apis/core/validation` ValidateConfigMap), the printer's columns and `kubectl describe cm`;
the data-key and size rules Secrets share."""

from __future__ import annotations

import base64
import re
from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import BuiltinObjects, KindInfo
from cluster.auth.tls import root_ca_pem
from cluster.kinds.core import everynamespace
from cluster.kubeapi.describe import events_of, object_head, with_events
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock

_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
CONFIG_KEY_MSG = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
    "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)
MAX_SIZE = 1024 * 1024  # the total of a ConfigMap's or Secret's values (etcd's request limit)
IMMUTABLE = "field is immutable when `immutable` is set"
# The CA bundle every namespace holds (upstream's root-ca-cert-publisher): the API server's CA,
# what a pod's projected service account volume mounts as ca.crt.
ROOT_CA = "kube-root-ca.crt"


def config_key_errors(key: str) -> list[str]:
    """validation.IsConfigMapKey."""
    errors = []
    if len(key) > 253:
        errors.append("must be no more than 253 characters")
    if not _CONFIG_KEY.fullmatch(key):
        errors.append(CONFIG_KEY_MSG)
    if key == ".":
        errors.append("must not be '.'")
    elif key == "..":
        errors.append("must not be '..'")
    elif key.startswith(".."):
        errors.append("must not start with '..'")
    return errors


def defaults(obj: dict) -> None:
    """No SetDefaults for ConfigMap: the server fills nothing in."""


def data_keys(errors: FieldErrors, field: str, data: object) -> int:
    """Check a data map's keys; the total size of its values."""
    if data is None:
        return 0
    if not isinstance(data, dict):
        errors.type_error(field, data, "a map of string keys to string values")
        return 0
    size = 0
    for key, value in data.items():
        for message in config_key_errors(str(key)):
            errors.invalid(f"{field}[{key}]", key, message)
        size += len(value) if isinstance(value, str) else 0
    return size


def immutable(errors: FieldErrors, obj: dict, old: dict | None, fields: tuple[str, ...]) -> None:
    if old is None or old.get("immutable") is not True:
        return
    if obj.get("immutable") is not True:
        errors.forbidden("immutable", IMMUTABLE)
    for field in fields:
        if (obj.get(field) or {}) != (old.get(field) or {}):
            errors.forbidden(field, IMMUTABLE)


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    immutable(errors, obj, old, ("data", "binaryData"))
    size = data_keys(errors, "data", obj.get("data"))
    size += data_keys(errors, "binaryData", obj.get("binaryData"))
    data, binary = obj.get("data") or {}, obj.get("binaryData") or {}
    if isinstance(data, dict) and isinstance(binary, dict):
        for key in binary:
            if key in data:
                errors.invalid(f"binaryData[{key}]", key, "duplicate of key present in data")
    if size > MAX_SIZE:
        errors.too_long("", MAX_SIZE)


# -- kubectl get ----------------------------------------------------------------------------------
def _row(obj: dict, now: datetime) -> list:
    count = len(obj.get("data") or {}) + len(obj.get("binaryData") or {})
    return [obj["metadata"]["name"], count, age(obj, now)]


TABLE = TableSpec((NAME_COLUMN, ("Data", "integer", "", 0), AGE_COLUMN), _row)


# -- kubectl describe -----------------------------------------------------------------------------
def data_bytes(value: str) -> int:
    """The length of a base64 value once decoded."""
    try:
        return len(base64.b64decode(value))
    except ValueError:
        return 0


def describe_config_map(config_map: dict, events: list[dict], now: datetime) -> str:
    lines = [*object_head(config_map), "", "Data", "===="]
    for key, value in sorted((config_map.get("data") or {}).items()):
        lines += [f"{key}:", "----", str(value), ""]
    lines += ["", "BinaryData", "===="]
    for key, value in sorted((config_map.get("binaryData") or {}).items()):
        lines.append(f"{key}: {data_bytes(value)} bytes")
    lines.append("")
    return with_events(lines, events, now)


def describe(read, namespace: str, name: str) -> str:
    config_map = read.get("ConfigMap", namespace, name)
    return describe_config_map(config_map, events_of(read, config_map), clock.now())


def root_ca(cluster, namespace: str, name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            **everynamespace.metadata(cluster, "ConfigMap", namespace, name),
            "annotations": {"kubernetes.io/description": _ROOT_CA_DESCRIPTION},
        },
        "data": {"ca.crt": root_ca_pem()},
    }


_ROOT_CA_DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
    "such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
    "distributions of Kubernetes clusters."
)


KIND = KindInfo(
    kind="ConfigMap",
    plural="configmaps",
    singular="configmap",
    group="",
    version="v1",
    namespaced=True,
    short_names=("cm",),
    reset_rank=45,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=BuiltinObjects(
        build=root_ca,
        stored_on_write=True,
        in_every_namespace=ROOT_CA,
        namespaces=everynamespace.namespaces,
    ),
)
