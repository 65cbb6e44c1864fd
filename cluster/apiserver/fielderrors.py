"""Field errors worded as k8s.io/apimachinery/pkg/util/validation/field does."""

from __future__ import annotations

import json
import re

from cluster.apiserver.errors import Cause

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
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", re.ASCII)
QUALIFIED_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
LABEL_VALUE_MSG = "a valid label must be an empty string or " + QUALIFIED_NAME_MSG.replace("must ", "", 1)
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

    def invalid_shown(self, path: str, shown: str, detail: str) -> None:
        """Invalid, the value already printed as Go prints it (`[]core.ResourceQuotaScope{...}`)."""
        self.causes.append(Cause("FieldValueInvalid", path, f"Invalid value: {shown}: {detail}"))

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

    def label_key(self, path: str, key: object, lowercase: bool = False) -> None:
        """ValidateLabelName (IsQualifiedName); annotations check the key lowercased, as upstream."""
        if not isinstance(key, str):
            self.invalid(path, key, "must be a string")
            return
        for message in qualified_name_errors(key.lower() if lowercase else key):
            self.invalid(path, key, message)

    def label_value(self, path: str, value: object) -> None:
        if not isinstance(value, str):
            self.invalid(path, value, "must be a string")
            return
        for message in label_value_errors(value):
            self.invalid(path, value, message)

    def labels(self, path: str, labels: object) -> None:
        """metav1validation.ValidateLabels: every key a qualified name, every value a label value."""
        if labels is None:
            return
        if not isinstance(labels, dict):
            self.type_error(path, labels, "a map of string keys to string values")
            return
        for key, value in labels.items():
            self.label_key(path, key)
            self.label_value(path, value)

    def too_long(self, path: str, limit: int) -> None:
        self.causes.append(Cause("FieldValueTooLong", path, f"Too long: may not be more than {limit} bytes"))


def qualified_name_errors(value: str) -> list[str]:
    """validation.IsQualifiedName: an optional DNS-subdomain prefix and '/', then a name part."""
    parts = value.split("/")
    errors: list[str] = []
    if len(parts) > 2:
        return [
            "a qualified name "
            + QUALIFIED_NAME_MSG
            + _KEY_NAME_EXAMPLES
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend("prefix part " + message for message in dns_subdomain_errors(prefix))
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part must be no more than 63 characters")
    if not _QUALIFIED_NAME.fullmatch(name):
        errors.append("name part " + QUALIFIED_NAME_MSG + _KEY_NAME_EXAMPLES)
    return errors


def dns_subdomain_errors(value: str) -> list[str]:
    errors = []
    if len(value) > 253:
        errors.append("must be no more than 253 characters")
    if not _DNS_SUBDOMAIN.fullmatch(value):
        errors.append(DNS_SUBDOMAIN_MSG)
    return errors


def label_value_errors(value: str) -> list[str]:
    """validation.IsValidLabelValue (an empty value is valid)."""
    errors = []
    if len(value) > 63:
        errors.append("must be no more than 63 characters")
    if value and not _QUALIFIED_NAME.fullmatch(value):
        errors.append(LABEL_VALUE_MSG + _VALUE_EXAMPLES)
    return errors
