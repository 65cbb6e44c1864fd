"""Secrets (core/v1, `secrets`): defaults and validation (upstream
`pkg/registry/core/secret/strategy.go`, ValidateSecret), the printer's columns and `kubectl describe
secret`, which never shows a value.

A Secret's `stringData` is folded into `data` (base64) on every write, as the API server does, so
the stored object never carries `stringData`.
"""

from __future__ import annotations

import base64
from datetime import datetime

from cluster.apiserver.decoding import decoded
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.kinds.core.configmap import MAX_SIZE, data_bytes, data_keys, immutable
from cluster.kubeapi.describe import object_head
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from cluster.kubeapi.tabwriter import tabwrite

OPAQUE = "Opaque"


def defaults(obj: dict) -> None:
    obj.setdefault("type", OPAQUE)
    if not obj.get("type"):
        obj["type"] = OPAQUE
    string_data = obj.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = obj.get("data")
        if not isinstance(data, dict):
            data = obj["data"] = {}
        for key, value in string_data.items():
            if isinstance(value, str):
                data[key] = base64.b64encode(value.encode()).decode()


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    if old is not None and obj.get("type") != old.get("type"):
        errors.invalid("type", obj.get("type"), "field is immutable")
    immutable(errors, obj, old, ("data",))
    data = obj.get("data")
    data_keys(errors, "data", data)
    if isinstance(data, dict):
        size = sum(len(decoded(v) or b"") for v in data.values())
        if size > MAX_SIZE:
            errors.too_long("data", MAX_SIZE)


# -- kubectl get ----------------------------------------------------------------------------------
def _row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], obj.get("type", ""), len(obj.get("data") or {}), age(obj, now)]


TABLE = TableSpec((NAME_COLUMN, ("Type", "string", "", 0), ("Data", "integer", "", 0), AGE_COLUMN), _row)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_secret(secret: dict) -> str:
    """Values are never shown: their sizes in bytes (a service-account token excepted)."""
    lines = [*object_head(secret), "", f"Type:\t{secret.get('type', '')}", "", "Data", "===="]
    for key, value in sorted((secret.get("data") or {}).items()):
        lines.append(f"{key}:\t{data_bytes(value)} bytes")
    return tabwrite("\n".join(lines) + "\n")


def describe(read, namespace: str, name: str) -> str:
    return describe_secret(read.get("Secret", namespace, name))


KIND = KindInfo(
    kind="Secret",
    plural="secrets",
    singular="secret",
    group="",
    version="v1",
    namespaced=True,
    field_selectors=("type",),
    reset_rank=45,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)
