"""Field errors worded as k8s.io/apimachinery/pkg/util/validation/field does."""

from __future__ import annotations

import json
import re

from cluster.apiserver.errors import Cause
from k8s.labels import label_key_error, label_value_error

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", re.ASCII)
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", re.ASCII)
DNS_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    r"validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_KEY_NAME_EXAMPLES = (
    " (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
_VALUE_EXAMPLES = (
    " (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def go_value(value: object) -> str:
    """The value as Go's %#v-ish formatting in field errors: strings quoted, maps as map[string]string{}."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        inner = ", ".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in sorted(value.items()))
        return "map[string]string{" + inner + "}"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class FieldErrors:
    """Collects causes while a validator walks an object."""

    def __init__(self) -> None:
        self.causes: list[Cause] = []

    def __bool__(self) -> bool:
        return bool(self.causes)

    def invalid(self, path: str, value: object, detail: str) -> None:
        self.causes.append(Cause("FieldValueInvalid", path, f"Invalid value: {go_value(value)}: {detail}"))

    def required(self, path: str, detail: str = "") -> None:
        message = f"Required value: {detail}" if detail else "Required value"
        self.causes.append(Cause("FieldValueRequired", path, message))

    def not_supported(self, path: str, value: object, supported: tuple[str, ...]) -> None:
        values = ", ".join(json.dumps(s) for s in supported)
        message = f"Unsupported value: {go_value(value)}: supported values: {values}"
        self.causes.append(Cause("FieldValueNotSupported", path, message))

    def duplicate(self, path: str, value: object) -> None:
        self.causes.append(Cause("FieldValueDuplicate", path, f"Duplicate value: {go_value(value)}"))

    def forbidden(self, path: str, detail: str) -> None:
        self.causes.append(Cause("FieldValueForbidden", path, f"Forbidden: {detail}"))

    def type_error(self, path: str, value: object, expected: str) -> bool:
        """Record that `value` is not of the expected JSON type; returns True so callers can bail out."""
        self.invalid(path, value, f"must be {expected}")
        return True

    # Names and labels -------------------------------------------------------------------------

    def dns_label(self, path: str, value: str) -> None:
        if len(value) > 63:
            self.invalid(path, value, "must be no more than 63 characters")
        if not _DNS_LABEL.fullmatch(value):
            self.invalid(path, value, DNS_LABEL_MSG)

    def dns_subdomain(self, path: str, value: str) -> None:
        if len(value) > 253:
            self.invalid(path, value, "must be no more than 253 characters")
        if not _DNS_SUBDOMAIN.fullmatch(value):
            self.invalid(path, value, DNS_SUBDOMAIN_MSG)

    def label_key(self, path: str, key: object) -> None:
        if not isinstance(key, str):
            self.invalid(path, key, "must be a string")
            return
        if err := label_key_error(key):
            if err.startswith("name part must consist"):
                err += _KEY_NAME_EXAMPLES
            elif err.startswith("prefix part must be a lowercase"):
                err = "prefix part " + DNS_SUBDOMAIN_MSG
            self.invalid(path, key, err)

    def labels(self, path: str, labels: object) -> None:
        """metav1validation.ValidateLabels: every key a qualified name, every value a label value."""
        if labels is None:
            return
        if not isinstance(labels, dict):
            self.type_error(path, labels, "a map of string keys to string values")
            return
        for key, value in labels.items():
            self.label_key(path, key)
            if not isinstance(value, str):
                self.invalid(path, value, "must be a string")
            elif err := label_value_error(value):
                self.invalid(path, value, err + (_VALUE_EXAMPLES if err.startswith("a valid label") else ""))
