"""Label keys, values and selectors, validated, matched and printed as k8s.io/apimachinery/pkg/labels
(and metav1.FormatLabelSelector) does."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", re.ASCII)
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", re.ASCII)
_INT64 = re.compile(r"[+-]?[0-9]+", re.ASCII)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class SelectorError(ValueError):
    """A requirement that Kubernetes refuses to parse."""


def label_key_error(key: str) -> str | None:
    """None when `key` is a valid qualified name, else the reason."""
    prefix, _, name = key.rpartition("/")
    if "/" in key and not prefix:
        return "prefix part must be non-empty"
    if prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        return "prefix part must be a lowercase RFC 1123 subdomain"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _NAME.fullmatch(name):
        return (
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
            "end with an alphanumeric character"
        )
    return None


def label_value_error(value: str) -> str | None:
    """None when `value` is a valid label value (empty is valid), else the reason."""
    if not isinstance(value, str):
        return "must be a string"
    if len(value) > 63:
        return "must be no more than 63 characters"
    if value and not _NAME.fullmatch(value):
        return (
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
            "'.', and must start and end with an alphanumeric character"
        )
    return None


def parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): strict digits, optional sign, 64-bit range."""
    if not isinstance(text, str) or not _INT64.fullmatch(text):
        return None
    number = int(text)
    return number if INT64_MIN <= number <= INT64_MAX else None


Matcher = Callable[[Mapping[str, str]], bool]


def requirement(key: str, operator: str, values: Sequence[str] | None) -> Matcher:
    """labels.NewRequirement plus Requirement.Matches; raises SelectorError when it would fail to parse.

    Pods stamped from one template repeat the same requirements, so the validated matcher is
    remembered (it is a pure function of its arguments).
    """
    try:
        return _cached_requirement(key, operator, tuple(values or ()))
    except TypeError:  # an unhashable key or value: YAML can produce anything
        return _requirement(key, operator, values)


@lru_cache(maxsize=4096, typed=True)
def _cached_requirement(key: str, operator: str, values: tuple) -> Matcher:
    return _requirement(key, operator, values)


def _requirement(key: str, operator: str, values: Sequence[str] | None) -> Matcher:
    values = list(values or [])
    if err := label_key_error(key):
        raise SelectorError(f"key {key!r}: {err}")
    if operator in ("In", "NotIn") and not values:
        raise SelectorError(f"{operator}: for 'in', 'notin' operators, values set can't be empty")
    if operator in ("Exists", "DoesNotExist") and values:
        raise SelectorError(f"{operator}: values set must be empty for exists and does not exist")
    if operator in ("Gt", "Lt"):
        if len(values) != 1:
            raise SelectorError(f"{operator}: for 'Gt', 'Lt' operators, exactly one value is required")
        if parse_int64(values[0]) is None:
            raise SelectorError(f"{operator}: for 'Gt', 'Lt' operators, the value must be an integer")
    for value in values:
        if err := label_value_error(value):
            raise SelectorError(f"value {value!r}: {err}")
    wanted = frozenset(values)
    if operator == "In" and len(values) == 1:
        (only,) = values  # matchLabels: the most common requirement, one dictionary lookup
        return lambda labels: labels.get(key) == only
    if operator == "In":
        return lambda labels: key in labels and labels[key] in wanted
    if operator == "NotIn":
        return lambda labels: key not in labels or labels[key] not in wanted
    if operator == "Exists":
        return lambda labels: key in labels
    if operator == "DoesNotExist":
        return lambda labels: key not in labels
    if operator in ("Gt", "Lt"):
        bound = parse_int64(values[0])
        greater = operator == "Gt"

        def compare(labels: Mapping[str, str]) -> bool:
            if key not in labels:
                return False
            number = parse_int64(labels[key])
            if number is None:
                return False
            return number > bound if greater else number < bound  # type: ignore[operator]

        return compare
    raise SelectorError(f"operator {operator!r} is not supported")


def all_of(matchers: Sequence[Matcher]) -> Matcher:
    matchers = tuple(matchers)
    if len(matchers) == 1:
        return matchers[0]
    if len(matchers) == 2:
        first, second = matchers
        return lambda labels: first(labels) and second(labels)
    return lambda labels: all(match(labels) for match in matchers)


def match_nothing(labels: Mapping[str, str]) -> bool:
    return False


def match_everything(labels: Mapping[str, str]) -> bool:
    return True


def label_selector(selector: dict | None) -> Matcher:
    """metav1.LabelSelectorAsSelector: nil selects nothing, {} selects everything."""
    if selector is None:
        return match_nothing
    matchers: list[Matcher] = []
    for key, value in sorted((selector.get("matchLabels") or {}).items()):
        matchers.append(requirement(key, "In", [value]))
    for expr in selector.get("matchExpressions") or []:
        operator = expr.get("operator")
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise SelectorError(f"{operator!r} is not a valid label selector operator")
        matchers.append(requirement(expr.get("key", ""), operator, expr.get("values")))
    if not matchers:
        return match_everything
    return all_of(matchers)


# -- printing (sorted by key, values sorted) ------------------------------------------------------
def format_labels(labels: dict | None, empty: str = "<none>") -> str:
    """labels.FormatLabels: "app=web,tier=front", or "<none>"."""
    if not labels:
        return empty
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def _printed_requirement(expr: dict) -> str:
    key, op = expr.get("key", ""), expr.get("operator", "")
    values = ",".join(sorted(expr.get("values") or []))
    return {
        "In": f"{key} in ({values})",
        "NotIn": f"{key} notin ({values})",
        "Exists": key,
        "DoesNotExist": f"!{key}",
    }.get(op, f"{key} {op} ({values})")


def format_label_selector(selector: dict | None, empty: str = "<none>") -> str:
    """metav1.FormatLabelSelector: "app=web,env in (a,b)", or `empty` for a nil/empty selector."""
    if not selector:
        return empty
    reqs = [(k, f"{k}={v}") for k, v in (selector.get("matchLabels") or {}).items()]
    reqs += [(e.get("key", ""), _printed_requirement(e)) for e in selector.get("matchExpressions") or []]
    text = ",".join(r for _, r in sorted(reqs, key=lambda kr: kr[0]))
    return text or empty
