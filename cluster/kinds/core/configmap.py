"""ConfigMap and Secret: their defaults and validation (upstream `pkg/apis/core/validation`,
`pkg/registry/core/secret/strategy.go`).

A Secret's `stringData` is folded into `data` (base64) on every write, as the API server does, so
the stored object never carries `stringData`.
"""

from __future__ import annotations

import base64
import binascii
import re

from cluster.apiserver.fielderrors import FieldErrors

_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
CONFIG_KEY_MSG = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
    "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)
MAX_SIZE = 1024 * 1024  # the total of a ConfigMap's or Secret's values (etcd's request limit)
IMMUTABLE = "field is immutable when `immutable` is set"
OPAQUE = "Opaque"


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


def decoded(value: object) -> bytes | None:
    """A Secret data value (base64 text) as bytes; None when it is not valid base64."""
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def _config_map_defaults(obj: dict) -> None:
    """No SetDefaults for ConfigMap: the server fills nothing in."""


def _secret_defaults(obj: dict) -> None:
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


def _keys(errors: FieldErrors, field: str, data: object) -> int:
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


def _immutable(errors: FieldErrors, obj: dict, old: dict | None, fields: tuple[str, ...]) -> None:
    if old is None or old.get("immutable") is not True:
        return
    if obj.get("immutable") is not True:
        errors.forbidden("immutable", IMMUTABLE)
    for field in fields:
        if (obj.get(field) or {}) != (old.get(field) or {}):
            errors.forbidden(field, IMMUTABLE)


def _config_map(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    _immutable(errors, obj, old, ("data", "binaryData"))
    size = _keys(errors, "data", obj.get("data"))
    size += _keys(errors, "binaryData", obj.get("binaryData"))
    data, binary = obj.get("data") or {}, obj.get("binaryData") or {}
    if isinstance(data, dict) and isinstance(binary, dict):
        for key in binary:
            if key in data:
                errors.invalid(f"binaryData[{key}]", key, "duplicate of key present in data")
    if size > MAX_SIZE:
        errors.too_long("", MAX_SIZE)


def _secret(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    if old is not None and obj.get("type") != old.get("type"):
        errors.invalid("type", obj.get("type"), "field is immutable")
    _immutable(errors, obj, old, ("data",))
    data = obj.get("data")
    _keys(errors, "data", data)
    if isinstance(data, dict):
        size = sum(len(decoded(v) or b"") for v in data.values())
        if size > MAX_SIZE:
            errors.too_long("data", MAX_SIZE)


def bad_base64(obj: dict) -> str | None:
    """Go's decoder error for a Secret whose data is not base64 (before any validation)."""
    for value in (obj.get("data") or {}).values() if isinstance(obj.get("data"), dict) else ():
        if isinstance(value, str) and decoded(value) is None:
            index = _first_bad_byte(value)
            return f"illegal base64 data at input byte {index}"
    return None


def _first_bad_byte(value: str) -> int:
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    for i, char in enumerate(value):
        if char not in alphabet:
            return i
    return len(value) - len(value) % 4


CONFIG_MAP_DEFAULTS = _config_map_defaults
SECRET_DEFAULTS = _secret_defaults
CONFIG_MAP = _config_map
SECRET = _secret
